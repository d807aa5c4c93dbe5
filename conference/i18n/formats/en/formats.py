# Django's English formats, but times on the 24-hour clock: "10:35", as the schedule prints them,
# and dates typed day first, "25/10/2026", as organizers in Europe type them (British English's
# input formats, which the site used before it spoke two languages).
from django.conf.locale.en_GB.formats import (  # noqa: F401
    DATE_INPUT_FORMATS,
    DATETIME_INPUT_FORMATS,
    FIRST_DAY_OF_WEEK,
)

TIME_FORMAT = "H:i"
# A moment as the admin prints it (a read-only field, an invitation's date, an upload's time):
# "7 Dec 2026, 01:42 CET", the 24-hour clock too, and the zone named, since a page shows the
# conference's zone or the server's (stock: "N j, Y, P", "Dec. 7, 2026, 1:42 a.m.").
DATETIME_FORMAT = "j M Y, H:i T"

"""Clock times in the visitor's active zone, with the abbreviation that was in force then.

Django's ``time:"T"`` prints nothing during the repeated hour when clocks go back, and that
is exactly when attendees need to know whether 02:30 is CEST or CET.
"""

import datetime

from django import template
from django.utils import timezone

from conference.timezones import clock_text

register = template.Library()


@register.filter
def clock(value: datetime.datetime | None, zone: datetime.tzinfo | None = None) -> str:
    """10:35, in ``zone`` or else the active zone"""
    return clock_text(timezone.localtime(value, zone)) if value else ""


@register.filter
def clock_zone(value: datetime.datetime | None, zone: datetime.tzinfo | None = None) -> str:
    """10:35 CEST"""
    if not value:
        return ""
    local = timezone.localtime(value, zone)
    return f"{clock_text(local)} {local.tzname()}"

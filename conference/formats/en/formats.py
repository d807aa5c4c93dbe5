# Django's English formats, but times on the 24-hour clock: "10:35", as the schedule prints them.
TIME_FORMAT = "H:i"

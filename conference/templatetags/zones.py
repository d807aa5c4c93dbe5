"""Clock times in the visitor's active zone, with the abbreviation that was in force then.

Django's ``time:"T"`` prints nothing during the repeated hour when clocks go back, and that
is exactly when attendees need to know whether 02:30 is CEST or CET.
"""

import datetime

from django import template
from django.utils import timezone

register = template.Library()


def hours_and_minutes(moment: datetime.datetime) -> str:
    """strftime("%H:%M"), four times faster: a schedule prints two thousand of them."""
    return f"{moment.hour:02d}:{moment.minute:02d}"


@register.filter
def clock(value: datetime.datetime | None, zone: datetime.tzinfo | None = None) -> str:
    """10:35, in ``zone`` or else the active zone"""
    return hours_and_minutes(timezone.localtime(value, zone)) if value else ""


@register.filter
def clock_zone(value: datetime.datetime | None, zone: datetime.tzinfo | None = None) -> str:
    """10:35 CEST"""
    if not value:
        return ""
    local = timezone.localtime(value, zone)
    return f"{hours_and_minutes(local)} {local.tzname()}"

"""The time zone a visitor reads the schedule in: ?tz=Area/City, then their cookie, then the conference's."""

import datetime
import zoneinfo
from functools import cache, lru_cache
from typing import NamedTuple

from django.utils import timezone

COOKIE_NAME = "tz"
COOKIE_MAX_AGE = 365 * 24 * 60 * 60


def clock_text(moment: datetime.datetime) -> str:
    """10:35: strftime("%H:%M"), four times faster; a schedule or an export prints thousands."""
    return f"{moment.hour:02d}:{moment.minute:02d}"


class TimeRange(NamedTuple):
    """A session's times as people read them, in one zone.

    “10:35–10:45 CEST”. When the clocks change in between, both ends carry their abbreviation
    (“01:30 CEST–02:30 CET” lasts 2 hours; with one abbreviation it reads as one). When it ends
    on a later day it says so: “23:30–00:30 CEST (+1 day)”.
    """

    start: str
    end: str
    later_day: str

    def __str__(self) -> str:
        return f"{self.start}–{self.end}{self.later_day}"


def time_range(
    starts_at: datetime.datetime, ends_at: datetime.datetime, zone: datetime.tzinfo | None = None
) -> TimeRange:
    start = timezone.localtime(starts_at, zone)
    end = timezone.localtime(ends_at, zone)
    start_zone, end_zone = start.tzname(), end.tzname()
    start_text = (
        clock_text(start) if start_zone == end_zone else f"{clock_text(start)} {start_zone}"
    )
    days = (end.date() - start.date()).days
    later_day = f" (+{days} day{'s' if days > 1 else ''})" if days else ""
    return TimeRange(start_text, f"{clock_text(end)} {end_zone}", later_day)


@cache
def known_zones() -> frozenset[str]:
    return frozenset(zoneinfo.available_timezones())


@cache
def sorted_zones() -> tuple[str, ...]:
    return tuple(sorted(known_zones()))


def zones_conference_first(conference_zone: str) -> list[str]:
    return [conference_zone, *(name for name in sorted_zones() if name != conference_zone)]


@lru_cache(maxsize=512)
def time_zone_options(conference_zone: str, selected: str) -> str:
    """The ~600 <option>s of the zone picker, rendered once per (conference zone, choice).

    Speed: rendering them takes 1.7 ms, 5 % of a session page.
    """
    from django.template import engines
    from django.utils.safestring import mark_safe

    options = engines["jinja2"].get_template("includes/time_zone_options.html").template
    return mark_safe(  # Jinja2 autoescapes; zone names are IANA identifiers anyway
        options.render(
            zones=zones_conference_first(conference_zone),
            selected=selected,
            conference_zone=conference_zone,
        )
    )


class DisplayTimeZoneMiddleware:
    """Activates the zone the visitor chose, remembers a ?tz= choice in a cookie.

    When the visitor chose nothing, conference pages activate the conference's own zone
    (see ConferenceMixin); the zone stays active while the response renders.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        requested = request.GET.get("tz")
        request.time_zone_error = ""
        request.chosen_time_zone = None
        if requested is not None:
            if requested in known_zones():
                request.chosen_time_zone = requested
            else:
                request.time_zone_error = (
                    f"“{requested[:64]}” is not a time zone we know; choose one from the list, "
                    "for example Europe/Paris or America/New_York."
                )
        if request.chosen_time_zone is None and request.COOKIES.get(COOKIE_NAME) in known_zones():
            request.chosen_time_zone = request.COOKIES[COOKIE_NAME]
        if request.chosen_time_zone:
            timezone.activate(request.chosen_time_zone)
        try:
            response = self.get_response(request)
        finally:
            timezone.deactivate()
        if requested and requested == request.chosen_time_zone:
            response.set_cookie(COOKIE_NAME, requested, max_age=COOKIE_MAX_AGE, samesite="Lax")
        return response

"""The time zone a visitor reads the schedule in: ?tz=Area/City, then their cookie, then the conference's."""

import zoneinfo
from functools import cache

from django.utils import timezone

COOKIE_NAME = "tz"
COOKIE_MAX_AGE = 365 * 24 * 60 * 60


@cache
def known_zones() -> frozenset[str]:
    return frozenset(zoneinfo.available_timezones())


@cache
def sorted_zones() -> tuple[str, ...]:
    return tuple(sorted(known_zones()))


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

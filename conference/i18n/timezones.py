"""The time zone a visitor reads the schedule in: ?tz=Area/City, then their cookie, then the conference's."""

import datetime
import importlib.resources
import zoneinfo
from collections.abc import Callable
from functools import cache, lru_cache
from pathlib import Path
from typing import NamedTuple

from django.utils import dateformat, timezone
from django.utils.formats import date_format, get_format
from django.utils.translation import get_language, gettext, gettext_lazy, ngettext, pgettext

COOKIE_NAME = "tz"
COOKIE_MAX_AGE = 365 * 24 * 60 * 60


def clock_text(moment: datetime.datetime) -> str:
    """10:35, as strftime("%H:%M") but cheaper: a schedule or an export prints thousands."""
    return f"{moment.hour:02d}:{moment.minute:02d}"


def local_clock(moment: datetime.datetime) -> str:
    """10:35 as the active language writes it (TIME_FORMAT): “10:35”, “10 h 35”. For people;
    exports and machine formats keep ``clock_text``."""
    return clock_writer(get_language())(moment)


@cache
def clock_writer(language: str) -> Callable[[datetime.datetime], str]:
    """How ``language`` writes a time, looked up once: a schedule prints thousands, and
    Django's get_format() and time_format() cost several times clock_text()."""
    time_format = get_format("TIME_FORMAT", language)
    if time_format == "H:i":
        return clock_text
    if time_format == "G \\h i":
        return lambda moment: f"{moment.hour} h {moment.minute:02d}"
    return lambda moment: dateformat.time_format(moment, time_format)


def short_date(value: datetime.date, *, weekday: bool = False, year: bool = True) -> str:
    """“Wed 8 Apr 2026” in English, “mer. 8 avr. 2026” in French: the format is translated,
    since no format setting names a short date and Django's “M” capitalises the month (“Avr”),
    which French never does."""
    if weekday and year:
        text = pgettext("date format: weekday day month year", "D j M Y")
    elif weekday:
        text = pgettext("date format: weekday day month", "D j M")
    else:
        text = pgettext("date format: day month year", "j M Y")
    return date_format(value, text)


def short_moment(moment: datetime.datetime, zone: datetime.tzinfo) -> str:
    """“Wed 8 Apr 2026 10:35 CEST”, “mer. 8 avr. 2026 10 h 35 CEST”: a moment in ``zone``,
    written in the active language, its zone named (the clocks may change in between)."""
    local = moment.astimezone(zone)
    return f"{short_date(local, weekday=True)} {local_clock(local)} {local.tzname()}"


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

    @property
    def end_clock(self) -> str:
        """The end without its abbreviation: “10:45”."""
        return self.end.rpartition(" ")[0]

    @property
    def shared_zone(self) -> str:
        """The abbreviation when both ends have it (“CEST”), else "": a page whose heading
        says it may leave it out, but not when the clocks change in between."""
        return "" if " " in self.start else self.end.rpartition(" ")[2]


def time_range(
    starts_at: datetime.datetime, ends_at: datetime.datetime, zone: datetime.tzinfo | None = None
) -> TimeRange:
    start = timezone.localtime(starts_at, zone)
    end = timezone.localtime(ends_at, zone)
    start_zone, end_zone = start.tzname(), end.tzname()
    start_text = (
        local_clock(start) if start_zone == end_zone else f"{local_clock(start)} {start_zone}"
    )
    days = (end.date() - start.date()).days
    later_day = (
        ngettext(" (+%(days)d day)", " (+%(days)d days)", days) % {"days": days} if days else ""
    )
    return TimeRange(start_text, f"{local_clock(end)} {end_zone}", later_day)


class WallClock(NamedTuple):
    """What a date and time read on a zone's clocks means: one instant, two, or none.

    Twice a year in many zones it is not one. When the clocks go back, the hour before the
    change happens twice (02:30 on 25 October 2026 in Paris is 02:30 CEST, then an hour later
    02:30 CET); when they jump forward, the hour they skip never happens (02:30 on 29 March 2026).
    """

    instants: tuple[datetime.datetime, ...]  # in UTC, earliest first: one, two (fold 0, 1) or none
    change: "ClockChange | None"  # the night's change, when the reading is not one instant

    def refusal(self, local: datetime.datetime, zone: datetime.tzinfo) -> str:
        """Why ``local`` names no single instant, for whoever typed or imported it: “02:30 does
        not exist on Sunday 29 March 2026 in Europe/Berlin: the clocks jump from 02:00 to 03:00
        that night.” (or “happens twice …”, when they go back)."""
        if self.instants:
            text = gettext("%(time)s happens twice on %(day)s in %(zone)s: %(change)s that night.")
        else:
            text = gettext("%(time)s does not exist on %(day)s in %(zone)s: %(change)s that night.")
        return text % {
            "time": local_clock(local),
            "day": date_format(local, "l j F Y"),
            "zone": zone,
            "change": self.change,
        }


class ClockChange(NamedTuple):
    """A change of a zone's clocks, as the clocks read it (naive): from 03:00 back to 02:00."""

    turned_from: datetime.datetime
    turned_to: datetime.datetime

    def __str__(self) -> str:
        start, end = local_clock(self.turned_from), local_clock(self.turned_to)
        if self.turned_from.date() != self.turned_to.date():  # Samoa skipped a whole day in 2011
            start, end = (
                gettext("%(time)s on %(day)s")
                % {"time": local_clock(moment), "day": date_format(moment, "l j F")}
                for moment in (self.turned_from, self.turned_to)
            )
        if self.turned_to < self.turned_from:
            text = gettext("the clocks go back from %(start)s to %(end)s")
        else:
            text = gettext("the clocks jump from %(start)s to %(end)s")
        return text % {"start": start, "end": end}


def read_wall_clock(local: datetime.datetime, zone: datetime.tzinfo) -> WallClock:
    """The instants a naive ``local`` date and time names on the clocks of ``zone``."""
    earlier, later = (
        local.replace(tzinfo=zone, fold=fold).astimezone(datetime.UTC) for fold in (0, 1)
    )
    if earlier == later:
        return WallClock((earlier,), None)
    # Either fold reads ``local`` with the offset of one side of the change; a reading in the
    # skipped hour comes back from UTC as another time.
    readings = tuple(sorted({earlier, later}))
    exists = all(
        moment.astimezone(zone).replace(tzinfo=None, fold=0) == local.replace(fold=0)
        for moment in readings
    )
    change = clock_change_between(min(readings), max(readings), zone)
    return WallClock(readings if exists else (), change)


def clock_change_between(
    before: datetime.datetime, after: datetime.datetime, zone: datetime.tzinfo
) -> ClockChange:
    """The change of ``zone``'s offset between two UTC instants, found to the second."""
    old_offset = before.astimezone(zone).utcoffset()
    while after - before > datetime.timedelta(seconds=1):
        middle = before + (after - before) / 2
        if middle.astimezone(zone).utcoffset() == old_offset:
            before = middle
        else:
            after = middle
    changed_at = after.replace(microsecond=0)
    return ClockChange(
        turned_from=(changed_at + old_offset).replace(tzinfo=None),
        turned_to=(changed_at + after.astimezone(zone).utcoffset()).replace(tzinfo=None),
    )


def time_zone_note(conference) -> str:
    """The help text of a time typed in a change form: which zone it is read in."""
    if conference:
        return gettext("In %(zone)s, the conference's time zone.") % {"zone": conference.time_zone}
    return gettext("In the time zone of the chosen conference.")


@cache
def known_zones() -> frozenset[str]:
    return frozenset(zoneinfo.available_timezones())


@cache
def sorted_zones() -> tuple[str, ...]:
    return tuple(sorted(known_zones()))


# The picker lists zones under these regions (plus UTC); the rest of the database is old aliases
# (W-SU, Zulu, ROC, US/Eastern, Etc/GMT+5, localtime): still accepted in ?tz= and cookies.
PICKER_REGIONS = (
    "Africa", "America", "Antarctica", "Arctic", "Asia", "Atlantic", "Australia", "Europe",
    "Indian", "Pacific",
)  # fmt: skip


def read_zone_table() -> str:
    """The tz database's zone.tab, where zoneinfo finds zones (the system's, else the tzdata
    package's); empty when there is none."""
    for directory in zoneinfo.TZPATH:
        path = Path(directory) / "zone.tab"
        if path.is_file():
            return path.read_text(encoding="utf-8")
    try:
        return importlib.resources.files("tzdata.zoneinfo").joinpath("zone.tab").read_text()
    except (ModuleNotFoundError, FileNotFoundError):
        return ""


@cache
def current_zone_names() -> frozenset[str]:
    """The zones zone.tab lists: each place's current name, without the links the database keeps
    for old names (Asia/Calcutta beside Asia/Kolkata, Europe/Kiev beside Europe/Kyiv), which
    would list one place twice. Empty when no zone.tab is found."""
    rows = (line.split("\t") for line in read_zone_table().splitlines())
    return frozenset(row[2] for row in rows if len(row) >= 3 and not row[0].startswith("#"))


@cache
def zones_by_region() -> tuple[tuple[str, tuple[str, ...]], ...]:
    """(region, its zones) in alphabetical order, for the picker's groups: current names only
    (every zone of a region if the database has no zone.tab to tell them)."""
    current = current_zone_names()
    regions: dict[str, list[str]] = {region: [] for region in PICKER_REGIONS}
    for name in sorted_zones():
        region = name.split("/", 1)[0]
        if region in regions and "/" in name and (not current or name in current):
            regions[region].append(name)
    return tuple((region, tuple(names)) for region, names in regions.items())


def time_zone_options(conference_zone: str, selected: str) -> str:
    """The zone picker's <option>s, rendered once per (conference zone, choice, language).

    The conference's zone first (site.js puts the visitor's device zone above it), then
    UTC and every zone grouped by region. A chosen zone outside the list (an old alias kept in a
    cookie) is listed first, so the picker shows what is in force. Most pages show the picker,
    and its few hundred options are the same for every page of a conference.
    """
    return rendered_time_zone_options(conference_zone, selected, get_language())


@lru_cache(maxsize=512)
def rendered_time_zone_options(conference_zone: str, selected: str, language: str) -> str:
    from django.template import engines
    from django.utils.safestring import mark_safe

    listed = {zone for _, zones in zones_by_region() for zone in zones} | {"UTC"}
    options = engines["jinja2"].get_template("includes/time_zone_options.html").template
    return mark_safe(  # Jinja2 autoescapes; zone names are IANA identifiers anyway
        options.render(
            first=[
                zone
                for zone in dict.fromkeys([selected, conference_zone])
                if zone == conference_zone or zone not in listed
            ],
            regions=zones_by_region(),
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
                request.time_zone_error = gettext_lazy(
                    "“%(zone)s” is not a time zone we know; choose one from the list, "
                    "for example Europe/Paris or America/New_York."
                ) % {"zone": requested[:64]}
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

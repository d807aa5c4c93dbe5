"""Records: what a schedule file says, checked for shape but not yet against our rules.

Both parsers (frab_xml, frab_json) produce them and the writer consumes them; each names its
place in the file (title, guid and line or index) so that a problem points at what to fix.
"""

import datetime
import json
import math
import re
import zoneinfo
from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import urljoin, urlsplit

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from conference.i18n.timezones import read_wall_clock
from conference.models import Conference
from sessions.frab import FILE_KEYS, parse_duration


class ScheduleImportError(ValueError):
    """The file cannot be imported; ``problems`` names each record and field at fault."""

    def __init__(self, problems: str | list[str]):
        self.problems = [problems] if isinstance(problems, str) else list(problems)
        if len(self.problems) == 1:
            message = self.problems[0]
        else:
            count = len(self.problems)
            heading = ngettext("%(count)s problem:", "%(count)s problems:", count) % {
                "count": count
            }
            listed = "\n".join(f"- {problem}" for problem in self.problems)
            message = f"{heading}\n{listed}"
        super().__init__(message)


class RecordError(Exception):
    """One record cannot be read; parsing notes it and goes on to the next record."""


def refuse_unstorable(where: str, **texts: str | None) -> None:
    """Text no database can store is the error of the record carrying it: NUL, which PostgreSQL
    text cannot hold, and a lone surrogate (JSON's "\\ud800"), which no UTF-8 can encode."""
    for name, text in texts.items():
        if not text:
            continue
        if "\x00" in text:
            raise RecordError(
                _(
                    "%(where)s: %(field)s: contains a NUL character (U+0000), which no text here "
                    "may hold."
                )
                % {"where": where, "field": name}
            )
        if surrogate := LONE_SURROGATE.search(text):
            raise RecordError(
                # Translators: code is the surrogate's hexadecimal code point, such as D800.
                _(
                    "%(where)s: %(field)s: contains a lone surrogate (U+%(code)s), half of a "
                    "UTF-16 pair and no character, which no text here may hold."
                )
                % {"where": where, "field": name, "code": f"{ord(surrogate[0]):04X}"}
            )


# What json.loads makes of a "\\ud800" escape without its other half.
LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def not_utf8(data: bytes, error: UnicodeDecodeError, advice: str = "") -> ScheduleImportError:
    """The error for a file that is not UTF-8: where its first bad byte is, so it can be found."""
    before = data[: error.start]
    line = before.count(b"\n") + 1
    column = error.start - (before.rfind(b"\n") + 1) + 1
    byte = data[error.start : error.start + 1].hex()
    # Translators: byte is two hexadecimal digits, such as e9.
    message = _(
        "The file is not UTF-8 text: line %(line)s, column %(column)s holds the byte "
        "0x%(byte)s, which UTF-8 does not allow there."
    ) % {"line": line, "column": column, "byte": byte}
    return ScheduleImportError(message + advice)


def shown(text: str) -> str:
    """``text`` as an error message may quote it: a NUL as the visible ␀, a lone surrogate as
    the replacement character � (the message itself is stored and shown)."""
    return LONE_SURROGATE.sub("\ufffd", text.replace("\x00", "\u2400"))


@dataclass
class PersonRecord:
    guid: str
    name: str
    biography: str | None
    where: str
    # None: the file does not say (schedule.xml has no avatars, roles or companies).
    avatar_url: str | None = None
    role: str | None = None
    company: str | None = None
    links: list["LinkRecord"] = field(default_factory=list)
    # True: an organisation or host that may be listed on parallel sessions (our schedule.json).
    appears_in_parallel: bool | None = None
    # Files naming speakers only by name (CSV) also match a speaker of that name made here.
    match_name: bool = False

    def __post_init__(self):
        refuse_unstorable(
            self.where,
            guid=self.guid,
            name=self.name,
            biography=self.biography,
            avatar=self.avatar_url,
            role=self.role,
            company=self.company,
            **link_texts("links", self.links),
        )


@dataclass
class LinkRecord:
    """A link or attachment of an event: an absolute URL, a title and the format's type."""

    url: str
    title: str
    kind: str


def link_texts(kind: str, items: list[LinkRecord]) -> dict[str, str]:
    """The texts of a record's links, by where they are (“links[0]”), for refuse_unstorable()."""
    return {
        f"{kind}[{index}]": f"{item.url} {item.title} {item.kind}"
        for index, item in enumerate(items)
    }


# The event fields the model has a field for, beyond what every event must have, with the
# file's key (JSON; XML uses the same names, the recording's inside <recording>).
OPTIONAL_EVENT_FIELDS = {
    "subtitle": "subtitle",
    "language": "language",
    "abstract": "abstract",
    "feedback_url": "feedback_url",
    "logo_url": "logo",
    "source_url": "url",
    "origin_url": "origin_url",
    "code": "code",
    "recording_license": "recording_license",
}


@dataclass
class EventRecord:
    where: str
    guid: str
    title: str
    slug: str
    kind: str | None  # None: the file does not say (a type label in our own schedule.xml)
    cancelled: bool
    room: str | None  # None: the whole venue
    track: str
    starts_at: datetime.datetime | None  # None, with ends_at: unscheduled (CSV, Sessionize)
    ends_at: datetime.datetime | None
    description: str
    persons: list[PersonRecord]
    type_label: str = ""
    do_not_record: bool = False
    # Optional texts and URLs by model field (see OPTIONAL_EVENT_FIELDS); blank when absent, left
    # out when the file cannot say (the source URL in our own schedule.xml).
    extra: dict[str, str] = field(default_factory=dict)
    links: list[LinkRecord] = field(default_factory=list)
    attachments: list[LinkRecord] = field(default_factory=list)
    # What frab files do not say; None leaves the session's value alone.
    status: str | None = None
    audience_level: str | None = None
    planned_minutes: int | None = None

    def __post_init__(self):
        refuse_unstorable(
            self.where,
            guid=self.guid,
            title=self.title,
            slug=self.slug,
            room=self.room,
            track=self.track,
            type=self.type_label,
            description=self.description,
            **{OPTIONAL_EVENT_FIELDS[name]: value for name, value in self.extra.items()},
            **link_texts("links", self.links),
            **link_texts("attachments", self.attachments),
        )


@dataclass
class RoomRecord:
    name: str
    slug: str = ""
    capacity: int | None = None
    where: str = ""
    guid: str = ""
    description: str | None = None
    kind: str | None = None  # one of Room.Kind, or None: the file does not say

    def __post_init__(self):
        refuse_unstorable(
            self.where or _("Room “%(name)s”") % {"name": shown(self.name)},
            name=self.name,
            slug=self.slug,
            guid=self.guid,
            description=self.description,
        )


@dataclass
class ConferenceRecord:
    """What the file says of the conference itself."""

    time_zone: str = ""  # its time_zone_name, an IANA name or blank
    # Written by this software (its generator): each event's url is then a page of ours, not
    # a source worth keeping.
    ours: bool = False
    day_change: datetime.time | None = None
    colour: str = ""
    logo_url: str = ""
    # Its description and CONFERENCE_META_FIELDS, by model field, as our schedule.json has them.
    details: dict[str, str] = field(default_factory=dict)


@dataclass
class TrackRecord:
    name: str
    slug: str = ""
    colour: str = ""
    where: str = ""
    description: str | None = None  # None: the file does not say (only our schedule.json does)

    def __post_init__(self):
        where = self.where or _("Track “%(name)s”") % {"name": shown(self.name)}
        refuse_unstorable(
            where, name=self.name, slug=self.slug, color=self.colour, description=self.description
        )


@dataclass
class ScheduleRecords:
    rooms: dict[str, RoomRecord] = field(default_factory=dict)
    tracks: dict[str, TrackRecord] = field(default_factory=dict)
    events: list[EventRecord] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    conference: ConferenceRecord = field(default_factory=ConferenceRecord)
    # Our model fields as this format names them, so the writer's errors name the file's column.
    file_keys: dict[str, str] = field(default_factory=lambda: dict(FILE_KEYS))

    def add_event(self, event: EventRecord, seen: dict[str, EventRecord]) -> None:
        if event.guid in seen:
            other = seen[event.guid]
            raise RecordError(
                # Translators: where and other_where each name an event and its place in the file.
                _("%(where)s: guid: also used by %(other_where)s.")
                % {"where": event.where, "other_where": other.where}
            )
        seen[event.guid] = event
        self.events.append(event)
        if event.track and event.track not in self.tracks:
            self.tracks[event.track] = TrackRecord(event.track)


# Fields both parsers read ---------------------------------------------------------------------


def parse_moment(value: str, zone: datetime.tzinfo, where: str, name: str) -> datetime.datetime:
    try:
        moment = datetime.datetime.fromisoformat(value.strip())
    except ValueError:
        raise RecordError(
            _(
                "%(where)s: %(field)s: “%(value)s” is not a date and time like "
                "2026-04-08T10:35:00+02:00."
            )
            % {"where": where, "field": name, "value": shown(value)}
        ) from None
    try:
        if moment.tzinfo is None:
            # The formats require an offset; a file without one (Sessionize's) means its zone's
            # (or the conference's) local time: ``zone``, see file_zone().
            return instant_on_clocks(
                moment,
                zone,
                _("%(where)s: %(field)s") % {"where": where, "field": name},
                lambda reading: f"“{reading.isoformat()}”",
            )
        moment.astimezone(datetime.UTC)  # how it is stored: 9999-12-31T23:00-02:00 is not
    except OverflowError:
        raise RecordError(
            _("%(where)s: %(field)s: “%(value)s” lies outside the years 1 to 9999 in UTC.")
            % {"where": where, "field": name, "value": shown(value)}
        ) from None
    return moment


def instant_on_clocks(
    local: datetime.datetime,
    zone: datetime.tzinfo,
    where: str,
    spell: Callable[[datetime.datetime], str],
) -> datetime.datetime:
    """The instant a naive ``local`` names on ``zone``'s clocks, in UTC (so adding a duration is
    exact), refused as the admin refuses it (ConferenceDateTimeField): a time the clocks skip, and
    one they pass twice; the refusal shows both readings of that one, as ``spell`` writes them."""
    reading = read_wall_clock(local, zone)
    if len(reading.instants) == 1:
        return reading.instants[0]
    refusal = reading.refusal(local, zone)
    if not reading.instants:
        raise RecordError(_("%(where)s: %(problem)s") % {"where": where, "problem": refusal})
    first, second = (spell(instant.astimezone(zone)) for instant in reading.instants)
    raise RecordError(
        # Translators: problem says the time happens twice; first and second are that time with
        # each of its two offsets, such as “2026-10-25T02:30:00+02:00” and “…+01:00”.
        _("%(where)s: %(problem)s Write %(first)s for the first or %(second)s for the second.")
        % {"where": where, "problem": refusal, "first": first, "second": second}
    )


def read_duration(value: str, where: str) -> datetime.timedelta:
    duration = parse_duration(value)
    if duration is None:
        raise RecordError(
            _("%(where)s: duration: “%(value)s” is not a duration like 00:30 or 1:30.")
            % {"where": where, "value": shown(value)}
        )
    return duration


def end_after(
    starts_at: datetime.datetime, duration: datetime.timedelta, where: str
) -> datetime.datetime:
    """When a session of ``duration`` starting at ``starts_at`` ends, if a calendar has that day."""
    try:
        ends_at = starts_at + duration
        ends_at.astimezone(datetime.UTC)
    except OverflowError:
        raise RecordError(
            # Translators: start is a date and time such as 9999-12-31T10:00:00+00:00; duration
            # is a length of time such as 2:00:00.
            _("%(where)s: duration: %(start)s plus %(duration)s ends after the year 9999.")
            % {"where": where, "start": starts_at.isoformat(), "duration": duration}
        ) from None
    return ends_at


def read_capacity(value: object, where: str) -> int | None:
    """A room's seats: a whole number, or None when the file gives none."""
    if value is None:
        return None
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        value = int(value)  # 120.0; 1e999 is infinite and stays a float, refused below
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise RecordError(
            _("%(where)s: capacity: %(value)s is not a number of seats like 120.")
            % {"where": where, "value": json.dumps(value)[:40]}
        )
    return value


def event_where(title: str, guid: str, location: str) -> str:
    values = {"title": shown(title), "guid": shown(guid), "location": location}
    if title and guid:
        # Translators: location is where the event is in the file: “line 12” or a JSON path.
        return _("Event “%(title)s” (guid %(guid)s, %(location)s)") % values
    if title:
        return _("Event “%(title)s” (%(location)s)") % values
    if guid:
        return _("Event (guid %(guid)s, %(location)s)") % values
    return _("Event (%(location)s)") % values


def file_zone(name: str, conference: Conference, where: str) -> datetime.tzinfo:
    """The zone a file's times without an offset are in: its time_zone_name, else the
    conference's. A name that is no IANA zone is the file's error."""
    if not name:
        return conference.tz
    if name not in zoneinfo.available_timezones():
        raise ScheduleImportError(
            _(
                "%(where)s: time_zone_name: “%(value)s” is not an IANA time zone name such as "
                "Europe/Berlin."
            )
            % {"where": where, "value": shown(name)[:60]}
        )
    return zoneinfo.ZoneInfo(name)


def read_clock(value: str, where: str, name: str) -> datetime.time:
    """A time of day such as 04:00 (frab's day_change)."""
    try:
        return datetime.time.fromisoformat(value.strip())
    except ValueError:
        raise ScheduleImportError(
            _("%(where)s: %(field)s: “%(value)s” is not a time of day like 04:00.")
            % {"where": where, "field": name, "value": shown(value)[:40]}
        ) from None


# A day's window as the file gives it (<day start end> in XML, day_start and day_end in JSON),
# in the file's zone.
DayWindow = tuple[datetime.datetime, datetime.datetime]


def day_change_of_windows(windows: list[DayWindow]):
    """The day change the day windows show: the time the days ending the next morning end at,
    when they agree; None for files without such days (or with bogus windows, jev22)."""
    ends = {
        end.time()
        for start, end in windows
        if end.date() == start.date() + datetime.timedelta(days=1) and end.time() <= NOON
    }
    return ends.pop() if len(ends) == 1 else None


NOON = datetime.time(12, 0)


def with_video_download(links: list[LinkRecord], url: str, base_url: str) -> list[LinkRecord]:
    """An event's links and its video_download_url (deprecated in the XSD, still in jev22's
    files), kept as a link of type media like any other recording link."""
    url = absolute_link(url, base_url)
    if url and all(link.url != url for link in links):
        return [*links, LinkRecord(url, "Video download", "media")]
    return links


def absolute_link(url: str, base_url: str) -> str:
    """A link as the model keeps it. Relative ones (/media/… in pretalx and frab files) are
    resolved against the file's base_url; a bare host such as ``www.axoloti.be`` (31c3) is
    read as the https site people typing it mean."""
    url = url.strip()
    if not url or urlsplit(url).scheme:
        return url
    if BARE_HOST.match(url):
        return f"https://{url}"
    return urljoin(base_url, url) if base_url else url


def picture_or_page_link(url: str, base_url: str) -> str:
    """``absolute_link`` for an event's logo and its pages (source, origin, feedback): a path the
    file gives no base_url to resolve (jev22's 122 logos, /media/…) points nowhere anyone can
    follow, so it is left out rather than refusing the whole schedule over a picture."""
    link = absolute_link(url, base_url)
    return "" if link.startswith("/") else link  # anything else unresolved is refused as no URL


BARE_HOST = re.compile(r"^[a-z0-9-]+(\.[a-z0-9-]+)+(/|$)", re.IGNORECASE)

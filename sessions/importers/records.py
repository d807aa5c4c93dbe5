"""Records: what a schedule file says, checked for shape but not yet against our rules.

Both parsers (frab_xml, frab_json) produce them and the writer consumes them; each names its
place in the file (title, guid and line or index) so that a problem points at what to fix.
"""

import datetime
from dataclasses import dataclass, field

from conference.models import Conference
from sessions.frab import parse_duration


class ScheduleImportError(ValueError):
    """The file cannot be imported; ``problems`` names each record and field at fault."""

    def __init__(self, problems: str | list[str]):
        self.problems = [problems] if isinstance(problems, str) else list(problems)
        if len(self.problems) == 1:
            message = self.problems[0]
        else:
            listed = "\n".join(f"- {problem}" for problem in self.problems)
            message = f"{len(self.problems)} problems:\n{listed}"
        super().__init__(message)


class RecordError(Exception):
    """One record cannot be read; parsing notes it and goes on to the next record."""


@dataclass
class PersonRecord:
    guid: str
    name: str
    biography: str | None
    where: str


@dataclass
class EventRecord:
    where: str
    guid: str
    title: str
    slug: str
    kind: str
    cancelled: bool
    room: str | None  # None: the whole venue
    track: str
    starts_at: datetime.datetime
    ends_at: datetime.datetime
    description: str
    persons: list[PersonRecord]


@dataclass
class RoomRecord:
    name: str
    slug: str = ""
    capacity: int | None = None


@dataclass
class TrackRecord:
    name: str
    slug: str = ""
    colour: str = ""


@dataclass
class ScheduleRecords:
    rooms: dict[str, RoomRecord] = field(default_factory=dict)
    tracks: dict[str, TrackRecord] = field(default_factory=dict)
    events: list[EventRecord] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def add_event(self, event: EventRecord, seen: dict[str, EventRecord]) -> None:
        if event.guid in seen:
            other = seen[event.guid]
            raise RecordError(f"{event.where}: guid: also used by {other.where}.")
        seen[event.guid] = event
        self.events.append(event)
        if event.track and event.track not in self.tracks:
            self.tracks[event.track] = TrackRecord(event.track)


# Fields both parsers read ---------------------------------------------------------------------


def parse_moment(value: str, conference: Conference, where: str, name: str) -> datetime.datetime:
    try:
        moment = datetime.datetime.fromisoformat(value.strip())
    except ValueError:
        raise RecordError(
            f"{where}: {name}: “{value}” is not a date and time like 2026-04-08T10:35:00+02:00."
        ) from None
    # The formats require an offset; a file without one means the conference's local time.
    return moment if moment.tzinfo else moment.replace(tzinfo=conference.tz)


def read_duration(value: str, where: str) -> datetime.timedelta:
    duration = parse_duration(value)
    if duration is None:
        raise RecordError(f"{where}: duration: “{value}” is not a duration like 00:30 or 1:30.")
    return duration


def join_text(*parts: str | None) -> str:
    texts = []
    for part in parts:
        part = (part or "").strip()
        if part and part not in texts:
            texts.append(part)
    return "\n\n".join(texts)


def event_where(title: str, guid: str, location: str) -> str:
    label = f"Event “{title}”" if title else "Event"
    return f"{label} (guid {guid}, {location})" if guid else f"{label} ({location})"

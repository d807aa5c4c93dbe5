"""Import a frab/c3voc schedule.xml or schedule.json into an existing conference.

Parsing turns the file into plain records, naming each by title, guid and line (XML) or index
(JSON). Writing then creates or updates rooms, tracks, speakers and sessions, matched by GUID
(sessions, speakers) or name/slug (rooms, tracks), each through ``full_clean()``, all in one
transaction: any problem and nothing is written.
"""

import codecs
import datetime
import json
import os
import re
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any
from xml.parsers import expat

from django.core.exceptions import NON_FIELD_ERRORS, ValidationError
from django.db import models, transaction
from django.utils.text import slugify

from conference.models import Conference, Room, Track
from sessions.frab import (
    FILE_KEYS,
    VENUE_ROOM_GUID,
    export_guid,
    parse_duration,
    person_guid,
    session_kind,
    session_slug,
    split_title,
)
from sessions.models import Session, SessionSpeaker, ordered_speakers_prefetch
from speakers.models import Speaker

MAX_IMPORT_BYTES = 20 * 1024 * 1024
KINDS = ("room", "track", "speaker", "session")
_COLOUR = re.compile(r"^#[0-9a-fA-F]{6}$")


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


class _RecordError(Exception):
    """One record cannot be read; parsing notes it and goes on to the next record."""


@dataclass
class ImportReport:
    dry_run: bool = False
    created: Counter = field(default_factory=Counter)
    updated: Counter = field(default_factory=Counter)
    unchanged: Counter = field(default_factory=Counter)
    changes: list[str] = field(default_factory=list)

    def record(self, kind: str, outcome: str, label: str, fields: Sequence[str] = ()) -> None:
        getattr(self, outcome)[kind] += 1
        if outcome == "created":
            self.changes.append(f"create {kind} “{label}”")
        elif outcome == "updated":
            self.changes.append(f"update {kind} “{label}”: {', '.join(fields)}")

    def summary(self) -> list[str]:
        return [
            f"{kind}s: {self.created[kind]} created, {self.updated[kind]} updated, "
            f"{self.unchanged[kind]} unchanged"
            for kind in KINDS
        ]


# Records: what the file says, checked for shape but not yet against our rules ----------------


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
            raise _RecordError(f"{event.where}: guid: also used by {other.where}.")
        seen[event.guid] = event
        self.events.append(event)
        if event.track and event.track not in self.tracks:
            self.tracks[event.track] = TrackRecord(event.track)


# Entry point ----------------------------------------------------------------------------------


def import_schedule(
    conference: Conference, path_or_file: str | os.PathLike | IO, *, dry_run: bool = False
) -> ImportReport:
    """Import schedule.xml or schedule.json into ``conference``, all or nothing.

    Raises ScheduleImportError naming every record that fails; with ``dry_run`` everything is
    checked and reported, then rolled back.
    """
    data, name = read_input(path_or_file)
    records = parse_schedule(data, name, conference)
    if records.problems:
        raise ScheduleImportError(records.problems)
    report = ImportReport(dry_run=dry_run)
    with transaction.atomic():
        problems = ScheduleWriter(conference, records, report).write()
        if problems:
            raise ScheduleImportError(problems)  # leaving the block rolls everything back
        if dry_run:
            transaction.set_rollback(True)
    return report


def read_input(path_or_file: str | os.PathLike | IO) -> tuple[bytes, str]:
    too_big = (
        f"The file is larger than {MAX_IMPORT_BYTES // (1024 * 1024)} MB; "
        "a schedule is far smaller, so it is refused."
    )
    if isinstance(path_or_file, str | os.PathLike):
        path = Path(path_or_file)
        if not path.is_file():
            raise ScheduleImportError(f"No such file: {path}")
        if path.stat().st_size > MAX_IMPORT_BYTES:
            raise ScheduleImportError(too_big)
        return path.read_bytes(), path.name
    data = path_or_file.read(MAX_IMPORT_BYTES + 1)
    if isinstance(data, str):
        data = data.encode()
    if len(data) > MAX_IMPORT_BYTES:
        raise ScheduleImportError(too_big)
    return data, str(getattr(path_or_file, "name", ""))


def parse_schedule(data: bytes, name: str, conference: Conference) -> ScheduleRecords:
    first = first_character(data)
    if first == "<" or (not first and name.endswith(".xml")):
        return parse_xml(data, conference)
    if first in ("{", "[") or (not first and name.endswith(".json")):
        return parse_json(data, conference)
    raise ScheduleImportError(
        "The file is neither schedule.xml nor schedule.json: it starts with neither “<” nor “{”."
    )


def first_character(data: bytes) -> str:
    """The first non-blank character, also of UTF-16 files (XML and JSON may both be UTF-16)."""
    encoding = "utf-8"
    for bom, name in ((codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be")):
        if data.startswith(bom):
            data, encoding = data[len(bom) :], name
    return data[:400].decode(encoding, errors="ignore").lstrip("\ufeff \t\r\n")[:1]


# Shared field parsing -------------------------------------------------------------------------


def parse_moment(value: str, conference: Conference, where: str, name: str) -> datetime.datetime:
    try:
        moment = datetime.datetime.fromisoformat(value.strip())
    except ValueError:
        raise _RecordError(
            f"{where}: {name}: “{value}” is not a date and time like 2026-04-08T10:35:00+02:00."
        ) from None
    # The formats require an offset; a file without one means the conference's local time.
    return moment if moment.tzinfo else moment.replace(tzinfo=conference.tz)


def read_duration(value: str, where: str) -> datetime.timedelta:
    duration = parse_duration(value)
    if duration is None:
        raise _RecordError(f"{where}: duration: “{value}” is not a duration like 00:30 or 1:30.")
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


# schedule.xml ---------------------------------------------------------------------------------


def read_xml(data: bytes) -> tuple[ET.Element, dict[ET.Element, int]]:
    """The element tree and each element's line; DTDs and entities are refused before parsing."""
    refusal = (
        "The file declares a DOCTYPE or ENTITY. Schedules never need one, and entity "
        "expansion can exhaust the server, so such files are refused."
    )
    if b"<!DOCTYPE" in data or b"<!ENTITY" in data:
        raise ScheduleImportError(refusal)
    parser = expat.ParserCreate()
    builder = ET.TreeBuilder()
    lines: dict[ET.Element, int] = {}

    def start(tag: str, attributes: dict[str, str]) -> None:
        lines[builder.start(tag, attributes)] = parser.CurrentLineNumber

    def refuse(*args: Any) -> None:  # the same check for encodings the byte search cannot see
        raise ScheduleImportError(refusal)

    parser.StartElementHandler = start
    parser.EndElementHandler = builder.end
    parser.CharacterDataHandler = builder.data
    parser.StartDoctypeDeclHandler = refuse
    parser.EntityDeclHandler = refuse
    try:
        parser.Parse(data, True)
    except expat.ExpatError as error:
        raise ScheduleImportError(
            f"The file is not well-formed XML: {expat.ErrorString(error.code)} "
            f"(line {error.lineno}, column {error.offset + 1})."
        ) from None
    return builder.close(), lines


def parse_xml(data: bytes, conference: Conference) -> ScheduleRecords:
    root, lines = read_xml(data)
    if root.tag != "schedule":
        raise ScheduleImportError(f"The XML root element is <{root.tag}>, not <schedule>.")
    records = ScheduleRecords()
    acronym = (root.findtext("conference/acronym") or "").strip()
    for track in root.iterfind("conference/track"):
        name = (track.get("name") or "").strip()
        if name:
            records.tracks[name] = TrackRecord(name, track.get("slug", ""), track.get("color", ""))
    seen: dict[str, EventRecord] = {}
    for day in root.iterfind("day"):
        for room in day.iterfind("room"):
            room_name = (room.get("name") or "").strip()
            if not room_name:
                records.problems.append(f"Room (line {lines[room]}): name: missing.")
                continue
            is_venue = room.get("guid") == VENUE_ROOM_GUID
            if not is_venue:
                records.rooms.setdefault(room_name, RoomRecord(room_name))
            for event in room.iterfind("event"):
                try:
                    record = xml_event(event, lines, room_name, is_venue, acronym, conference)
                    records.add_event(record, seen)
                except _RecordError as problem:
                    records.problems.append(str(problem))
    return records


def xml_event(
    event: ET.Element,
    lines: dict[ET.Element, int],
    room_name: str,
    is_venue: bool,
    acronym: str,
    conference: Conference,
) -> EventRecord:
    def text(tag: str) -> str:
        return event.findtext(tag) or ""

    guid = (event.get("guid") or "").strip()
    title, cancelled = split_title(text("title").strip())
    where = event_where(title, guid, f"line {lines[event]}")
    if not guid:
        raise _RecordError(f"{where}: guid: missing.")
    if not title:
        raise _RecordError(f"{where}: title: missing.")
    if not text("date"):
        raise _RecordError(f"{where}: date: missing.")
    starts_at = parse_moment(text("date"), conference, where, "date")
    if event.find("room") is not None and text("room").strip() != room_name:
        raise _RecordError(
            f"{where}: room: “{text('room')}” is not the room it is listed under (“{room_name}”)."
        )
    persons = []
    for person in event.iterfind("persons/person"):
        name = (person.text or "").strip()
        person_where = f"Person “{name}” of {where}" if name else f"A person of {where}"
        if not name:
            raise _RecordError(f"{person_where}: name: missing.")
        persons.append(
            PersonRecord(
                person_guid(person.get("guid", ""), person.get("id"), name),
                name,
                None,
                person_where,
            )
        )
    return EventRecord(
        where=where,
        guid=guid,
        title=title,
        slug=session_slug(text("slug"), acronym, title),
        kind=session_kind(text("type")),
        cancelled=cancelled,
        room=None if is_venue else room_name,
        track=text("track").strip(),
        starts_at=starts_at,
        ends_at=starts_at + read_duration(text("duration"), where),
        description=join_text(text("abstract"), text("description")),
        persons=persons,
    )


# schedule.json --------------------------------------------------------------------------------

_MISSING = object()
_JSON_TYPES = {str: "a string", int: "an integer", list: "a list", dict: "an object"}


def json_value(record: dict, key: str, kind: type, where: str, *, required: bool = True) -> Any:
    value = record.get(key, _MISSING)
    if value is _MISSING or value is None:
        if required:
            raise _RecordError(f"{where}: {key}: missing.")
        return None
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise _RecordError(
            f"{where}: {key}: expected {_JSON_TYPES[kind]}, got {json.dumps(value)[:40]}."
        )
    return value


def parse_json(data: bytes, conference: Conference) -> ScheduleRecords:
    try:
        document = json.loads(data)  # detects UTF-8, -16 and -32 and skips a BOM
    except UnicodeDecodeError:
        raise ScheduleImportError("The file is not UTF-8, UTF-16 or UTF-32 text.") from None
    except json.JSONDecodeError as error:
        raise ScheduleImportError(
            f"The file is not valid JSON: {error.msg} (line {error.lineno}, column {error.colno})."
        ) from None
    except RecursionError:
        raise ScheduleImportError("The file is not valid JSON: it is nested too deeply.") from None
    try:
        if not isinstance(document, dict):
            raise _RecordError("The file: expected an object with a “schedule” key.")
        schedule = json_value(document, "schedule", dict, "The file")
        conference_data = json_value(schedule, "conference", dict, "schedule")
        days = json_value(conference_data, "days", list, "schedule.conference")
        acronym = json_value(conference_data, "acronym", str, "schedule.conference", required=False)
        room_list = json_value(
            conference_data, "rooms", list, "schedule.conference", required=False
        )
        track_list = json_value(
            conference_data, "tracks", list, "schedule.conference", required=False
        )
    except _RecordError as problem:
        raise ScheduleImportError(str(problem)) from None
    records = ScheduleRecords()
    declared_rooms, venue_rooms = json_rooms(room_list or [], records)
    for index, track in enumerate(track_list or []):
        where = f"schedule.conference.tracks[{index}]"
        try:
            if not isinstance(track, dict):
                raise _RecordError(f"{where}: expected an object.")
            name = json_value(track, "name", str, where).strip()
            slug = json_value(track, "slug", str, where, required=False) or ""
            colour = json_value(track, "color", str, where, required=False) or ""
            records.tracks[name] = TrackRecord(name, slug, colour)
        except _RecordError as problem:
            records.problems.append(str(problem))
    seen: dict[str, EventRecord] = {}
    for day_index, day in enumerate(days):
        day_where = f"schedule.conference.days[{day_index}]"
        try:
            if not isinstance(day, dict):
                raise _RecordError(f"{day_where}: expected an object.")
            rooms = json_value(day, "rooms", dict, day_where)
        except _RecordError as problem:
            records.problems.append(str(problem))
            continue
        for room_name, events in rooms.items():
            room_where = f'{day_where}.rooms["{room_name}"]'
            if declared_rooms and room_name not in declared_rooms:
                records.problems.append(
                    f"{room_where}: room: “{room_name}” is not in schedule.conference.rooms."
                )
                continue
            if not isinstance(events, list):
                records.problems.append(f"{room_where}: expected a list of events.")
                continue
            is_venue = room_name in venue_rooms
            if not is_venue:
                records.rooms.setdefault(room_name, RoomRecord(room_name))
            for event_index, event in enumerate(events):
                location = f"{room_where}[{event_index}]"
                try:
                    record = json_event(event, location, room_name, is_venue, acronym, conference)
                    records.add_event(record, seen)
                except _RecordError as problem:
                    records.problems.append(str(problem))
    return records


def json_rooms(room_list: list, records: ScheduleRecords) -> tuple[set[str], set[str]]:
    """Rooms declared in schedule.conference.rooms, and those that stand for the whole venue."""
    declared, venue = set(), set()
    for index, room in enumerate(room_list):
        where = f"schedule.conference.rooms[{index}]"
        try:
            if not isinstance(room, dict):
                raise _RecordError(f"{where}: expected an object.")
            name = json_value(room, "name", str, where).strip()
            capacity = room.get("capacity")
            declared.add(name)
            if room.get("guid") == VENUE_ROOM_GUID:
                venue.add(name)
                continue
            records.rooms[name] = RoomRecord(
                name,
                json_value(room, "slug", str, where, required=False) or "",
                int(capacity) if isinstance(capacity, int | float) and capacity >= 0 else None,
            )
        except _RecordError as problem:
            records.problems.append(str(problem))
    return declared, venue


def json_event(
    event: object,
    location: str,
    room_name: str,
    is_venue: bool,
    acronym: str | None,
    conference: Conference,
) -> EventRecord:
    if not isinstance(event, dict):
        raise _RecordError(f"Event ({location}): expected an object.")
    raw_title = event.get("title")
    guid = event.get("guid")
    where = event_where(
        raw_title.strip() if isinstance(raw_title, str) else "",
        guid if isinstance(guid, str) else "",
        location,
    )
    guid = json_value(event, "guid", str, where).strip()
    title, cancelled = split_title(json_value(event, "title", str, where).strip())
    if not title:
        raise _RecordError(f"{where}: title: missing.")
    room = json_value(event, "room", str, where, required=False)
    if room is not None and room.strip() != room_name:
        raise _RecordError(
            f"{where}: room: “{room}” is not the room it is listed under (“{room_name}”)."
        )
    starts_at = parse_moment(json_value(event, "date", str, where), conference, where, "date")
    end = json_value(event, "end", str, where, required=False)
    if end:
        ends_at = parse_moment(end, conference, where, "end")
    else:
        ends_at = starts_at + read_duration(json_value(event, "duration", str, where), where)
    persons = [
        json_person(person, f"{where}, persons[{index}]")
        for index, person in enumerate(
            json_value(event, "persons", list, where, required=False) or []
        )
    ]
    return EventRecord(
        where=where,
        guid=guid,
        title=title,
        slug=session_slug(
            json_value(event, "slug", str, where, required=False) or "", acronym or "", title
        ),
        kind=session_kind(json_value(event, "type", str, where, required=False) or ""),
        cancelled=cancelled,
        room=None if is_venue else room_name,
        track=(json_value(event, "track", str, where, required=False) or "").strip(),
        starts_at=starts_at,
        ends_at=ends_at,
        description=join_text(
            json_value(event, "abstract", str, where, required=False),
            json_value(event, "description", str, where, required=False),
        ),
        persons=persons,
    )


def json_person(person: object, where: str) -> PersonRecord:
    if not isinstance(person, dict):
        raise _RecordError(f"{where}: expected an object.")
    name = json_value(person, "name", str, where, required=False)
    if name is None:
        name = json_value(person, "public_name", str, where, required=False)
    if not (name or "").strip():
        raise _RecordError(f"{where}: name: missing.")
    name = name.strip()
    guid = json_value(person, "guid", str, where, required=False) or ""
    person_id = person.get("id")
    biography = json_value(person, "biography", str, where, required=False)
    return PersonRecord(person_guid(guid.strip(), person_id, name), name, biography, where)


# Writing --------------------------------------------------------------------------------------


def validation_problems(where: str, error: ValidationError) -> list[str]:
    if not hasattr(error, "error_dict"):
        return [f"{where}: {message}" for message in error.messages]
    return [
        f"{where}: {message}"
        if name == NON_FIELD_ERRORS
        else f"{where}: {FILE_KEYS.get(name, name)}: {message}"
        for name, messages in error.message_dict.items()
        for message in messages
    ]


def unique_slug(base: str, fallback: str, taken: set[str], max_length: int) -> str:
    base = base[: max_length - 8].strip("-_") or fallback
    slug, number = base, 2
    while slug in taken:
        slug, number = f"{base}-{number}", number + 1
    taken.add(slug)
    return slug


class ScheduleWriter:
    """Writes parsed records into one conference, collecting every problem instead of stopping."""

    def __init__(self, conference: Conference, records: ScheduleRecords, report: ImportReport):
        self.conference = conference
        self.records = records
        self.report = report
        self.problems: list[str] = []
        self.rooms: dict[str, Room] = {}
        self.tracks: dict[str, Track] = {}
        self.speakers: dict[str, Speaker] = {}

    def write(self) -> list[str]:
        self.write_rooms()
        self.write_tracks()
        self.write_speakers()
        self.write_sessions()
        return self.problems

    def save(self, instance: models.Model, where: str, outcome: str) -> bool:
        """Validate ``instance`` and save it if it is new or changed; False if it has problems."""
        try:
            instance.full_clean()
        except ValidationError as error:
            self.problems.extend(validation_problems(where, error))
            return False
        if outcome != "unchanged":
            instance.save()
        return True

    def write_rooms(self) -> None:
        existing = list(self.conference.rooms.all())
        by_name = {room.name.casefold(): room for room in existing}
        by_slug = {room.slug: room for room in existing}
        slugs = set(by_slug)
        position = max((room.position for room in existing), default=-1) + 1
        for record in self.records.rooms.values():
            slug = slugify(record.slug) or slugify(record.name)
            room = by_name.get(record.name.casefold()) or by_slug.get(slug)
            if room is None:
                room = Room(
                    conference=self.conference,
                    slug=unique_slug(slug, "room", slugs, 100),
                    position=position,
                )
                position += 1
            values = {"name": record.name}
            if record.capacity is not None:
                values["capacity"] = record.capacity
            fields = apply_changes(room, values)
            result = outcome(room, fields)
            if self.save(room, f"Room “{record.name}”", result):
                self.rooms[record.name] = room
                self.report.record("room", result, record.name, fields)

    def write_tracks(self) -> None:
        existing = list(self.conference.tracks.all())
        by_name = {track.name.casefold(): track for track in existing}
        by_slug = {track.slug: track for track in existing}
        slugs = set(by_slug)
        for record in self.records.tracks.values():
            slug = slugify(record.slug) or slugify(record.name)
            track = by_name.get(record.name.casefold()) or by_slug.get(slug)
            if track is None:
                track = Track(
                    conference=self.conference, slug=unique_slug(slug, "track", slugs, 100)
                )
            values = {"name": record.name}
            # A colour the model would refuse (#abc, “red”) is ignored rather than failing the import.
            colour = record.colour.lower() if _COLOUR.match(record.colour) else ""
            if colour and track.colour.lower() != colour:
                values["colour"] = colour
            fields = apply_changes(track, values)
            result = outcome(track, fields)
            if self.save(track, f"Track “{record.name}”", result):
                self.tracks[record.name] = track
                self.report.record("track", result, record.name, fields)

    def write_speakers(self) -> None:
        existing = list(self.conference.speakers.all())
        by_guid = guid_index(existing)
        slugs = {speaker.slug for speaker in existing}
        persons: dict[str, PersonRecord] = {}
        for event in self.records.events:
            for person in event.persons:
                persons.setdefault(person.guid, person)
        for person in persons.values():
            speaker = by_guid.get(person.guid) or by_guid.get(export_guid(person.guid))
            if speaker is None:
                speaker = Speaker(
                    conference=self.conference,
                    guid=person.guid,
                    slug=unique_slug(slugify(person.name), "speaker", slugs, 200),
                )
            values = {"name": person.name}
            if person.biography is not None:  # schedule.xml carries no biographies
                values["bio"] = person.biography
            fields = apply_changes(speaker, values)
            result = outcome(speaker, fields)
            if self.save(speaker, person.where, result):
                self.speakers[person.guid] = speaker
                self.report.record("speaker", result, person.name, fields)

    def write_sessions(self) -> None:
        existing = list(
            self.conference.sessions.select_related("room", "track")
            .prefetch_related(ordered_speakers_prefetch())
            .order_by("pk")
        )
        by_guid = guid_index(existing)
        slugs = {session.slug for session in existing}
        matches = [
            by_guid.get(event.guid) or by_guid.get(export_guid(event.guid))
            for event in self.records.events
        ]
        # Take the sessions being re-imported out of the room and speaker checks (both ignore
        # cancelled sessions), then place them again in file order: two talks that swap slots
        # do not clash with each other's old times, and clashes within the file are still found.
        Session.objects.filter(pk__in=[match.pk for match in matches if match]).update(
            status=Session.Status.CANCELLED
        )
        for event, session in zip(self.records.events, matches, strict=True):
            if session is None:
                session = Session(
                    conference=self.conference,
                    guid=event.guid,
                    slug=unique_slug(event.slug, "session", slugs, 300),
                )
            self.write_session(event, session)

    def write_session(self, event: EventRecord, session: Session) -> None:
        if event.room and event.room not in self.rooms:
            return  # its room failed validation and is already reported
        old_speakers = [speaker.pk for speaker in session.ordered_speakers] if session.pk else []
        fields = apply_changes(
            session,
            {
                "title": event.title,
                "kind": event.kind,
                "track": self.tracks.get(event.track) if event.track else None,
                "room": self.rooms.get(event.room) if event.room else None,
                "starts_at": event.starts_at,
                "ends_at": event.ends_at,
                "description": event.description,
                "status": Session.Status.CANCELLED if event.cancelled else Session.Status.PUBLISHED,
            },
        )
        # A speaker that failed validation is already reported; one listed twice counts once.
        speakers = list(
            {
                person.guid: self.speakers[person.guid]
                for person in event.persons
                if person.guid in self.speakers
            }.values()
        )
        speakers_changed = [speaker.pk for speaker in speakers] != old_speakers
        if speakers_changed and session.pk:
            fields.append("speakers")
            # Old links go first, so a speaker leaving this session cannot clash at its new time.
            session.session_speakers.all().delete()
        result = outcome(session, fields)
        if not self.save(session, event.where, result):
            return
        if result == "unchanged":  # restore the status set aside above, leaving updated_at alone
            Session.objects.filter(pk=session.pk).update(status=session.status)
        if speakers_changed:
            for position, speaker in enumerate(speakers):
                link = SessionSpeaker(session=session, speaker=speaker, position=position)
                if not self.save(link, event.where, "created"):
                    return
        self.report.record("session", result, event.title, fields)


def apply_changes(instance: models.Model, values: dict[str, Any]) -> list[str]:
    """Set each value that differs from the instance's; the names of the fields that changed."""
    changed = [name for name, value in values.items() if getattr(instance, name) != value]
    for name in changed:
        setattr(instance, name, values[name])
    return changed


def outcome(instance: models.Model, fields: list[str]) -> str:
    if instance.pk is None:
        return "created"
    return "updated" if fields else "unchanged"


def guid_index(objects: list[Session] | list[Speaker]) -> dict:
    """Objects by stored GUID and by the GUID our exports publish for it (legacy ones differ)."""
    index = {obj.guid: obj for obj in objects}
    for obj in objects:
        index.setdefault(export_guid(obj.guid), obj)
    return index

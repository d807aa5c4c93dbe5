"""schedule.xml (frab/c3voc) into records; each event located by its line."""

import xml.etree.ElementTree as ET
from typing import Any
from xml.parsers import expat

from conference.models import Conference
from sessions.frab import VENUE_ROOM_GUID, person_guid, session_kind, session_slug, split_title
from sessions.importers.records import (
    EventRecord,
    PersonRecord,
    RecordError,
    RoomRecord,
    ScheduleImportError,
    ScheduleRecords,
    TrackRecord,
    end_after,
    event_where,
    join_text,
    parse_moment,
    read_duration,
)


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
            where = f"Track “{name}” (line {lines[track]})"
            records.tracks[name] = TrackRecord(
                name, track.get("slug", ""), track.get("color", ""), where
            )
    seen: dict[str, EventRecord] = {}
    for day in root.iterfind("day"):
        for room in day.iterfind("room"):
            room_name = (room.get("name") or "").strip()
            if not room_name:
                records.problems.append(f"Room (line {lines[room]}): name: missing.")
                continue
            is_venue = room.get("guid") == VENUE_ROOM_GUID
            if not is_venue and room_name not in records.rooms:
                where = f"Room “{room_name}” (line {lines[room]})"
                records.rooms[room_name] = RoomRecord(room_name, where=where)
            for event in room.iterfind("event"):
                try:
                    record = xml_event(event, lines, room_name, is_venue, acronym, conference)
                    records.add_event(record, seen)
                except RecordError as problem:
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
        raise RecordError(f"{where}: guid: missing.")
    if not title:
        raise RecordError(f"{where}: title: missing.")
    if not text("date"):
        raise RecordError(f"{where}: date: missing.")
    starts_at = parse_moment(text("date"), conference, where, "date")
    if event.find("room") is not None and text("room").strip() != room_name:
        raise RecordError(
            f"{where}: room: “{text('room')}” is not the room it is listed under (“{room_name}”)."
        )
    persons = []
    for person in event.iterfind("persons/person"):
        name = (person.text or "").strip()
        person_where = f"Person “{name}” of {where}" if name else f"A person of {where}"
        if not name:
            raise RecordError(f"{person_where}: name: missing.")
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
        ends_at=end_after(starts_at, read_duration(text("duration"), where), where),
        description=join_text(text("abstract"), text("description")),
        persons=persons,
    )

"""schedule.xml (frab/c3voc) into records; each event located by its line.

``parse_xml`` reads the file section by section: the conference (a problem there refuses the
file), its tracks, then the days, each day's rooms and their events with persons, links,
attachments and recording (a problem with one record is noted and the next one read).
"""

import datetime
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from typing import Any
from xml.parsers import expat

from django.utils.translation import gettext as _

from conference.models import Conference
from sessions.frab import (
    GENERATOR,
    VENUE_ROOM_GUID,
    person_guid,
    session_kind,
    session_slug,
    split_title,
    type_label,
)
from sessions.importers.records import (
    OPTIONAL_EVENT_FIELDS,
    ConferenceRecord,
    DayWindow,
    EventRecord,
    LinkRecord,
    PersonRecord,
    RecordError,
    RoomRecord,
    ScheduleImportError,
    ScheduleRecords,
    TrackRecord,
    absolute_link,
    day_change_of_windows,
    end_after,
    event_where,
    file_zone,
    parse_moment,
    picture_or_page_link,
    read_clock,
    read_duration,
    with_video_download,
)


def read_xml(data: bytes) -> tuple[ET.Element, dict[ET.Element, int]]:
    """The element tree and each element's line; DTDs and entities are refused before parsing."""
    refusal = _(
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
            # Translators: error is the XML parser's own English description (mismatched tag).
            _("The file is not well-formed XML: %(error)s (line %(line)s, column %(column)s).")
            % {
                "error": expat.ErrorString(error.code),
                "line": error.lineno,
                "column": error.offset + 1,
            }
        ) from None
    return builder.close(), lines


@dataclass
class XmlContext:
    """What the file says once that each day, room and event is read with."""

    lines: dict[ET.Element, int]  # each element's line, to name it in a problem
    acronym: str
    zone: datetime.tzinfo  # of times without an offset
    base_url: str  # of relative links
    # Written by this software: each event's url is its page here, and a type label (“Ceremony”)
    # hides the kind, which only our schedule.json carries.
    ours: bool = False


def parse_xml(data: bytes, conference: Conference) -> ScheduleRecords:
    root, lines = read_xml(data)
    if root.tag != "schedule":
        raise ScheduleImportError(
            _("The XML root element is <%(tag)s>, not <schedule>.") % {"tag": root.tag}
        )
    records = ScheduleRecords()
    context = xml_conference(root, lines, conference, records.conference)
    xml_tracks(root, lines, records)
    windows = xml_days(root, context, records)
    records.conference.day_change = records.conference.day_change or day_change_of_windows(windows)
    return records


def xml_conference(
    root: ET.Element, lines: dict[ET.Element, int], conference: Conference, header: ConferenceRecord
) -> XmlContext:
    """The conference's time zone, colour, logo and day change; and what its events are read with."""
    element = root.find("conference")
    where = (
        _("<conference> (line %(line)s)") % {"line": lines[element]} if element is not None else ""
    )
    acronym = (root.findtext("conference/acronym") or "").strip()
    base_url = (root.findtext("conference/base_url") or "").strip()
    generator = root.find("generator")
    header.ours = generator is not None and generator.get("name") == GENERATOR
    header.time_zone = (root.findtext("conference/time_zone_name") or "").strip()
    zone = file_zone(header.time_zone, conference, where)
    colour = root.find("conference/color")
    header.colour = colour.get("primary", "") if colour is not None else ""
    header.logo_url = absolute_link(root.findtext("conference/logo") or "", base_url)
    legacy_day_change = root.findtext("conference/day_change")  # frab before the day windows
    if legacy_day_change:
        header.day_change = read_clock(legacy_day_change, where, "day_change")
    return XmlContext(lines, acronym, zone, base_url, header.ours)


def xml_tracks(root: ET.Element, lines: dict[ET.Element, int], records: ScheduleRecords) -> None:
    for track in root.iterfind("conference/track"):
        name = (track.get("name") or "").strip()
        if name:
            where = _("Track “%(name)s” (line %(line)s)") % {"name": name, "line": lines[track]}
            records.tracks[name] = TrackRecord(
                name, track.get("slug", ""), track.get("color", ""), where
            )


def xml_days(root: ET.Element, context: XmlContext, records: ScheduleRecords) -> list[DayWindow]:
    """Each day's events, room by room; the days' windows, for the day change they show."""
    seen: dict[str, EventRecord] = {}
    windows = []
    for day in root.iterfind("day"):
        try:
            window = xml_day_window(day, context)
        except RecordError as problem:
            records.problems.append(str(problem))
        else:
            if window:
                windows.append(window)
        for room in day.iterfind("room"):
            xml_room_events(room, context, records, seen)
    return windows


def xml_day_window(day: ET.Element, context: XmlContext) -> DayWindow | None:
    if not (day.get("start") and day.get("end")):
        return None
    where = _("<day> (line %(line)s)") % {"line": context.lines[day]}
    start, end = (
        parse_moment(day.get(name), context.zone, where, name).astimezone(context.zone)
        for name in ("start", "end")
    )
    return start, end


def xml_room_events(
    room: ET.Element,
    context: XmlContext,
    records: ScheduleRecords,
    seen: dict[str, EventRecord],
) -> None:
    """The events one day lists in one room; the room is recorded on first sight."""
    room_name = (room.get("name") or "").strip()
    if not room_name:
        where = _("Room (line %(line)s)") % {"line": context.lines[room]}
        records.problems.append(missing(where, "name"))
        return
    is_venue = room.get("guid") == VENUE_ROOM_GUID
    if not is_venue and room_name not in records.rooms:
        where = _("Room “%(name)s” (line %(line)s)") % {
            "name": room_name,
            "line": context.lines[room],
        }
        try:
            records.rooms[room_name] = RoomRecord(
                room_name, where=where, guid=(room.get("guid") or "").strip()
            )
        except RecordError as problem:
            records.problems.append(str(problem))
            return
    for event in room.iterfind("event"):
        try:
            records.add_event(xml_event(event, room_name, is_venue, context), seen)
        except RecordError as problem:
            records.problems.append(str(problem))


def xml_event(
    event: ET.Element, room_name: str, is_venue: bool, context: XmlContext
) -> EventRecord:
    def text(tag: str) -> str:
        return event.findtext(tag) or ""

    guid = (event.get("guid") or "").strip()
    title, cancelled = split_title(text("title").strip())
    where = event_where(title, guid, _("line %(line)s") % {"line": context.lines[event]})
    if not guid:
        raise RecordError(missing(where, "guid"))
    if not title:
        raise RecordError(missing(where, "title"))
    if not text("date"):
        raise RecordError(missing(where, "date"))
    starts_at = parse_moment(text("date"), context.zone, where, "date")
    if event.find("room") is not None and text("room").strip() != room_name:
        raise RecordError(
            # Translators: value is the event's <room>; room the <room> element it is inside.
            _("%(where)s: room: “%(value)s” is not the room it is listed under (“%(room)s”).")
            % {"where": where, "value": text("room"), "room": room_name}
        )
    persons = xml_persons(event, where)
    extra = xml_extra(event, context.base_url)
    raw_type = text("type").strip()
    kind = session_kind(raw_type)
    if context.ours:
        # As for our schedule.json (frab_json.JsonMeta): the url is our page, not a source.
        del extra["source_url"]
        kind = None if type_label(raw_type) else kind
    return EventRecord(
        where=where,
        guid=guid,
        title=title,
        slug=session_slug(text("slug"), context.acronym, title),
        kind=kind,
        cancelled=cancelled,
        room=None if is_venue else room_name,
        track=text("track").strip(),
        starts_at=starts_at,
        ends_at=end_after(starts_at, read_duration(text("duration"), where), where),
        description=text("description").strip(),
        persons=persons,
        type_label=type_label(raw_type),
        do_not_record=xml_boolean(event.findtext("recording/optout"), where, "recording/optout"),
        extra=extra,
        links=with_video_download(
            xml_links(event, "links/link", context.base_url),
            text("video_download_url"),
            context.base_url,
        ),
        attachments=xml_links(event, "attachments/attachment", context.base_url),
    )


def xml_persons(event: ET.Element, where: str) -> list[PersonRecord]:
    persons = []
    for person in event.iterfind("persons/person"):
        name = (person.text or "").strip()
        if not name:
            # Translators: where names the event (Event “Opening” (guid …, line 12)).
            raise RecordError(missing(_("A person of %(where)s") % {"where": where}, "name"))
        # Translators: name is the person's (a speaker's); where names the event.
        person_where = _("Person “%(name)s” of %(where)s") % {"name": name, "where": where}
        persons.append(
            PersonRecord(
                person_guid(person.get("guid", ""), person.get("id"), name),
                name,
                None,
                person_where,
            )
        )
    return persons


def xml_extra(event: ET.Element, base_url: str) -> dict[str, str]:
    """An event's OPTIONAL_EVENT_FIELDS by model field (the code an attribute, the licence in
    <recording>); its pictures and pages as links."""
    extra = {
        field: (event.findtext(key) or "").strip()
        for field, key in OPTIONAL_EVENT_FIELDS.items()
        if key not in ("code", "recording_license")
    }
    extra["code"] = (event.get("code") or "").strip()
    extra["recording_license"] = (event.findtext("recording/license") or "").strip()
    for field in ("logo_url", "source_url", "origin_url", "feedback_url"):
        extra[field] = picture_or_page_link(extra[field], base_url)
    return extra


def xml_links(event: ET.Element, path: str, base_url: str) -> list[LinkRecord]:
    return [
        LinkRecord(
            absolute_link(element.get("href") or "", base_url),
            (element.text or "").strip(),
            (element.get("type") or "").strip(),
        )
        for element in event.iterfind(path)
    ]


def xml_boolean(value: str | None, where: str, name: str) -> bool:
    """xs:boolean: true, false, 1 or 0; absent is false."""
    value = (value or "").strip()
    if value in ("", "false", "0"):
        return False
    if value in ("true", "1"):
        return True
    raise RecordError(
        # Translators: key is the file's element (recording/optout).
        _("%(where)s: %(key)s: “%(value)s” is not true or false.")
        % {"where": where, "key": name, "value": value[:40]}
    )


def missing(where: str, key: str) -> str:
    """The problem of a record without something every one must have: its ``key`` in the file."""
    # Translators: where names the record (Room (line 12)); key is the file's (guid, title…).
    return _("%(where)s: %(key)s: missing.") % {"where": where, "key": key}

"""schedule.json (the c3voc format frab and pretalx publish) into records, located by JSON path."""

import json
from typing import Any

from conference.models import Conference
from sessions.frab import (
    CONFERENCE_META_FIELDS,
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
    not_utf8,
    parse_moment,
    picture_or_page_link,
    read_capacity,
    read_clock,
    read_duration,
    refuse_nul,
    shown,
)
from sessions.models import Session

_MISSING = object()
_JSON_TYPES = {
    str: "a string",
    int: "an integer",
    list: "a list",
    dict: "an object",
    bool: "true or false",
}


def json_value(record: dict, key: str, kind: type, where: str, *, required: bool = True) -> Any:
    value = record.get(key, _MISSING)
    if value is _MISSING or value is None:
        if required:
            raise RecordError(f"{where}: {key}: missing.")
        return None
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise RecordError(
            f"{where}: {key}: expected {_JSON_TYPES[kind]}, got {json.dumps(value)[:40]}."
        )
    return value


def parse_json(data: bytes, conference: Conference) -> ScheduleRecords:
    try:
        document = json.loads(data)  # detects UTF-8, -16 and -32 and skips a BOM
    except UnicodeDecodeError as error:
        raise not_utf8(data, error) from None
    except json.JSONDecodeError as error:
        raise ScheduleImportError(
            f"The file is not valid JSON: {error.msg} (line {error.lineno}, column {error.colno})."
        ) from None
    except RecursionError:
        raise ScheduleImportError("The file is not valid JSON: it is nested too deeply.") from None
    try:
        if not isinstance(document, dict):
            raise RecordError("The file: expected an object with a “schedule” key.")
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
        base_url = json_value(schedule, "base_url", str, "schedule", required=False) or ""
        records = ScheduleRecords()
        header = records.conference
        generator = document.get("generator")
        header.ours = isinstance(generator, dict) and generator.get("name") == GENERATOR
        header.time_zone = (
            json_value(
                conference_data, "time_zone_name", str, "schedule.conference", required=False
            )
            or ""
        ).strip()
        header.logo_url = absolute_link(
            json_value(conference_data, "logo", str, "schedule.conference", required=False) or "",
            base_url,
        )
        colours = json_value(conference_data, "colors", dict, "schedule.conference", required=False)
        header.colour = (
            json_value(colours, "primary", str, "schedule.conference.colors", required=False)
            if colours
            else None
        ) or ""
        # Our exports keep the day change, audience levels, kinds the type does not say and the
        # conference's details in meta (the schema has no key for them).
        meta = json_value(conference_data, "meta", dict, "schedule.conference", required=False)
        meta = meta or {}
        day_change = json_value(meta, "day_change", str, "schedule.conference.meta", required=False)
        audience_levels = (
            json_value(meta, "audience_levels", dict, "schedule.conference.meta", required=False)
            or {}
        )
        kinds = json_value(meta, "kinds", dict, "schedule.conference.meta", required=False) or {}
        source_urls = (
            json_value(meta, "source_urls", dict, "schedule.conference.meta", required=False) or {}
        )
        details = {
            "description": json_value(
                conference_data, "description", str, "schedule.conference", required=False
            )
        } | {
            name: json_value(meta, name, str, "schedule.conference.meta", required=False)
            for name in CONFERENCE_META_FIELDS
        }
        header.details = {name: value.strip() for name, value in details.items() if value}
        refuse_nul("schedule.conference", **header.details)
    except RecordError as problem:
        raise ScheduleImportError(str(problem)) from None
    zone = file_zone(header.time_zone, conference, "schedule.conference")
    if day_change:
        header.day_change = read_clock(day_change, "schedule.conference.meta", "day_change")
    declared_rooms, venue_rooms = json_rooms(room_list or [], records)
    for index, track in enumerate(track_list or []):
        where = f"schedule.conference.tracks[{index}]"
        try:
            if not isinstance(track, dict):
                raise RecordError(f"{where}: expected an object.")
            name = json_value(track, "name", str, where).strip()
            slug = json_value(track, "slug", str, where, required=False) or ""
            colour = json_value(track, "color", str, where, required=False) or ""
            description = json_value(track, "description", str, where, required=False)
            records.tracks[name] = TrackRecord(
                name, slug, colour, f"Track “{shown(name)}” ({where})", description
            )
        except RecordError as problem:
            records.problems.append(str(problem))
    seen: dict[str, EventRecord] = {}
    windows = []
    for day_index, day in enumerate(days):
        day_where = f"schedule.conference.days[{day_index}]"
        try:
            if not isinstance(day, dict):
                raise RecordError(f"{day_where}: expected an object.")
            rooms = json_value(day, "rooms", dict, day_where)
            window = [
                json_value(day, name, str, day_where, required=False)
                for name in ("day_start", "day_end")
            ]
            if all(window):
                windows.append(
                    tuple(
                        parse_moment(value, zone, day_where, name).astimezone(zone)
                        for value, name in zip(window, ("day_start", "day_end"), strict=True)
                    )
                )
        except RecordError as problem:
            records.problems.append(str(problem))
            continue
        for room_name, events in rooms.items():
            room_where = f'{day_where}.rooms["{shown(room_name)}"]'
            if declared_rooms and room_name not in declared_rooms:
                records.problems.append(
                    f"{room_where}: room: “{shown(room_name)}” is not in schedule.conference.rooms."
                )
                continue
            if not isinstance(events, list):
                records.problems.append(f"{room_where}: expected a list of events.")
                continue
            is_venue = room_name in venue_rooms
            if not is_venue and room_name not in records.rooms:
                try:
                    records.rooms[room_name] = RoomRecord(room_name, where=room_where)
                except RecordError as problem:
                    records.problems.append(str(problem))
                    continue
            for event_index, event in enumerate(events):
                location = f"{room_where}[{event_index}]"
                try:
                    record = json_event(
                        event, location, room_name, is_venue, acronym or "", zone, base_url
                    )
                    if header.ours:
                        source = source_urls.get(record.guid)
                        record.extra["source_url"] = source if isinstance(source, str) else ""
                    level = audience_levels.get(record.guid)
                    record.audience_level = level if isinstance(level, str) else None
                    if kinds.get(record.guid) in Session.Kind.values:
                        record.kind = kinds[record.guid]
                    records.add_event(record, seen)
                except RecordError as problem:
                    records.problems.append(str(problem))
    header.day_change = header.day_change or day_change_of_windows(windows)
    return records


def json_rooms(room_list: list, records: ScheduleRecords) -> tuple[set[str], set[str]]:
    """Rooms declared in schedule.conference.rooms, and those that stand for the whole venue."""
    declared, venue = set(), set()
    for index, room in enumerate(room_list):
        where = f"schedule.conference.rooms[{index}]"
        try:
            if not isinstance(room, dict):
                raise RecordError(f"{where}: expected an object.")
            name = json_value(room, "name", str, where).strip()
            where = f"Room “{shown(name)}” ({where})"
            declared.add(name)
            if room.get("guid") == VENUE_ROOM_GUID:
                venue.add(name)
                continue
            records.rooms[name] = RoomRecord(
                name,
                json_value(room, "slug", str, where, required=False) or "",
                read_capacity(room.get("capacity"), where),
                where,
                (json_value(room, "guid", str, where, required=False) or "").strip(),
                # 39c3's hub writes description_en and description_de instead.
                json_value(room, "description", str, where, required=False)
                or json_value(room, "description_en", str, where, required=False),
            )
        except RecordError as problem:
            records.problems.append(str(problem))
    return declared, venue


def json_event(
    event: object,
    location: str,
    room_name: str,
    is_venue: bool,
    acronym: str,
    zone,
    base_url: str,
) -> EventRecord:
    if not isinstance(event, dict):
        raise RecordError(f"Event ({location}): expected an object.")
    raw_title = event.get("title")
    guid = event.get("guid")
    where = event_where(
        raw_title.strip() if isinstance(raw_title, str) else "",
        guid if isinstance(guid, str) else "",
        location,
    )

    def optional(key: str, kind: type = str):
        return json_value(event, key, kind, where, required=False)

    guid = json_value(event, "guid", str, where).strip()
    title, cancelled = split_title(json_value(event, "title", str, where).strip())
    if not title:
        raise RecordError(f"{where}: title: missing.")
    room = optional("room")
    if room is not None and room.strip() != room_name:
        raise RecordError(
            f"{where}: room: “{room}” is not the room it is listed under (“{room_name}”)."
        )
    starts_at = parse_moment(json_value(event, "date", str, where), zone, where, "date")
    end = optional("end")
    if end:
        ends_at = parse_moment(end, zone, where, "end")
    else:
        ends_at = end_after(
            starts_at, read_duration(json_value(event, "duration", str, where), where), where
        )
    persons = [
        json_person(person, f"{where}, persons[{index}]", base_url)
        for index, person in enumerate(optional("persons", list) or [])
    ]
    extra = {field: (optional(key) or "").strip() for field, key in OPTIONAL_EVENT_FIELDS.items()}
    for field in ("logo_url", "source_url", "origin_url", "feedback_url"):
        extra[field] = picture_or_page_link(extra[field], base_url)
    raw_type = (optional("type") or "").strip()
    return EventRecord(
        where=where,
        guid=guid,
        title=title,
        slug=session_slug(optional("slug") or "", acronym, title),
        kind=session_kind(raw_type),
        cancelled=cancelled,
        room=None if is_venue else room_name,
        track=(optional("track") or "").strip(),
        starts_at=starts_at,
        ends_at=ends_at,
        description=(optional("description") or "").strip(),
        persons=persons,
        type_label=type_label(raw_type),
        do_not_record=bool(optional("do_not_record", bool)),
        extra=extra,
        links=json_links(optional("links", list) or [], f"{where}: links", base_url),
        attachments=json_links(
            optional("attachments", list) or [], f"{where}: attachments", base_url
        ),
    )


def json_links(items: list, where: str, base_url: str) -> list[LinkRecord]:
    links = []
    for index, item in enumerate(items):
        item_where = f"{where}[{index}]"
        if not isinstance(item, dict):
            raise RecordError(f"{item_where}: expected an object.")
        url = json_value(item, "url", str, item_where)
        links.append(
            LinkRecord(
                absolute_link(url, base_url),
                (json_value(item, "title", str, item_where, required=False) or "").strip(),
                (json_value(item, "type", str, item_where, required=False) or "").strip(),
            )
        )
    return links


def json_person(person: object, where: str, base_url: str) -> PersonRecord:
    if not isinstance(person, dict):
        raise RecordError(f"{where}: expected an object.")
    name = json_value(person, "name", str, where, required=False)
    if name is None:
        name = json_value(person, "public_name", str, where, required=False)
    if not (name or "").strip():
        raise RecordError(f"{where}: name: missing.")
    name = name.strip()
    guid = json_value(person, "guid", str, where, required=False) or ""
    person_id = person.get("id")
    biography = json_value(person, "biography", str, where, required=False)
    avatar = json_value(person, "avatar", str, where, required=False)
    return PersonRecord(
        person_guid(guid.strip(), person_id, name),
        name,
        biography,
        where,
        avatar_url=absolute_link(avatar, base_url) if avatar is not None else None,
        # Our own exports' extra keys; the schema lets a person carry more than it names.
        role=json_value(person, "role", str, where, required=False),
        company=json_value(person, "company", str, where, required=False),
        appears_in_parallel=json_value(person, "appears_in_parallel", bool, where, required=False),
        links=json_links(
            json_value(person, "links", list, where, required=False) or [],
            f"{where}: links",
            base_url,
        ),
    )

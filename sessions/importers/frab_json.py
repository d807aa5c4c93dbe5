"""schedule.json (the c3voc format frab and pretalx publish) into records, located by JSON path.

``parse_json`` reads the file section by section: the conference (a problem there refuses the
file), then its rooms, tracks and days, each day's rooms and their events with persons, links
and attachments (a problem with one record is noted and the next one read).
"""

import datetime
import json
from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from conference.models import Conference, Room
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
    not_utf8,
    parse_moment,
    picture_or_page_link,
    read_capacity,
    read_clock,
    read_duration,
    refuse_unstorable,
    shown,
    with_video_download,
)
from sessions.models import Session

_MISSING = object()
# One whole sentence per type, as French agrees its words with the type's noun.
_WRONG_TYPE = {
    str: gettext_lazy("%(where)s: %(key)s: expected a string, got %(value)s."),
    int: gettext_lazy("%(where)s: %(key)s: expected an integer, got %(value)s."),
    list: gettext_lazy("%(where)s: %(key)s: expected a list, got %(value)s."),
    dict: gettext_lazy("%(where)s: %(key)s: expected an object, got %(value)s."),
    bool: gettext_lazy("%(where)s: %(key)s: expected true or false, got %(value)s."),
}


def json_value(record: dict, key: str, kind: type, where: str, *, required: bool = True) -> Any:
    value = record.get(key, _MISSING)
    if value is _MISSING or value is None:
        if required:
            raise RecordError(_("%(where)s: %(key)s: missing.") % {"where": where, "key": key})
        return None
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise RecordError(
            _WRONG_TYPE[kind] % {"where": where, "key": key, "value": json.dumps(value)[:40]}
        )
    return value


@dataclass
class JsonSections:
    """The parts of schedule.json the sections are read from, each checked for its type."""

    conference: dict  # schedule.conference
    days: list
    acronym: str
    rooms: list
    tracks: list
    base_url: str


@dataclass
class JsonMeta:
    """schedule.conference.meta: what our exports say that the schema has no key for."""

    fields: dict  # the object itself, holding the conference's details too
    day_change: str | None
    # Each by event guid.
    audience_levels: dict
    kinds: dict  # the kinds an event's type does not say
    source_urls: dict

    def apply(self, record: EventRecord, ours: bool) -> None:
        if ours:
            source = self.source_urls.get(record.guid)
            record.extra["source_url"] = source if isinstance(source, str) else ""
            refuse_unstorable(record.where, **{"meta.source_urls": record.extra["source_url"]})
        level = self.audience_levels.get(record.guid)
        record.audience_level = level if isinstance(level, str) else None
        if self.kinds.get(record.guid) in Session.Kind.values:
            record.kind = self.kinds[record.guid]


@dataclass
class JsonContext:
    """What the file says once that each day, room and event is read with."""

    acronym: str
    zone: datetime.tzinfo  # of times without an offset
    base_url: str  # of relative links
    meta: JsonMeta
    ours: bool
    declared_rooms: set[str]  # schedule.conference.rooms; none declared: any room goes
    venue_rooms: set[str]  # those standing for the whole venue


def parse_json(data: bytes, conference: Conference) -> ScheduleRecords:
    document = load_json(data)
    records = ScheduleRecords()
    try:
        sections = json_sections(document)
        json_conference(document, sections, records.conference)
        meta = json_meta(sections.conference)
        records.conference.details = json_details(sections.conference, meta.fields)
    except RecordError as problem:
        raise ScheduleImportError(str(problem)) from None
    zone = file_zone(records.conference.time_zone, conference, "schedule.conference")
    if meta.day_change:
        records.conference.day_change = read_clock(
            meta.day_change, "schedule.conference.meta", "day_change"
        )
    declared_rooms, venue_rooms = json_rooms(sections.rooms, records)
    json_tracks(sections.tracks, records)
    context = JsonContext(
        acronym=sections.acronym,
        zone=zone,
        base_url=sections.base_url,
        meta=meta,
        ours=records.conference.ours,
        declared_rooms=declared_rooms,
        venue_rooms=venue_rooms,
    )
    windows = json_days(sections.days, context, records)
    records.conference.day_change = records.conference.day_change or day_change_of_windows(windows)
    return records


def load_json(data: bytes) -> object:
    try:
        return json.loads(data)  # detects UTF-8, -16 and -32 and skips a BOM
    except UnicodeDecodeError as error:
        raise not_utf8(data, error) from None
    except json.JSONDecodeError as error:
        raise ScheduleImportError(
            # Translators: reason is Python's JSON parser's message, in English (“Expecting value”).
            _("The file is not valid JSON: %(reason)s (line %(line)s, column %(column)s).")
            % {"reason": error.msg, "line": error.lineno, "column": error.colno}
        ) from None
    except RecursionError:
        raise ScheduleImportError(
            _("The file is not valid JSON: it is nested too deeply.")
        ) from None


def json_sections(document: object) -> JsonSections:
    if not isinstance(document, dict):
        raise RecordError(_("The file: expected an object with a “schedule” key."))
    schedule = json_value(document, "schedule", dict, _("The file"))
    conference = json_value(schedule, "conference", dict, "schedule")
    where = "schedule.conference"
    return JsonSections(
        conference=conference,
        days=json_value(conference, "days", list, where),
        acronym=json_value(conference, "acronym", str, where, required=False) or "",
        rooms=json_value(conference, "rooms", list, where, required=False) or [],
        tracks=json_value(conference, "tracks", list, where, required=False) or [],
        base_url=json_value(schedule, "base_url", str, "schedule", required=False) or "",
    )


def json_conference(document: dict, sections: JsonSections, header: ConferenceRecord) -> None:
    """The conference's generator, time zone, logo and colour."""
    conference, where = sections.conference, "schedule.conference"
    generator = document.get("generator")
    header.ours = isinstance(generator, dict) and generator.get("name") == GENERATOR
    header.time_zone = (
        json_value(conference, "time_zone_name", str, where, required=False) or ""
    ).strip()
    header.logo_url = absolute_link(
        json_value(conference, "logo", str, where, required=False) or "", sections.base_url
    )
    colours = json_value(conference, "colors", dict, where, required=False)
    header.colour = (
        json_value(colours, "primary", str, f"{where}.colors", required=False) if colours else None
    ) or ""


def json_meta(conference: dict) -> JsonMeta:
    meta = json_value(conference, "meta", dict, "schedule.conference", required=False) or {}
    where = "schedule.conference.meta"
    return JsonMeta(
        fields=meta,
        day_change=json_value(meta, "day_change", str, where, required=False),
        audience_levels=json_value(meta, "audience_levels", dict, where, required=False) or {},
        kinds=json_value(meta, "kinds", dict, where, required=False) or {},
        source_urls=json_value(meta, "source_urls", dict, where, required=False) or {},
    )


def json_details(conference: dict, meta: dict) -> dict[str, str]:
    """The conference's description and, from our exports' meta, CONFERENCE_META_FIELDS."""
    details = {
        "description": json_value(
            conference, "description", str, "schedule.conference", required=False
        )
    } | {
        name: json_value(meta, name, str, "schedule.conference.meta", required=False)
        for name in CONFERENCE_META_FIELDS
    }
    details = {name: value.strip() for name, value in details.items() if value}
    refuse_unstorable("schedule.conference", **details)
    return details


def json_rooms(room_list: list, records: ScheduleRecords) -> tuple[set[str], set[str]]:
    """Rooms declared in schedule.conference.rooms, and those that stand for the whole venue."""
    declared, venue = set(), set()
    for index, room in enumerate(room_list):
        where = f"schedule.conference.rooms[{index}]"
        try:
            if not isinstance(room, dict):
                raise RecordError(_("%(where)s: expected an object.") % {"where": where})
            name = json_value(room, "name", str, where).strip()
            where = _("Room “%(name)s” (%(location)s)") % {"name": shown(name), "location": where}
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
                json_room_description(room, where),
                json_room_kind(room, where),
            )
        except RecordError as problem:
            records.problems.append(str(problem))
    return declared, venue


def json_room_description(room: dict, where: str) -> str | None:
    """A room's description: a text or, as the schema allows, one per language ({"en": …}, or
    39c3's description_en and description_de keys); English first, else the first given."""
    description = room.get("description")
    if isinstance(description, dict):
        texts = description
    else:
        if json_value(room, "description", str, where, required=False):
            return description
        texts = {
            key.removeprefix("description_"): value
            for key, value in room.items()
            if key.startswith("description_")
        }
    texts = {language: text for language, text in texts.items() if isinstance(text, str)}
    return texts.get("en") or next(iter(texts.values()), None)


def json_room_kind(room: dict, where: str) -> str | None:
    """A room's type, when it is one of the schema's (Room.Kind); another is no reason to refuse
    the schedule, so it is left out, as a track colour the model refuses is."""
    kind = (json_value(room, "type", str, where, required=False) or "").strip()
    return kind if kind in Room.Kind.values else None


def json_tracks(track_list: list, records: ScheduleRecords) -> None:
    for index, track in enumerate(track_list):
        where = f"schedule.conference.tracks[{index}]"
        try:
            if not isinstance(track, dict):
                raise RecordError(_("%(where)s: expected an object.") % {"where": where})
            name = json_value(track, "name", str, where).strip()
            slug = json_value(track, "slug", str, where, required=False) or ""
            colour = json_value(track, "color", str, where, required=False) or ""
            description = json_value(track, "description", str, where, required=False)
            track_where = _("Track “%(name)s” (%(location)s)") % {
                "name": shown(name),
                "location": where,
            }
            records.tracks[name] = TrackRecord(name, slug, colour, track_where, description)
        except RecordError as problem:
            records.problems.append(str(problem))


def json_days(days: list, context: JsonContext, records: ScheduleRecords) -> list[DayWindow]:
    """Each day's events, room by room; the days' windows, for the day change they show."""
    seen: dict[str, EventRecord] = {}
    windows = []
    for day_index, day in enumerate(days):
        day_where = f"schedule.conference.days[{day_index}]"
        try:
            rooms, window = json_day(day, day_where, context.zone)
        except RecordError as problem:
            records.problems.append(str(problem))
            continue
        if window:
            windows.append(window)
        for room_name, events in rooms.items():
            room_where = f'{day_where}.rooms["{shown(room_name)}"]'
            json_room_events(room_name, events, room_where, context, records, seen)
    return windows


def json_day(day: object, where: str, zone: datetime.tzinfo) -> tuple[dict, DayWindow | None]:
    """A day's rooms (room name to events) and its window, if it gives one."""
    if not isinstance(day, dict):
        raise RecordError(_("%(where)s: expected an object.") % {"where": where})
    rooms = json_value(day, "rooms", dict, where)
    window = [
        json_value(day, name, str, where, required=False) for name in ("day_start", "day_end")
    ]
    if not all(window):
        return rooms, None
    start, end = (
        parse_moment(value, zone, where, name).astimezone(zone)
        for value, name in zip(window, ("day_start", "day_end"), strict=True)
    )
    return rooms, (start, end)


def json_room_events(
    room_name: str,
    events: object,
    where: str,
    context: JsonContext,
    records: ScheduleRecords,
    seen: dict[str, EventRecord],
) -> None:
    """The events one day lists under one room; a room no section declared is recorded here."""
    if context.declared_rooms and room_name not in context.declared_rooms:
        records.problems.append(
            _("%(where)s: room: “%(room)s” is not in schedule.conference.rooms.")
            % {"where": where, "room": shown(room_name)}
        )
        return
    if not isinstance(events, list):
        records.problems.append(_("%(where)s: expected a list of events.") % {"where": where})
        return
    is_venue = room_name in context.venue_rooms
    if not is_venue and room_name not in records.rooms:
        try:
            records.rooms[room_name] = RoomRecord(room_name, where=where)
        except RecordError as problem:
            records.problems.append(str(problem))
            return
    for event_index, event in enumerate(events):
        try:
            record = json_event(event, f"{where}[{event_index}]", room_name, is_venue, context)
            context.meta.apply(record, context.ours)
            records.add_event(record, seen)
        except RecordError as problem:
            records.problems.append(str(problem))


def json_event(
    event: object, location: str, room_name: str, is_venue: bool, context: JsonContext
) -> EventRecord:
    if not isinstance(event, dict):
        raise RecordError(
            _("%(where)s: expected an object.") % {"where": event_where("", "", location)}
        )
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
        raise RecordError(_("%(where)s: %(key)s: missing.") % {"where": where, "key": "title"})
    room = optional("room")
    if room is not None and room.strip() != room_name:
        raise RecordError(
            # Translators: listed is the room the file lists the event under.
            _("%(where)s: room: “%(room)s” is not the room it is listed under (“%(listed)s”).")
            % {"where": where, "room": shown(room), "listed": shown(room_name)}
        )
    starts_at, ends_at = json_times(event, where, context.zone)
    base_url = context.base_url
    persons = [
        json_person(person, f"{where}, persons[{index}]", base_url)
        for index, person in enumerate(optional("persons", list) or [])
    ]
    extra = json_extra(event, where, base_url)
    raw_type = (optional("type") or "").strip()
    return EventRecord(
        where=where,
        guid=guid,
        title=title,
        slug=session_slug(optional("slug") or "", context.acronym, title),
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
        links=with_video_download(
            json_links(optional("links", list) or [], in_field(where, "links"), base_url),
            optional("video_download_url") or "",
            base_url,
        ),
        attachments=json_links(
            optional("attachments", list) or [], in_field(where, "attachments"), base_url
        ),
    )


def json_times(
    event: dict, where: str, zone: datetime.tzinfo
) -> tuple[datetime.datetime, datetime.datetime]:
    """An event's start and end: its end if given, else its start plus its duration."""
    starts_at = parse_moment(json_value(event, "date", str, where), zone, where, "date")
    end = json_value(event, "end", str, where, required=False)
    if end:
        return starts_at, parse_moment(end, zone, where, "end")
    duration = read_duration(json_value(event, "duration", str, where), where)
    return starts_at, end_after(starts_at, duration, where)


def json_extra(event: dict, where: str, base_url: str) -> dict[str, str]:
    """An event's OPTIONAL_EVENT_FIELDS by model field; its pictures and pages as links."""
    extra = {
        field: (json_value(event, key, str, where, required=False) or "").strip()
        for field, key in OPTIONAL_EVENT_FIELDS.items()
    }
    for field in ("logo_url", "source_url", "origin_url", "feedback_url"):
        extra[field] = picture_or_page_link(extra[field], base_url)
    return extra


def in_field(where: str, key: str) -> str:
    """The place of ``key`` in the record at ``where``, as problems name it (“…: links”)."""
    # Translators: where names a record and its place in the file; field is a key of it.
    return _("%(where)s: %(field)s") % {"where": where, "field": key}


def json_links(items: list, where: str, base_url: str) -> list[LinkRecord]:
    links = []
    for index, item in enumerate(items):
        item_where = f"{where}[{index}]"
        if not isinstance(item, dict):
            raise RecordError(_("%(where)s: expected an object.") % {"where": item_where})
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
        raise RecordError(_("%(where)s: expected an object.") % {"where": where})
    name = json_value(person, "name", str, where, required=False)
    if name is None:
        name = json_value(person, "public_name", str, where, required=False)
    if not (name or "").strip():
        raise RecordError(_("%(where)s: %(key)s: missing.") % {"where": where, "key": "name"})
    name = name.strip()
    guid = json_value(person, "guid", str, where, required=False) or ""
    person_id = person.get("id")
    refuse_unstorable(where, id=person_id if isinstance(person_id, str) else None)
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
            in_field(where, "links"),
            base_url,
        ),
    )

"""Sessionize's “All Data” JSON (its API's /view/All endpoint) into records.

The document holds four lists: ``sessions``, ``speakers``, ``categories`` and ``rooms``
(``questions`` too, which we do not read). Sessions name their speakers by id, their room by
id and their categories by item id; docs/import.md lists which field lands where.
"""

import json
import uuid
from typing import Any

from django.utils.text import slugify
from django.utils.translation import gettext as _

from conference.models import Conference
from sessions.frab import session_kind
from sessions.importers.frab_json import json_value
from sessions.importers.records import (
    EventRecord,
    LinkRecord,
    PersonRecord,
    RecordError,
    RoomRecord,
    ScheduleImportError,
    ScheduleRecords,
    TrackRecord,
    parse_moment,
    refuse_unstorable,
    shown,
)
from sessions.models import Session

SESSIONIZE_KEYS = {
    "guid": "id",
    "title": "title",
    "starts_at": "startsAt",
    "ends_at": "endsAt",
    "room": "roomId",
    "track": "categoryItems",
    "kind": "categoryItems",
    "audience_level": "categoryItems",
    "speaker": "speakers",
    "name": "fullName",
    "bio": "bio",
    "slug": "title",
}
# Category titles (Sessionize lets each event name its own) and what we make of their items.
TRACK_CATEGORIES = {"track", "tracks", "topic", "topics"}
KIND_CATEGORIES = {"session format", "format", "session type", "type"}
LEVEL_CATEGORIES = {"level", "session level", "audience level"}


def is_sessionize(document: object) -> bool:
    return isinstance(document, dict) and "sessions" in document and "schedule" not in document


def parse_sessionize(document: dict, conference: Conference) -> ScheduleRecords:
    records = ScheduleRecords(file_keys=dict(SESSIONIZE_KEYS))
    where = _("The file")
    try:
        sessions = json_value(document, "sessions", list, where)
        speaker_list = json_value(document, "speakers", list, where, required=False) or []
        category_list = json_value(document, "categories", list, where, required=False) or []
        room_list = json_value(document, "rooms", list, where, required=False) or []
    except RecordError as problem:
        raise ScheduleImportError(str(problem)) from None
    rooms = read_rooms(room_list, records)
    speakers = read_speakers(speaker_list, records)
    items = read_categories(category_list, records)
    seen: dict[str, EventRecord] = {}
    for index, session in enumerate(sessions):
        try:
            record = sessionize_event(
                session, f"sessions[{index}]", conference, rooms, speakers, items
            )
            records.add_event(record, seen)
        except RecordError as problem:
            records.problems.append(str(problem))
    return records


def not_an_object(where: str) -> str:
    # Translators: an entry of the file's JSON lists (a session, speaker, room…) is not an
    # object ({…}).
    return _("%(where)s: expected an object.") % {"where": where}


def item_id(value: object) -> str:
    """Sessionize ids are numbers for rooms and items, strings elsewhere: compare as text."""
    return str(value) if isinstance(value, int | str) and not isinstance(value, bool) else ""


def read_rooms(room_list: list, records: ScheduleRecords) -> dict[str, str]:
    rooms = {}
    for index, room in enumerate(room_list):
        where = f"rooms[{index}]"
        try:
            if not isinstance(room, dict):
                raise RecordError(not_an_object(where))
            name = json_value(room, "name", str, where).strip()
            rooms[item_id(room.get("id"))] = name
            records.rooms.setdefault(
                name,
                RoomRecord(
                    name,
                    # Translators: location is the room's place in the file (rooms[0]).
                    where=_("Room “%(name)s” (%(location)s)")
                    % {"name": shown(name), "location": where},
                ),
            )
        except RecordError as problem:
            records.problems.append(str(problem))
    return rooms


def read_speakers(speaker_list: list, records: ScheduleRecords) -> dict[str, PersonRecord]:
    speakers = {}
    for index, speaker in enumerate(speaker_list):
        where = f"speakers[{index}]"
        try:
            if not isinstance(speaker, dict):
                raise RecordError(not_an_object(where))
            speaker_id = json_value(speaker, "id", str, where).strip()
            refuse_unstorable(where, id=speaker_id)  # before a GUID is made of it
            name = (json_value(speaker, "fullName", str, where, required=False) or "").strip()
            if not name:
                first = json_value(speaker, "firstName", str, where, required=False) or ""
                last = json_value(speaker, "lastName", str, where, required=False) or ""
                name = f"{first.strip()} {last.strip()}".strip()
            if not name:
                raise RecordError(_("%(where)s: fullName: missing.") % {"where": where})
            # Translators: location is the speaker's place in the file (speakers[0]).
            where = _("Speaker “%(name)s” (%(location)s)") % {
                "name": shown(name),
                "location": where,
            }
            bio = json_value(speaker, "bio", str, where, required=False)
            speakers[speaker_id] = PersonRecord(
                sessionize_guid("speaker", speaker_id),
                name,
                bio,
                where,
                avatar_url=json_value(speaker, "profilePicture", str, where, required=False),
                # Its one line under the name (“Rear Admiral, US Navy”): our role or title.
                role=json_value(speaker, "tagLine", str, where, required=False),
                links=speaker_links(speaker, where),
            )
        except RecordError as problem:
            records.problems.append(str(problem))
    return speakers


def speaker_links(speaker: dict, where: str) -> list[LinkRecord]:
    """A speaker's links: ``{"title": "Twitter", "url": …, "linkType": "Twitter"}``."""
    links = []
    for index, link in enumerate(json_value(speaker, "links", list, where, required=False) or []):
        link_where = f"{where}, links[{index}]"
        if not isinstance(link, dict):
            raise RecordError(not_an_object(link_where))
        url = json_value(link, "url", str, link_where).strip()
        title = json_value(link, "title", str, link_where, required=False) or ""
        kind = json_value(link, "linkType", str, link_where, required=False) or ""
        links.append(LinkRecord(url, title.strip() or kind.strip(), ""))
    return links


def read_categories(category_list: list, records: ScheduleRecords) -> dict[str, tuple[str, str]]:
    """Category items by id: (what they set, their name); items of other categories are ignored."""
    items = {}
    for index, category in enumerate(category_list):
        where = f"categories[{index}]"
        try:
            if not isinstance(category, dict):
                raise RecordError(not_an_object(where))
            title = json_value(category, "title", str, where).strip().casefold()
            role = next(
                (
                    role
                    for role, titles in (
                        ("track", TRACK_CATEGORIES),
                        ("kind", KIND_CATEGORIES),
                        ("level", LEVEL_CATEGORIES),
                    )
                    if title in titles
                ),
                None,
            )
            for item_index, item in enumerate(json_value(category, "items", list, where)):
                item_where = f"{where}.items[{item_index}]"
                if not isinstance(item, dict):
                    raise RecordError(not_an_object(item_where))
                name = json_value(item, "name", str, item_where).strip()
                if role:
                    items[item_id(item.get("id"))] = (role, name)
                if role == "track" and name not in records.tracks:
                    records.tracks[name] = TrackRecord(
                        name,
                        # Translators: location is the track's place in the file
                        # (categories[0].items[2]).
                        where=_("Track “%(name)s” (%(location)s)")
                        % {"name": shown(name), "location": item_where},
                    )
        except RecordError as problem:
            records.problems.append(str(problem))
    return items


def sessionize_guid(kind: str, value: str) -> str:
    """A session's or speaker's GUID: its Sessionize id when that is a UUID, else one derived."""
    try:
        return str(uuid.UUID(value))
    except ValueError:
        return str(uuid.uuid5(uuid.NAMESPACE_URL, f"urn:confsched:sessionize-{kind}:{value}"))


def sessionize_event(
    session: object,
    location: str,
    conference: Conference,
    rooms: dict[str, str],
    speakers: dict[str, PersonRecord],
    items: dict[str, tuple[str, str]],
) -> EventRecord:
    # Translators: location is the session's place in the file (sessions[0]).
    where = _("Session (%(location)s)") % {"location": location}
    if not isinstance(session, dict):
        raise RecordError(not_an_object(where))
    raw_title = session.get("title")
    title = raw_title.strip() if isinstance(raw_title, str) else ""
    if title:
        # Translators: location is the session's place in the file (sessions[0]).
        where = _("Session “%(title)s” (%(location)s)") % {
            "title": shown(title),
            "location": location,
        }
    session_id = item_id(session.get("id")).strip()
    if not session_id:
        raise RecordError(_("%(where)s: id: missing.") % {"where": where})
    refuse_unstorable(where, id=session_id)  # before a GUID is made of it
    json_value(session, "title", str, where, required=False)  # names a title of another type
    if not title:
        raise RecordError(_("%(where)s: title: missing.") % {"where": where})
    starts = json_value(session, "startsAt", str, where, required=False)
    ends = json_value(session, "endsAt", str, where, required=False)
    if bool(starts) != bool(ends):
        if starts:
            raise RecordError(_("%(where)s: endsAt: missing.") % {"where": where})
        raise RecordError(_("%(where)s: startsAt: missing.") % {"where": where})
    # Sessionize writes local times without an offset: the conference's zone.
    starts_at = parse_moment(starts, conference.tz, where, "startsAt") if starts else None
    ends_at = parse_moment(ends, conference.tz, where, "endsAt") if ends else None
    chosen = category_values(session, where, items)
    room = None
    room_id = session.get("roomId")
    if room_id is not None and starts_at is not None and not session.get("isPlenumSession"):
        room = rooms.get(item_id(room_id))
        if room is None:
            raise RecordError(
                # Translators: value is the session's roomId as the file writes it; rooms is
                # the file's list of rooms.
                _("%(where)s: roomId: %(value)s is not in rooms.")
                % {"where": where, "value": json.dumps(room_id)[:40]}
            )
    persons = []
    for speaker_id in json_value(session, "speakers", list, where, required=False) or []:
        person = speakers.get(item_id(speaker_id))
        if person is None:
            raise RecordError(
                # Translators: value is a speaker id of the session's speakers as the file
                # writes it; the second speakers is the file's list of speakers.
                _("%(where)s: speakers: %(value)s is not in speakers.")
                % {"where": where, "value": json.dumps(speaker_id)[:60]}
            )
        persons.append(person)
    kind = Session.Kind.BREAK if session.get("isServiceSession") else Session.Kind.TALK
    if "kind" in chosen:
        kind = session_kind(chosen["kind"])
    return EventRecord(
        where=where,
        guid=sessionize_guid("session", session_id),
        title=title,
        slug=slugify(title),
        kind=kind,
        cancelled=False,
        room=room,
        track=chosen.get("track", ""),
        starts_at=starts_at,
        ends_at=ends_at,
        description=(json_value(session, "description", str, where, required=False) or "").strip(),
        persons=persons,
        status=Session.Status.PUBLISHED if starts_at else Session.Status.DRAFT,
        audience_level=audience_level(chosen.get("level")),
    )


def category_values(session: dict, where: str, items: dict[str, tuple[str, str]]) -> dict[str, Any]:
    chosen = {}
    for value in json_value(session, "categoryItems", list, where, required=False) or []:
        role, name = items.get(item_id(value), (None, ""))
        if role:
            chosen.setdefault(role, name)  # the first item of a category counts
    return chosen


def audience_level(name: str | None) -> str | None:
    if name is None:
        return None
    wanted = slugify(name)
    for level in Session.AudienceLevel:
        if wanted.startswith(level.value):  # “Beginner”, “Intermediate level”
            return level.value
    return Session.AudienceLevel.ANY

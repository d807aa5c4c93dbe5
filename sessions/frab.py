"""The frab/c3voc schedule format (schedule.xml, schedule.json): what writing and reading share.

``sessions/exports/`` writes the format and ``sessions/importers/`` reads it back; the names,
GUIDs and conventions both sides must agree on are defined here once. The keys of an event or
person appear where one is built (exports.frab_event, frab_person) and read (importers.frab_json,
frab_xml); FILE_KEYS maps our model fields to them.
"""

import datetime
import re
import uuid

from django.utils.text import slugify

from conference.models import Conference, Room
from sessions.models import Session

SCHEMA_URL = "https://c3voc.de/schedule/schema.json"
# Who wrote a file, as its <generator name> says: files of ours are read back knowing it.
GENERATOR = "confsched"
TIMESLOT_DURATION = "00:05"
# schedule v1 has no cancelled flag; NOTES.md suggests marking the title. The importer reads it back.
CANCELLED_PREFIX = "Cancelled: "
# A break without a room is for the whole venue. frab needs a room for every event, so those
# sessions sit in one extra room; its fixed GUID lets our importer recognise it and leave them roomless.
VENUE_ROOM_GUID = str(uuid.uuid5(uuid.NAMESPACE_URL, "urn:confsched:room:whole-venue"))
# Our model fields as the format names them (events, persons, tracks), so that an import error
# points at what the file's author can fix.
FILE_KEYS = {
    "starts_at": "date",
    "ends_at": "duration",
    "kind": "type",
    "type_label": "type",
    "logo_url": "logo",
    "source_url": "url",
    "avatar_url": "avatar",
    "speaker": "persons",
    "bio": "biography",
    "colour": "color",
}
# Conference fields neither format has a key for: our schedule.json keeps them in the
# conference's meta, and an import into a conference that has none of its own takes them.
CONFERENCE_META_FIELDS = ("venue", "city", "registration_url", "help_url", "contact_email")
# Session kinds by the words other systems put in an event's type, beyond our own values and
# the labels our exports write.
KIND_ALIASES = {
    "lecture": Session.Kind.TALK,
    "lightning": Session.Kind.LIGHTNING_TALK,
    "podium": Session.Kind.PANEL,
    "pause": Session.Kind.BREAK,
}
# Track slugs the schemas accept: the JSON schema's pattern, and the XSD's (a letter first).
JSON_SLUG = re.compile(r"^[a-z0-9_-]+[a-z0-9]$")
XML_TRACK_SLUG = re.compile(r"^[a-z][a-z0-9-]+$")

_CANONICAL_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_DURATION = re.compile(r"^(\d{1,3}):([0-5]\d)(?::([0-5]\d))?$")


# GUIDs ----------------------------------------------------------------------------------------


def export_guid(value: str) -> str:
    """The GUID as both schemas want it: a canonical UUID.

    Legacy guids (frab's 22-character base64 ids) map to a fixed uuid5 of themselves, so a
    conference imported from an old file still exports valid, stable GUIDs.
    """
    if _CANONICAL_UUID.fullmatch(value):  # what we store: no UUID to parse per event
        return value
    try:
        return str(uuid.UUID(value))
    except ValueError:
        return str(uuid.uuid5(uuid.NAMESPACE_URL, f"urn:confsched:legacy-guid:{value}"))


def conference_guid(conference: Conference) -> uuid.UUID:
    return uuid.uuid5(uuid.NAMESPACE_URL, f"urn:confsched:conference:{conference.slug}")


def room_guid(conference: Conference, room: Room) -> str:
    """The GUID a schedule file gave the room, else one derived from the slugs: the same in
    every export."""
    if room.guid:
        return export_guid(room.guid)
    return str(uuid.uuid5(conference_guid(conference), f"room:{room.slug}"))


def person_guid(guid: str, person_id: object, name: str) -> str:
    """The file's person guid; else one derived from its id and name, so a re-import matches.

    The name is part of the key because merged files (jev22) reuse ids across their sources.
    """
    if guid:
        return guid
    key = f"id:{person_id}:{name}" if person_id not in (None, "") else f"name:{name}"
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"urn:confsched:person:{key}"))


def venue_room_name(conference: Conference) -> str:
    """The room that roomless sessions (breaks for the whole venue) sit in; see VENUE_ROOM_GUID."""
    return conference.venue or "Venue"


# Acronyms and slugs ---------------------------------------------------------------------------


def frab_acronym(conference: Conference) -> str:
    """The slug as ``[a-z0-9_]{4,}``: the only acronym shape both the XSD and the JSON schema accept."""
    return re.sub(r"[^a-z0-9_]", "_", conference.slug.lower()).ljust(4, "_")


def frab_slug(acronym: str, session: Session) -> str:
    """``<acronym>-<session slug>``: unique per file, lowercase, not ending in ``-`` or ``_``."""
    tail = re.sub(r"[^a-z0-9_-]", "-", session.slug.lower()).strip("-_")
    if len(tail) < 4:  # the XSD wants four characters after the dash
        tail = f"session-{tail}".strip("-")
    return f"{acronym}-{tail}"


def session_slug(slug: str, acronym: str, title: str) -> str:
    """An event's slug without the conference's acronym prefix (see frab_slug), else the title's."""
    slug = slug.strip()
    if acronym and slug.lower().startswith(f"{acronym.lower()}-"):
        slug = slug[len(acronym) + 1 :]
    return slugify(slug) or slugify(title)


# Titles, types, durations ---------------------------------------------------------------------


def event_title(session: Session) -> str:
    """The title an event carries: marked with CANCELLED_PREFIX when the session is cancelled."""
    return f"{CANCELLED_PREFIX}{session.title}" if session.is_cancelled else session.title


def split_title(title: str) -> tuple[str, bool]:
    """An event's title without its cancelled mark, and whether it had one."""
    if title.startswith(CANCELLED_PREFIX):
        return title[len(CANCELLED_PREFIX) :].strip(), True
    return title, False


def event_type(session: Session) -> str:
    """An event's type: the session's own type label (“Ceremony”), else its kind's label."""
    return session.type_label or session.kind_label


def type_label(value: str) -> str:
    """What an event's type keeps beyond the kind it maps to: blank when the kind says it all
    (our own exports' “Talk”, a kind's value), else the file's own words (“lecture” too)."""
    value = value.strip()
    slug = slugify(value)
    if not value or any(slug in (kind.value, slugify(kind.label)) for kind in Session.Kind):
        return ""
    return value


def session_kind(value: str) -> str:
    """Our kind for an event's type: a kind's value or label, an alias, else a talk."""
    value = slugify(value)
    for kind in Session.Kind:
        if value in (kind.value, slugify(kind.label)):
            return kind.value
    return KIND_ALIASES.get(value, Session.Kind.TALK)


def hours_minutes(duration: datetime.timedelta) -> str:
    """An event's duration as written: ``HH:MM``."""
    minutes = int(duration.total_seconds()) // 60
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def parse_duration(value: str) -> datetime.timedelta | None:
    """A duration as files write it (``00:30``, ``1:30``, ``0:45:30``); None if it is not one."""
    match = _DURATION.match(value.strip())
    if not match:
        return None
    hours, minutes, seconds = (int(part or 0) for part in match.groups())
    return datetime.timedelta(hours=hours, minutes=minutes, seconds=seconds)

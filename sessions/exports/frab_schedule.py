"""The frab/c3voc schedule.json and schedule.xml (the format's names and GUIDs: sessions/frab.py;
how an XML event and XML text are written: frab_xml.py)."""

import datetime
import functools
import hashlib
import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import NamedTuple

from conference.i18n.timezones import clock_text
from conference.models import Conference
from sessions.exports.common import absolute_url, joined_in_chunks, zoned, zoned_iso
from sessions.exports.frab_xml import xml_attributes, xml_event_text, xml_text
from sessions.exports.rows import grouped_rows
from sessions.frab import (
    CONFERENCE_META_FIELDS,
    GENERATOR,
    JSON_SLUG,
    SCHEMA_URL,
    TIMESLOT_DURATION,
    VENUE_ROOM_GUID,
    XML_TRACK_SLUG,
    event_title,
    event_type,
    export_guid,
    frab_acronym,
    frab_slug,
    hours_minutes,
    room_guid,
    venue_room_name,
)
from sessions.models import Session, SessionLink
from speakers.models import Speaker, SpeakerLink

# Submission codes as the JSON schema accepts them.
SUBMISSION_CODE = re.compile(r"^[A-Z0-9]+$")
LINK_TYPES = frozenset(SessionLink.Kind.values)


def local_iso(moment: datetime.datetime, conference: Conference) -> str:
    return zoned_iso(moment, conference.tz)


def build_frab_data(conference: Conference, sessions: Iterable[Session], *, base_url: str) -> dict:
    """The c3voc schedule.json ("v1") structure: the text ``frab_json_chunks`` writes, read back,
    so the data and the served file never differ."""
    events = frab_events(conference, list(sessions), base_url, "json")
    return json.loads(b"".join(frab_json_chunks(conference, events, base_url=base_url)))


class FrabEvent(NamedTuple):
    """One session's event, written out as JSON or XML, with what placing it in a day needs."""

    # POSIX timestamps: cached events unpickle several times faster than with datetimes.
    starts_at: float
    ends_at: float
    title: str
    day: datetime.date
    room: str
    without_room: bool  # in the whole venue: the venue's room is listed
    guid: str
    meta: dict[str, str]  # what the conference's meta says of it, by key (EVENT_META_KEYS)
    text: bytes  # encoded once, when written: joining bytes is all an export then does


def frab_events(
    conference: Conference,
    sessions: list[Session],
    base_url: str,
    form: str,
    persons: dict[int, dict] | None = None,
    persons_json: dict[str, str] | None = None,
) -> list[FrabEvent]:
    """``sessions`` as events written in ``form`` ("json" or "xml"); one query for their
    speakers' links. ``persons`` and ``persons_json`` keep the speakers of earlier batches of
    the same export, as frab dicts and as JSON."""
    acronym = frab_acronym(conference)
    persons = frab_persons(base_url, sessions, {} if persons is None else persons)
    if form == "json":
        write = functools.partial(
            json_event_text, persons_json={} if persons_json is None else persons_json
        )
    else:
        write = xml_event_text
    events = []
    for session in sessions:
        event = frab_event(conference, session, acronym, base_url, persons)
        day = min(
            max(conference.day_of(session.starts_at), conference.starts_on), conference.ends_on
        )
        events.append(
            FrabEvent(
                session.starts_at.timestamp(),
                session.ends_at.timestamp(),
                session.title,
                day,
                event["room"],
                session.room_id is None,
                event["guid"],
                event_meta(session),
                write(event),
            )
        )
    return events


# What the conference's meta says of each event; the schema has no key for these, meta takes any,
# and our importer reads them back.
EVENT_META_KEYS = ("audience_levels", "kinds", "source_urls")


def event_meta(session: Session) -> dict[str, str]:
    return {
        key: value
        for key, value in (
            ("audience_levels", session.audience_level if session.has_audience_level else ""),
            # An event's type gives its kind, unless the session has its own type label.
            ("kinds", session.kind if session.type_label else ""),
            # The event's url is its page here; where it was imported from goes along too.
            ("source_urls", session.source_url),
        )
        if value
    }


# One encoder for the whole export: json.dumps makes a new one each call given any option.
_JSON_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


def json_text(data: object) -> str:
    """JSON as schedule.json writes it: compact, and UTF-8 rather than escapes."""
    return _JSON_ENCODER.encode(data)


def json_event_text(event: dict, persons_json: dict[str, str]) -> bytes:
    """``event`` as JSON, its persons written once per export (``persons_json``, by guid).

    A speaker's biography is encoded once, not again for each of their sessions.
    """
    persons = []
    for person in event["persons"]:
        text = persons_json.get(person["guid"])
        if text is None:
            text = persons_json[person["guid"]] = json_text(person)
        persons.append(text)
    # A quote inside a JSON string is always escaped, so the key's text is found only as the key.
    before, _, after = json_text(event | {"persons": []}).partition('"persons":[]')
    return f'{before}"persons":[{",".join(persons)}]{after}'.encode()


@dataclass
class FrabDay:
    index: int
    date: datetime.date
    starts_at: datetime.datetime
    ends_at: datetime.datetime
    rooms: dict[str, list[FrabEvent]]


def frab_schedule(
    conference: Conference, events: list[FrabEvent], base_url: str
) -> tuple[dict, list[FrabDay]]:
    """The schedule.json document without its days ("days" is left empty), and the days."""
    rooms = list(conference.rooms.all())
    tracks = list(conference.tracks.all())
    room_list = [
        {"name": room.name, "slug": room.slug, "guid": room_guid(conference, room)}
        | ({"type": room.kind} if room.kind else {})
        | ({"capacity": room.capacity} if room.capacity is not None else {})
        | ({"description": room.description} if room.description else {})
        for room in rooms
    ]
    if any(event.without_room for event in events):
        room_list.append({"name": venue_room_name(conference), "guid": VENUE_ROOM_GUID})
    conference_data = {
        "acronym": frab_acronym(conference),
        "title": conference.name,
        "start": conference.starts_on.isoformat(),
        "end": conference.ends_on.isoformat(),
        "daysCount": len(conference.days),
        "timeslot_duration": TIMESLOT_DURATION,
        "time_zone_name": conference.time_zone,
        "url": absolute_url(base_url, conference.get_absolute_url()),
        **({"logo": conference.logo_url} if conference.logo_url else {}),
        **({"colors": {"primary": conference.colour.lower()}} if conference.colour else {}),
        **({"description": conference.description} if conference.description else {}),
        # The schema has no key for these; meta takes any, and our importer reads them back.
        "meta": {
            "day_change": conference.day_change.strftime("%H:%M"),
            **{
                key: {event.guid: event.meta[key] for event in events if key in event.meta}
                for key in EVENT_META_KEYS
            },
            **{
                name: getattr(conference, name)
                for name in CONFERENCE_META_FIELDS
                if getattr(conference, name)
            },
        },
        # A track may carry keys the schema does not name; ours reads its description back.
        "tracks": [
            {"name": track.name, "color": track.colour.lower()}
            | ({"slug": track.slug} if JSON_SLUG.match(track.slug) else {})
            | ({"description": track.description} if track.description else {})
            for track in tracks
        ],
        "rooms": room_list,
        "days": [],
    }
    days = []
    for index, (day, day_events) in enumerate(events_by_day(conference, events), start=1):
        # The day's bounds, widened to cover its sessions should any lie outside them.
        day_start, day_end = (moment.timestamp() for moment in conference.day_bounds(day))
        day_rooms = {room.name: [] for room in rooms}
        for event in day_events:
            day_start, day_end = min(day_start, event.starts_at), max(day_end, event.ends_at)
            day_rooms.setdefault(event.room, []).append(event)
        day_start, day_end = (
            datetime.datetime.fromtimestamp(moment, datetime.UTC) for moment in (day_start, day_end)
        )
        days.append(FrabDay(index, day, day_start, day_end, day_rooms))
    schedule = {
        "version": schedule_version(conference),
        "base_url": absolute_url(base_url, "/"),
        "conference": conference_data,
    }
    document = {"$schema": SCHEMA_URL, "generator": {"name": GENERATOR}, "schedule": schedule}
    return document, days


def frab_json_chunks(
    conference: Conference, events: list[FrabEvent], *, base_url: str
) -> Iterator[bytes]:
    """schedule.json's text in pieces, each event's text written once and joined here."""
    document, days = frab_schedule(conference, events, base_url)
    # "days" is the last key of the conference, itself last in the schedule and the document.
    head = json_text(document).removesuffix("[]}}}")
    pieces = [f"{head}[".encode()]
    for day in days:
        opening = json_text(
            {
                "index": day.index,
                "date": day.date.isoformat(),
                "day_start": local_iso(day.starts_at, conference),
                "day_end": local_iso(day.ends_at, conference),
            }
        )
        pieces.append(f'{"," if day.index > 1 else ""}{opening[:-1]},"rooms":{{'.encode())
        for number, (room, room_events) in enumerate(day.rooms.items()):
            pieces.append(f"{',' if number else ''}{json_text(room)}:[".encode())
            pieces.append(b",".join(event.text for event in room_events))
            pieces.append(b"]")
        pieces.append(b"}}")
    pieces.append(b"]}}}")
    return joined_in_chunks(pieces)


def frab_persons(
    base_url: str, sessions: list[Session], persons: dict[int, dict]
) -> dict[int, dict]:
    """Every speaker of ``sessions`` as a frab person, keyed by speaker id, added to ``persons``
    (those of earlier batches of the same export): built once however many sessions a speaker
    gives, with all their links from one query unless they come read (``prefetched_links``)."""
    speakers = {
        speaker.pk: speaker
        for session in sessions
        for speaker in session.ordered_speakers
        if speaker.pk not in persons
    }
    unread = [pk for pk, speaker in speakers.items() if not hasattr(speaker, "prefetched_links")]
    links = {}
    if unread:
        links = grouped_rows(SpeakerLink.objects.filter(speaker_id__in=unread), "speaker_id")
    for pk, speaker in speakers.items():
        persons[pk] = frab_person(
            base_url, speaker, getattr(speaker, "prefetched_links", None) or links.get(pk, [])
        )
    return persons


def events_by_day(
    conference: Conference, events: list[FrabEvent]
) -> list[tuple[datetime.date, list[FrabEvent]]]:
    """Each conference day with its events, by start and title; days change at the
    conference's ``day_change``, and an event outside the conference's days goes to the nearest."""
    days = {day: [] for day in conference.days}
    for event in sorted(events, key=lambda event: (event.starts_at, event.title)):
        days[event.day].append(event)
    return list(days.items())


def frab_event(
    conference: Conference,
    session: Session,
    acronym: str,
    base_url: str,
    persons: dict[int, dict],
) -> dict:
    starts_at = zoned(session.starts_at, conference.tz)
    return {
        "guid": export_guid(session.guid),
        "id": session.pk,
        "date": zoned_iso(session.starts_at, conference.tz),
        "start": clock_text(starts_at),
        "end": local_iso(session.ends_at, conference),
        "duration": hours_minutes(session.duration),
        "room": session.room.name if session.room else venue_room_name(conference),
        "slug": frab_slug(acronym, session),
        "url": absolute_url(base_url, session.get_absolute_url()),
        "title": event_title(session),
        "subtitle": session.subtitle or None,
        "track": session.track.name if session.track else None,
        "type": event_type(session),
        "language": session.language or None,
        "abstract": session.abstract,
        "description": session.description,
        "logo": session.logo_url or None,
        "do_not_record": session.do_not_record,
        "recording_license": session.recording_license,
        "persons": [persons[speaker.pk] for speaker in session.ordered_speakers],
        "links": [reference(link.url, link.title, link.kind) for link in session.link_list],
        # An attachment announced before its file arrives has no URL; the JSON schema requires
        # one, so such attachments are left out of both formats until they get a file or link.
        "attachments": [
            reference(absolute_url(base_url, attachment.href), attachment.title, attachment.kind)
            for attachment in session.attachment_list
            if attachment.href
        ],
    } | {
        key: value
        for key, value in (
            ("code", session.code if SUBMISSION_CODE.match(session.code) else ""),
            ("feedback_url", session.feedback_url),
            ("origin_url", session.origin_url),
        )
        if value
    }


def reference(url: str, title: str, kind: str) -> dict:
    """A link or attachment; its type only when the JSON schema's list names it.

    The URL goes as it was given, non-ASCII included (https://zügli.app in 39c3's file): the
    schemas' `uri` format wants punycode and percent-encoding, but a rewritten URL would read
    as a changed link when the file is imported again, here or by the tool that wrote it."""
    return {"url": url, "title": title} | ({"type": kind} if kind in LINK_TYPES else {})


def frab_person(base_url: str, speaker: Speaker, links: list) -> dict:
    # guid + name + public_name without "id": only the pretalx shape of the schema's oneOf matches.
    # A person may carry keys the schema does not name: role and company go along that way.
    avatar = absolute_url(base_url, speaker.photo_url) if speaker.photo else speaker.avatar_url
    return {
        "guid": export_guid(speaker.guid),
        "name": speaker.name,
        "public_name": speaker.name,
        "avatar": avatar or None,
        "biography": speaker.bio,
        "role": speaker.role,
        "company": speaker.company,
        # Only when set: an organisation or host, which may be listed on parallel sessions.
        **({"appears_in_parallel": True} if speaker.appears_in_parallel else {}),
        "url": absolute_url(base_url, speaker.get_absolute_url()),
        "links": [{"url": link.url, "title": link.title} for link in links],
    }


def schedule_version(conference: Conference) -> str:
    """The latest release's name (“v2”), followed by a content stamp when the conference's
    content changed after it (“v2+2026-04-08 10:35 1a2b3c4d”); before any release, the stamp
    alone.

    Clients fetch again when the version changes, so published changes made since the release
    still show, while the name says which announced schedule it builds on. The stamp is when the
    content last changed plus a digest telling apart edits of one minute: ``Conference.changed_at``
    moves on every write to the conference's content (sessions, speakers, rooms, links...), the
    moment its cached pages and exports are replaced; hashing the whole schedule instead took a
    tenth of a large export. Releasing moves it first, then stamps the release, so a release
    made with nothing changed since reads as the bare name.
    """
    changed = conference.changed_at.astimezone(datetime.UTC)
    digest = hashlib.sha256(changed.isoformat().encode()).hexdigest()[:8]
    stamp = f"{changed:%Y-%m-%d %H:%M} {digest}"
    latest = conference.releases.only("version", "released_at").first()
    if latest is None:
        return stamp
    if conference.changed_at <= latest.released_at:
        return latest.version
    return f"{latest.version}+{stamp}"


def build_frab_xml(conference: Conference, sessions: Iterable[Session], *, base_url: str) -> bytes:
    events = frab_events(conference, list(sessions), base_url, "xml")
    return b"".join(frab_xml_chunks(conference, events, base_url=base_url))


def frab_xml_chunks(
    conference: Conference, events: list[FrabEvent], *, base_url: str
) -> Iterator[bytes]:
    """schedule.xml, from the same data as schedule.json so the two never disagree.

    Written as text with the standard library's XML escaping rather than as an ElementTree,
    which would build and serialize about fifteen elements per session.
    """
    schedule, days = frab_schedule(conference, events, base_url)
    schedule = schedule["schedule"]
    data = schedule["conference"]
    lines = [
        "<?xml version='1.0' encoding='utf-8'?>",
        "<schedule>",
        f"  <generator{xml_attributes(name=GENERATOR)} />",
        f"  <version>{xml_text(schedule['version'])}</version>",
        "  <conference>",
    ]
    for tag, key in (
        ("title", "title"),
        ("acronym", "acronym"),
        ("start", "start"),
        ("end", "end"),
        ("days", "daysCount"),
        ("timeslot_duration", "timeslot_duration"),
        ("time_zone_name", "time_zone_name"),
        ("url", "url"),
        ("logo", "logo"),
    ):
        if key in data:
            lines.append(f"    <{tag}>{xml_text(data[key])}</{tag}>")
    if "colors" in data:
        lines.append(f"    <color{xml_attributes(**data['colors'])} />")
    lines.append(f"    <base_url>{xml_text(schedule['base_url'])}</base_url>")
    for track in data["tracks"]:
        attributes = {"name": track["name"], "color": track["color"]}
        if XML_TRACK_SLUG.match(track.get("slug", "")):  # the XSD's slug must start with a letter
            attributes["slug"] = track["slug"]
        lines.append(f"    <track{xml_attributes(**attributes)} />")
    lines.append("  </conference>")
    room_guids = {room["name"]: room["guid"] for room in data["rooms"]}
    for day in days:
        day_attributes = xml_attributes(
            index=day.index,
            date=day.date.isoformat(),
            start=local_iso(day.starts_at, conference),
            end=local_iso(day.ends_at, conference),
        )
        lines.append(f"  <day{day_attributes}>")
        for room_name, room_events in day.rooms.items():
            lines.append(f"    <room{xml_attributes(name=room_name, guid=room_guids[room_name])}>")
            lines += (event.text for event in room_events)
            lines.append("    </room>")
        lines.append("  </day>")
    lines.append("</schedule>")
    # Events come written, as bytes; the lines around them are encoded here.
    return joined_in_chunks(
        (line if isinstance(line, bytes) else line.encode()) + b"\n" for line in lines
    )

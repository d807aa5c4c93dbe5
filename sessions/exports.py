"""The standard schedule exports: iCalendar, frab/c3voc schedule.xml and schedule.json.

The frab format's names, GUIDs and conventions, shared with the importer, are in sessions/frab.py.

Each export is written per session (a VEVENT, a frab event as JSON or XML), then joined in chunks
with the parts about the whole conference, so a view can stream it. The ``build_*`` functions take
sessions already loaded (``for_ical()``, ``for_export()``) and write every part; the views take
each session's part from the cache where it is still current (“Each session's part of an export”,
below) and write only the others. The frab writers add a constant number of queries (rooms,
tracks, speaker links, the latest release).
"""

import datetime
import functools
import hashlib
import json
import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import NamedTuple
from urllib.parse import quote, urlencode, urljoin, urlsplit
from xml.sax.saxutils import escape as xml_escape
from xml.sax.saxutils import quoteattr

import icalendar
from django.conf import settings
from django.core.cache import cache
from django.db import router
from django.db.models import Prefetch, QuerySet
from django.utils import timezone
from django.utils.encoding import iri_to_uri

from conference.models import Conference
from conference.timezones import clock_text
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
from sessions.models import Attachment, Session, SessionLink, SessionSpeaker
from speakers.models import Speaker, SpeakerLink

# Submission codes as the JSON schema and the XSD accept them (pretalx's six characters).
SUBMISSION_CODE = re.compile(r"^[A-Z0-9]+$")
XML_SUBMISSION_CODE = re.compile(r"[0-9A-Z]{6}")
LINK_TYPES = frozenset(SessionLink.Kind.values)

_XML_ILLEGAL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


# Formatting helpers ---------------------------------------------------------------------------


def absolute_url(base_url: str, path: str) -> str:
    if path.startswith("/") and not path.startswith("//"):
        return base_url.rstrip("/") + path  # our own paths: urljoin took a tenth of a large export
    return urljoin(base_url.rstrip("/") + "/", path)


def local_iso(moment: datetime.datetime, conference: Conference) -> str:
    return zoned_iso(moment, conference.tz)


# Sessions share a few hundred start and end times: an export converts each distinct one once.
@functools.lru_cache(maxsize=4096)
def zoned(moment: datetime.datetime, zone: datetime.tzinfo) -> datetime.datetime:
    return timezone.localtime(moment, zone)


@functools.lru_cache(maxsize=4096)
def zoned_iso(moment: datetime.datetime, zone: datetime.tzinfo) -> str:
    return zoned(moment, zone).isoformat(timespec="seconds")


def speakers_line(speakers: list[Speaker]) -> str:
    names = [
        f"{speaker.name} ({speaker.affiliation})" if speaker.affiliation else speaker.name
        for speaker in speakers
    ]
    label = "Speaker" if len(names) == 1 else "Speakers"
    return f"{label}: {', '.join(names)}" if names else ""


# iCalendar ------------------------------------------------------------------------------------
#
# The calendar is written line by line rather than built from icalendar.Event objects: the
# library's generic add() and to_ical() (type inference, parameter dictionaries, a per-character
# fold of any line holding a non-ASCII character) took two thirds of a 1,000-session export.
# The VTIMEZONE is still icalendar's, and the tests read every export back with both icalendar
# and vobject.

ICAL_LINE_OCTETS = 75
# TEXT may hold no control character but the tab (RFC 5545 3.3.11); line breaks are escaped.
_ICAL_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f]")


def ical_line(name: str, value: str) -> bytes:
    """One content line, folded as RFC 5545 says: 75 octets at most, never inside a character."""
    line = f"{name}:{value}".encode()
    if len(line) <= ICAL_LINE_OCTETS:
        return line
    pieces = []
    start, width = 0, ICAL_LINE_OCTETS
    while len(line) - start > width:
        end = start + width
        while line[end] & 0xC0 == 0x80:  # a UTF-8 continuation byte: fold before its character
            end -= 1
        pieces.append(line[start:end])
        start, width = end, ICAL_LINE_OCTETS - 1  # a continuation line begins with a space
    pieces.append(line[start:])
    return b"\r\n ".join(pieces)


def ical_text(name: str, value: str) -> bytes:
    value = _ICAL_CONTROL.sub("", value.replace("\r\n", "\n").replace("\r", "\n"))
    value = value.replace("\\", "\\\\").replace(";", "\\;").replace(",", "\\,")
    return ical_line(name, value.replace("\n", "\\n"))


def ical_date_time(moment: datetime.datetime) -> str:
    """strftime("%Y%m%dT%H%M%S"), four times faster: an export writes three per session."""
    date = f"{moment.year:04d}{moment.month:02d}{moment.day:02d}"
    return f"{date}T{moment.hour:02d}{moment.minute:02d}{moment.second:02d}"


def ical_utc(name: str, moment: datetime.datetime) -> bytes:
    return ical_line(name, ical_date_time(moment.astimezone(datetime.UTC)) + "Z")


def ical_local(name: str, moment: datetime.datetime, conference: Conference) -> bytes:
    """A local time with its TZID, never floating: clients show it right wherever they are.

    On the night the clocks go back a local time happens twice. RFC 5545 (3.3.5) reads it as the
    first, but not every client does (ical.js takes the second), so both are written in UTC,
    the one form no client misreads.
    """
    local = zoned(moment, conference.tz)
    if local.utcoffset() != local.replace(fold=1 - local.fold).utcoffset():
        return ical_utc(name, moment)
    return ical_line(f"{name};TZID={conference.time_zone}", ical_date_time(local))


def build_calendar(
    conference: Conference,
    sessions: Iterable[Session],
    *,
    base_url: str,
    name: str,
    generated_at: datetime.datetime | None = None,
) -> bytes:
    """One VCALENDAR with a VEVENT per session, in the conference's zone with its VTIMEZONE."""
    host = calendar_host(base_url)
    events = [calendar_event(conference, session, base_url, host) for session in sessions]
    return b"".join(calendar_chunks(conference, events, name=name, generated_at=generated_at))


def calendar_host(base_url: str) -> str:
    return urlsplit(base_url).hostname or "localhost"


def calendar_chunks(
    conference: Conference,
    events: Iterable["CalendarEvent"],
    *,
    name: str,
    generated_at: datetime.datetime | None = None,
) -> Iterator[bytes]:
    """The calendar's text in pieces of about CHUNK_BYTES, for a streamed response."""
    stamp = ical_utc("DTSTAMP", generated_at or timezone.now())
    # Every event uses the conference's zone and no other, so its VTIMEZONE (covering the
    # conference's years, which keeps the file small) goes first, where every client reads it.
    vtimezone = icalendar.Timezone.from_tzinfo(
        conference.tz,
        tzid=conference.time_zone,
        first_date=datetime.date(conference.starts_on.year, 1, 1),
        last_date=datetime.date(conference.ends_on.year + 1, 1, 1),
    )
    header = [
        b"BEGIN:VCALENDAR",
        ical_text("PRODID", f"-//{GENERATOR}//{conference.slug}//EN"),
        b"VERSION:2.0",
        b"CALSCALE:GREGORIAN",
        b"METHOD:PUBLISH",
        ical_text("X-WR-CALNAME", name),
        ical_text("X-WR-TIMEZONE", conference.time_zone),
        vtimezone.to_ical().rstrip(b"\r\n"),
        b"",
    ]
    pieces = [b"\r\n".join(header)]
    pieces += (b"%s\r\n%s\r\n%s\r\n" % (head, stamp, tail) for head, tail in events)
    pieces.append(b"END:VCALENDAR\r\n")
    return joined_in_chunks(pieces)


class CalendarEvent(NamedTuple):
    """One session's VEVENT, less its DTSTAMP (the moment of each export), which goes between."""

    head: bytes
    tail: bytes


def calendar_event(
    conference: Conference, session: Session, base_url: str, host: str
) -> CalendarEvent:
    """The content lines of one session's VEVENT, around the DTSTAMP line."""
    head = [b"BEGIN:VEVENT", ical_text("UID", f"{session.guid}@{host}")]
    lines = [
        ical_local("DTSTART", session.starts_at, conference),
        ical_local("DTEND", session.ends_at, conference),
        ical_text("SUMMARY", session.display_title),
    ]
    description = "\n\n".join(
        part
        for part in (
            session.abstract.strip(),
            session.description.strip(),
            speakers_line(session.ordered_speakers),
        )
        if part
    )
    if description:
        lines.append(ical_text("DESCRIPTION", description))
    location = event_location(conference, session)
    if location:
        lines.append(ical_text("LOCATION", location))
    lines.append(ical_line("URL", absolute_url(base_url, session.get_absolute_url())))
    if session.track:
        lines.append(ical_text("CATEGORIES", session.track.name))
    lines += [
        ical_utc("LAST-MODIFIED", session.updated_at.replace(microsecond=0)),
        ical_line("SEQUENCE", str(session.sequence)),
        b"STATUS:CANCELLED" if session.is_cancelled else b"STATUS:CONFIRMED",
        b"END:VEVENT",
    ]
    return CalendarEvent(b"\r\n".join(head), b"\r\n".join(lines))


def event_location(conference: Conference, session: Session) -> str:
    """“Central Room, Station F, Paris”: where a calendar says the session is."""
    room = session.room.name if session.room else ""
    return ", ".join(part for part in (room, conference.venue, conference.city) if part)


# “Add to Google Calendar” and “Add to Outlook” ------------------------------------------------
#
# Plain links that open the calendar's own “new event” form filled in: no script of theirs on
# our pages. Times go in UTC, which both read whatever the attendee's zone.

GOOGLE_CALENDAR_URL = "https://calendar.google.com/calendar/render"
# Microsoft 365 (work and school accounts), where conference-goers' calendars mostly live.
OUTLOOK_CALENDAR_URL = "https://outlook.office.com/calendar/0/deeplink/compose"


def calendar_link(address: str, parameters: dict[str, str]) -> str:
    # %20, not +, for spaces: Outlook shows a + literally in the event's title.
    return f"{address}?{urlencode(parameters, quote_via=quote)}"


def google_calendar_url(conference: Conference, session: Session, *, base_url: str) -> str:
    start, end = (
        ical_date_time(moment.astimezone(datetime.UTC)) + "Z"
        for moment in (session.starts_at, session.ends_at)
    )
    return calendar_link(
        GOOGLE_CALENDAR_URL,
        {
            "action": "TEMPLATE",
            "text": session.display_title,
            "dates": f"{start}/{end}",
            "details": absolute_url(base_url, session.get_absolute_url()),
            "location": event_location(conference, session),
        },
    )


def outlook_calendar_url(conference: Conference, session: Session, *, base_url: str) -> str:
    start, end = (
        moment.astimezone(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        for moment in (session.starts_at, session.ends_at)
    )
    return calendar_link(
        OUTLOOK_CALENDAR_URL,
        {
            "path": "/calendar/action/compose",
            "rru": "addevent",
            "subject": session.display_title,
            "startdt": start,
            "enddt": end,
            "body": absolute_url(base_url, session.get_absolute_url()),
            "location": event_location(conference, session),
        },
    )


def calendar_links(conference: Conference, session: Session, *, base_url: str) -> dict[str, str]:
    """A session page's links to add it to Google Calendar or Outlook; none for a draft or a
    cancelled session."""
    if not session.is_published:
        return {}
    return {
        "google": google_calendar_url(conference, session, base_url=base_url),
        "outlook": outlook_calendar_url(conference, session, base_url=base_url),
    }


# frab schedule.json / schedule.xml ------------------------------------------------------------


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


def xml_event_text(event: dict) -> bytes:
    return "\n".join(xml_event(event)).encode()


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
    """A link or attachment; its type only when the JSON schema's list names it."""
    return {"url": ascii_url(url), "title": title} | ({"type": kind} if kind in LINK_TYPES else {})


def ascii_url(url: str) -> str:
    """``url`` as a URI, which both schemas want: an IDN host (https://zügli.app, in 39c3's
    file) in punycode, other non-ASCII characters percent-encoded."""
    if url.isascii():
        return url
    parts = urlsplit(url)
    host = parts.hostname or ""
    try:
        netloc = parts.netloc.replace(host, host.encode("idna").decode("ascii"))
    except UnicodeError:
        netloc = parts.netloc
    return iri_to_uri(parts._replace(netloc=netloc).geturl())


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

    Written as text with the standard library's XML escaping rather than as an ElementTree:
    building and serializing 15,000 elements for 1,000 sessions took a fifth of the export.
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


def xml_event(event: dict) -> list[str]:
    identity = {"guid": event["guid"], "id": event["id"]}
    if XML_SUBMISSION_CODE.fullmatch(event.get("code", "")):
        identity["code"] = event["code"]
    lines = [f"      <event{xml_attributes(**identity)}>"]
    for tag in ("date", "start", "duration", "room", "slug", "url", "title", "type", "abstract"):
        lines.append(f"        <{tag}>{xml_text(event[tag])}</{tag}>")
    for tag in ("subtitle", "language", "description", "logo", "feedback_url", "origin_url"):
        if event.get(tag):
            lines.append(f"        <{tag}>{xml_text(event[tag])}</{tag}>")
    lines.append(f"        <track>{xml_text(event['track'] or '')}</track>")
    # Always written, so a do-not-record mark is never left to a reader's default.
    optout = "true" if event["do_not_record"] else "false"
    lines.append(
        f"        <recording><license>{xml_text(event['recording_license'])}</license>"
        f"<optout>{optout}</optout></recording>"
    )
    persons = [
        f"          <person{xml_attributes(guid=person['guid'])}>{xml_text(person['name'])}</person>"
        for person in event["persons"]
    ]
    links, attachments = (
        [
            f"          <{tag}{xml_attributes(href=item['url'], **type_of(item))}>"
            f"{xml_text(item['title'])}</{tag}>"
            for item in event[key]
        ]
        for tag, key in (("link", "links"), ("attachment", "attachments"))
    )
    lines += (
        xml_list("persons", persons)
        + xml_list("links", links)
        + xml_list("attachments", attachments)
    )
    lines.append("      </event>")
    return lines


def type_of(item: dict) -> dict:
    return {"type": item["type"]} if "type" in item else {}


def xml_list(tag: str, children: list[str]) -> list[str]:
    if not children:
        return [f"        <{tag} />"]
    return [f"        <{tag}>", *children, f"        </{tag}>"]


# What xml_text and xml_attributes would change: most values hold none of it and go as they are.
# One search instead of a substitution and three replacements, for each of an event's values.
_XML_TEXT_WORK = re.compile("[&<>\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")
_XML_ATTRIBUTE_WORK = re.compile('[&<>"\t\n\r\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]')


def xml_text(value: object) -> str:
    value = str(value)
    if _XML_TEXT_WORK.search(value) is None:
        return value
    # Control characters are not allowed anywhere in XML 1.0, even escaped.
    return xml_escape(_XML_ILLEGAL.sub("", value))


def xml_attribute(value: object) -> str:
    value = str(value)
    if _XML_ATTRIBUTE_WORK.search(value) is None:
        return f'"{value}"'
    return quoteattr(_XML_ILLEGAL.sub("", value))


def xml_attributes(**attributes: object) -> str:
    return "".join(f" {name}={xml_attribute(value)}" for name, value in attributes.items())


def joined_in_chunks(pieces: Iterable[bytes], size: int = 64 * 1024) -> Iterator[bytes]:
    """``pieces`` joined into chunks of about ``size`` bytes: a streamed response writes each
    chunk to the socket, and one write per event would be thousands of small ones."""
    chunk, length = [], 0
    for piece in pieces:
        chunk.append(piece)
        length += len(piece)
        if length >= size:
            yield b"".join(chunk)
            chunk, length = [], 0
    if chunk:
        yield b"".join(chunk)


# Each session's part of an export, cached ------------------------------------------------------
#
# Any edit moves Conference.changed_at, and with it every whole export the page cache keeps.
# Each session's part (its VEVENT, its frab event as JSON or XML) is cached on its own, under a
# key naming everything it shows: the session's own version; its room's and track's versions;
# its speakers, in order, with their versions (and for frab their links); its links and
# attachments as stored, since they carry no version; the conference's own fields, the site's
# address and the code's release. After an edit, the next export renders only the sessions whose
# key moved, from one query of those columns per kind of row plus the model objects of those
# sessions alone.

FRAGMENT_SECONDS = 7 * 24 * 60 * 60  # keys carry every dependency: age never makes one stale
FRAGMENT_BATCH = 1000  # sessions loaded at once: bounds the memory of a 10,000-session export


def calendar_events(
    conference: Conference, sessions: QuerySet, *, base_url: str
) -> list[CalendarEvent]:
    """The VEVENTs of ``sessions`` (a filtered, ordered queryset of the conference's), cached."""
    host = calendar_host(base_url)

    def render(loaded: list[Session]) -> list[CalendarEvent]:
        return [calendar_event(conference, session, base_url, host) for session in loaded]

    return session_fragments(conference, sessions.for_ical(), "ics", base_url, render)


def cached_frab_events(
    conference: Conference, sessions: QuerySet, *, base_url: str, form: str
) -> list[FrabEvent]:
    """The frab events of ``sessions`` written in ``form`` ("json" or "xml"), cached."""

    persons, persons_json = {}, {}  # across batches: a speaker is written once per export

    def render(loaded: list[Session]) -> list[FrabEvent]:
        return frab_events(conference, loaded, base_url, form, persons, persons_json)

    return session_fragments(conference, sessions.for_export(), form, base_url, render)


def session_fragments(
    conference: Conference,
    sessions: QuerySet,
    form: str,
    base_url: str,
    render: Callable[[list[Session]], list],
) -> list:
    """One fragment per session of ``sessions``, in its order: from the cache when its key is
    there, else rendered from sessions loaded for it (with the loading ``sessions`` asks for)
    and then cached."""
    loader = RowLoader(conference, sessions)
    keys = fragment_keys(conference, sessions, form, base_url)
    if keys is None:
        # Too many to keep in each worker's memory (settings.EXPORT_FRAGMENT_MAX_SESSIONS).
        return [fragment for batch in loader.every_session() for fragment in render(batch)]
    found = cache.get_many(keys.values())
    missing = [pk for pk, key in keys.items() if key not in found]
    if missing and len(missing) == len(keys):
        # Nothing cached (a cleared cache, a new release): the query as given, not lists of ids.
        batches = loader.every_session()
    else:
        batches = (
            loader.sessions(
                list(loader.rows.order_by().filter(pk__in=missing[start : start + FRAGMENT_BATCH]))
            )
            for start in range(0, len(missing), FRAGMENT_BATCH)
        )
    for batch in batches:
        # A session added since the keys were read waits for the next export, as if it were later.
        loaded = [session for session in batch if session.pk in keys]
        fresh = {
            keys[session.pk]: fragment
            for session, fragment in zip(loaded, render(loaded), strict=True)
        }
        cache.set_many(fresh, FRAGMENT_SECONDS)
        found.update(fresh)
    # A session deleted between the two queries is left out, as a moment later it would be.
    return [found[key] for key in keys.values() if key in found]


class RowLoader:
    """The sessions of ``sessions`` (``for_ical()`` or ``for_export()``) as that queryset would
    load them (its columns, its speakers' columns, its links and attachments), read as value rows.

    The related rows are read once per batch rather than by prefetch_related; ``model_object``
    makes each row the model object a queryset would (from_db), so every property the writers
    read (display_title, get_absolute_url...) stays the model's own.
    """

    def __init__(self, conference: Conference, sessions: QuerySet):
        self.conference = conference
        self.columns = loaded_columns(sessions)
        self.rows = sessions.prefetch_related(None).values_list(*self.columns)
        prefetches = {
            lookup.to_attr: lookup
            for lookup in sessions._prefetch_related_lookups
            if isinstance(lookup, Prefetch)
        }
        speakers = prefetches["prefetched_speakers"].queryset
        self.speaker_columns = loaded_columns(speakers)
        self.references = "prefetched_links" in prefetches
        self.rooms = {room.pk: room for room in conference.rooms.all()}
        self.tracks = {track.pk: track for track in conference.tracks.all()}

    def every_session(self) -> Iterator[list[Session]]:
        """Every session of ``self.rows``, a batch at a time, with their related rows read once
        for all of them.

        One query per kind of related row instead of one per batch, each with a list of a
        thousand ids for Django to turn into SQL.
        """
        related = self.related(self.rows.order_by().values("pk"))
        for batch in in_batches(self.rows.iterator(chunk_size=FRAGMENT_BATCH), FRAGMENT_BATCH):
            yield self.sessions(batch, related)

    def sessions(self, rows: list[tuple], related: "RelatedRows | None" = None) -> list[Session]:
        """Sessions from ``rows`` of ``self.rows``, with their related rows (``related``, else
        three queries)."""
        if related is None:
            related = self.related([row[0] for row in rows])
        appearances, links, attachments = related
        loaded = []
        for row in rows:
            session = model_object(Session, self.columns, row, conference=self.conference)
            relations = session._state.fields_cache
            relations["room"] = self.rooms.get(session.room_id)
            relations["track"] = self.tracks.get(session.track_id)
            session.prefetched_speakers = appearances.get(session.pk, [])
            if self.references:
                session.prefetched_links = links.get(session.pk, [])
                session.prefetched_attachments = attachments.get(session.pk, [])
            loaded.append(session)
        return loaded

    def related(self, pks: list[int] | QuerySet) -> "RelatedRows":
        """The speakers, links and attachments of the sessions ``pks`` names, by session."""
        speakers: dict[int, Speaker] = {}
        appearances = defaultdict(list)
        for session_id, *speaker_row in (
            SessionSpeaker.objects.filter(session_id__in=pks)
            .order_by("session_id", "position", "pk")
            .values_list("session_id", *(f"speaker__{name}" for name in self.speaker_columns))
        ):
            speaker = speakers.get(speaker_row[0])
            if speaker is None:
                speaker = speakers[speaker_row[0]] = model_object(
                    Speaker, self.speaker_columns, speaker_row, conference=self.conference
                )
            appearances[session_id].append(speaker)
        links = attachments = {}
        if self.references:
            links = grouped_rows(SessionLink.objects.filter(session_id__in=pks))
            attachments = grouped_objects(Attachment.objects.filter(session_id__in=pks))
            # The speakers' links too, read with theirs (frab_persons): a list of ids per batch
            # cost more to turn into SQL than the query took.
            speaker_links = grouped_rows(
                SpeakerLink.objects.filter(
                    speaker_id__in=SessionSpeaker.objects.filter(session_id__in=pks).values(
                        "speaker_id"
                    )
                ),
                "speaker_id",
            )
            for pk, speaker in speakers.items():
                speaker.prefetched_links = speaker_links.get(pk, [])
        return RelatedRows(appearances, links, attachments)


class RelatedRows(NamedTuple):
    """Sessions' related rows as objects, by session id, in the order exports list them."""

    speakers: dict[int, list[Speaker]]
    links: dict[int, list[tuple]]  # named tuples of SessionLink columns
    attachments: dict[int, list[Attachment]]


def loaded_columns(queryset: QuerySet) -> list[str]:
    """The columns ``queryset`` loads, as only() or defer() left them, its primary key first."""
    names, deferred = queryset.query.deferred_loading
    return [
        field.attname
        for field in queryset.model._meta.concrete_fields
        if field.primary_key or ((field.name in names or field.attname in names) != deferred)
    ]


def model_object(model: type, columns: list[str], row: Iterable, **relations) -> object:
    """A model object holding ``row`` (the values of ``columns``, which follow the model's field
    order, as ``loaded_columns`` gives them), as a queryset loads it (``from_db``), with
    ``relations`` set as select_related sets them."""
    instance = model.from_db(router.db_for_read(model), columns, tuple(row))
    instance._state.fields_cache.update(relations)
    return instance


def grouped_rows(rows: QuerySet, owner: str = "session_id") -> dict[int, list[tuple]]:
    """Every row of ``rows`` as a named tuple of its columns, by its owner, in the order exports
    list them: for links, of which the exports read columns only.

    Speed: a tuple instead of a model object and its four dictionaries; the 12,000 links of a
    10,000-session export were a sixth of what its garbage collections went through.
    """
    groups = defaultdict(list)
    columns = loaded_columns(rows)
    for row in rows.order_by(owner, "position", "pk").values_list(*columns, named=True):
        groups[getattr(row, owner)].append(row)
    return groups


def grouped_objects(rows: QuerySet, owner: str = "session_id") -> dict[int, list]:
    """Every row of ``rows`` as an object, by its owner, in the order exports list them."""
    columns = loaded_columns(rows)
    groups = defaultdict(list)
    for row in rows.order_by(owner, "position", "pk").values_list(*columns):
        instance = model_object(rows.model, columns, row)
        groups[getattr(instance, owner)].append(instance)
    return groups


def in_batches(items: Iterable, size: int) -> Iterator[list]:
    batch = []
    for item in items:
        batch.append(item)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


def fragment_keys(
    conference: Conference, sessions: QuerySet, form: str, base_url: str
) -> dict[int, str] | None:
    """Each session's cache key, by pk in the order of ``sessions``: a digest of what its
    fragment shows (see above), read with one values query per kind of row. None past
    ``settings.EXPORT_FRAGMENT_MAX_SESSIONS`` sessions: those are not cached."""
    rows = sessions.prefetch_related(None).values_list(
        "pk", "guid", "version", "room__version", "track__version"
    )
    limit = settings.EXPORT_FRAGMENT_MAX_SESSIONS
    if limit is not None:
        rows = list(rows[: limit + 1])  # not 10,000 rows read to learn there are too many
        if len(rows) > limit:
            return None
    in_conference = {"session__conference": conference}
    speakers = grouped(
        SessionSpeaker.objects.filter(**in_conference)
        .order_by("session_id", "position", "pk")
        .values_list("session_id", "speaker_id", "speaker__version")
    )
    links = attachments = speaker_links = {}
    if form != "ics":  # the calendar shows no links, no attachments and no speakers' links
        links = grouped(stored_rows(SessionLink.objects.filter(**in_conference)))
        attachments = grouped(stored_rows(Attachment.objects.filter(**in_conference)))
        speaker_links = grouped(
            stored_rows(SpeakerLink.objects.filter(speaker__conference=conference), "speaker_id")
        )
    conference_fields = [
        getattr(conference, field.attname)
        for field in Conference._meta.concrete_fields
        if field.name != "changed_at"
    ]
    base = hashlib.sha256(repr((settings.RELEASE, form, base_url, conference_fields)).encode())
    keys = {}
    for pk, *own in rows:
        speaker_parts = [
            (speaker, version, speaker_links.get(speaker, ()))
            for speaker, version in speakers.get(pk, ())
        ]
        digest = base.copy()
        digest.update(repr((pk, own, speaker_parts, links.get(pk), attachments.get(pk))).encode())
        keys[pk] = f"export-fragment:{form}:{digest.hexdigest()[:40]}"
    return keys


def stored_rows(rows: QuerySet, owner: str = "session_id") -> QuerySet:
    """Every column of ``rows``, the owner's id first, in the order exports list them."""
    names = [field.attname for field in rows.model._meta.concrete_fields]
    return rows.order_by(owner, "position", "pk").values_list(owner, *names)


def grouped(rows: Iterable[tuple]) -> dict[object, list[tuple]]:
    """Rows by their first column."""
    groups = defaultdict(list)
    for owner, *rest in rows:
        groups[owner].append(tuple(rest))
    return groups

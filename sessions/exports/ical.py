"""schedule.ics and one session's .ics, and the “Add to Google Calendar / Outlook” links."""

import datetime
import re
from collections.abc import Iterable, Iterator
from typing import NamedTuple
from urllib.parse import quote, urlencode, urlsplit

import icalendar
from django.utils import timezone

from conference.models import Conference
from sessions.exports.common import absolute_url, joined_in_chunks, zoned
from sessions.frab import (
    GENERATOR,
)
from sessions.models import Session
from speakers.models import Speaker

# The calendar is written line by line rather than built from icalendar.Event objects: the
# library's generic add() and to_ical() (type inference, parameter dictionaries, a per-character
# fold of any line holding a non-ASCII character) cost more than all the rest of an export.
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
        ical_text("SUMMARY", session.export_title),
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
# Links that open the calendar's own “new event” form filled in: no script of theirs on our
# pages. Times go in UTC, which both read whatever the attendee's zone.

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


# The session page's “Add to …” links, by the name in their address (sessions/urls.py): short
# links to our site, which builds the calendar's long address on the click.
ADD_TO_CALENDAR = {"google": google_calendar_url, "outlook": outlook_calendar_url}


def speakers_line(speakers: list[Speaker]) -> str:
    names = [
        f"{speaker.name} ({speaker.affiliation})" if speaker.affiliation else speaker.name
        for speaker in speakers
    ]
    label = "Speaker" if len(names) == 1 else "Speakers"
    return f"{label}: {', '.join(names)}" if names else ""

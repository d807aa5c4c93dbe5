"""A CSV table of sessions, one per row, into records: for organizers coming from spreadsheets.

The columns are documented in docs/import.md and the example the admin's import page offers
(EXAMPLE_CSV). Each problem names its row, as the spreadsheet numbers it, and its column.
"""

import csv
import datetime
import io
import re
import uuid

from django.utils.text import slugify
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from conference.i18n.timezones import clock_text, read_wall_clock
from conference.models import Conference
from sessions.frab import split_title
from sessions.importers.records import (
    EventRecord,
    PersonRecord,
    RecordError,
    RoomRecord,
    ScheduleImportError,
    ScheduleRecords,
    TrackRecord,
    instant_on_clocks,
    not_utf8,
    shown,
)
from sessions.models import Session

COLUMNS = (
    "id",
    "title",
    "kind",
    "track",
    "room",
    "date",
    "start",
    "end",
    "duration",
    "speakers",
    "description",
    "level",
    "status",
)
# Other names spreadsheets give these columns.
COLUMN_ALIASES = {
    "guid": "id",
    "type": "kind",
    "audience level": "level",
    "abstract": "description",
}
# Our model fields as the table names them, so the writer's problems name the column.
CSV_KEYS = {
    "guid": "id",
    "title": "title",
    "kind": "kind",
    "track": "track",
    "room": "room",
    "starts_at": "start",
    "ends_at": "end",
    "description": "description",
    "audience_level": "level",
    "status": "status",
    "speaker": "speakers",
    "planned_minutes": "duration",
    "slug": "title",
}
_TIME = re.compile(r"(\d{1,2})[:.h](\d{2})")
_TIME_ON_CLOCKS = re.compile(r"(\d{1,2})[:.h](\d{2})(?:\s+(\S{1,10}))?")
_MINUTES = re.compile(r"\d+")

EXAMPLE_CSV = """\
id,title,kind,track,room,date,start,end,duration,speakers,description,level,status
opening-2026,Opening keynote,keynote,,Main Hall,2026-04-08,09:00,09:45,,Ada Lovelace,Welcome and the year ahead.,any,published
lunch-1,Lunch,break,,,2026-04-08,12:30,,60,,,,published
tensors-101,Tensors from scratch,workshop,Training,Room B,2026-04-08,14:00,15:30,,Grace Hopper; Alan Turing,"Bring a laptop; we start with NumPy.",beginner,published
panel-future,The future of compilers,panel,Compilers,,,,,45,Grace Hopper; Edsger Dijkstra,Not placed yet: it waits in the planner.,advanced,draft
"""


def choices_text(choices) -> str:
    return ", ".join(value for value, _label in choices)


def parse_csv(data: bytes, conference: Conference) -> ScheduleRecords:
    try:
        text = data.decode("utf-8-sig")  # Excel's “CSV UTF-8” starts with a byte-order mark
    except UnicodeDecodeError as error:
        advice = " " + _("Save it from your spreadsheet as “CSV UTF-8”.")
        raise not_utf8(data, error, advice) from None
    if "\x00" in text:
        raise ScheduleImportError(_("The file holds NUL characters: it is not a CSV table."))
    try:
        dialect = csv.Sniffer().sniff(text.split("\n", 1)[0], delimiters=",;\t")
        delimiter = dialect.delimiter
    except csv.Error:
        delimiter = ","  # a single column: the header check below names what is missing
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    try:
        header = next(reader, [])
        columns = read_header(header)
        records = ScheduleRecords(file_keys=dict(CSV_KEYS))
        seen: dict[str, EventRecord] = {}
        # Rows as a spreadsheet numbers them (a cell may hold line breaks): the header is 1.
        for number, row in enumerate(reader, start=2):
            if not any(cell.strip() for cell in row):
                continue
            try:
                values = row_values(row, columns, number)
                record = csv_event(values, number, conference, records)
                records.add_event(record, seen)
            except RecordError as problem:
                records.problems.append(str(problem))
    except csv.Error as error:
        raise ScheduleImportError(
            # Translators: error is Python's csv module's own English explanation.
            _("Row %(row)s: not a CSV row (%(error)s).") % {"row": reader.line_num, "error": error}
        ) from None
    if not records.events and not records.problems:
        raise ScheduleImportError(_("Row 2: the table has no sessions below its header."))
    return records


def read_header(header: list[str]) -> list[str]:
    columns = []
    for index, cell in enumerate(header, start=1):
        name = " ".join(cell.strip().lower().replace("_", " ").split())
        name = COLUMN_ALIASES.get(name, name)
        if name not in COLUMNS:
            raise ScheduleImportError(
                # Translators: column is the column's number (1 for the first), value the header
                # cell, names the template's column names (id, title…), which stay English.
                _(
                    "Row 1, column %(column)s: “%(value)s” is not a column of the template "
                    "(%(names)s)."
                )
                % {"column": index, "value": shown(cell.strip())[:40], "names": ", ".join(COLUMNS)}
            )
        if name in columns:
            raise ScheduleImportError(
                # Translators: column is the column's number (1 for the first), name its header.
                _("Row 1, column %(column)s: “%(name)s” appears twice.")
                % {"column": index, "name": name}
            )
        columns.append(name)
    if "title" not in columns:
        raise ScheduleImportError(
            # Translators: “title” and the names (id, title…) are the template's column names.
            _("Row 1: the header has no “title” column (the columns: %(names)s).")
            % {"names": ", ".join(COLUMNS)}
        )
    return columns


def row_values(row: list[str], columns: list[str], number: int) -> dict[str, str]:
    if len(row) > len(columns) and any(cell.strip() for cell in row[len(columns) :]):
        raise RecordError(
            # Translators: cells is always 2 or more; columns may be 1.
            ngettext(
                "Row %(row)s: it has %(cells)s cells but the header names %(columns)s column.",
                "Row %(row)s: it has %(cells)s cells but the header names %(columns)s columns.",
                len(columns),
            )
            % {"row": number, "cells": len(row), "columns": len(columns)}
        )
    values = dict.fromkeys(COLUMNS, "")
    for name, cell in zip(columns, row, strict=False):
        if "\x00" in cell:
            raise RecordError(
                # Translators: column is a column's name from the header (title, room…).
                _("Row %(row)s, column %(column)s: contains a NUL character.")
                % {"row": number, "column": name}
            )
        values[name] = cell.strip()
    return values


def csv_event(
    values: dict[str, str], number: int, conference: Conference, records: ScheduleRecords
) -> EventRecord:
    title, cancelled = split_title(values["title"])
    where = _("Row %(row)s") % {"row": number}
    if not title:
        raise RecordError(_("%(where)s, column title: missing.") % {"where": where})
    # Translators: where a problem is: the spreadsheet's row and the session's title.
    where = _("Row %(row)s (“%(title)s”)") % {"row": number, "title": shown(title)[:60]}
    kind = read_choice(values["kind"], Session.Kind, Session.Kind.TALK, where, "kind")
    level = read_choice(values["level"], Session.AudienceLevel, None, where, "level")
    status = read_choice(values["status"], Session.Status, None, where, "status")
    if cancelled:
        status = Session.Status.CANCELLED
    starts_at, ends_at, minutes = read_slot(values, conference, where)
    room = values["room"] or None
    if starts_at is None:
        if room:
            raise RecordError(
                _(
                    "%(where)s, column room: a session without a date and start waits "
                    "unscheduled and has no room yet; give it a date and start, or leave the "
                    "room empty."
                )
                % {"where": where}
            )
        if status not in (None, Session.Status.DRAFT):
            raise RecordError(
                _(
                    "%(where)s, column status: a session without a date and start can only be "
                    "a draft."
                )
                % {"where": where}
            )
        status = Session.Status.DRAFT
    elif status is None:
        status = Session.Status.PUBLISHED
    if room and room not in records.rooms:
        records.rooms[room] = RoomRecord(room, where=column_where(where, "room"))
    if values["track"] and values["track"] not in records.tracks:
        records.tracks[values["track"]] = TrackRecord(
            values["track"], where=column_where(where, "track")
        )
    persons = [
        PersonRecord(
            # A speaker named alike in any row is the same speaker, on every import.
            str(uuid.uuid5(uuid.NAMESPACE_URL, f"urn:confsched:csv-speaker:{name.casefold()}")),
            name,
            None,
            # Translators: name is a speaker's name as the speakers column gives it.
            _("%(where)s, column speakers (“%(name)s”)")
            % {"where": where, "name": shown(name)[:60]},
            match_name=True,
        )
        for name in dict.fromkeys(part.strip() for part in values["speakers"].split(";"))
        if name
    ]
    return EventRecord(
        where=where,
        guid=values["id"]
        or str(uuid.uuid5(uuid.NAMESPACE_URL, f"urn:confsched:csv-session:{title}")),
        title=title,
        slug=slugify(title),
        kind=kind,
        cancelled=status == Session.Status.CANCELLED,
        room=room,
        track=values["track"],
        starts_at=starts_at,
        ends_at=ends_at,
        description=values["description"],
        persons=persons,
        status=status,
        audience_level=level,
        planned_minutes=minutes if starts_at is None else None,
    )


def read_choice(value: str, choices, default, where: str, column: str):
    if not value:
        return default
    wanted = slugify(value)
    for choice in choices:
        if wanted in (choice.value, slugify(choice.label)):
            return choice.value
    raise RecordError(
        # Translators: column is the column's name (kind, level, status); choices the values it
        # accepts, which stay English.
        _("%(where)s, column %(column)s: “%(value)s” is not one of %(choices)s.")
        % {
            "where": where,
            "column": column,
            "value": shown(value)[:40],
            "choices": choices_text(choices.choices),
        }
    )


def read_slot(
    values: dict[str, str], conference: Conference, where: str
) -> tuple[datetime.datetime | None, datetime.datetime | None, int | None]:
    """Start and end in the conference's zone, or neither (unscheduled); and the duration."""
    minutes = read_minutes(values["duration"], where) if values["duration"] else None
    if not values["date"] and not values["start"]:
        if values["end"]:
            raise RecordError(
                _("%(where)s, column end: give the date and start too, or no end.")
                % {"where": where}
            )
        return None, None, minutes
    if not values["date"]:
        raise RecordError(
            # Translators: start is the start column's value (10:35).
            _("%(where)s, column date: missing (the start is %(start)s).")
            % {"where": where, "start": values["start"]}
        )
    if not values["start"]:
        raise RecordError(
            # Translators: date is the date column's value (2026-04-08).
            _("%(where)s, column start: missing (the date is %(date)s).")
            % {"where": where, "date": values["date"]}
        )
    day = read_date(values["date"], where)
    starts_at = local_moment(day, values["start"], conference, where, "start")
    if values["end"]:
        ends_at = local_moment(day, values["end"], conference, where, "end")
        if ends_at <= starts_at:  # past midnight: 23:30 to 00:30 ends the next day
            next_day = day + datetime.timedelta(days=1)
            ends_at = local_moment(next_day, values["end"], conference, where, "end")
        if minutes is not None and ends_at - starts_at != datetime.timedelta(minutes=minutes):
            raise RecordError(
                # Translators: minutes is the duration column's number; start and end the start
                # and end columns' times; length the minutes between them.
                _(
                    "%(where)s, column duration: %(minutes)s minutes, but %(start)s to %(end)s "
                    "is %(length)s."
                )
                % {
                    "where": where,
                    "minutes": minutes,
                    "start": values["start"],
                    "end": values["end"],
                    "length": (ends_at - starts_at) // datetime.timedelta(minutes=1),
                }
            )
    elif minutes is not None:
        ends_at = starts_at + datetime.timedelta(minutes=minutes)
    else:
        raise RecordError(
            _("%(where)s, column end: missing; give an end or a duration.") % {"where": where}
        )
    return starts_at, ends_at, minutes


def read_date(value: str, where: str) -> datetime.date:
    try:
        return datetime.date.fromisoformat(value)
    except ValueError:
        raise RecordError(
            _("%(where)s, column date: “%(value)s” is not a date like 2026-04-08.")
            % {"where": where, "value": shown(value)[:40]}
        ) from None


def read_time(value: str, where: str, column: str) -> tuple[datetime.time, str]:
    """A time of day, and the name of the zone's clocks it is read on, if the cell gives one
    (“02:30 CET”: which 02:30, the night the clocks go back)."""
    match = _TIME_ON_CLOCKS.fullmatch(value)
    if match and int(match[1]) < 24 and int(match[2]) < 60:
        return datetime.time(int(match[1]), int(match[2])), match[3] or ""
    raise RecordError(
        # Translators: column is the column's name: start or end.
        _("%(where)s, column %(column)s: “%(value)s” is not a time like 10:35.")
        % {"where": where, "column": column, "value": shown(value)[:40]}
    )


def read_minutes(value: str, where: str) -> int:
    match = _TIME.fullmatch(value)
    if match:
        minutes = int(match[1]) * 60 + int(match[2])
    elif _MINUTES.fullmatch(value) and len(value) < 6:
        minutes = int(value)
    else:
        minutes = 0
    if minutes <= 0:
        raise RecordError(
            _(
                "%(where)s, column duration: “%(value)s” is not a number of minutes like 30 or a "
                "length like 1:30."
            )
            % {"where": where, "value": shown(value)[:40]}
        )
    return minutes


def local_moment(
    day: datetime.date, value: str, conference: Conference, where: str, column: str
) -> datetime.datetime:
    """The instant a start or end cell names on the conference's clocks that day. Refused as the
    admin refuses it: a time the clocks skip, and one they pass twice unless the cell says which
    (“02:30 CEST” or “02:30 CET”), as the admin's choice between the two does."""
    time, clocks = read_time(value, where, column)
    local, zone = datetime.datetime.combine(day, time), conference.tz
    cell = column_where(where, column)
    instants = read_wall_clock(local, zone).instants
    if clocks and instants:
        readings = {clock_reading(instant.astimezone(zone)): instant for instant in instants}
        named = [
            instant
            for reading, instant in readings.items()
            if reading.split()[-1].casefold() == clocks.casefold()
        ]
        if len(named) == 1:
            return named[0]
        raise RecordError(
            # Translators: cell is where the problem is (row and column); zone a time zone's
            # name (Europe/Paris); day a date (2026-10-25); readings the quoted times the clocks
            # show that night (“02:30 CEST” or “02:30 CET”).
            _(
                "%(cell)s: “%(value)s” is not how the clocks of %(zone)s read on %(day)s: "
                "%(readings)s."
            )
            % {
                "cell": cell,
                "value": shown(value)[:40],
                "zone": zone,
                "day": day.isoformat(),
                "readings": either([f"“{reading}”" for reading in readings]),
            }
        )
    return instant_on_clocks(local, zone, cell, lambda moment: f"“{clock_reading(moment)}”")


def column_where(where: str, column: str) -> str:
    """A cell, for a problem to name: “Row 12 (“Opening”), column room”."""
    # Translators: where is a row (Row 12 (“Opening”)); column a column's name (room, start…).
    return _("%(where)s, column %(column)s") % {"where": where, "column": column}


def either(texts: list[str]) -> str:
    """“a” or “b”: the texts as alternatives."""
    joined = texts[0]
    for text in texts[1:]:
        # Translators: two alternatives, such as two readings of a clock.
        joined = _("%(first)s or %(second)s") % {"first": joined, "second": text}
    return joined


def clock_reading(moment: datetime.datetime) -> str:
    """“02:30 CET”: a time as its zone's clocks read it, which tells apart the two of a night."""
    return f"{clock_text(moment)} {moment.tzname()}"

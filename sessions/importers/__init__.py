"""Import a schedule file into an existing conference: frab/c3voc schedule.xml or
schedule.json, Sessionize's “All Data” JSON, or a CSV table (docs/import.md).

Parsing turns the file into plain records, naming each by title, guid and line (XML) or index
(JSON). Writing then creates or updates rooms, tracks, speakers and sessions, matched by GUID
(sessions, speakers) or name/slug (rooms, tracks), each through ``full_clean()``, all in one
transaction: any problem and nothing is written.

records.py holds the records and the error; frab_xml.py, frab_json.py, sessionize.py and
spreadsheet.py (CSV) parse; writer.py writes (its sessions in session_writer.py, what it asks of
each row in rows.py), keeping edits made here since the last import unless the file changed that
field (merge.py).
"""

import codecs
import json
import os
from pathlib import Path
from typing import IO

from django.utils.translation import gettext as _

from conference.models import Conference
from sessions.importers.frab_json import parse_json
from sessions.importers.frab_xml import parse_xml
from sessions.importers.records import ScheduleImportError, ScheduleRecords
from sessions.importers.report import ImportReport
from sessions.importers.sessionize import is_sessionize, parse_sessionize
from sessions.importers.spreadsheet import parse_csv
from sessions.importers.writer import write_schedule

__all__ = ["MAX_IMPORT_BYTES", "ImportReport", "ScheduleImportError", "import_schedule"]

MAX_IMPORT_BYTES = 20 * 1024 * 1024


def import_schedule(
    conference: Conference,
    path_or_file: str | os.PathLike | IO,
    *,
    dry_run: bool = False,
    convert_time_zone: bool = False,
    adopt_day_change: bool = False,
    hold_conflicts: bool = False,
) -> ImportReport:
    """Import schedule.xml or schedule.json into ``conference``, all or nothing.

    Raises ScheduleImportError naming every record that fails; with ``dry_run`` everything is
    checked and reported, then rolled back. A file for another time zone is refused unless
    ``convert_time_zone``: then its sessions keep their instants, shown in the conference's zone.
    The file's day change (frab's day_change, or its days' windows) becomes the conference's
    when it has no sessions yet, or with ``adopt_day_change``. With ``hold_conflicts``, sessions that break only a
    booking rule are imported unscheduled, with the reason, for an organizer to place.
    """
    data, name = read_input(path_or_file)
    records = parse_schedule(data, name, conference)
    file_zone = records.conference.time_zone
    if file_zone and file_zone != conference.time_zone and not convert_time_zone:
        raise ScheduleImportError(
            # Translators: file_zone and conference_zone are time zone names (Europe/Berlin).
            _(
                "The file's time zone is %(file_zone)s (time_zone_name) but %(conference)s is in "
                "%(conference_zone)s, so every session would show at another hour than the "
                "file's. Import it into a conference in %(file_zone)s, or convert: each session "
                "keeps its moment and is shown in %(conference_zone)s "
                "(import_schedule --convert-time-zone)."
            )
            % {
                "file_zone": file_zone,
                "conference": conference,
                "conference_zone": conference.time_zone,
            }
        )
    if records.problems:
        raise ScheduleImportError(records.problems)
    return write_schedule(
        conference,
        records,
        dry_run=dry_run,
        adopt_day_change=adopt_day_change,
        hold_conflicts=hold_conflicts,
    )


def read_input(path_or_file: str | os.PathLike | IO) -> tuple[bytes, str]:
    too_big = _(
        "The file is larger than %(megabytes)s MB; a schedule is far smaller, so it is refused."
    ) % {"megabytes": MAX_IMPORT_BYTES // (1024 * 1024)}
    if isinstance(path_or_file, str | os.PathLike):
        path = Path(path_or_file)
        if not path.is_file():
            raise ScheduleImportError(_("No such file: %(path)s") % {"path": path})
        if path.stat().st_size > MAX_IMPORT_BYTES:
            raise ScheduleImportError(too_big)
        return path.read_bytes(), path.name
    data = path_or_file.read(MAX_IMPORT_BYTES + 1)
    if isinstance(data, str):
        data = data.encode()
    if len(data) > MAX_IMPORT_BYTES:
        raise ScheduleImportError(too_big)
    return data, str(getattr(path_or_file, "name", ""))


def parse_schedule(data: bytes, name: str, conference: Conference) -> ScheduleRecords:
    """Records from any format we read: frab XML or JSON, Sessionize JSON, or a CSV table."""
    if not data.strip():
        raise ScheduleImportError(_("The file is empty."))
    first = first_character(data)
    if name.lower().endswith(".csv"):
        return parse_csv(data, conference)
    if first == "<" or (not first and name.endswith(".xml")):
        return parse_xml(data, conference)
    if first in ("{", "[") or (not first and name.endswith(".json")):
        document = sessionize_document(data)
        if document is not None:
            return parse_sessionize(document, conference)
        return parse_json(data, conference)
    if b"title" in data.split(b"\n", 1)[0].lower():  # a CSV table saved without .csv
        return parse_csv(data, conference)
    raise ScheduleImportError(
        _(
            "The file is neither schedule.xml nor JSON (frab or Sessionize): it starts with "
            "neither “<” nor “{”; nor is it a CSV table, whose first row names a “title” column."
        )
    )


def sessionize_document(data: bytes) -> dict | None:
    """The document if it is Sessionize's “All Data”; None otherwise (parse_json explains)."""
    try:
        document = json.loads(data)
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    return document if is_sessionize(document) else None


def first_character(data: bytes) -> str:
    """The first non-blank character, also of UTF-16 files (XML and JSON may both be UTF-16)."""
    encoding = "utf-8"
    for bom, name in ((codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be")):
        if data.startswith(bom):
            data, encoding = data[len(bom) :], name
    return data[:400].decode(encoding, errors="ignore").lstrip("\ufeff \t\r\n")[:1]

"""Records into the database: rooms, tracks, speakers and sessions (session_writer.py), each
through full_clean() (rows.py).

Rooms and tracks are matched by name or slug, speakers and sessions by GUID. A speaker or session
imported before keeps the edits made here since, unless the file changed that field meanwhile
(merge.py). The writer collects every problem instead of stopping; ``import_schedule`` runs it in
one transaction and rolls everything back if there is any.
"""

import datetime
from contextlib import nullcontext
from typing import Any
from urllib.parse import urlsplit

from django.core.exceptions import ValidationError
from django.db import connection, models, transaction
from django.db.models import Q
from django.utils.text import slugify
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext_lazy

from conference.models import Conference, Room, Track, validate_hex_colour
from sessions.frab import export_guid, room_guid
from sessions.importers.checking import on_a_copy_of_sqlite
from sessions.importers.merge import FieldDecision, decide, remembered_values
from sessions.importers.records import (
    PersonRecord,
    ScheduleImportError,
    ScheduleRecords,
)
from sessions.importers.report import ImportReport
from sessions.importers.rows import (
    full_clean,
    guid_index,
    in_record,
    outcome,
    unique_slug,
    validation_problems,
)
from sessions.importers.session_writer import SessionWriting
from sessions.models import (
    Attachment,
    ImportedValues,
    Session,
    SessionLink,
    locking_all,
    room_bookings_checked_at_end,
)
from sessions.sync import touched_at_end
from speakers.models import Speaker, SpeakerLink

# What merge() handles beside a session's own fields: its speakers, links and URL attachments.
RELATED = ("speakers", "links", "attachments")
# What the report calls them.
RELATED_NAMES = {
    "speakers": gettext_lazy("speakers"),
    "links": pgettext_lazy("a session's links, in an import's report", "links"),
    "attachments": gettext_lazy("attachments"),
}


def write_schedule(
    conference: Conference,
    records: ScheduleRecords,
    *,
    dry_run: bool = False,
    adopt_day_change: bool = False,
    hold_conflicts: bool = False,
) -> ImportReport:
    """Write ``records`` into ``conference`` in one transaction, all or nothing.

    Raises ScheduleImportError naming every record that fails; with ``dry_run`` everything is
    checked and reported, then rolled back. With ``hold_conflicts`` a session that breaks only a
    booking rule (room or speaker taken, outside the conference's days) is written unscheduled,
    with the reason (Session.hold()), instead of failing the import.
    """
    report = ImportReport(dry_run=dry_run, zone=conference.tz)
    # A check on SQLite writes into a copy, never holding the live file's write lock (checking.py).
    with on_a_copy_of_sqlite() if dry_run else nullcontext(), transaction.atomic():
        # Sessions of the file may swap slots: PostgreSQL checks room bookings once all are written.
        with (
            Conference.changes_marked_at_end(conference.pk),
            touched_at_end(),
            room_bookings_checked_at_end(),
            locking_all(conference) as locked,
        ):
            writer = ScheduleWriter(
                conference,
                records,
                report,
                adopt_day_change=adopt_day_change,
                hold_conflicts=hold_conflicts,
            )
            writer.locked = locked
            problems = writer.write()
            if problems:
                raise ScheduleImportError(problems)  # leaving the block rolls everything back
        if dry_run:
            transaction.set_rollback(True)
    if not dry_run:
        refresh_planner_statistics()
    return report


def refresh_planner_statistics() -> None:
    """Let the database's query planner see the tables as a large write (an import) left them.

    SQLite gathers no statistics by itself and PostgreSQL's autovacuum comes later, or never where
    it is off. Without them SQLite walks all of a conference's sessions to find one speaker's, and
    PostgreSQL takes thousands of rows for one and loops.

    SQLite gets statistics of the session table only. With statistics of every table its planner
    (3.40) turns the schedule's speaker lookup inside out: every speaker, each looked up in a list
    of every session shown, which took seconds at 10,000 sessions. Statistics left by an earlier
    full ANALYZE are dropped for the same reason.
    """
    with connection.cursor() as cursor:
        if connection.vendor != "sqlite":
            cursor.execute("ANALYZE")
            return
        table = Session._meta.db_table
        cursor.execute(f"ANALYZE {connection.ops.quote_name(table)}")
        cursor.execute("DELETE FROM sqlite_stat1 WHERE tbl <> %s", [table])


class ScheduleWriter(SessionWriting):
    """Writes parsed records into one conference, collecting every problem instead of stopping."""

    def __init__(
        self,
        conference: Conference,
        records: ScheduleRecords,
        report: ImportReport,
        *,
        adopt_day_change: bool = False,
        hold_conflicts: bool = False,
    ):
        self.conference = conference
        self.adopt_day_change = adopt_day_change
        self.hold_conflicts = hold_conflicts
        # Rooms and speakers locked for this import (models.locking_all()); new ones join it.
        self.locked: set = set()
        self.records = records
        self.report = report
        self.problems: list[str] = []
        self.rooms: dict[str, Room] = {}
        self.tracks: dict[str, Track] = {}
        self.speakers: dict[str, Speaker] = {}
        # Sessions of the file still to be written, whose stored slots clash checks skip.
        self.being_replaced: set[int] = set()
        # What the last import said of each speaker and session, by pk; and what this one says.
        self.last_imports: dict[tuple[str, int], ImportedValues] = {}
        self.imports: list[ImportedValues] = []

    def write(self) -> list[str]:
        for imported in ImportedValues.objects.filter(
            Q(session__conference=self.conference) | Q(speaker__conference=self.conference)
        ):
            if imported.session_id:
                self.last_imports["session", imported.session_id] = imported
            else:
                self.last_imports["speaker", imported.speaker_id] = imported
        self.write_conference()
        self.write_rooms()
        self.write_tracks()
        self.write_speakers()
        self.write_sessions()
        if not self.problems:
            self.remember_imports()
        return self.problems

    def merge(
        self, kind: str, instance: Session | Speaker, from_file: dict[str, Any]
    ) -> list[FieldDecision]:
        """Set the values of the file that win over ``instance``'s (see merge.py); what each did.

        A new instance takes them all. ``from_file`` may hold "speakers", which the caller sets.
        """
        if instance.pk is None:
            for name, value in from_file.items():
                if name not in RELATED:
                    setattr(instance, name, value)
            return []
        current = {name: getattr(instance, name) for name in from_file if name not in RELATED}
        if "speakers" in from_file:
            current["speakers"] = list(instance.ordered_speakers)
        if "links" in from_file:
            current["links"] = [link_row(link) for link in instance.link_list]
        if "attachments" in from_file:
            # Links a speaker added on their materials page are theirs, not the file's.
            current["attachments"] = [
                link_row(item)
                for item in instance.attachment_list
                if item.url and item.added_by_id is None
            ]
        decisions = decide(
            current,
            from_file,
            self.last_values(kind, instance),
            {name: field_label(type(instance), name) for name in from_file},
        )
        for decision in decisions:
            if decision.applied and decision.field not in RELATED:
                setattr(instance, decision.field, decision.from_file)
        return decisions

    def remember(self, kind: str, instance: Session | Speaker, from_file: dict[str, Any]) -> None:
        """Note what the file said of ``instance``, for the next import to compare with."""
        last_import = self.last_imports.get((kind, instance.pk))
        if last_import is None:
            last_import = ImportedValues(**{kind: instance})
        values = {**last_import.values, **remembered_values(from_file)}
        if last_import.pk is None or values != last_import.values:
            last_import.values = values
            self.imports.append(last_import)

    def remember_imports(self) -> None:
        ImportedValues.objects.bulk_create([item for item in self.imports if item.pk is None])
        ImportedValues.objects.bulk_update(
            [item for item in self.imports if item.pk is not None], ["values"]
        )

    def save(self, instance: models.Model, where: str, outcome: str) -> bool:
        """Validate ``instance`` and save it if it is new or changed; False if it has problems."""
        try:
            full_clean(instance)
            if outcome != "unchanged":
                # EditConflictError (a ValidationError) if someone saved it since the import read it.
                instance.save()
        except ValidationError as error:
            self.problems.extend(validation_problems(where, error))
            return False
        return True

    def write_conference(self) -> None:
        """The file's day change, colour, logo and details (venue, city, description, links,
        contact address), where the conference has none of its own.

        The day change moves sessions between days, so the file's applies when the organizer
        asks (``adopt_day_change``), or to a conference still changing days at midnight that
        has no sessions yet; before any session is checked against the days.
        """
        header, conference = self.records.conference, self.conference
        values = {}
        untouched = conference.day_change == datetime.time.min and not conference.sessions.exists()
        if header.day_change is not None and (self.adopt_day_change or untouched):
            values["day_change"] = header.day_change
        if hex_colour_or_blank(header.colour) and not conference.colour:
            values["colour"] = hex_colour_or_blank(header.colour)
        if header.logo_url and not conference.logo_url:
            values["logo_url"] = header.logo_url
        for name, value in header.details.items():
            if not getattr(conference, name):
                values[name] = value
        fields = apply_changes(
            conference, {name: value for name, value in values.items() if value is not None}
        )
        if fields and self.save(conference, "schedule.conference", "updated"):
            names = ", ".join(field_label(Conference, name) for name in fields)
            # Translators: fields lists the conference's fields that change (colour, logo URL…).
            line = _("update conference “%(conference)s”: %(fields)s")
            self.report.note("updated", line % {"conference": conference, "fields": names})

    def write_rooms(self) -> None:
        existing = list(self.conference.rooms.all())
        by_name = {room.name.casefold(): room for room in existing}
        by_slug = {room.slug: room for room in existing}
        slugs = set(by_slug)
        position = max((room.position for room in existing), default=-1) + 1
        for record in self.records.rooms.values():
            slug = slugify(record.slug) or slugify(record.name)
            room = by_name.get(record.name.casefold()) or by_slug.get(slug)
            if room is None:
                room = Room(
                    conference=self.conference,
                    slug=unique_slug(slug, "room", slugs, 100),
                    position=position,
                )
                position += 1
            values = {"name": record.name}
            if record.capacity is not None:
                values["capacity"] = record.capacity
            # Our own export gives a room without a GUID the one derived from its slug: no change.
            if record.guid and not (room.pk and record.guid == room_guid(self.conference, room)):
                values["guid"] = record.guid
            if record.description is not None:
                values["description"] = record.description.strip()
            if record.kind is not None:
                values["kind"] = record.kind
            fields = apply_changes(room, values)
            result = outcome(room, fields)
            if self.save(room, _("Room “%(name)s”") % {"name": record.name}, result):
                self.locked.add((Room, room.pk))
                self.rooms[record.name] = room
                labels = [field_label(Room, name) for name in fields]
                self.report.record("room", result, record.name, labels)

    def write_tracks(self) -> None:
        existing = list(self.conference.tracks.all())
        by_name = {track.name.casefold(): track for track in existing}
        by_slug = {track.slug: track for track in existing}
        slugs = set(by_slug)
        for record in self.records.tracks.values():
            slug = slugify(record.slug) or slugify(record.name)
            track = by_name.get(record.name.casefold()) or by_slug.get(slug)
            if track is None:
                track = Track(
                    conference=self.conference, slug=unique_slug(slug, "track", slugs, 100)
                )
            values = {"name": record.name}
            # A colour the model would refuse (#abc, “red”) is ignored rather than failing the import.
            colour = hex_colour_or_blank(record.colour)
            if colour and track.colour.lower() != colour:
                values["colour"] = colour
            if record.description is not None:
                values["description"] = record.description.strip()
            fields = apply_changes(track, values)
            result = outcome(track, fields)
            if self.save(track, _("Track “%(name)s”") % {"name": record.name}, result):
                self.tracks[record.name] = track
                labels = [field_label(Track, name) for name in fields]
                self.report.record("track", result, record.name, labels)

    def write_speakers(self) -> None:
        existing = list(self.conference.speakers.all())
        by_guid = guid_index(existing)
        slugs = {speaker.slug for speaker in existing}
        persons: dict[str, PersonRecord] = {}
        for event in self.records.events:
            for person in event.persons:
                persons.setdefault(person.guid, person)
        by_name = {speaker.name.casefold(): speaker for speaker in existing}
        for person in persons.values():
            speaker = by_guid.get(person.guid) or by_guid.get(export_guid(person.guid))
            if speaker is None and person.match_name:
                speaker = by_name.get(person.name.casefold())
            if speaker is None:
                speaker = Speaker(
                    conference=self.conference,
                    guid=person.guid,
                    slug=unique_slug(slugify(person.name), "speaker", slugs, 200),
                )
            from_file = {"name": person.name}
            # schedule.xml carries no biographies, avatars, roles or companies.
            for name, value in (
                ("bio", person.biography),
                ("avatar_url", person.avatar_url),
                ("role", person.role),
                ("company", person.company),
                ("appears_in_parallel", person.appears_in_parallel),
            ):
                if value is not None:
                    from_file[name] = value
            decisions = self.merge("speaker", speaker, from_file)
            result = outcome(speaker, [decision for decision in decisions if decision.applied])
            if self.save(speaker, person.where, result) and self.write_speaker_links(
                speaker, person, is_new=result == "created"
            ):
                self.locked.add((Speaker, speaker.pk))
                self.speakers[person.guid] = speaker
                self.remember("speaker", speaker, from_file)
                self.report.record("speaker", result, person.name, decisions=decisions)

    def write_speaker_links(self, speaker: Speaker, person: PersonRecord, is_new: bool) -> bool:
        """The file's links of a speaker who has none yet (the admin edits them from then on);
        False on a problem."""
        if not person.links or not (is_new or not speaker.links.exists()):
            return True
        for position, link in enumerate(person.links):
            row = SpeakerLink(
                speaker=speaker,
                url=link.url,
                title=(link.title or urlsplit(link.url).hostname or "Link")[:100],
                position=position,
            )
            where = in_record(person.where, f"links[{position}]")
            if not self.save(row, where, "created"):
                return False
        return True


def link_row(link: "SessionLink | Attachment") -> list[str]:
    """A link or URL attachment as a re-import compares it: [url, title, type]."""
    return [link.url, link.title, link.kind]


def hex_colour_or_blank(value: str) -> str:
    """``value`` in lower case if a track may have it as its colour, else blank."""
    try:
        validate_hex_colour(value)
    except ValidationError:
        return ""
    return value.lower()


def apply_changes(instance: models.Model, values: dict[str, Any]) -> list[str]:
    """Set each value that differs from the instance's; the names of the fields that changed."""
    changed = [name for name, value in values.items() if getattr(instance, name) != value]
    for name in changed:
        setattr(instance, name, values[name])
    return changed


def field_label(model: type[models.Model], name: str) -> str:
    """What the report calls a field: its verbose name (“starts”), or “speakers”, “links”."""
    if name in RELATED:
        return str(RELATED_NAMES[name])
    return str(model._meta.get_field(name).verbose_name)

"""Records into the database: rooms, tracks, speakers and sessions, each through full_clean().

Rooms and tracks are matched by name or slug, speakers and sessions by GUID. A speaker or session
imported before keeps the edits made here since, unless the file changed that field meanwhile
(merge.py). The writer collects every problem instead of stopping; ``import_schedule`` runs it in
one transaction and rolls everything back if there is any.
"""

import datetime
from collections import Counter
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit

from django.core.exceptions import NON_FIELD_ERRORS, ValidationError
from django.db import connection, models, transaction
from django.db.models import Q
from django.utils.text import slugify
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext_lazy

from conference.models import Conference, Room, Track, validate_hex_colour
from sessions.frab import FILE_KEYS, export_guid, room_guid
from sessions.importers.merge import FieldDecision, decide, remembered_values
from sessions.importers.records import (
    EventRecord,
    PersonRecord,
    ScheduleImportError,
    ScheduleRecords,
)
from sessions.importers.report import ImportReport
from sessions.models import (
    Attachment,
    ImportedValues,
    Session,
    SessionLink,
    SessionSpeaker,
    attachments_prefetch,
    links_prefetch,
    locking_all,
    ordered_speakers_prefetch,
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
    with transaction.atomic():
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


def validation_problems(
    where: str, error: ValidationError, file_keys: dict[str, str] = FILE_KEYS
) -> list[str]:
    # Translators: where names the record (Room “Hall”, an event and its line); message is
    # the reason it is refused.
    about_record = _("%(where)s: %(message)s")
    # Translators: where names the record; key is the file's (title, start…); message is the
    # reason it is refused.
    about_field = _("%(where)s: %(key)s: %(message)s")
    if not hasattr(error, "error_dict"):
        return [about_record % {"where": where, "message": message} for message in error.messages]
    return [
        about_record % {"where": where, "message": message}
        if name == NON_FIELD_ERRORS
        else about_field % {"where": where, "key": file_keys.get(name, name), "message": message}
        for name, messages in error.message_dict.items()
        for message in messages
    ]


def in_record(where: str, key: str) -> str:
    """Where a problem is: a part of a record, by the file's key (``links[0]``)."""
    # Translators: where names a record (an event and its line); key is the file's (links[0]).
    return _("%(where)s: %(key)s") % {"where": where, "key": key}


def unique_slug(base: str, fallback: str, taken: set[str], max_length: int) -> str:
    base = base[: max_length - 8].strip("-_") or fallback
    slug, number = base, 2
    while slug in taken:
        slug, number = f"{base}-{number}", number + 1
    taken.add(slug)
    return slug


class ScheduleWriter:
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

    def write_sessions(self) -> None:
        existing = list(
            self.conference.sessions.select_related("room", "track")
            .prefetch_related(ordered_speakers_prefetch(), attachments_prefetch(), links_prefetch())
            .order_by("pk")
        )
        by_guid = guid_index(existing)
        slugs = {session.slug for session in existing}
        matches = [
            by_guid.get(event.guid) or by_guid.get(export_guid(event.guid))
            for event in self.records.events
        ]
        # The sessions being re-imported are written in file order; until its turn, each one's
        # stored slot is left out of the others' room and speaker checks. So two talks that swap
        # slots do not clash with each other's old times, and clashes within the file are found.
        self.being_replaced = {match.pk for match in matches if match}
        for event, session in zip(self.records.events, matches, strict=True):
            if session is None:
                session = Session(
                    conference=self.conference,
                    guid=event.guid,
                    slug=unique_slug(event.slug, "session", slugs, 300),
                )
            self.write_session(event, session)

    def write_session(self, event: EventRecord, session: Session) -> None:
        if event.room and event.room not in self.rooms:
            return  # its room failed validation and is already reported
        # A speaker that failed validation is already reported; one listed twice counts once.
        speakers = list(
            {
                person.guid: self.speakers[person.guid]
                for person in event.persons
                if person.guid in self.speakers
            }.values()
        )
        from_file = {
            "title": event.title,
            **({"kind": event.kind} if event.kind is not None else {}),
            "track": self.tracks.get(event.track) if event.track else None,
            "room": self.rooms.get(event.room) if event.room else None,
            "starts_at": event.starts_at,
            "ends_at": event.ends_at,
            "description": event.description,
            "type_label": event.type_label,
            **event.extra,
            "status": Session.Status.CANCELLED if event.cancelled else Session.Status.PUBLISHED,
            "speakers": speakers,
            "links": [[link.url, link.title, link.kind] for link in event.links],
            "attachments": [[item.url, item.title, item.kind] for item in event.attachments],
        }
        from_file |= values_beyond_frab(event)
        is_new = session.pk is None
        decisions = self.merge("session", session, from_file)
        applied = [decision.field for decision in decisions if decision.applied]
        # A speaker's wish not to be recorded is never undone by a file: only an organizer
        # clears it, here.
        if event.do_not_record and not session.do_not_record:
            session.do_not_record = True
            applied.append("do_not_record")
        speakers_changed = bool(speakers) if is_new else "speakers" in applied
        if speakers_changed and not is_new:
            # Old links go first, so a speaker leaving this session cannot clash at its new time.
            session.session_speakers.all().delete()
            session.prefetched_speakers = []  # what clean() checks until the new ones are linked
        result = outcome(session, applied)
        session.being_replaced = frozenset(self.being_replaced)
        result = self.save_session(
            session, event, result, speakers if speakers_changed else None, applied
        )
        if result is None:
            return
        if not self.write_links(session, event, is_new, applied):
            return
        self.remember("session", session, from_file)
        if result == "unchanged" and applied:  # held again, as it was: nothing was written
            decisions = []
        self.report.record("session", result, event.title, decisions=decisions)

    def write_links(
        self, session: Session, event: EventRecord, is_new: bool, applied: list[str]
    ) -> bool:
        """The file's links and URL attachments, where merge() applied them; False on a problem.

        Attachments uploaded here are the organizers' and stay; so do those speakers added
        (``added_by``), and a file that repeats a speaker's link (an export of this schedule)
        adds it no second time.
        """
        rows: list[models.Model] = []
        if is_new or "links" in applied:
            if not is_new:
                session.links.all().delete()
            rows += [
                SessionLink(session=session, url=link.url, title=link.title, kind=link.kind)
                for link in event.links
            ]
        if is_new or "attachments" in applied:
            speakers_urls: set[str] = set()
            if not is_new:  # links go; uploads, announced ones and speakers' links stay
                session.attachments.exclude(url="").filter(added_by__isnull=True).delete()
                speakers_urls = set(
                    session.attachments.filter(added_by__isnull=False).values_list("url", flat=True)
                )
            rows += [
                Attachment(session=session, url=item.url, title=item.title, kind=item.kind)
                for item in event.attachments
                if item.url not in speakers_urls
            ]
        counters: Counter = Counter()
        for row in rows:
            name = "links" if isinstance(row, SessionLink) else "attachments"
            row.position = counters[name]
            counters[name] += 1
            if not row.title and isinstance(row, Attachment):
                row.title = row.url.rsplit("/", 1)[-1][:200] or "Attachment"
            where = in_record(event.where, f"{name}[{row.position}]")
            if not self.save(row, where, "created"):
                return False
        return True

    # Holding conflicts ---------------------------------------------------------------------

    def last_values(self, kind: str, instance: Session | Speaker) -> dict[str, Any] | None:
        """What the last import said of ``instance``, or None.

        A session still held for review leaves out its slot, so the file's slot is tried again
        (and the session placed, if the conflict has gone) rather than kept as an edit made here.
        """
        last_import = self.last_imports.get((kind, instance.pk))
        if last_import is None:
            return None
        if kind == "session" and instance.held_reason:
            return {k: v for k, v in last_import.values.items() if k not in HELD_FIELDS}
        return last_import.values

    def save_session(
        self,
        session: Session,
        event: EventRecord,
        result: str,
        speakers: list[Speaker] | None,
        applied: Sequence[str] = (),
    ) -> str | None:
        """Save ``session`` and, when given, its ``speakers`` (in billing order).

        Returns its outcome, or None if it is refused (its problems noted). With hold_conflicts,
        a session refused only by a booking rule is held for review instead (Session.hold()).
        """
        held_before, minutes_before = session.held_reason, session.planned_minutes
        error, session_written, linked = self.try_save(session, result), False, 0
        if error is None:
            session_written = result != "unchanged"
            self.being_replaced.discard(session.pk)  # in place again: later ones check against it
            error, linked = self.try_link(session, speakers or [], 0)
        if error is None:
            return result
        if not (self.hold_conflicts and is_conflict(error)):
            self.problems.extend(validation_problems(event.where, error, self.records.file_keys))
            return None
        reason = " ".join(error.messages)
        session.hold(reason)
        self.report.hold(event.title, reason)
        # Held again for the same reason, the file unchanged but for the slot it keeps trying:
        # the stored session is already just this, so nothing is written.
        if (
            result == "updated"
            and not session_written
            and speakers is None
            and held_before == reason
            and session.planned_minutes == minutes_before
            and set(applied) <= set(HELD_FIELDS)
        ):
            return "unchanged"
        error = self.try_save(session, "created" if session.pk is None else "updated")
        if error is None:
            self.being_replaced.discard(session.pk)
            error = self.try_link(session, speakers or [], linked)[0]
        if error is not None:
            self.problems.extend(validation_problems(event.where, error, self.records.file_keys))
            return None
        return result if result == "created" else "updated"

    def try_save(self, instance: models.Model, result: str) -> ValidationError | None:
        try:
            full_clean(instance)
            if result != "unchanged":
                instance.save()
        except ValidationError as error:
            return error
        return None

    def try_link(
        self, session: Session, speakers: list[Speaker], start: int
    ) -> tuple[ValidationError | None, int]:
        """Link ``speakers[start:]`` to ``session``, all or none; the error and how many are linked.

        The rule SessionSpeaker.clean() applies to each link, once for them all
        (Session.check_speakers_are_free()); the links are then written in one INSERT.
        """
        speakers = list({speaker.pk: speaker for speaker in speakers}.values())  # each once
        joining = speakers[start:]
        if not joining:
            return None, len(speakers)
        links = [
            SessionSpeaker(session=session, speaker=speaker, position=position)
            for position, speaker in enumerate(speakers)
            if position >= start
        ]
        try:
            for link in links:
                link.clean_fields(exclude=VOUCHED_FOR[SessionSpeaker])
            if not session.is_unscheduled and not session.is_cancelled:
                session.check_speakers_are_free(joining, field="speaker")
        except ValidationError as error:
            return error, start
        SessionSpeaker.objects.bulk_create(links)
        Conference.mark_changed(session.conference_id)  # bulk_create sends no signals
        return None, len(speakers)


def link_row(link: "SessionLink | Attachment") -> list[str]:
    """A link or URL attachment as a re-import compares it: [url, title, type]."""
    return [link.url, link.title, link.kind]


# What the writer vouches for itself, so that full_clean() need not ask the database row by row
# (each of these would be a query per row): every foreign key it sets holds an object
# it loaded from, or saved into, this conference; GUIDs and slugs are unique by its own indexes
# (guid_index(), unique_slug()); a session lists each speaker once (try_link()). The check
# constraints are what Session.clean() and the fields' validators already state with field
# errors. clean() still runs every rule; the database keeps every constraint behind it.
VOUCHED_FOR = {
    Session: ["conference", "room", "track"],
    Speaker: ["conference"],
    SessionSpeaker: ["session", "speaker"],
}


def full_clean(instance: models.Model) -> None:
    """``instance.full_clean()``, less the checks the writer vouches for (VOUCHED_FOR)."""
    vouched = VOUCHED_FOR.get(type(instance))
    if vouched is None:
        instance.full_clean()  # rooms and tracks: a few per file
    else:
        instance.full_clean(exclude=vouched, validate_constraints=False)


# A session refused only for these reasons can wait unscheduled: nothing about it is wrong but
# where and when the file puts it. Any other problem (a title too long) refuses the file.
CONFLICT_CODES = {"room_double_booked", "speaker_double_booked", "outside_conference_days"}
# What holding a session takes away, and a re-import tries again while it is held.
HELD_FIELDS = ("room", "starts_at", "ends_at", "status")


def is_conflict(error: ValidationError) -> bool:
    """Whether ``error`` is only about booking rules (CONFLICT_CODES), which holding resolves."""
    errors = (
        error.error_list
        if not hasattr(error, "error_dict")
        else [item for items in error.error_dict.values() for item in items]
    )
    return bool(errors) and all(item.code in CONFLICT_CODES for item in errors)


def values_beyond_frab(event: EventRecord) -> dict[str, Any]:
    """What CSV and Sessionize files may say of a session beyond frab's fields."""
    values: dict[str, Any] = {}
    if event.status is not None:
        values["status"] = event.status
    if event.audience_level is not None:
        values["audience_level"] = event.audience_level
    if event.planned_minutes is not None:
        values["planned_minutes"] = event.planned_minutes
    return values


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


def outcome(instance: models.Model, fields: Sequence) -> str:
    if instance.pk is None:
        return "created"
    return "updated" if fields else "unchanged"


def guid_index(objects: list[Session] | list[Speaker]) -> dict:
    """Objects by stored GUID and by the GUID our exports publish for it (legacy ones differ)."""
    index = {obj.guid: obj for obj in objects}
    for obj in objects:
        index.setdefault(export_guid(obj.guid), obj)
    return index

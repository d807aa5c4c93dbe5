"""Records into the database: rooms, tracks, speakers and sessions, each through full_clean().

Rooms and tracks are matched by name or slug, speakers and sessions by GUID. A speaker or session
imported before keeps the edits made here since, unless the file changed that field meanwhile
(merge.py). The writer collects every problem instead of stopping; ``import_schedule`` runs it in
one transaction and rolls everything back if there is any.
"""

import datetime
import zoneinfo
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from django.core.exceptions import NON_FIELD_ERRORS, ValidationError
from django.db import models, transaction
from django.db.models import Q
from django.utils.text import slugify

from conference.models import Conference, Room, Track, validate_hex_colour
from sessions.frab import FILE_KEYS, export_guid
from sessions.importers.merge import FieldDecision, decide, remembered_values
from sessions.importers.records import (
    EventRecord,
    PersonRecord,
    ScheduleImportError,
    ScheduleRecords,
)
from sessions.models import (
    Attachment,
    ImportedValues,
    Session,
    SessionLink,
    SessionSpeaker,
    attachments_prefetch,
    links_prefetch,
    ordered_speakers_prefetch,
    room_bookings_checked_at_end,
)
from speakers.models import Speaker, SpeakerLink

KINDS = ("room", "track", "speaker", "session")
# What merge() handles beside a session's own fields: its speakers, links and URL attachments.
RELATED = ("speakers", "links", "attachments")


@dataclass
class ImportReport:
    dry_run: bool = False
    # The conference's zone, in which changes show times.
    zone: zoneinfo.ZoneInfo = datetime.UTC
    created: Counter = field(default_factory=Counter)
    updated: Counter = field(default_factory=Counter)
    unchanged: Counter = field(default_factory=Counter)
    # Fields edited here since the last import: kept, or overridden by a change in the file.
    kept: Counter = field(default_factory=Counter)
    overridden: Counter = field(default_factory=Counter)
    changes: list[str] = field(default_factory=list)
    # The changes that overrode an edit made here: the command prints them even when not asked.
    overrides: list[str] = field(default_factory=list)

    def record(
        self,
        kind: str,
        outcome: str,
        label: str,
        fields: Sequence[str] = (),
        decisions: Sequence[FieldDecision] = (),
    ) -> None:
        """Count one object; list what changes, by field name or, with ``decisions``, field by field."""
        getattr(self, outcome)[kind] += 1
        if outcome == "created":
            self.changes.append(f"create {kind} “{label}”")
        elif outcome == "updated" and fields:
            self.changes.append(f"update {kind} “{label}”: {', '.join(fields)}")
        for decision in decisions:
            line = decision.describe(kind, label, self.zone)
            self.changes.append(line)
            if not decision.applied:
                self.kept[kind] += 1
            elif decision.overrides_edit:
                self.overridden[kind] += 1
                self.overrides.append(line)

    def summary(self) -> list[str]:
        lines = []
        for kind in KINDS:
            line = (
                f"{kind}s: {self.created[kind]} created, {self.updated[kind]} updated, "
                f"{self.unchanged[kind]} unchanged"
            )
            if self.kept[kind] or self.overridden[kind]:
                line += (
                    f"; fields edited here: {self.kept[kind]} kept, "
                    f"{self.overridden[kind]} overridden by the file"
                )
            lines.append(line)
        return lines


def write_schedule(
    conference: Conference,
    records: ScheduleRecords,
    *,
    dry_run: bool = False,
    adopt_day_change: bool = False,
) -> ImportReport:
    """Write ``records`` into ``conference`` in one transaction, all or nothing.

    Raises ScheduleImportError naming every record that fails; with ``dry_run`` everything is
    checked and reported, then rolled back.
    """
    report = ImportReport(dry_run=dry_run, zone=conference.tz)
    with transaction.atomic():
        # Sessions of the file may swap slots: PostgreSQL checks room bookings once all are written.
        with room_bookings_checked_at_end():
            writer = ScheduleWriter(conference, records, report, adopt_day_change=adopt_day_change)
            problems = writer.write()
            if problems:
                raise ScheduleImportError(problems)  # leaving the block rolls everything back
        if dry_run:
            transaction.set_rollback(True)
    return report


def validation_problems(where: str, error: ValidationError) -> list[str]:
    if not hasattr(error, "error_dict"):
        return [f"{where}: {message}" for message in error.messages]
    return [
        f"{where}: {message}"
        if name == NON_FIELD_ERRORS
        else f"{where}: {FILE_KEYS.get(name, name)}: {message}"
        for name, messages in error.message_dict.items()
        for message in messages
    ]


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
    ):
        self.conference = conference
        self.adopt_day_change = adopt_day_change
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
            current["attachments"] = [
                link_row(item) for item in instance.attachment_list if item.url
            ]
        last_import = self.last_imports.get((kind, instance.pk))
        decisions = decide(
            current,
            from_file,
            last_import.values if last_import else None,
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
            instance.full_clean()
            if outcome != "unchanged":
                # EditConflictError (a ValidationError) if someone saved it since the import read it.
                instance.save()
        except ValidationError as error:
            self.problems.extend(validation_problems(where, error))
            return False
        return True

    def write_conference(self) -> None:
        """The file's day change, colour and logo, where the conference has none of its own.

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
        fields = apply_changes(
            conference, {name: value for name, value in values.items() if value is not None}
        )
        if fields and self.save(conference, "schedule.conference", "updated"):
            names = ", ".join(field_label(Conference, name) for name in fields)
            self.report.changes.append(f"update conference “{conference}”: {names}")

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
            if record.guid:
                values["guid"] = record.guid
            if record.description is not None:
                values["description"] = record.description.strip()
            fields = apply_changes(room, values)
            result = outcome(room, fields)
            if self.save(room, f"Room “{record.name}”", result):
                self.rooms[record.name] = room
                self.report.record("room", result, record.name, fields)

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
            fields = apply_changes(track, values)
            result = outcome(track, fields)
            if self.save(track, f"Track “{record.name}”", result):
                self.tracks[record.name] = track
                self.report.record("track", result, record.name, fields)

    def write_speakers(self) -> None:
        existing = list(self.conference.speakers.all())
        by_guid = guid_index(existing)
        slugs = {speaker.slug for speaker in existing}
        persons: dict[str, PersonRecord] = {}
        for event in self.records.events:
            for person in event.persons:
                persons.setdefault(person.guid, person)
        for person in persons.values():
            speaker = by_guid.get(person.guid) or by_guid.get(export_guid(person.guid))
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
            ):
                if value is not None:
                    from_file[name] = value
            decisions = self.merge("speaker", speaker, from_file)
            result = outcome(speaker, [decision for decision in decisions if decision.applied])
            if self.save(speaker, person.where, result) and self.write_speaker_links(
                speaker, person, is_new=result == "created"
            ):
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
            if not self.save(row, f"{person.where}: links[{position}]", "created"):
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
            "kind": event.kind,
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
        if event.audience_level is not None:
            from_file["audience_level"] = event.audience_level
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
        result = outcome(session, applied)
        session.being_replaced = frozenset(self.being_replaced)
        if not self.save(session, event.where, result):
            return
        self.being_replaced.discard(session.pk)  # in place again: later sessions check against it
        if speakers_changed:
            for position, speaker in enumerate(speakers):
                link = SessionSpeaker(session=session, speaker=speaker, position=position)
                if not self.save(link, event.where, "created"):
                    return
        if not self.write_links(session, event, is_new, applied):
            return
        self.remember("session", session, from_file)
        self.report.record("session", result, event.title, decisions=decisions)

    def write_links(
        self, session: Session, event: EventRecord, is_new: bool, applied: list[str]
    ) -> bool:
        """The file's links and URL attachments, where merge() applied them; False on a problem.

        Attachments uploaded here are the organizers' and stay.
        """
        rows: list[models.Model] = []
        if is_new or "links" in applied:
            session.links.all().delete()
            rows += [
                SessionLink(session=session, url=link.url, title=link.title, kind=link.kind)
                for link in event.links
            ]
        if is_new or "attachments" in applied:
            session.attachments.exclude(url="").delete()  # links, not uploads or announcements
            rows += [
                Attachment(session=session, url=item.url, title=item.title, kind=item.kind)
                for item in event.attachments
            ]
        counters: Counter = Counter()
        for row in rows:
            name = "links" if isinstance(row, SessionLink) else "attachments"
            row.position = counters[name]
            counters[name] += 1
            if not row.title and isinstance(row, Attachment):
                row.title = row.url.rsplit("/", 1)[-1][:200] or "Attachment"
            index = row.position
            if not self.save(row, f"{event.where}: {name}[{index}]", "created"):
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
        return name
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

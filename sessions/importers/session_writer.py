"""A schedule file's sessions into the database (SessionWriting, ScheduleWriter's part for them).

Each session is matched by GUID and merged (merge.py), then saved with its speakers all or
nothing, and its links and URL attachments written. With ``hold_conflicts`` a session that
breaks only a booking rule is held for review (Session.hold()) instead of refusing the file.
"""

from collections import Counter
from collections.abc import Sequence
from typing import Any

from django.core.exceptions import ValidationError
from django.db import models

from sessions.frab import export_guid
from sessions.importers.records import EventRecord
from sessions.importers.rows import (
    HELD_FIELDS,
    VOUCHED_FOR,
    full_clean,
    guid_index,
    in_record,
    is_conflict,
    outcome,
    unique_slug,
    validation_problems,
)
from sessions.models import (
    Attachment,
    Session,
    SessionLink,
    SessionSpeaker,
    attachments_prefetch,
    links_prefetch,
    ordered_speakers_prefetch,
)
from speakers.models import Speaker


class SessionWriting:
    """The sessions of ScheduleWriter (writer.py), which sets up what these methods read: the
    conference, the records, the report, the problems found, the rooms, tracks and speakers
    written, ``being_replaced`` and ``last_imports``; and gives ``merge()``, ``save()`` and
    ``remember()``."""

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
                    # The UUID exports publish for the file's id (a CSV id, a legacy frab guid),
                    # so the API shows the same one; a re-import of that id finds it (above).
                    guid=export_guid(event.guid),
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
        self.report.record("session", result, event.title, decisions=decisions, session=session)

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
        SessionSpeaker.objects.bulk_create(links)  # moves the conference's changed_at itself
        return None, len(speakers)


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

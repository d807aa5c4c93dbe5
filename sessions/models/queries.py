"""How sessions are queried (SessionQuerySet, ``Session.objects``): the schedule's own rules
(what attendees may see, what clashes, status changes). The loaders each page or export uses,
and the prefetches they share, are in loaders.py, mixed into SessionQuerySet."""

import datetime
from collections.abc import Collection
from dataclasses import dataclass, field

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Count, Exists, F, Min, Model, OuterRef, Q

from conference.models import ChangesConferenceQuerySet, Conference, Room
from conference.models.teams import preview_of
from conference.versioning import ChangeTrackedQuerySet
from sessions.models.choices import SCHEDULE_ORDER, Kind, Status
from sessions.models.loaders import SessionLoaders
from speakers.models import Speaker


def announced_session() -> Q:
    """The condition of ``SessionQuerySet.announced()``."""
    return Q(
        status__in=[Status.PUBLISHED, Status.CANCELLED],
        starts_at__isnull=False,  # implied by the constraints; stated for the reader
    )


def public_session() -> Q:
    """The condition of ``SessionQuerySet.public()``, for a query that needs it as a column."""
    return announced_session() & Q(conference__is_published=True)


class SessionQuerySet(ChangesConferenceQuerySet, ChangeTrackedQuerySet, SessionLoaders):
    def get_by_natural_key(self, conference_slug, slug):
        return self.get(conference__slug=conference_slug, slug=slug)

    def public(self):
        """Sessions attendees may see: announced ones of a published conference."""
        return self.filter(public_session())

    def announced(self):
        """Sessions published or cancelled (shown as such), with a time: what attendees see once
        their conference is published, and what its speakers see of their own talks before."""
        return self.filter(announced_session())

    def visible_to(self, user):
        """What ``user`` may read: public sessions, and every placed one (drafts too) of the
        conferences their teams cover (``preview_of``).

        Unscheduled sessions are in no schedule, not even a team's preview: they wait in the
        admin (and the planner) until they have a time.
        """
        preview = preview_of(user)
        if preview.everything:
            return self.placed()
        if preview.conference_ids:
            return self.filter(
                public_session() | Q(conference__in=preview.conference_ids, starts_at__isnull=False)
            )
        return self.public()

    def placed(self):
        """Sessions with a time: every one that can appear in a schedule."""
        return self.filter(starts_at__isnull=False)

    def unscheduled(self):
        """Accepted sessions not placed yet: no time, no room, and a draft until placed."""
        return self.filter(starts_at__isnull=True)

    def scheduled(self):
        """Sessions that take up their room and speakers: every one not cancelled."""
        return self.exclude(status=Status.CANCELLED)

    def counts_by_conference(self) -> dict[int, dict[str, int]]:
        """Per conference id, how many sessions have each status, and how many are unscheduled
        (under ``"unscheduled"``): one query for every conference."""
        rows = (
            self.order_by()
            .values("conference_id", "status")
            .annotate(
                count=Count("pk"),
                unscheduled=Count("pk", filter=Q(starts_at__isnull=True)),
            )
        )
        counts: dict[int, dict[str, int]] = {}
        for row in rows:
            by_status = counts.setdefault(row["conference_id"], {"unscheduled": 0})
            by_status[row["status"]] = row["count"]
            by_status["unscheduled"] += row["unscheduled"]
        return counts

    def overlapping(self, starts_at: datetime.datetime, ends_at: datetime.datetime):
        """Sessions sharing some time with [starts_at, ends_at): back to back is no overlap."""
        return self.filter(starts_at__lt=ends_at, ends_at__gt=starts_at)

    def running_or_next(self, moment: datetime.datetime):
        """What a now-and-next screen shows: the sessions running at ``moment`` and, in each room
        and among those for the whole venue (no room), the first to start after it. Cancelled
        sessions neither run nor come next.

        Two queries, each reading the sessions once: the first start after ``moment`` per room
        (one GROUP BY), then the sessions themselves. A subquery per session instead would look
        through its room's later sessions once for every row.
        """
        active = self.scheduled()
        first_starts = (
            active.filter(starts_at__gt=moment)
            .order_by()
            .values("room")
            .annotate(first_start=Min("starts_at"))
            .values_list("room", "first_start")
        )
        wanted = Q(starts_at__lte=moment, ends_at__gt=moment)
        for room_id, first_start in first_starts:
            wanted |= Q(room=room_id, starts_at=first_start)  # room=None matches no room
        return active.filter(wanted)

    def for_door_sign(self, room: Room):
        """What a room's door sign lists: its own sessions and those for the whole venue."""
        return self.filter(Q(room=room) | Q(room__isnull=True))

    def rest_of_day(self, moment: datetime.datetime, conference: Conference, zone: datetime.tzinfo):
        """Sessions not over at ``moment``, up to the end of its conference day on ``zone``'s
        clocks; when none is running or left that day, those of the next day that has some (a
        door sign read in the evening shows tomorrow's)."""
        ahead = self.filter(ends_at__gt=moment)
        first_start = (
            ahead.scheduled().order_by("starts_at").values_list("starts_at", flat=True).first()
        )
        if first_start is None:
            return ahead.none()  # at most some cancelled ones are left
        day = conference.day_of(max(moment, first_start), zone)
        # The next day change on that zone's clocks, whatever the clocks did that day.
        day_end = datetime.datetime.combine(
            day + datetime.timedelta(days=1), conference.day_change, tzinfo=zone
        )
        return ahead.filter(starts_at__lt=day_end)

    def clashing_in_room(self, room: Room, starts_at, ends_at, ignoring: Collection[int] = ()):
        """Sessions that would double-book ``room`` between these instants, but those ``ignoring``."""
        return (
            self.scheduled()
            .filter(room=room)
            .exclude(pk__in=ignoring)
            .overlapping(starts_at, ends_at)
            .order_by("starts_at")
        )

    def clashing_for_speaker(
        self, speaker: Speaker, starts_at, ends_at, ignoring: Collection[int] = ()
    ):
        """Sessions that ``speaker`` already gives between these instants, but those ``ignoring``."""
        return self.clashing_for_speakers([speaker], starts_at, ends_at, ignoring)

    def clashing_for_speakers(
        self, speakers: Collection[Speaker], starts_at, ends_at, ignoring: Collection[int] = ()
    ):
        """Sessions that any of ``speakers`` already gives between these instants, but those
        ``ignoring``; each names the clashing speaker's pk as ``clashing_speaker_id``.

        An organisation or host marked as appearing in parallel sessions never clashes.
        """
        busy = [speaker.pk for speaker in speakers if not speaker.appears_in_parallel]
        return (
            self.scheduled()
            .filter(session_speakers__speaker__in=busy)
            .exclude(pk__in=ignoring)
            .overlapping(starts_at, ends_at)
            .annotate(clashing_speaker_id=F("session_speakers__speaker"))
            .order_by("starts_at")
        )

    def in_schedule_order(self):
        """Sessions in SCHEDULE_ORDER; the pk settles ties, so pages of a list never overlap."""
        return self.order_by(*SCHEDULE_ORDER, "pk")

    def on_day(self, conference: Conference, day: datetime.date):
        """Sessions starting on ``day`` as the conference's clocks count days."""
        start, end = conference.day_bounds(day)
        return self.filter(starts_at__gte=start, starts_at__lt=end)

    def start_days(self, conference: Conference) -> list[datetime.date]:
        """The conference days (``Conference.day_bounds``, so past midnight counts as the evening
        before when days change later) on which any of these starts: one query, a count per day."""
        counts = self.aggregate(
            **{
                day.isoformat(): Count("pk", filter=Q(starts_at__gte=start, starts_at__lt=end))
                for day in conference.days
                for start, end in [conference.day_bounds(day)]
            }
        )
        return [day for day in conference.days if counts[day.isoformat()]]

    def busiest_moment(self) -> datetime.datetime | None:
        """The moment the most of these run at once, the first such if several: halfway
        between the last of them to start and the first to end (a preview time worth seeing,
        conference/views/preview_time.py). None when none has its times. One query."""
        times = list(self.filter(starts_at__isnull=False).values_list("starts_at", "ends_at"))
        # At a moment where one ends and another starts, the first has ended (times are [start,
        # end)): ends sort before starts.
        events = sorted([(start, 1) for start, _ in times] + [(end, 0) for _, end in times])
        running, most, busiest = 0, 0, None
        for moment, starts in events:
            running += 1 if starts else -1
            if running > most:
                most, busiest = running, moment
        if busiest is None:
            return None
        first_end = min(end for start, end in times if start <= busiest < end)
        return busiest + (first_end - busiest) / 2

    def search(self, text: str):
        """Sessions whose title, description, type, track, or a speaker's name, role or company
        contains ``text``. The type is matched by the name pages show ("Lightning Talk")."""
        by_speaker = self.model.speakers.through.objects.filter(session=OuterRef("pk")).filter(
            Q(speaker__name__icontains=text)
            | Q(speaker__role__icontains=text)
            | Q(speaker__company__icontains=text)
        )
        kinds = [kind for kind, label in Kind.choices if text.casefold() in label.casefold()]
        return self.filter(
            Q(title__icontains=text)
            | Q(abstract__icontains=text)
            | Q(description__icontains=text)
            | Q(kind__in=kinds)
            | Q(track__name__icontains=text)
            | Exists(by_speaker)
        )

    def with_speaker(self, speaker: Speaker):
        return self.filter(
            Exists(
                self.model.speakers.through.objects.filter(session=OuterRef("pk"), speaker=speaker)
            )
        )

    # Status transitions: one method each, every status change of sessions in bulk goes through
    # change_status(). The change form and the API set a status with the session's other fields,
    # through the same full_clean().

    def publish(self) -> "StatusChange":
        """Drafts become published. Cancelled sessions stay cancelled: that is reinstate()."""
        return self.change_status({Status.DRAFT}, Status.PUBLISHED)

    def unpublish(self) -> "StatusChange":
        """Published sessions go back to draft; cancelled ones stay cancelled."""
        return self.change_status({Status.PUBLISHED}, Status.DRAFT)

    def cancel(self) -> "StatusChange":
        """Drafts and published sessions are cancelled and give up their room and speakers."""
        return self.change_status({Status.DRAFT, Status.PUBLISHED}, Status.CANCELLED)

    def reinstate(self) -> "StatusChange":
        """Cancelled sessions are published again, each only if its room and speakers are free."""
        return self.change_status({Status.CANCELLED}, Status.PUBLISHED)

    def change_status(self, acts_on: Collection[str], status: str) -> "StatusChange":
        """Move the sessions whose status is in ``acts_on`` to ``status``; leave the others alone.

        A session moved out of cancelled takes its room and speakers again and may now clash, so
        each is validated and saved in turn rather than by one UPDATE: one that would break a
        rule is refused with the reason, the rest move. Two that clash with each other: the
        first in schedule order moves, the second is refused.
        """
        change = StatusChange()
        sessions = self.select_related("conference", "room", "track").order_by(
            *SCHEDULE_ORDER, "pk"
        )
        with transaction.atomic():
            for session in sessions:
                if session.status not in acts_on:
                    change.left_alone.append(session)
                    continue
                before, session.status = session.status, status
                try:
                    session.full_clean()
                except ValidationError as error:
                    session.status = before
                    change.refused.append((session, " ".join(error.messages)))
                    continue
                session.save(update_fields=["status", "updated_at"])
                change.changed.append(session)
        return change


@dataclass
class StatusChange:
    """What a status transition (SessionQuerySet.publish() and the like) did to its sessions
    (Session objects; typed as models, since session.py imports this module)."""

    changed: list[Model] = field(default_factory=list)
    # In a status the transition does not act on, e.g. cancelled ones asked to publish.
    left_alone: list[Model] = field(default_factory=list)
    # Would break a rule in the new status, with the reason (a room or speaker taken meanwhile).
    refused: list[tuple[Model, str]] = field(default_factory=list)

"""How sessions are queried (SessionQuerySet, ``Session.objects``): the schedule's own rules
(what attendees may see, what clashes, status changes) and the loaders each page or export
uses, with the prefetches they share."""

import datetime
from collections.abc import Collection
from dataclasses import dataclass, field

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import (
    Case,
    Count,
    Exists,
    F,
    Min,
    Model,
    OuterRef,
    Prefetch,
    Q,
    Subquery,
    TextField,
    Value,
    When,
    Window,
    prefetch_related_objects,
)

from conference.models import ChangesConferenceQuerySet, Conference, Room, Track
from conference.models.teams import preview_of
from conference.versioning import ChangeTrackedQuerySet
from sessions.models.choices import Kind, Status
from sessions.models.material import Attachment, SessionLink
from speakers.models import Speaker

# How every schedule lists sessions: by start, parallel sessions in room order, then by title.
SCHEDULE_ORDER = ("starts_at", "room__position", "title")


def announced_session() -> Q:
    """The condition of ``SessionQuerySet.announced()``."""
    return Q(
        status__in=[Status.PUBLISHED, Status.CANCELLED],
        starts_at__isnull=False,  # implied by the constraints; stated for the reader
    )


def public_session() -> Q:
    """The condition of ``SessionQuerySet.public()``, for a query that needs it as a column."""
    return announced_session() & Q(conference__is_published=True)


class SessionQuerySet(ChangesConferenceQuerySet, ChangeTrackedQuerySet):
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

    def for_listing(self):
        """Everything a schedule row shows, in a fixed number of queries.

        The conference, rooms and tracks are prefetched, not joined: the sessions share one object
        each instead of a copy built for every row, a cost that grows with the sessions. Reached
        through ``conference.sessions``, rows already hold that conference and no query is made.
        For one session or a handful, ``select_related("room", "track")`` first saves two
        queries: Django does not prefetch what a join has already loaded.
        """
        return self.prefetch_related(
            "conference",
            "room",
            "track",
            ordered_speakers_prefetch(),
            attachments_prefetch(),
            links_prefetch(),
        )

    def page_and_parallels(self, slug: str) -> "SessionPage":
        """A session's own page (sessions/session_detail.html): the session with the session slug
        ``slug`` among these, and those of these sharing some of its time (its “At the same
        time”), in schedule order; ``DoesNotExist`` if none has that slug.

        Three queries at most, whatever the session and the conference: one row per session for
        the session and its parallel ones together (the session's times found by a subquery),
        its speakers, and its links and attachments, read together and only when the row says
        there are some (most sessions have none). Every query saved is a round trip on
        PostgreSQL. The parallel rows leave their long texts, which only the session's own row
        reads, in the database: a festival runs dozens of sessions at once, so only the first
        ``PARALLELS_SHOWN`` are read, and their number (``parallels_total``) says how many more
        the schedule lists. The page's cost does not grow with the conference.
        """
        times = self.filter(slug=slug)
        rows = list(
            self.filter(
                Q(slug=slug)
                | Q(
                    starts_at__lt=Subquery(times.values("ends_at")[:1]),
                    ends_at__gt=Subquery(times.values("starts_at")[:1]),
                )
            )
            .defer(*PAGE_TEXTS)
            .annotate(
                **{
                    f"page_{name}": Case(
                        When(slug=slug, then=F(name)), default=Value(""), output_field=TextField()
                    )
                    for name in PAGE_TEXTS
                },
                any_links=Exists(SessionLink.objects.filter(session=OuterRef("pk"))),
                any_attachments=Exists(Attachment.objects.filter(session=OuterRef("pk"))),
                is_page=Case(When(slug=slug, then=Value(1)), default=Value(0)),
                overlapping=Window(Count("pk")),  # all of them, before the slice
            )
            # For a few rows a join costs less than a query.
            .select_related("room", "track")
            .order_by("-is_page", *SCHEDULE_ORDER, "pk")[: 1 + PARALLELS_SHOWN]
        )
        session = next((row for row in rows if row.slug == slug), None)
        if session is None:
            raise self.model.DoesNotExist(f"No session with the slug {slug!r} here.")
        for name in PAGE_TEXTS:
            setattr(session, name, getattr(session, f"page_{name}"))
        # Its speakers' conference joined: their links need its slug.
        speakers = Speaker.objects.select_related("conference")
        prefetch_related_objects([session], ordered_speakers_prefetch(speakers=speakers))
        read_material(session)
        return SessionPage(
            session, [row for row in rows if row is not session], session.overlapping - 1
        )

    def for_export(self):
        """What the exports write of a session (sessions/exports/): ``for_listing()`` less the
        columns none of them shows.

        Columns no export writes stay in the database: SQLite hands datetimes over as text,
        parsed one by one, and every column loaded is an attribute per row. Only the calendar's
        LAST-MODIFIED shows a change time, and no export shows the speakers' timestamps,
        e-mails or flags.
        """
        export_speakers = Speaker.objects.only(
            "conference_id",
            "guid",
            "name",
            "slug",
            "role",
            "company",
            "bio",
            "photo",
            "avatar_url",
            "appears_in_parallel",
        )
        return self.defer(
            "created_at", "updated_at", "sequence", "held_reason", "planned_minutes"
        ).prefetch_related(
            "conference",
            "room",
            "track",
            ordered_speakers_prefetch(speakers=export_speakers),
            attachments_prefetch(),
            links_prefetch(),
        )

    def for_ical(self):
        """What a calendar's VEVENT shows (exports.calendar_event): ``for_export()`` without
        links, attachments and the speakers' bios, photos and conference.

        Calendars fetch this export most often: it loads no row it does not write (two queries
        and their model objects fewer than ``for_export()``).
        """
        calendar_speakers = Speaker.objects.only("conference_id", "name", "role", "company")
        return self.defer(
            "created_at", "held_reason", "source_url", "planned_minutes"
        ).prefetch_related(
            "conference",
            "room",
            "track",
            Prefetch(
                "speakers",
                queryset=calendar_speakers.order_by("session_links__position", "session_links__pk"),
                to_attr="prefetched_speakers",
            ),
        )

    def for_cards(self, speakers=None, places=True):
        """``for_listing()`` narrowed to what a session card shows (sessions/includes/session_card.html).

        A schedule loads a card per session, so descriptions, speakers' bios and timestamps,
        which no card shows, stay in the database. Anything other than a card reads its own
        loader or ``for_listing()``: a field left out costs a query per session. ``speakers``:
        the speakers' rows when the page shows more of them than the cards do (a speaker's page).
        ``places=False``: rooms, tracks and the speakers' conference not read, for a page that
        has read them already and gives each row its own (``put_in_places()``).
        """
        # Their versions name the cards kept in the cache (sessions/views/cards.py).
        card_speakers = Speaker.objects.only("conference_id", "name", "slug", "company", "version")
        if speakers is not None:
            card_speakers = speakers
        return (
            self.defer("guid", "abstract", "description", "created_at", "updated_at")
            # A card only says whether slides are attached: no attachment rows, one query less.
            .annotate(
                attachments_exist=Exists(
                    Attachment.objects.available().filter(session=OuterRef("pk"))
                )
            )
            .prefetch_related(
                "conference",
                *(("room", "track") if places else ()),
                ordered_speakers_prefetch(speakers=card_speakers, with_conference=places),
            )
        )

    def speaker_page(self, slug: str) -> Speaker:
        """The speaker with the speaker slug ``slug`` as their page shows them
        (speakers/speaker_detail.html): with ``visible_sessions``, theirs among these as cards in
        schedule order, and their links; ``Speaker.DoesNotExist`` if none of these is theirs.

        Three queries: the sessions, joined with their rooms and tracks; the speakers of those
        sessions, whole, with their conference joined (their links need its slug), the page's
        speaker among them; and that speaker's links. Reached through ``conference.sessions``,
        the sessions already hold their conference.
        """
        speakers = Speaker.objects.select_related("conference")
        sessions = list(
            self.filter(session_speakers__speaker__slug=slug)
            .select_related("room", "track")
            .for_cards(speakers=speakers)
            .in_schedule_order()
        )
        speaker = (
            next((person for person in sessions[0].ordered_speakers if person.slug == slug), None)
            if sessions
            else None
        )
        if speaker is None:
            raise Speaker.DoesNotExist(f"No speaker of these sessions has the slug {slug!r}.")
        prefetch_related_objects([speaker], "links")
        speaker.visible_sessions = sessions
        return speaker

    def for_links(self):
        """Only what a link to a session shows: its address and ``display_title``.

        The speakers page links every session of the conference: no other column is loaded,
        and so no datetime parsed.
        """
        return self.only("conference_id", "slug", "title", "kind")

    def for_planner(self):
        """What a block of the planner shows (admin/schedule/session/planner_block.html).

        Title, kind, status, times, room, track and the speakers' names: no descriptions, bios
        or timestamps, and a fixed number of queries for any number of sessions.
        """
        planner_speakers = Speaker.objects.only("conference_id", "name")
        return self.defer(
            "guid", "abstract", "description", "created_at", "updated_at"
        ).prefetch_related(
            "conference", "room", "track", ordered_speakers_prefetch(speakers=planner_speakers)
        )


def put_in_places(
    sessions: list[Model], conference: Conference, rooms: list[Room], tracks: list[Track]
) -> list[Model]:
    """``sessions`` (read with ``for_cards(places=False)``), each given its room and track from
    ``rooms`` and ``tracks``, the conference's, read once for the whole page: its filters list
    them too; and each speaker ``conference`` (their links need its slug). One object per room
    shared by every row, as a prefetch would make, and no query.

    Not by filtering the speakers' query on their conference, which would give them the one
    already read: beside the sessions' thousand ids, SQLite then walks every speaker of the
    conference for each id (150 ms for a 1,000-session schedule, against 3 ms)."""
    rooms_by_id = {room.pk: room for room in rooms}
    tracks_by_id = {track.pk: track for track in tracks}
    for session in sessions:
        session.room = None if session.room_id is None else rooms_by_id[session.room_id]
        session.track = None if session.track_id is None else tracks_by_id[session.track_id]
        for speaker in session.prefetched_speakers:
            speaker.conference = conference
    return sessions


# What only a session's own page shows of it, and it alone of the rows that page reads.
PAGE_TEXTS = ("abstract", "description")
# A session page lists this many of the sessions at the same time; the schedule lists them all.
PARALLELS_SHOWN = 8


@dataclass
class SessionPage:
    """What a session's page shows (``SessionQuerySet.page_and_parallels()``)."""

    session: Model
    # The first others sharing some of its time, in schedule order: a line each (title, times,
    # room); ``parallels_total`` counts them all.
    parallels: list[Model]
    parallels_total: int


def read_material(session) -> None:
    """Fill ``session.link_list`` and ``session.attachment_list`` from one query: the rows of
    both tables read as one list (a UNION of the columns they share), when the session's row says
    it has both (``any_links``, ``any_attachments``); from the one table or none otherwise."""
    has_links = getattr(session, "any_links", True)
    has_attachments = getattr(session, "any_attachments", True)
    session.prefetched_links, session.prefetched_attachments = [], []
    if not (has_links or has_attachments):
        return
    shared = ("id", "title", "url", "kind", "position")
    links = SessionLink.objects.filter(session=session).annotate(
        attachment=Value(False), stored=Value("")
    )
    attachments = Attachment.objects.filter(session=session).annotate(
        attachment=Value(True), stored=F("file")
    )
    parts = [
        part.values_list(*shared, "attachment", "stored").order_by()
        for part, present in ((links, has_links), (attachments, has_attachments))
        if present
    ]
    rows = parts[0].union(*parts[1:], all=True) if len(parts) > 1 else parts[0]
    for pk, title, url, kind, position, attachment, stored in rows.order_by("position", "id"):
        fields = {"id": pk, "session": session, "title": title, "url": url, "kind": kind}
        if attachment:
            session.prefetched_attachments.append(
                Attachment(**fields, position=position, file=stored)
            )
        else:
            session.prefetched_links.append(SessionLink(**fields, position=position))


@dataclass
class StatusChange:
    """What a status transition (SessionQuerySet.publish() and the like) did to its sessions
    (Session objects; typed as models, since session.py imports this module)."""

    changed: list[Model] = field(default_factory=list)
    # In a status the transition does not act on, e.g. cancelled ones asked to publish.
    left_alone: list[Model] = field(default_factory=list)
    # Would break a rule in the new status, with the reason (a room or speaker taken meanwhile).
    refused: list[tuple[Model, str]] = field(default_factory=list)


def ordered_speakers_prefetch(through: str = "", speakers=None, with_conference=True) -> Prefetch:
    """The session's speakers in billing order, with one query for any number of sessions.

    ``through`` reaches sessions from another model, e.g. "session__" from SavedSession;
    ``speakers`` narrows the speaker queryset, e.g. to the fields a card shows;
    ``with_conference=False``: their conference not read (the caller gives it them).
    """
    speakers = Speaker.objects.all() if speakers is None else speakers
    if with_conference:
        # Their conference too (one query, one shared object): their links need its slug.
        speakers = speakers.prefetch_related("conference")
    return Prefetch(
        # Through the many-to-many, not the SessionSpeaker rows: one object per appearance
        # instead of a link plus its speaker. The ordering reuses the prefetch's own join.
        f"{through}speakers",
        queryset=speakers.order_by("session_links__position", "session_links__pk"),
        # A plain list, not a prefetched manager: Django builds a filtered queryset per object
        # for the latter, a cost a schedule would pay once per session.
        to_attr="prefetched_speakers",
    )


def attachments_prefetch(through: str = "") -> Prefetch:
    return Prefetch(
        f"{through}attachments",
        queryset=Attachment.objects.order_by("position", "pk"),
        to_attr="prefetched_attachments",
    )


def links_prefetch(through: str = "") -> Prefetch:
    return Prefetch(
        f"{through}links",
        queryset=SessionLink.objects.order_by("position", "pk"),
        to_attr="prefetched_links",
    )

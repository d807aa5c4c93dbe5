"""The loaders each page or export reads sessions with (``Session.objects.for_cards()`` and the
like): what each reads, and what it leaves in the database, so that a page's queries stay few and
its cost does not grow with the conference; and the prefetches they share.

The loaders are a mixin of SessionQuerySet (queries.py), whose schedule rules they build on
(``in_schedule_order()``): that module imports this one.
"""

from dataclasses import dataclass

from django.db.models import (
    Case,
    Count,
    Exists,
    F,
    Model,
    OuterRef,
    Prefetch,
    Q,
    QuerySet,
    Subquery,
    TextField,
    Value,
    When,
    Window,
    prefetch_related_objects,
)

from conference.models import Conference, Room, Track
from sessions.models.choices import SCHEDULE_ORDER
from sessions.models.material import Attachment, SessionLink
from speakers.models import Speaker


class SessionLoaders(QuerySet):
    """What each page or export loads of sessions, one method each; SessionQuerySet has them."""

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
PARALLELS_SHOWN = 6


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

"""A session, its speakers in order, and how sessions are queried (SessionQuerySet): the
schedule's own rules, which every writer goes through."""

import datetime
import uuid
from collections.abc import Collection
from dataclasses import dataclass, field

from django.core.exceptions import ValidationError
from django.core.validators import MinValueValidator
from django.db import models, transaction
from django.db.models import Count, Exists, F, Min, OuterRef, Prefetch, Q
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.translation import get_language_info, gettext, gettext_lazy, pgettext_lazy

from conference.models import Conference, FormerSlug, KeepsFormerSlugs, Room, Track
from conference.routing import reverse_slugs
from conference.timezones import TimeRange, local_clock, time_range
from conference.versioning import ChangeTrackedQuerySet, Versioned
from sessions.models.bookings import lock_while_saving
from sessions.models.material import Attachment, SessionLink
from speakers.models import Speaker

# How every schedule lists sessions: by start, parallel sessions in room order, then by title.
SCHEDULE_ORDER = ("starts_at", "room__position", "title")


def local_time_range(
    conference: Conference, starts_at: datetime.datetime, ends_at: datetime.datetime
) -> str:
    """“Wednesday 8 April 2026 10:35–10:45 CEST”: how an organizer or attendee reads a slot."""
    day = date_format(timezone.localtime(starts_at, conference.tz), "l j F Y")
    return f"{day} {time_range(starts_at, ends_at, conference.tz)}"


def public_session() -> Q:
    """The condition of ``SessionQuerySet.public()``, for a query that needs it as a column."""
    return Q(
        status__in=[Session.Status.PUBLISHED, Session.Status.CANCELLED],
        conference__is_published=True,
        starts_at__isnull=False,  # implied by the constraints; stated for the reader
    )


class SessionQuerySet(ChangeTrackedQuerySet):
    def get_by_natural_key(self, conference_slug, slug):
        return self.get(conference__slug=conference_slug, slug=slug)

    def public(self):
        """Sessions attendees may see: published or cancelled (shown as such), of a published conference."""
        return self.filter(public_session())

    def visible_to(self, user):
        """What ``user`` may read: staff preview drafts, everyone else sees public sessions.

        Unscheduled sessions are in no schedule, not even staff's preview: they wait in the
        admin (and the planner) until they have a time.
        """
        return self.placed() if user.is_staff else self.public()

    def placed(self):
        """Sessions with a time: every one that can appear in a schedule."""
        return self.filter(starts_at__isnull=False)

    def unscheduled(self):
        """Accepted sessions not placed yet: no time, no room, and a draft until placed."""
        return self.filter(starts_at__isnull=True)

    def scheduled(self):
        """Sessions that take up their room and speakers: every one not cancelled."""
        return self.exclude(status=Session.Status.CANCELLED)

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

    def search(self, text: str):
        """Sessions whose title, description, type, track, or a speaker's name, role or company
        contains ``text``. The type is matched by the name pages show ("Lightning Talk")."""
        by_speaker = SessionSpeaker.objects.filter(session=OuterRef("pk")).filter(
            Q(speaker__name__icontains=text)
            | Q(speaker__role__icontains=text)
            | Q(speaker__company__icontains=text)
        )
        kinds = [
            kind for kind, label in Session.Kind.choices if text.casefold() in label.casefold()
        ]
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
            Exists(SessionSpeaker.objects.filter(session=OuterRef("pk"), speaker=speaker))
        )

    # Status transitions: one method each, every status change of sessions in bulk goes through
    # change_status(). The change form and the API set a status with the session's other fields,
    # through the same full_clean().

    def publish(self) -> "StatusChange":
        """Drafts become published. Cancelled sessions stay cancelled: that is reinstate()."""
        return self.change_status({Session.Status.DRAFT}, Session.Status.PUBLISHED)

    def unpublish(self) -> "StatusChange":
        """Published sessions go back to draft; cancelled ones stay cancelled."""
        return self.change_status({Session.Status.PUBLISHED}, Session.Status.DRAFT)

    def cancel(self) -> "StatusChange":
        """Drafts and published sessions are cancelled and give up their room and speakers."""
        return self.change_status(
            {Session.Status.DRAFT, Session.Status.PUBLISHED}, Session.Status.CANCELLED
        )

    def reinstate(self) -> "StatusChange":
        """Cancelled sessions are published again, each only if its room and speakers are free."""
        return self.change_status({Session.Status.CANCELLED}, Session.Status.PUBLISHED)

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

    def for_page(self):
        """Everything a session's own page shows (sessions/session_detail.html), for one session.

        For one row a join costs less than a query, so its room, track and its speakers'
        conference (their links need its slug) are joined; and its links and attachments are
        only looked for when the row says there are some (most sessions have none): each query
        saved is a round trip on PostgreSQL.
        """
        return (
            self.select_related("room", "track")
            .annotate(
                any_links=Exists(SessionLink.objects.filter(session=OuterRef("pk"))),
                any_attachments=Exists(Attachment.objects.filter(session=OuterRef("pk"))),
            )
            .prefetch_related(
                ordered_speakers_prefetch(speakers=Speaker.objects.select_related("conference"))
            )
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

    def for_cards(self):
        """``for_listing()`` narrowed to what a session card shows (sessions/includes/session_card.html).

        A schedule loads a card per session, so descriptions, speakers' bios and timestamps,
        which no card shows, stay in the database. Anything other than a card reads its own
        loader or ``for_listing()``: a field left out costs a query per session.
        """
        card_speakers = Speaker.objects.only("conference_id", "name", "slug", "company")
        return (
            self.defer("guid", "abstract", "description", "created_at", "updated_at")
            # A card only says whether slides are attached: no attachment rows, one query less.
            .annotate(
                attachments_exist=Exists(
                    Attachment.objects.available().filter(session=OuterRef("pk"))
                )
            )
            .prefetch_related(
                "conference", "room", "track", ordered_speakers_prefetch(speakers=card_speakers)
            )
        )

    def for_links(self):
        """Only what a link to a session shows: its address and ``display_title``.

        The speakers page links every session of the conference: no other column is loaded,
        and so no datetime parsed.
        """
        return self.only("conference_id", "slug", "title", "kind")

    def for_compact_list(self):
        """What a one-line mention of a session shows (a session page's “At the same time”):
        its link and title, times, status and room.

        A session page lists every session that overlaps it this way (dozens at a large
        conference): a full card (every column, speakers, a Save button) would cost each of
        them as much as the page's own session.
        """
        return self.only(
            "conference_id",
            "slug",
            "title",
            "kind",
            "status",
            "starts_at",
            "ends_at",
            "room",
            "room__name",
        ).select_related("room")

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


@dataclass
class StatusChange:
    """What a status transition (SessionQuerySet.publish() and the like) did to its sessions."""

    changed: list["Session"] = field(default_factory=list)
    # In a status the transition does not act on, e.g. cancelled ones asked to publish.
    left_alone: list["Session"] = field(default_factory=list)
    # Would break a rule in the new status, with the reason (a room or speaker taken meanwhile).
    refused: list[tuple["Session", str]] = field(default_factory=list)


def ordered_speakers_prefetch(through: str = "", speakers=None) -> Prefetch:
    """The session's speakers in billing order, with one query for any number of sessions.

    ``through`` reaches sessions from another model, e.g. "session__" from SavedSession;
    ``speakers`` narrows the speaker queryset, e.g. to the fields a card shows.
    """
    speakers = Speaker.objects.all() if speakers is None else speakers
    return Prefetch(
        # Through the many-to-many, not the SessionSpeaker rows: one object per appearance
        # instead of a link plus its speaker. The ordering reuses the prefetch's own join.
        f"{through}speakers",
        # Their conference too (one query, one shared object): their links need its slug.
        queryset=speakers.prefetch_related("conference").order_by(
            "session_links__position", "session_links__pk"
        ),
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


def new_guid() -> str:
    return str(uuid.uuid4())


class Session(KeepsFormerSlugs, Versioned):
    class Kind(models.TextChoices):
        KEYNOTE = "keynote", "Keynote"
        TALK = "talk", "Talk"
        LIGHTNING_TALK = "lightning-talk", "Lightning Talk"
        PANEL = "panel", "Panel"
        WORKSHOP = "workshop", "Workshop"
        BREAK = "break", "Break"

    class AudienceLevel(models.TextChoices):
        ANY = "any", "Any"
        BEGINNER = "beginner", "Beginner"
        INTERMEDIATE = "intermediate", "Intermediate"
        ADVANCED = "advanced", "Advanced"

    class Status(models.TextChoices):
        DRAFT = "draft", gettext_lazy("Draft")
        PUBLISHED = "published", gettext_lazy("Published")
        CANCELLED = "cancelled", gettext_lazy("Cancelled")

    conference = models.ForeignKey(
        Conference,
        on_delete=models.CASCADE,
        related_name="sessions",
        verbose_name=gettext_lazy("conference"),
    )
    # Exports publish it and importers match on it, so it never changes. Imported schedules may
    # carry legacy non-UUID guids, hence a string.
    guid = models.CharField(gettext_lazy("GUID"), max_length=64, default=new_guid, editable=False)
    title = models.CharField(max_length=300, verbose_name=gettext_lazy("title"))
    slug = models.SlugField(max_length=300, verbose_name=gettext_lazy("slug"))
    kind = models.CharField(
        max_length=20, choices=Kind.choices, default=Kind.TALK, verbose_name=gettext_lazy("kind")
    )
    # RESTRICT, not CASCADE: deleting a room or track alone never takes its sessions with it,
    # while deleting a whole conference still removes everything in it.
    track = models.ForeignKey(
        Track,
        on_delete=models.RESTRICT,
        null=True,
        blank=True,
        related_name="sessions",
        verbose_name=gettext_lazy("track"),
    )
    room = models.ForeignKey(
        Room,
        on_delete=models.RESTRICT,
        null=True,
        blank=True,
        related_name="sessions",
        help_text=gettext_lazy("A break without a room is for the whole venue."),
        verbose_name=gettext_lazy("room"),
    )
    # Both empty: an unscheduled session (accepted, not placed yet; see Meta.constraints).
    starts_at = models.DateTimeField(gettext_lazy("starts"), null=True, blank=True)
    ends_at = models.DateTimeField(gettext_lazy("ends"), null=True, blank=True)
    # The planner places an unscheduled session for this long; taking a session off the
    # schedule keeps its duration here (see planned_length, unschedule()).
    planned_minutes = models.PositiveIntegerField(
        gettext_lazy("planned length (minutes)"),
        null=True,
        blank=True,
        validators=[MinValueValidator(1)],
        help_text=gettext_lazy(
            "How long it takes once placed, while it has no time. Empty: the usual length "
            "of its type (talk 30, lightning talk 10, keynote and panel 45, workshop 90, break 30)."
        ),
    )
    subtitle = models.CharField(max_length=300, blank=True, verbose_name=gettext_lazy("subtitle"))
    # A schedule's own words for its kind (“Ceremony”, “Live-Podcast Bühne”), shown and exported
    # instead of the kind's label; the kind still drives lengths, prefixes and filters.
    type_label = models.CharField(
        gettext_lazy("type label"),
        max_length=100,
        blank=True,
        help_text=gettext_lazy(
            "Shown instead of the type's name, e.g. “Ceremony”; empty: the type's name."
        ),
    )
    language = models.CharField(
        max_length=20,
        blank=True,
        help_text=gettext_lazy("Language code of the talk, e.g. en or de."),
        verbose_name=gettext_lazy("language"),
    )
    abstract = models.TextField(
        blank=True,
        help_text=gettext_lazy("A short summary. Markdown."),
        verbose_name=gettext_lazy("abstract"),
    )
    description = models.TextField(
        blank=True, help_text=gettext_lazy("Markdown."), verbose_name=gettext_lazy("description")
    )
    # A speaker's wish not to be recorded or streamed: every import, export and the API carry it.
    do_not_record = models.BooleanField(
        gettext_lazy("do not record"),
        default=False,
        help_text=gettext_lazy("The speakers asked not to be recorded."),
    )
    recording_license = models.CharField(
        gettext_lazy("recording licence"), max_length=200, blank=True
    )
    feedback_url = models.URLField(gettext_lazy("feedback URL"), blank=True, max_length=500)
    logo_url = models.URLField(gettext_lazy("logo URL"), blank=True, max_length=500)
    # Where the schedule it was imported from had it: its page there (the file's url), the
    # page it came from before that (origin_url), its submission code.
    source_url = models.URLField(gettext_lazy("source URL"), blank=True, max_length=500)
    origin_url = models.URLField(gettext_lazy("origin URL"), blank=True, max_length=500)
    code = models.CharField(
        max_length=16,
        blank=True,
        help_text=gettext_lazy("Submission code, e.g. pretalx's."),
        verbose_name=gettext_lazy("code"),
    )
    audience_level = models.CharField(
        max_length=20,
        choices=AudienceLevel.choices,
        default=AudienceLevel.ANY,
        verbose_name=gettext_lazy("audience level"),
    )
    status = models.CharField(
        max_length=20,
        choices=Status.choices,
        default=Status.DRAFT,
        verbose_name=gettext_lazy("status"),
    )
    # Set when an import held the session back instead of refusing the file (Session.hold());
    # cleared once it has a time again.
    held_reason = models.TextField(
        gettext_lazy("held for review"),
        blank=True,
        help_text=gettext_lazy(
            "Why an import left this session unscheduled: place it in the planner once "
            "the conflict is resolved."
        ),
    )
    speakers = models.ManyToManyField(
        Speaker,
        through="SessionSpeaker",
        related_name="sessions",
        blank=True,
        verbose_name=gettext_lazy("speakers"),
    )
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=gettext_lazy("created at"))
    updated_at = models.DateTimeField(auto_now=True, verbose_name=gettext_lazy("updated at"))
    # iCalendar's SEQUENCE: calendar apps take a changed event only when it rises. Every save of
    # an existing session raises it; the admin, its actions, the API and the importer all save().
    sequence = models.PositiveIntegerField(
        default=0, editable=False, verbose_name=gettext_lazy("sequence")
    )

    objects = SessionQuerySet.as_manager()

    # Pks of sessions an import is rewriting in this transaction: clash checks skip their old slots.
    being_replaced: frozenset[int] = frozenset()

    class Meta:
        verbose_name = gettext_lazy("session")
        verbose_name_plural = gettext_lazy("sessions")
        ordering = list(SCHEDULE_ORDER)
        constraints = [
            models.CheckConstraint(
                condition=Q(ends_at__gt=F("starts_at")),
                name="session_ends_after_it_starts",
                violation_error_message=gettext_lazy("A session must end after it starts."),
            ),
            models.CheckConstraint(
                condition=Q(starts_at__isnull=True, ends_at__isnull=True)
                | Q(starts_at__isnull=False, ends_at__isnull=False),
                name="session_has_both_times_or_neither",
                violation_error_message=gettext_lazy(
                    "Give a session both a start and an end, or neither (to leave it unscheduled)."
                ),
            ),
            # An unscheduled session is in no schedule: no room, and never published or
            # cancelled (cancelled sessions are shown, marked as such).
            models.CheckConstraint(
                condition=Q(starts_at__isnull=False) | Q(room__isnull=True, status="draft"),
                name="unscheduled_session_is_a_draft_without_room",
                violation_error_message=gettext_lazy(
                    "A session needs a time before it can have a room or be published."
                ),
            ),
            models.CheckConstraint(
                condition=Q(planned_minutes__isnull=True) | Q(planned_minutes__gt=0),
                name="session_planned_length_is_positive",
                violation_error_message=gettext_lazy("A planned length is at least one minute."),
            ),
            models.UniqueConstraint(
                fields=["conference", "slug"],
                name="session_slug_unique_per_conference",
                violation_error_message=gettext_lazy(
                    "This conference already has a session with this slug."
                ),
            ),
            models.UniqueConstraint(
                fields=["conference", "guid"],
                name="session_guid_unique_per_conference",
                violation_error_message=gettext_lazy(
                    "This conference already has a session with this GUID."
                ),
            ),
        ]
        indexes = [models.Index(fields=["conference", "starts_at"])]

    def __str__(self):
        return self.title

    def save(self, *args, **kwargs):
        if not self._state.adding:
            self.sequence += 1
            if kwargs.get("update_fields") is not None:
                kwargs["update_fields"] = {*kwargs["update_fields"], "sequence"}
        super().save(*args, **kwargs)

    def get_absolute_url(self):
        return reverse_slugs(
            "sessions:session-detail", conference_slug=self.conference.slug, slug=self.slug
        )

    def natural_key(self):
        return (self.conference.slug, self.slug)

    natural_key.dependencies = ["conference.conference"]

    def displayed_values(self) -> dict[str, str]:
        """Its fields and, as its change form edits them too, its speakers, attachments and links.

        Each inline row with every field its form edits: a merge of a stale page refuses any
        row changed meanwhile rather than save its old values over it (VersionedModelForm).
        """
        attachments = "; ".join(
            f"{item.title}: {item.file.name or item.url} ({item.kind})"
            for item in self.attachment_list
        )
        links = "; ".join(f"{link.title}: {link.url} ({link.kind})" for link in self.link_list)
        return {
            **super().displayed_values(),
            "speakers": ", ".join(speaker.name for speaker in self.ordered_speakers),
            "attachments": attachments,
            "links": links,
        }

    def clean(self):
        if self.is_unscheduled:
            self.check_unscheduled_session()
            return
        self.held_reason = ""  # placed: whatever held it back has been resolved
        if not (self.conference_id and self.starts_at and self.ends_at):
            return  # the missing field reports itself
        conference = self.conference
        errors = {}
        if self.room_id and self.room.conference_id != conference.pk:
            errors["room"] = gettext("%(room)s is a room of another conference.") % {
                "room": self.room
            }
        if self.track_id and self.track.conference_id != conference.pk:
            errors["track"] = gettext("%(track)s is a track of another conference.") % {
                "track": self.track
            }
        if self.ends_at <= self.starts_at:
            errors["ends_at"] = gettext("A session must end after it starts.")
        elif self.starts_at < conference.opens_at or self.ends_at > conference.closes_at:
            first, last = (
                date_format(day, "l j F Y") for day in (conference.starts_on, conference.ends_on)
            )
            message = gettext(
                "%(conference)s runs from %(first)s to %(last)s (%(zone)s); "
                "this session must lie within those days."
            ) % {
                "conference": conference,
                "first": first,
                "last": last,
                "zone": conference.time_zone,
            }
            if conference.day_change != datetime.time.min:
                change = local_clock(conference.day_change)
                message += " " + gettext(
                    "Its days change at %(change)s: from %(change)s on the first day "
                    "to %(change)s the morning after the last."
                ) % {"change": change}
            # The code lets an import hold such a session for review instead of refusing the file.
            errors["starts_at"] = ValidationError(message, code="outside_conference_days")
        if errors:
            raise ValidationError(errors)
        if self.status != self.Status.CANCELLED:
            self.check_room_is_free()
            self.check_speakers_are_free()

    def check_unscheduled_session(self):
        """The form-level reading of the unscheduled-session constraints, with field errors."""
        errors = {}
        if self.starts_at is None and self.ends_at is not None:
            errors["starts_at"] = gettext(
                "Give the start too, or clear the end to leave it unscheduled."
            )
        if self.ends_at is None and self.starts_at is not None:
            errors["ends_at"] = gettext(
                "Give the end too, or clear the start to leave it unscheduled."
            )
        if self.room_id:
            errors["room"] = gettext(
                "An unscheduled session has no room yet: give it a time first."
            )
        if self.status != self.Status.DRAFT:
            errors["status"] = gettext(
                "An unscheduled session cannot be %(status)s: give it a time first."
            ) % {"status": self.get_status_display().lower()}
        if errors:
            raise ValidationError(errors)

    def check_room_is_free(self):
        if not self.room_id:
            return
        lock_while_saving(Room, self.room_id)
        clash = self.first_clash(
            Session.objects.clashing_in_room(
                self.room, self.starts_at, self.ends_at, ignoring=self.own_pk
            )
        )
        if clash:
            # The code on each message (a dict's own code is dropped): importers holding
            # conflicts tell booking clashes from other problems by it.
            message = gettext("%(room)s already hosts “%(session)s” then (%(time)s).") % {
                "room": self.room,
                "session": clash,
                "time": clash.local_time_range,
            }
            raise ValidationError({"room": ValidationError(message, code="room_double_booked")})

    def check_speakers_are_free(
        self, speakers: list[Speaker] | None = None, field: str = "starts_at"
    ) -> None:
        """Its speakers, or ``speakers`` about to join it, must be free at its (possibly new) time.

        One query for all of them; the error names the first clash in time.
        """
        if speakers is None:
            if self.pk is None:
                return
            speakers = self.ordered_speakers  # for_listing()'s prefetch when loaded with it
        for speaker in speakers:
            lock_while_saving(Speaker, speaker.pk)
        clash = self.first_clash(
            Session.objects.clashing_for_speakers(
                speakers, self.starts_at, self.ends_at, ignoring=self.own_pk
            ).select_related("conference")
        )
        if clash:
            speaker = next(s for s in speakers if s.pk == clash.clashing_speaker_id)
            message = gettext("%(speaker)s already gives “%(session)s” then (%(time)s).") % {
                "speaker": speaker,
                "session": clash,
                "time": clash.local_time_range,
            }
            raise ValidationError({field: ValidationError(message, code="speaker_double_booked")})

    @property
    def is_unscheduled(self) -> bool:
        """No time yet (either end missing): what the planner's side list holds."""
        return self.starts_at is None or self.ends_at is None

    @property
    def planned_length(self) -> datetime.timedelta:
        """How long it takes: its duration once placed; before, its planned or usual length."""
        if not self.is_unscheduled:
            return self.duration
        minutes = self.planned_minutes or USUAL_MINUTES.get(
            self.kind, USUAL_MINUTES[self.Kind.TALK]
        )
        return datetime.timedelta(minutes=minutes)

    def place(self, room: Room | None, starts_at: datetime.datetime) -> None:
        """Put it in ``room`` (None: the whole venue) at ``starts_at`` for its planned length.

        Its status stays as it is: a session placed from the unscheduled list is still a draft.
        Nothing is saved; ``full_clean()`` then judges the new slot like any other edit.
        """
        try:
            ends_at = starts_at + self.planned_length
        except OverflowError:  # a start near the year 9999
            raise ValidationError(
                {
                    "starts_at": gettext(
                        "No session can start that late: the calendar ends in 9999."
                    )
                },
                code="too_late",
            ) from None
        self.room, self.starts_at, self.ends_at = room, starts_at, ends_at

    def unschedule(self) -> None:
        """Take it off the schedule: no time, no room; its duration is kept as its planned length.

        Only a draft may wait unscheduled (Meta.constraints): a published or cancelled session
        is refused here, saying what to do instead. Nothing is saved.
        """
        if self.is_published:
            raise ValidationError(
                gettext(
                    "“%(session)s” is published: unpublish it first (the session list's action "
                    "“Unpublish”), since only a draft can wait unscheduled."
                )
                % {"session": self},
                code="unschedule_published",
            )
        if self.is_cancelled:
            raise ValidationError(
                gettext(
                    "“%(session)s” is cancelled and stays in the schedule, marked as such: only "
                    "a draft can wait unscheduled."
                )
                % {"session": self},
                code="unschedule_cancelled",
            )
        if not self.is_unscheduled:
            self.planned_minutes = max(1, round(self.duration / datetime.timedelta(minutes=1)))
        self.room = self.starts_at = self.ends_at = None

    def hold(self, reason: str) -> None:
        """Take it off the schedule as a draft, saying why, for an organizer to place it.

        What an import does with a session that breaks a booking rule when asked to hold
        conflicts rather than refuse the file. Its length is kept, as unschedule() does.
        Nothing is saved.
        """
        if not self.is_unscheduled:
            self.planned_minutes = max(1, round(self.duration / datetime.timedelta(minutes=1)))
        self.room = self.starts_at = self.ends_at = None
        self.status = self.Status.DRAFT
        self.held_reason = reason

    @property
    def own_pk(self) -> list[int]:
        """What its clash checks leave out in SQL: itself, once saved."""
        return [self.pk] if self.pk is not None else []

    def first_clash(self, clashes: "SessionQuerySet") -> "Session | None":
        """The first of ``clashes`` that is not ``being_replaced``.

        An import rewriting a thousand sessions leaves their old slots out here, in Python:
        a thousand pks in the SQL of every check made a re-import quadratic. The clashes of
        one slot are a handful of rows.
        """
        if not self.being_replaced:
            return clashes.first()
        return next((clash for clash in clashes if clash.pk not in self.being_replaced), None)

    @property
    def local_starts_at(self) -> datetime.datetime:
        return timezone.localtime(self.starts_at, self.conference.tz)

    @property
    def conference_day(self) -> datetime.date:
        """The conference day it belongs to: a session at 01:30 is the evening before's when
        days change at 04:00 (``Conference.day_of``)."""
        return self.conference.day_of(self.starts_at)

    @property
    def local_ends_at(self) -> datetime.datetime:
        return timezone.localtime(self.ends_at, self.conference.tz)

    @property
    def local_time_range(self) -> str:
        return local_time_range(self.conference, self.starts_at, self.ends_at)

    @property
    def local_times(self) -> TimeRange:
        """“10:35–10:45 CEST” in the conference's zone (see ``conference.timezones.time_range``)."""
        return time_range(self.starts_at, self.ends_at, self.conference.tz)

    @property
    def duration(self) -> datetime.timedelta:
        return self.ends_at - self.starts_at

    @property
    def display_title(self) -> str:
        """The title as schedules print it: “Lightning Talk: …”, “Keynote: …”."""
        if self.kind in (self.Kind.TALK, self.Kind.BREAK):
            return self.title
        prefix = f"{self.kind_label}: "
        if self.title.casefold().startswith(prefix.casefold()):  # “Panel: Future of APIs”
            return self.title
        return f"{prefix}{self.title}"

    @property
    def kind_badge(self) -> str:
        """The word a grid block shows for its kind in place of the “Lightning Talk: ” prefix
        (``title_without_kind`` follows it); "" for talks and breaks, which have no prefix."""
        if self.kind in (self.Kind.TALK, self.Kind.BREAK):
            return ""
        return str(KIND_BADGES.get(self.kind) or KIND_NAMES.get(self.kind, self.kind_label))

    @property
    def title_without_kind(self) -> str:
        """The title without a kind its author wrote before it (“Panel: Future of APIs”)."""
        prefix = f"{self.kind_label}: "
        if self.kind_badge and self.title.casefold().startswith(prefix.casefold()):
            return self.title[len(prefix) :]
        return self.title

    @property
    def is_break(self) -> bool:
        return self.kind == self.Kind.BREAK

    @property
    def is_cancelled(self) -> bool:
        return self.status == self.Status.CANCELLED

    @property
    def is_draft(self) -> bool:
        return self.status == self.Status.DRAFT

    @property
    def is_published(self) -> bool:
        return self.status == self.Status.PUBLISHED

    @property
    def kind_label(self) -> str:
        """“Lightning Talk”, as get_kind_display() says it, from a dict built once.

        Django's get_FOO_display() rebuilds the choices dict on every call, and a schedule
        prints a label per card.
        """
        return KIND_LABELS.get(self.kind, self.kind)

    @property
    def type_name(self) -> str:
        """What the session is called as a type: its own label (“Ceremony”), else its kind's."""
        return self.type_label or str(KIND_NAMES.get(self.kind, self.kind_label))

    @property
    def language_label(self) -> str:
        """“German” for de: the language's name in the active language, else the code as given."""
        try:
            return str(get_language_info(self.language.lower())["name_translated"])
        except KeyError:
            return self.language

    @property
    def audience_level_label(self) -> str:
        return str(AUDIENCE_LEVEL_NAMES.get(self.audience_level, self.audience_level))

    @property
    def card_id(self) -> str:
        """The HTML id of its card, or of its own page's article: where saving without
        JavaScript comes back to (SaveSessionView)."""
        return f"session-{self.slug}"

    @property
    def save_toggle(self) -> dict:
        """What its Save button (sessions/includes/save_toggle.html) needs: plain values, as the
        page cache keeps them for each card's button. ``label``, the words after “Save” that
        name the session for screen readers, is translated here rather than in the template:
        Jinja2's gettext wraps each call in three more, a twelfth of a 1,000-card schedule."""
        return {
            "url": reverse_slugs(
                "sessions:session-save", conference_slug=self.conference.slug, slug=self.slug
            ),
            "label": gettext("“%(title)s” to my schedule") % {"title": self.title},
            "session_id": self.pk,
            "card_id": self.card_id,
            "can_save": self.is_published,
        }

    @property
    def has_audience_level(self) -> bool:
        """Whether it names a level; “Any” goes without saying."""
        return self.audience_level != self.AudienceLevel.ANY

    @property
    def ordered_speakers(self) -> list[Speaker]:
        """Speakers in billing order; uses ``for_listing()``'s prefetch when present."""
        if hasattr(self, "prefetched_speakers"):
            speakers = self.prefetched_speakers
        else:
            speakers = list(
                Speaker.objects.filter(session_links__session=self).order_by(
                    "session_links__position", "session_links__pk"
                )
            )
        return speakers

    @property
    def has_attachments(self) -> bool:
        """Whether slides or material can be had: a file or a link, not a title announced alone.
        ``for_cards()`` answers it in its query."""
        if hasattr(self, "attachments_exist"):
            return self.attachments_exist
        return any(attachment.is_available for attachment in self.attachment_list)

    @property
    def link_list(self) -> list["SessionLink"]:
        """Links in order; uses ``for_listing()``'s prefetch when present, and no query when
        ``for_page()`` found none."""
        if hasattr(self, "prefetched_links"):
            return self.prefetched_links
        if not getattr(self, "any_links", True):
            return []
        return list(self.links.order_by("position", "pk"))

    @property
    def attachment_list(self) -> list["Attachment"]:
        """Attachments in order; uses ``for_listing()``'s prefetch when present, and no query
        when ``for_page()`` found none."""
        if hasattr(self, "prefetched_attachments"):
            return self.prefetched_attachments
        if not getattr(self, "any_attachments", True):
            return []
        return list(self.attachments.order_by("position", "pk"))


KIND_LABELS = dict(Session.Kind.choices)
# What pages call each kind and level, in the visitor's language (docs/i18n.md). The English
# labels above stay in exports, the API, the admin and titles (“Lightning Talk: …”), where
# importers and other programs read them.
KIND_NAMES = {
    Session.Kind.KEYNOTE: pgettext_lazy("session kind", "Keynote"),
    Session.Kind.TALK: pgettext_lazy("session kind", "Talk"),
    Session.Kind.LIGHTNING_TALK: pgettext_lazy("session kind", "Lightning Talk"),
    Session.Kind.PANEL: pgettext_lazy("session kind", "Panel"),
    Session.Kind.WORKSHOP: pgettext_lazy("session kind", "Workshop"),
    Session.Kind.BREAK: pgettext_lazy("session kind", "Break"),
}
AUDIENCE_LEVEL_NAMES = {
    Session.AudienceLevel.ANY: pgettext_lazy("audience level", "Any"),
    Session.AudienceLevel.BEGINNER: pgettext_lazy("audience level", "Beginner"),
    Session.AudienceLevel.INTERMEDIATE: pgettext_lazy("audience level", "Intermediate"),
    Session.AudienceLevel.ADVANCED: pgettext_lazy("audience level", "Advanced"),
}
# Badges shorter than their kind's name (Session.kind_badge); the others show the name.
KIND_BADGES = {Session.Kind.LIGHTNING_TALK: pgettext_lazy("session kind", "Lightning")}
# How long a session of each kind takes when nobody said otherwise (Session.planned_length).
USUAL_MINUTES = {
    Session.Kind.KEYNOTE: 45,
    Session.Kind.TALK: 30,
    Session.Kind.LIGHTNING_TALK: 10,
    Session.Kind.PANEL: 45,
    Session.Kind.WORKSHOP: 90,
    Session.Kind.BREAK: 30,
}
AUDIENCE_LEVEL_LABELS = dict(Session.AudienceLevel.choices)


class FormerSessionSlug(FormerSlug):
    session = models.ForeignKey(
        Session,
        on_delete=models.CASCADE,
        related_name="former_slugs",
        verbose_name=gettext_lazy("session"),
    )

    class Meta:
        verbose_name = gettext_lazy("former session slug")
        verbose_name_plural = gettext_lazy("former session slugs")
        constraints = [
            models.UniqueConstraint(fields=["session", "slug"], name="former_session_slug_once")
        ]


class SessionSpeaker(models.Model):
    session = models.ForeignKey(
        Session,
        on_delete=models.CASCADE,
        related_name="session_speakers",
        verbose_name=gettext_lazy("session"),
    )
    speaker = models.ForeignKey(
        Speaker,
        on_delete=models.CASCADE,
        related_name="session_links",
        verbose_name=gettext_lazy("speaker"),
    )
    position = models.PositiveSmallIntegerField(
        default=0,
        help_text=gettext_lazy("Billing order, lowest first."),
        verbose_name=gettext_lazy("position"),
    )

    class Meta:
        verbose_name_plural = gettext_lazy("speakers")
        ordering = ["position", "pk"]
        verbose_name = gettext_lazy("speaker")
        constraints = [
            models.UniqueConstraint(
                fields=["session", "speaker"],
                name="session_speaker_once",
                violation_error_message=gettext_lazy("This speaker is already on this session."),
            ),
        ]

    def __str__(self):
        return gettext("%(speaker)s on %(session)s") % {
            "speaker": self.speaker,
            "session": self.session,
        }

    def clean(self):
        # A row of a session being added holds the unsaved session, without an id; a tampered
        # admin row holds neither (its form says so), and reading self.session would raise.
        has_session = self.session_id is not None or SessionSpeaker.session.is_cached(self)
        if not has_session or not self.speaker_id:
            return
        session = self.session
        if session.conference_id and self.speaker.conference_id != session.conference_id:
            raise ValidationError(
                {
                    "speaker": gettext("%(speaker)s is a speaker of another conference.")
                    % {"speaker": self.speaker}
                }
            )
        if session.starts_at and session.ends_at and session.status != Session.Status.CANCELLED:
            self.check_speaker_is_free(field="speaker")

    def check_speaker_is_free(self, field: str) -> None:
        self.session.check_speakers_are_free([self.speaker], field=field)

"""A session: its fields, constraints and booking rules, and where it may go (placing,
unscheduling, holding). What pages show of it is in ``display.py``, its speakers in order in
``session_speaker.py``, how sessions are queried in ``queries.py`` and loaded for pages in
``loaders.py``; their kinds, audience levels and statuses, and their order, in ``choices.py``."""

import datetime
import uuid

from django.core.exceptions import ValidationError
from django.core.validators import MinValueValidator
from django.db import models
from django.db.models import F, Q
from django.utils.formats import date_format
from django.utils.translation import gettext, gettext_lazy

from conference.i18n.timezones import local_clock
from conference.models import Conference, FormerSlug, KeepsFormerSlugs, Room, Track
from conference.routing import reverse_slugs
from conference.versioning import Versioned
from sessions.models import choices
from sessions.models.bookings import lock_while_saving
from sessions.models.choices import SCHEDULE_ORDER, USUAL_MINUTES
from sessions.models.display import SessionDisplay
from sessions.models.queries import SessionQuerySet
from speakers.models import Speaker


def new_guid() -> str:
    return str(uuid.uuid4())


class Session(SessionDisplay, KeepsFormerSlugs, Versioned):
    Kind = choices.Kind
    AudienceLevel = choices.AudienceLevel
    Status = choices.Status

    conference = models.ForeignKey(
        Conference,
        on_delete=models.CASCADE,
        related_name="sessions",
        verbose_name=gettext_lazy("conference"),
    )
    # Exports publish it and importers match on it, so it never changes. A UUID: an imported id
    # that is none (a CSV id, a legacy frab guid) is stored as the UUID made from it
    # (sessions.frab.export_guid); a string, as rows imported before migration 0025 hold them.
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

    def place(
        self, room: Room | None, starts_at: datetime.datetime, *, publish: bool = False
    ) -> None:
        """Put it in ``room`` (None: the whole venue) at ``starts_at`` for its planned length.

        Its status stays as it is: a session placed from the unscheduled list is still a draft,
        unless ``publish`` (undoing an unschedule that unpublished it) publishes a draft again.
        Nothing is saved; ``full_clean()`` then judges the new slot like any other edit.
        """
        if publish and self.is_draft:
            self.status = self.Status.PUBLISHED
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

    def unschedule(self, *, unpublish: bool = False) -> None:
        """Take it off the schedule: no time, no room; its duration is kept as its planned length.

        Only a draft may wait unscheduled (Meta.constraints). A published session goes back to
        draft only when ``unpublish`` says the organizer agreed: the public loses it, and the
        next release announces it as removed. Otherwise, and for a cancelled session, it is
        refused here, saying why. Nothing is saved.
        """
        if self.is_published and not unpublish:
            raise ValidationError(
                gettext(
                    "“%(session)s” is published: taking it off the schedule unpublishes it, and "
                    "the next release announces it as removed. Confirm that to go on."
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
        self.status = self.Status.DRAFT

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
    def duration(self) -> datetime.timedelta:
        return self.ends_at - self.starts_at

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

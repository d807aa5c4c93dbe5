import datetime
import zoneinfo
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cached_property

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import RegexValidator
from django.db import models
from django.db.models import F, Q
from django.urls import reverse
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.translation import gettext, gettext_lazy

from conference.content_version import ChangesConferenceQuerySet, deferred_marks
from conference.embedding import embed_origin_lines, is_origin, validate_embed_origins
from conference.models.teams import preview_of
from conference.versioning import Versioned, VersionedQuerySet


def validate_time_zone(value: str) -> None:
    """Accept only IANA zone names ("Europe/Paris"), never abbreviations like "CEST"."""
    if value not in zoneinfo.available_timezones():
        raise ValidationError(
            gettext("“%(value)s” is not an IANA time zone name such as Europe/Paris."),
            code="invalid_time_zone",
            params={"value": value},
        )


# Top-level paths of the site; a conference with one of these slugs could never be reached.
RESERVED_SLUGS = frozenset({"admin", "api", "accounts", "static", "media", "i18n"})


def validate_not_reserved(value: str) -> None:
    if value in RESERVED_SLUGS:
        raise ValidationError(
            gettext("“%(value)s” is used by the site itself; choose another slug."),
            code="reserved_slug",
            params={"value": value},
        )


# A track's colour, as its CSS and the frab exports use it. The field validates with it, and a
# database constraint holds the same pattern for writers that skip validation.
HEX_COLOUR = r"^#[0-9a-fA-F]{6}$"
HEX_COLOUR_MESSAGE = gettext_lazy("Enter a colour as #rrggbb, for example #ee4c2c.")
validate_hex_colour = RegexValidator(HEX_COLOUR, HEX_COLOUR_MESSAGE)


def time_zone_choices() -> list[tuple[str, str]]:
    return [(name, name) for name in sorted(zoneinfo.available_timezones())]


class ConferenceQuerySet(models.QuerySet):
    def published(self):
        """Conferences the public may see."""
        return self.filter(is_published=True)

    def visible_to(self, user):
        """What ``user`` may read: the published conferences, and those their teams cover
        (``preview_of``; which copy of its pages they get follows the same rule: ``copy_for``)."""
        preview = preview_of(user)
        if preview.everything:
            return self.all()
        if preview.conference_ids:
            return self.filter(Q(is_published=True) | Q(pk__in=preview.conference_ids))
        return self.published()

    def visible_by_slug(self, user, slug: str) -> "Conference | None":
        """The conference ``slug`` if ``user`` may read it (``visible_to``), else None.

        get() rather than first(): the slug is unique, and first() would sort by the model's
        ordering, a cost every page pays.
        """
        try:
            return self.visible_to(user).get(slug=slug)
        except self.model.DoesNotExist:
            return None

    def update(self, **values):
        """A conference's own fields are public content too: a bulk UPDATE moves changed_at."""
        values.setdefault("changed_at", timezone.now())
        return super().update(**values)

    def mark_changed(self) -> None:
        """Record that something in these conferences changed, by one UPDATE (see changed_at)."""
        deferred = deferred_marks.get()
        if deferred is None:
            self.update(changed_at=timezone.now())
        else:
            deferred.append(True)

    def get_by_natural_key(self, slug):
        return self.get(slug=slug)


# The copies of a conference's shared pages (conference/pages/): the public's, and the one of
# those who preview it (drafts, unpublished sessions), never mixed.
PUBLIC_COPY = "public"
PREVIEW_COPY = "staff"


def copy_for(user, conference: "Conference") -> str:
    """Which copy of ``conference``'s shared pages ``user`` gets: PREVIEW_COPY for whoever
    ``visible_to`` lets preview it, else PUBLIC_COPY. The page layer asks only this, so the
    copy a visitor is given and what they may read come from one rule."""
    return PREVIEW_COPY if preview_of(user).covers(conference.pk) else PUBLIC_COPY


class Conference(models.Model):
    name = models.CharField(max_length=200, verbose_name=gettext_lazy("name"))
    slug = models.SlugField(
        max_length=100,
        unique=True,
        validators=[validate_not_reserved],
        help_text=gettext_lazy("Used in every public URL of the conference."),
        verbose_name=gettext_lazy("slug"),
    )
    starts_on = models.DateField(gettext_lazy("first day"))
    ends_on = models.DateField(gettext_lazy("last day"))
    time_zone = models.CharField(
        max_length=64,
        choices=time_zone_choices,
        validators=[validate_time_zone],
        help_text=gettext_lazy("IANA zone of the venue. Times are entered and shown in it."),
        verbose_name=gettext_lazy("time zone"),
    )
    # The pages' language for a visitor who asked for none we have (docs/i18n.md).
    language = models.CharField(
        max_length=8,
        choices=settings.LANGUAGES,
        default="en",
        help_text=gettext_lazy(
            "The public pages' language for visitors whose browser asks for none of ours."
        ),
        verbose_name=gettext_lazy("language"),
    )
    # frab's day_change: sessions starting after midnight but before this time belong to the
    # day before, so a night programme running to 02:00 stays on its evening's day.
    day_change = models.TimeField(
        gettext_lazy("day changes at"),
        default=datetime.time(0, 0),
        help_text=gettext_lazy(
            "Sessions starting before this time of night count as the day before "
            "(for example 04:00 for a programme running past midnight). 00:00: at midnight."
        ),
    )
    venue = models.CharField(max_length=200, blank=True, verbose_name=gettext_lazy("venue"))
    city = models.CharField(max_length=100, blank=True, verbose_name=gettext_lazy("city"))
    description = models.TextField(
        blank=True, help_text=gettext_lazy("Markdown."), verbose_name=gettext_lazy("description")
    )
    registration_url = models.URLField(gettext_lazy("registration URL"), blank=True)
    help_url = models.URLField(
        gettext_lazy("help URL"),
        blank=True,
        help_text=gettext_lazy("Where attendees get help with the event."),
    )
    contact_email = models.EmailField(blank=True, verbose_name=gettext_lazy("contact email"))
    # What schedule apps show of the conference (frab's <color primary> and <logo>).
    colour = models.CharField(
        max_length=7,
        blank=True,
        validators=[validate_hex_colour],
        help_text=gettext_lazy("Main colour schedule apps use, #rrggbb; empty for theirs."),
        verbose_name=gettext_lazy("colour"),
    )
    logo_url = models.URLField(gettext_lazy("logo URL"), blank=True, max_length=500)
    is_published = models.BooleanField(gettext_lazy("published"), default=False)
    embed_origins = models.TextField(
        gettext_lazy("websites that may embed the schedule"),
        blank=True,
        validators=[validate_embed_origins],
        help_text=gettext_lazy(
            "One origin per line, such as https://pycon.example.org. Only these may show "
            "the embeddable schedule (/<conference>/embed/) in a frame; no other page of the site "
            "may be framed."
        ),
    )
    # Attendees rate sessions from each session's start until this long after the last day.
    feedback_days_after = models.PositiveSmallIntegerField(
        gettext_lazy("feedback open for (days after the conference)"),
        default=14,
        help_text=gettext_lazy(
            "Attendees can rate a session from its start until this many days after the "
            "last day; 0: until the end of the last day."
        ),
    )
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=gettext_lazy("created at"))
    updated_at = models.DateTimeField(auto_now=True, verbose_name=gettext_lazy("updated at"))
    # Moves whenever anything public in the conference changes (see mark_changed): the base of
    # ETags, Last-Modified and cache keys, so nothing served is ever stale.
    changed_at = models.DateTimeField(
        default=timezone.now, editable=False, verbose_name=gettext_lazy("changed at")
    )

    objects = ConferenceQuerySet.as_manager()

    class Meta:
        verbose_name = gettext_lazy("conference")
        verbose_name_plural = gettext_lazy("conferences")
        ordering = ["-starts_on", "name"]
        constraints = [
            models.CheckConstraint(
                condition=Q(ends_on__gte=F("starts_on")),
                name="conference_ends_on_or_after_it_starts",
                violation_error_message=gettext_lazy(
                    "The last day cannot be before the first day."
                ),
            ),
        ]

    def __str__(self):
        return self.name

    def save(self, *args, **kwargs):
        self.changed_at = timezone.now()
        if kwargs.get("update_fields") is not None:
            kwargs["update_fields"] = {*kwargs["update_fields"], "changed_at"}
        super().save(*args, **kwargs)

    def get_absolute_url(self):
        return reverse("conference:conference-detail", kwargs={"conference_slug": self.slug})

    @cached_property
    def schedule_url(self) -> str:
        """The schedule list's address; cards link their track to it, so it is worked out once."""
        return reverse("sessions:schedule", kwargs={"conference_slug": self.slug})

    def natural_key(self):
        return (self.slug,)

    @classmethod
    def mark_changed(cls, conference_id: int | None) -> None:
        """Record that something in the conference changed, by one UPDATE."""
        if conference_id is not None:
            cls.objects.filter(pk=conference_id).mark_changed()

    @classmethod
    @contextmanager
    def changes_marked_at_end(cls, conference_id: int) -> Iterator[None]:
        """Mark ``conference_id`` changed once, when the block ends, rather than on every write.

        For a writer of thousands of rows into one conference (the importer): one UPDATE
        instead of one per session and speaker link; none if nothing was written. Only that
        conference may be written inside.
        """
        requested: list = []
        token = deferred_marks.set(requested)
        try:
            yield
        finally:
            deferred_marks.reset(token)
        if requested:
            cls.mark_changed(conference_id)

    @property
    def embedding_origins(self) -> list[str]:
        """``embed_origins`` as the embed's ``frame-ancestors`` takes them: origins only, so a
        line saved before they were checked this closely cannot add a source or a directive."""
        return [
            line.rstrip("/") for line in embed_origin_lines(self.embed_origins) if is_origin(line)
        ]

    @cached_property
    def tz(self) -> zoneinfo.ZoneInfo:
        return zoneinfo.ZoneInfo(self.time_zone)

    @property
    def days(self) -> list[datetime.date]:
        count = (self.ends_on - self.starts_on).days + 1
        return [self.starts_on + datetime.timedelta(days=offset) for offset in range(count)]

    def day_bounds(self, day: datetime.date) -> tuple[datetime.datetime, datetime.datetime]:
        """The start and end of a conference day, in UTC: from ``day_change`` on ``day`` to
        ``day_change`` the next morning, 23 or 25 hours apart on DST days.

        Every day rule (a session within the conference's days, the day tabs and filter, the
        grid, the planner, the exports' days) reads days from here or ``day_of``.
        UTC because Python compares and subtracts two datetimes of the same zone by wall clock.
        """
        start = datetime.datetime.combine(day, self.day_change, tzinfo=self.tz)
        end = datetime.datetime.combine(
            day + datetime.timedelta(days=1), self.day_change, tzinfo=self.tz
        )
        return start.astimezone(datetime.UTC), end.astimezone(datetime.UTC)

    def day_of(
        self, moment: datetime.datetime, zone: datetime.tzinfo | None = None
    ) -> datetime.date:
        """The conference day ``moment`` belongs to: 01:30 is the day before when days change
        at 04:00. ``zone``: the clocks to read, when a visitor chose other than the venue's."""
        local = timezone.localtime(moment, zone or self.tz)
        if local.time() < self.day_change:
            return local.date() - datetime.timedelta(days=1)
        return local.date()

    @property
    def opens_at(self) -> datetime.datetime:
        return self.day_bounds(self.starts_on)[0]

    @property
    def closes_at(self) -> datetime.datetime:
        return self.day_bounds(self.ends_on)[1]

    @property
    def feedback_last_day(self) -> datetime.date:
        """The last day attendees may rate its sessions."""
        return self.ends_on + datetime.timedelta(days=self.feedback_days_after)

    @property
    def feedback_closes_at(self) -> datetime.datetime:
        """When that day ends, at the conference's day change."""
        return self.day_bounds(self.feedback_last_day)[1]


def describe_days(days: list[datetime.date]) -> str:
    """“Tuesday 7 April – Wednesday 8 April 2026”, or “Wednesday 8 April 2026” for one day; days
    with a gap between them are named one by one (“Tuesday 7 April and Thursday 9 April 2026”)."""
    if not days:
        return ""
    first, last = days[0], days[-1]
    same_year = first.year == last.year
    day_format = "l j F" if same_year else "l j F Y"
    if len(days) == 1:
        return date_format(first, "l j F Y")
    if (last - first).days == len(days) - 1:  # no gap
        return f"{date_format(first, day_format)} – {date_format(last, 'l j F Y')}"
    named = [date_format(day, day_format) for day in days[:-1]]
    return gettext("%(days)s and %(last)s") % {
        "days": ", ".join(named),
        "last": date_format(last, "l j F Y"),
    }


class ConferencePartQuerySet(ChangesConferenceQuerySet, VersionedQuerySet):
    """Rooms and tracks: looked up by conference slug and their own slug."""

    def get_by_natural_key(self, conference_slug, slug):
        return self.get(conference__slug=conference_slug, slug=slug)


class Room(Versioned):
    class Kind(models.TextChoices):
        """The room types of the c3voc schedule format, which its clients group rooms by."""

        LECTURE_HALL = "lecturehall", gettext_lazy("lecture hall")
        STAGE = "stage", gettext_lazy("stage")
        WORKSHOP = "workshop", gettext_lazy("workshop room")
        OUTSIDE = "outside", gettext_lazy("outside")
        ONLINE = "online", gettext_lazy("online")
        PROJECT = "project", gettext_lazy("project space")
        BBB = "bbb", gettext_lazy("BigBlueButton room")
        HANGAR = "hangar", gettext_lazy("hangar")
        OTHER = "other", gettext_lazy("other")

    conference = models.ForeignKey(
        Conference,
        on_delete=models.CASCADE,
        related_name="rooms",
        verbose_name=gettext_lazy("conference"),
    )
    name = models.CharField(max_length=100, verbose_name=gettext_lazy("name"))
    slug = models.SlugField(max_length=100, verbose_name=gettext_lazy("slug"))
    kind = models.CharField(
        gettext_lazy("type"),
        max_length=20,
        choices=Kind.choices,
        blank=True,
        help_text=gettext_lazy("Published in schedule.json, whose apps group rooms by it."),
    )
    capacity = models.PositiveIntegerField(
        null=True,
        blank=True,
        help_text=gettext_lazy("Seats; leave empty if unknown."),
        verbose_name=gettext_lazy("capacity"),
    )
    position = models.PositiveSmallIntegerField(
        gettext_lazy("display order"),
        default=0,
        help_text=gettext_lazy("Rooms are shown in this order, lowest first."),
    )
    # The GUID a schedule file gave the room; exports publish it, else one derived from the slug.
    guid = models.CharField(gettext_lazy("GUID"), max_length=64, blank=True)
    description = models.TextField(blank=True, verbose_name=gettext_lazy("description"))

    objects = ConferencePartQuerySet.as_manager()

    class Meta:
        verbose_name = gettext_lazy("room")
        verbose_name_plural = gettext_lazy("rooms")
        ordering = ["conference", "position", "name"]
        constraints = [
            models.UniqueConstraint(
                fields=["conference", "slug"],
                name="room_slug_unique_per_conference",
                violation_error_message=gettext_lazy(
                    "This conference already has a room with this slug."
                ),
            ),
        ]

    def __str__(self):
        return self.name

    def natural_key(self):
        return (self.conference.slug, self.slug)

    natural_key.dependencies = ["conference.conference"]


class Track(Versioned):
    conference = models.ForeignKey(
        Conference,
        on_delete=models.CASCADE,
        related_name="tracks",
        verbose_name=gettext_lazy("conference"),
    )
    name = models.CharField(max_length=100, verbose_name=gettext_lazy("name"))
    slug = models.SlugField(max_length=100, verbose_name=gettext_lazy("slug"))
    colour = models.CharField(
        max_length=7,
        default="#5b6b7f",
        validators=[validate_hex_colour],
        help_text=gettext_lazy("Hex colour, #rrggbb."),
        verbose_name=gettext_lazy("colour"),
    )
    description = models.TextField(blank=True, verbose_name=gettext_lazy("description"))

    objects = ConferencePartQuerySet.as_manager()

    class Meta:
        verbose_name = gettext_lazy("track")
        verbose_name_plural = gettext_lazy("tracks")
        ordering = ["conference", "name"]
        constraints = [
            models.UniqueConstraint(
                fields=["conference", "slug"],
                name="track_slug_unique_per_conference",
                violation_error_message=gettext_lazy(
                    "This conference already has a track with this slug."
                ),
            ),
            models.CheckConstraint(
                condition=Q(colour__regex=HEX_COLOUR),
                name="track_colour_is_hex",
                violation_error_message=HEX_COLOUR_MESSAGE,
            ),
        ]

    def __str__(self):
        return self.name

    def natural_key(self):
        return (self.conference.slug, self.slug)

    natural_key.dependencies = ["conference.conference"]


class KeepsFormerSlugs(models.Model):
    """A page whose slug changes keeps answering at its old address (a 301 to the new one).

    The slug a row was loaded with is remembered; ``remember_former_slug()``, called by the
    owning app's post_save receiver, records it when the row was saved under another slug.
    Subclasses have a ``former_slugs`` relation (a ``FormerSlug`` model of their app).
    """

    class Meta:
        abstract = True

    @classmethod
    def from_db(cls, db, field_names, values):
        instance = super().from_db(db, field_names, values)
        instance.loaded_slug = instance.__dict__.get("slug")  # None when the slug was deferred
        return instance

    def remember_former_slug(self) -> None:
        former = getattr(self, "loaded_slug", None)
        if former and former != self.slug:
            self.former_slugs.get_or_create(slug=former)
            self.former_slugs.filter(slug=self.slug).delete()  # the old name is current again
        self.loaded_slug = self.slug


class FormerSlug(models.Model):
    """A slug a session or speaker had before; its app's model adds the relation."""

    slug = models.SlugField(max_length=300, verbose_name=gettext_lazy("slug"))
    retired_at = models.DateTimeField(auto_now=True, verbose_name=gettext_lazy("retired at"))

    class Meta:
        abstract = True

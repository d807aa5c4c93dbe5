"""A speaker of one conference (Speaker, ``Speaker.objects``), the former slugs that keep old
links to them working, and their links. Their availability windows, invitations and change
proposals each have a module of their own, which imports this one."""

import datetime
import uuid
import zlib

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.db.models.functions import Coalesce
from django.urls import reverse
from django.utils.translation import gettext_lazy

from conference.models import (
    ChangesConferenceQuerySet,
    Conference,
    FormerSlug,
    KeepsFormerSlugs,
    confirmed_address,
)
from conference.models.teams import preview_of
from conference.routing import reverse_slugs
from conference.uploads import FileKindValidator, ImageSizeValidator, RandomName, reencoded_image
from conference.versioning import ChangeTrackedQuerySet, Versioned


class SpeakerQuerySet(ChangesConferenceQuerySet, ChangeTrackedQuerySet):
    # When they last looked at My talks, whether they want change mails: shown on no page.
    unpublished_fields = frozenset({"talks_seen_at", "schedule_change_mails"})

    def get_by_natural_key(self, conference_slug, slug):
        return self.get(conference__slug=conference_slug, slug=slug)

    def visible_to(self, user, sessions):
        """What ``user`` may read: every speaker of the conferences their teams cover
        (``preview_of``), of the others the speakers of ``sessions`` (the sessions they may
        see), as on the speaker pages."""
        preview = preview_of(user)
        if preview.everything:
            return self
        giving = Q(pk__in=sessions.values("speakers"))
        if preview.conference_ids:
            return self.filter(giving | Q(conference__in=preview.conference_ids))
        return self.filter(giving)

    def giving(self, sessions):
        """Speakers of any of ``sessions`` (a Session queryset), each once.

        A subquery rather than a join with DISTINCT: on SQLite the join compares every speaker
        with every session.
        """
        return self.filter(pk__in=sessions.values("speakers"))

    def with_sessions(self, sessions) -> list["Speaker"]:
        """These speakers, each with ``visible_sessions``: theirs among ``sessions``, in its order.

        Two queries for any number of speakers. prefetch_related would narrow the sessions with
        ``speaker_id IN (every speaker)``, which SQLite answers by probing every session's links
        once per speaker: the page's cost would grow with speakers times sessions.
        The sessions carry only what a link to them shows (``for_links``).
        """
        speakers = list(self)
        sessions_of = {speaker.pk: [] for speaker in speakers}
        listed = sessions.for_links().annotate(
            listed_speaker_id=models.F("session_speakers__speaker")
        )
        for session in listed.filter(listed_speaker_id__in=sessions_of):
            sessions_of[session.listed_speaker_id].append(session)
        for speaker in speakers:
            speaker.visible_sessions = sessions_of[speaker.pk]
        return speakers

    def with_reach(self):
        """Each speaker with ``reach_address``: where changes to their sessions are mailed, ""
        when nowhere. The one rule for release mails and the release preview.

        In order: the address organizers entered (``email``); the linked account's confirmed
        address (an active account); else the address the linked account accepted an invitation
        at. Accepting proves only that the link reached its holder, not that the account's
        own address is theirs (a forwardable link may have been passed on, and a confirmed
        address is what team invitations are accepted by), so acceptance marks nothing
        confirmed and writes nothing: the invited address, which the organizers chose to
        reach this speaker, is read here, and an account that later confirms an address of
        its own is mailed there instead.
        """
        # Reached through the relation: invitations.py imports this module.
        invitations = self.model._meta.get_field("invitations").related_model
        accepted_at = (
            invitations.objects.filter(
                speaker=models.OuterRef("pk"),
                accepted_by=models.OuterRef("user"),
                accepted_at__isnull=False,
            )
            .order_by("-accepted_at", "-pk")
            .values("email")[:1]
        )
        return self.annotate(
            reach_address=models.Case(
                models.When(~Q(email=""), then=models.F("email")),
                models.When(
                    Q(user__is_active=True) & confirmed_address("user__"),
                    then=models.F("user__email"),
                ),
                default=Coalesce(models.Subquery(accepted_at), models.Value("")),
                output_field=models.CharField(),
            )
        )

    def mailable(self):
        """Speakers the site mails changes to their sessions: an address (``with_reach``) and
        the mails not turned off (the unsubscribe link of those mails). An account's setting
        for the sessions it saved is not theirs: a speaker is told of their own talks."""
        return self.with_reach().filter(schedule_change_mails=True).exclude(reach_address="")

    def search(self, text: str):
        """Speakers whose name, company or role contains ``text``."""
        return self.filter(
            models.Q(name__icontains=text)
            | models.Q(company__icontains=text)
            | models.Q(role__icontains=text)
        )


# Colours for speakers without a photo: .avatar-0 … .avatar-7 in static/css/site.css, each dark
# enough for white initials (at least 4.5:1, tests/speakers/test_avatars.py).
AVATAR_COLOURS = 8


def new_guid() -> str:
    return str(uuid.uuid4())


class Speaker(KeepsFormerSlugs, Versioned):
    conference = models.ForeignKey(
        Conference,
        on_delete=models.CASCADE,
        related_name="speakers",
        verbose_name=gettext_lazy("conference"),
    )
    # Published in exports and matched by importers; never changes.
    guid = models.CharField(gettext_lazy("GUID"), max_length=64, default=new_guid, editable=False)
    name = models.CharField(max_length=200, verbose_name=gettext_lazy("name"))
    slug = models.SlugField(max_length=200, verbose_name=gettext_lazy("slug"))
    # db_default for these two: servers still running the code from before them (a rolling
    # deploy) insert speakers without them.
    pronouns = models.CharField(
        max_length=50,
        blank=True,
        default="",
        db_default="",
        help_text=gettext_lazy("As the speaker wants them shown, e.g. “she/her”."),
        verbose_name=gettext_lazy("pronouns"),
    )
    role = models.CharField(
        gettext_lazy("role or title"),
        max_length=200,
        blank=True,
        help_text=gettext_lazy("For example “Senior Software Engineer”."),
    )
    company = models.CharField(max_length=200, blank=True, verbose_name=gettext_lazy("company"))
    bio = models.TextField(
        blank=True, help_text=gettext_lazy("Markdown."), verbose_name=gettext_lazy("bio")
    )
    photo = models.ImageField(
        upload_to=RandomName("speakers", "photo"),
        blank=True,
        validators=[
            FileKindValidator("images", max_bytes=5 * 1024 * 1024),
            ImageSizeValidator(smallest=64, largest=6000),
        ],
        help_text=gettext_lazy(
            "PNG, JPEG or WebP; 5 MB and 6,000 pixels a side at most. Its metadata "
            "(where a phone took it) is removed."
        ),
        verbose_name=gettext_lazy("photo"),
    )
    # An imported schedule's picture of the speaker, kept as the file gave it (frab's avatar).
    avatar_url = models.URLField(
        gettext_lazy("avatar URL"),
        blank=True,
        max_length=500,
        help_text=gettext_lazy("Used when there is no photo."),
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="speaker_profiles",
        help_text=gettext_lazy("The speaker's own account on this site, if they have one."),
        verbose_name=gettext_lazy("user"),
    )
    # Staff only: no serializer, export or page shows it (tests/speakers/test_email.py).
    email = models.EmailField(
        blank=True,
        help_text=gettext_lazy(
            "Staff only, never shown publicly: where changes to the speaker's sessions "
            "are mailed when a schedule release changes them (else the linked account's verified "
            "address)."
        ),
        verbose_name=gettext_lazy("email"),
    )
    schedule_change_mails = models.BooleanField(
        gettext_lazy("mail schedule changes"),
        default=True,
        help_text=gettext_lazy(
            "Turned off when the speaker unsubscribes from a schedule-change mail."
        ),
    )
    # Schedules list organisations (“Forum für Freiraum”) and hosts as speakers of several
    # parallel sessions; only a person can be in one place at a time.
    appears_in_parallel = models.BooleanField(
        gettext_lazy("organisation or host"),
        default=False,
        help_text=gettext_lazy(
            "An organisation or host that may be listed on sessions running at the same "
            "time; a person may not."
        ),
    )
    profile_locked = models.BooleanField(
        gettext_lazy("profile locked"),
        default=False,
        db_default=False,
        help_text=gettext_lazy(
            "The speaker can no longer edit their profile on the site (organizers still can)."
        ),
    )
    # When the speaker last opened “My talks”: the releases after it are new to them. Written
    # by a bulk update that moves neither the version nor the conference's changed_at.
    talks_seen_at = models.DateTimeField(
        null=True, blank=True, editable=False, verbose_name=gettext_lazy("talks seen at")
    )
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=gettext_lazy("created at"))
    updated_at = models.DateTimeField(auto_now=True, verbose_name=gettext_lazy("updated at"))

    objects = SpeakerQuerySet.as_manager()

    class Meta:
        verbose_name = gettext_lazy("speaker")
        verbose_name_plural = gettext_lazy("speakers")
        ordering = ["conference", "name"]
        constraints = [
            models.UniqueConstraint(
                fields=["conference", "slug"],
                name="speaker_slug_unique_per_conference",
                violation_error_message=gettext_lazy(
                    "This conference already has a speaker with this slug."
                ),
            ),
            models.UniqueConstraint(
                fields=["conference", "guid"],
                name="speaker_guid_unique_per_conference",
                violation_error_message=gettext_lazy(
                    "This conference already has a speaker with this GUID."
                ),
            ),
            models.UniqueConstraint(
                fields=["conference", "user"],
                name="speaker_user_once_per_conference",
                violation_error_message=gettext_lazy(
                    "This account is already linked to another speaker of this conference."
                ),
            ),
        ]

    def __str__(self):
        return self.name

    def save(self, *args, **kwargs):
        # A new photo, from whichever form or API: saved afresh, without its metadata.
        if self.photo and not self.photo._committed:
            self.photo = reencoded_image(self.photo) or self.photo
        super().save(*args, **kwargs)

    def get_absolute_url(self):
        return reverse_slugs(
            "speakers:speaker-detail", conference_slug=self.conference.slug, slug=self.slug
        )

    def natural_key(self):
        return (self.conference.slug, self.slug)

    natural_key.dependencies = ["conference.conference"]

    def displayed_values(self) -> dict[str, str]:
        """Its fields and, as its change form edits them too, its links and availability."""
        links = "; ".join(f"{link.title}: {link.url}" for link in self.links.all())
        availability = "; ".join(window.local_times for window in self.availability_windows)
        return {**super().displayed_values(), "links": links, "availability": availability}

    @property
    def availability_windows(self) -> list[models.Model]:
        """The availability windows (Availability, in availability.py, which imports this
        module) in order; uses ``availability_prefetch()`` when present."""
        if hasattr(self, "prefetched_availability"):
            return self.prefetched_availability
        return list(self.availability.all())

    def is_available(self, starts_at: datetime.datetime, ends_at: datetime.datetime) -> bool:
        """Whether the speaker can be on stage from ``starts_at`` to ``ends_at``.

        Without availability windows, always. With them, when the time lies whole within one
        window; windows that touch or overlap count as one (10–12 and 12–14 cover 11–13). Reads
        ``availability_windows``, so a prefetch serves any number of calls.
        """
        windows = self.availability_windows
        if not windows:
            return True
        covered: list[list[datetime.datetime]] = []  # the windows merged, in order
        for window in windows:  # by start (Availability.Meta.ordering)
            if covered and window.starts_at <= covered[-1][1]:
                covered[-1][1] = max(covered[-1][1], window.ends_at)
            else:
                covered.append([window.starts_at, window.ends_at])
        return any(start <= starts_at and ends_at <= end for start, end in covered)

    @property
    def photo_url(self) -> str:
        if not self.photo:
            return ""
        return reverse(
            "speakers:speaker-photo",
            kwargs={"conference_slug": self.conference.slug, "slug": self.slug},
        )

    @property
    def initials(self) -> str:
        """The first letters of the first and last words of the name: “Jan van Lunteren” is JL."""
        letters = [next((c for c in word if c.isalnum()), "") for word in self.name.split()]
        letters = [letter for letter in letters if letter]
        if not letters:
            return "?"
        return (letters[0] + letters[-1] if len(letters) > 1 else letters[0]).upper()

    @property
    def avatar_class(self) -> str:
        """One of the avatar colours, always the same for a name (CRC-32: stable everywhere).

        A class, not a style attribute: the Content-Security-Policy forbids inline styles.
        """
        return f"avatar-{zlib.crc32(self.name.casefold().encode()) % AVATAR_COLOURS}"

    @property
    def affiliation(self) -> str:
        """“Role, Company” as schedules print it under a name."""
        return ", ".join(part for part in (self.role, self.company) if part)


class FormerSpeakerSlug(FormerSlug):
    speaker = models.ForeignKey(
        Speaker,
        on_delete=models.CASCADE,
        related_name="former_slugs",
        verbose_name=gettext_lazy("speaker"),
    )

    class Meta:
        verbose_name = gettext_lazy("former speaker slug")
        verbose_name_plural = gettext_lazy("former speaker slugs")
        constraints = [
            models.UniqueConstraint(fields=["speaker", "slug"], name="former_speaker_slug_once")
        ]


class SpeakerPartQuerySet(ChangesConferenceQuerySet):
    conference_path = "speaker__conference"


class SpeakerLink(models.Model):
    speaker = models.ForeignKey(
        Speaker,
        on_delete=models.CASCADE,
        related_name="links",
        verbose_name=gettext_lazy("speaker"),
    )
    title = models.CharField(
        max_length=100,
        help_text=gettext_lazy("For example “Website”, “GitHub”, “Mastodon”."),
        verbose_name=gettext_lazy("title"),
    )
    url = models.URLField(gettext_lazy("URL"))
    position = models.PositiveSmallIntegerField(default=0, verbose_name=gettext_lazy("position"))

    objects = SpeakerPartQuerySet.as_manager()

    class Meta:
        verbose_name = gettext_lazy("speaker link")
        verbose_name_plural = gettext_lazy("speaker links")
        ordering = ["speaker", "position", "pk"]

    def __str__(self):
        return f"{self.title}: {self.url}"

import datetime
import itertools
import uuid
import zlib

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxLengthValidator
from django.db import models, transaction
from django.db.models import Q
from django.db.models.functions import Coalesce
from django.urls import reverse
from django.utils import timezone
from django.utils.dates import WEEKDAYS_ABBR
from django.utils.formats import date_format
from django.utils.translation import gettext, gettext_lazy

from conference.i18n.timezones import time_range
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
        accepted_at = (
            SpeakerInvitation.objects.filter(
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
    def availability_windows(self) -> list["Availability"]:
        """The availability windows in order; uses ``availability_prefetch()`` when present."""
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


def availability_prefetch() -> models.Prefetch:
    """The speakers' availability windows in order, with one query for any number of speakers.

    A plain list (``Speaker.availability_windows``), not a prefetched manager: Django builds a
    queryset per speaker for the latter, once per speaker the planner checks.
    """
    return models.Prefetch(
        "availability", queryset=Availability.objects.all(), to_attr="prefetched_availability"
    )


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


# Plenty for any speaker: a cap on the work one form or request can ask for (each window is
# validated).
MAX_AVAILABILITY_WINDOWS = 100


class Availability(models.Model):
    """A time the speaker can give sessions. A speaker without any is available at any time.

    The planner warns about a session outside its speakers' availability (sessions/warnings.py);
    it never refuses one: organizers may have agreed otherwise with the speaker.
    """

    speaker = models.ForeignKey(
        Speaker,
        on_delete=models.CASCADE,
        related_name="availability",
        verbose_name=gettext_lazy("speaker"),
    )
    starts_at = models.DateTimeField(gettext_lazy("from"))
    ends_at = models.DateTimeField(gettext_lazy("until"))

    objects = SpeakerPartQuerySet.as_manager()

    class Meta:
        ordering = ["starts_at", "ends_at", "pk"]
        verbose_name = gettext_lazy("availability window")
        verbose_name_plural = gettext_lazy("availability windows")
        constraints = [
            models.CheckConstraint(
                condition=models.Q(ends_at__gt=models.F("starts_at")),
                name="availability_ends_after_it_starts",
                violation_error_message=gettext_lazy(
                    "An availability window must end after it starts."
                ),
            ),
        ]

    def __str__(self):
        return f"{self.speaker}: {self.local_times}"

    def clean(self):
        if self.starts_at is None or self.ends_at is None:
            return  # the missing field reports itself
        if self.ends_at <= self.starts_at:
            raise ValidationError(
                {"ends_at": gettext("An availability window must end after it starts.")}
            )
        # A row of a speaker being added holds the unsaved speaker; a tampered admin row neither.
        has_speaker = self.speaker_id is not None or Availability.speaker.is_cached(self)
        if not has_speaker or self.speaker.conference_id is None:
            return
        conference = self.speaker.conference
        if self.starts_at < conference.opens_at or self.ends_at > conference.closes_at:
            first, last = (
                date_format(day, "l j F Y") for day in (conference.starts_on, conference.ends_on)
            )
            raise ValidationError(
                {
                    "starts_at": gettext(
                        "%(conference)s runs from %(first)s to %(last)s (%(zone)s); an "
                        "availability window must lie within those days."
                    )
                    % {
                        "conference": conference,
                        "first": first,
                        "last": last,
                        "zone": conference.time_zone,
                    }
                }
            )

    @property
    def local_times(self) -> str:
        """“Wed 10:00–12:00 CEST”, in the conference's zone."""
        zone = self.speaker.conference.tz
        # What date_format(…, "D") gives, without its parsing of the format: the planner lists many.
        day = WEEKDAYS_ABBR[timezone.localtime(self.starts_at, zone).weekday()]
        return f"{day} {time_range(self.starts_at, self.ends_at, zone)}"


def overlapping_windows(windows) -> tuple[Availability, Availability] | None:
    """Two of a speaker's ``windows`` that share more than an instant, the earlier first; None
    when none do. Windows that only touch (10–12 and 12–14) do not overlap.

    Sorted by start, any overlap shows between neighbours: a window overlapping a later one also
    overlaps the next after it.
    """
    ordered = sorted(windows, key=lambda window: (window.starts_at, window.ends_at))
    for earlier, later in itertools.pairwise(ordered):
        if later.starts_at < earlier.ends_at:
            return earlier, later
    return None


def refuse_overlapping_windows(windows, zone: datetime.tzinfo) -> None:
    """The rule every writer of a speaker's windows (their page, the admin, the API) applies to
    the whole set it saves: a ValidationError naming two that overlap, on ``zone``'s clocks."""
    overlap = overlapping_windows(windows)
    if overlap is None:
        return
    earlier, later = (
        f"{date_format(timezone.localtime(window.starts_at, zone), 'l j F')}, "
        f"{time_range(window.starts_at, window.ends_at, zone)}"
        for window in overlap
    )
    raise ValidationError(
        gettext(
            "Two windows overlap: %(earlier)s and %(later)s. Join them into one window, "
            "or change one so they no longer overlap."
        )
        % {"earlier": earlier, "later": later},
        code="overlapping_windows",
    )


class SpeakerInvitationQuerySet(models.QuerySet):
    def pending(self):
        """Invitations nobody has accepted yet."""
        return self.filter(accepted_at__isnull=True)


class SpeakerInvitation(models.Model):
    """An organizer's invitation to link an account to a speaker (speakers/invitations.py).

    The mailed link carries this row's id, signed with a timestamp; the row records who invited
    whom, and ``accepted_at`` makes the link single-use. Only an account whose confirmed address
    is ``email`` accepts it, unless the inviter made it ``forwardable``.
    """

    speaker = models.ForeignKey(
        Speaker,
        on_delete=models.CASCADE,
        related_name="invitations",
        verbose_name=gettext_lazy("speaker"),
    )
    email = models.EmailField(verbose_name=gettext_lazy("email"))
    # Without it, only an account whose confirmed address is ``email`` may accept: a link that
    # reaches someone else (a shared inbox, a colleague who invited themselves) links nobody.
    forwardable = models.BooleanField(
        gettext_lazy("may be forwarded"),
        default=False,
        help_text=gettext_lazy(
            "Anyone holding the link may accept it, not only an account that confirmed the "
            "invited address."
        ),
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=gettext_lazy("created by"),
    )
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=gettext_lazy("created at"))
    accepted_at = models.DateTimeField(
        null=True, blank=True, verbose_name=gettext_lazy("accepted at")
    )
    accepted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=gettext_lazy("accepted by"),
    )

    objects = SpeakerInvitationQuerySet.as_manager()

    class Meta:
        verbose_name = gettext_lazy("speaker invitation")
        verbose_name_plural = gettext_lazy("speaker invitations")
        ordering = ["-created_at", "-pk"]

    def __str__(self):
        return f"{self.speaker} ({self.email})"


# A cap on what one proposal may carry: longer than any abstract or description a schedule shows.
PROPOSAL_TEXT_MAX_LENGTH = 20_000


def same_text(text: str) -> str:
    """``text`` as compared: its line endings as ``\n``, without the spaces around it."""
    return text.replace("\r\n", "\n").replace("\r", "\n").strip()


class ChangeProposalQuerySet(models.QuerySet):
    def pending(self):
        return self.filter(state=SessionChangeProposal.State.PENDING)

    def of_conference(self, conference):
        return self.filter(session__conference=conference)


class SessionChangeProposal(models.Model):
    """A speaker's proposal of a new title, abstract or description for a session of theirs.

    The organizers accept it, which writes the proposed texts into the session through its own
    ``full_clean()`` and ``save()`` (its version, the pages, the next release and the webhooks
    follow as for any edit), or refuse it, with a message if they like. A speaker has at most one
    pending proposal per session. The texts are kept as typed; Markdown is cleaned where shown
    (conference/markup.py), as the session's own.

    What the session said when the proposal was made is kept beside it (``original_*``): only
    the fields the speaker changed are written on acceptance, so an organizer's edit of the
    others meanwhile stays.
    """

    class State(models.TextChoices):
        PENDING = "pending", gettext_lazy("waiting for the organizers")
        ACCEPTED = "accepted", gettext_lazy("accepted")
        REFUSED = "refused", gettext_lazy("refused")

    # The session's texts a speaker may propose, in the order shown.
    FIELDS = ("title", "abstract", "description")

    session = models.ForeignKey(
        "schedule.Session",
        on_delete=models.CASCADE,
        related_name="change_proposals",
        verbose_name=gettext_lazy("session"),
    )
    speaker = models.ForeignKey(
        Speaker,
        on_delete=models.CASCADE,
        related_name="change_proposals",
        verbose_name=gettext_lazy("speaker"),
    )
    title = models.CharField(gettext_lazy("proposed title"), max_length=300)
    abstract = models.TextField(
        gettext_lazy("proposed abstract"),
        blank=True,
        validators=[MaxLengthValidator(PROPOSAL_TEXT_MAX_LENGTH)],
    )
    description = models.TextField(
        gettext_lazy("proposed description"),
        blank=True,
        validators=[MaxLengthValidator(PROPOSAL_TEXT_MAX_LENGTH)],
    )
    original_title = models.CharField(
        gettext_lazy("title when proposed"), max_length=300, blank=True
    )
    original_abstract = models.TextField(gettext_lazy("abstract when proposed"), blank=True)
    original_description = models.TextField(gettext_lazy("description when proposed"), blank=True)
    state = models.CharField(
        gettext_lazy("state"), max_length=10, choices=State.choices, default=State.PENDING
    )
    message = models.TextField(
        gettext_lazy("message to the speaker"),
        blank=True,
        max_length=2000,
        validators=[MaxLengthValidator(2000)],
        help_text=gettext_lazy("Optional; mailed to the speaker with your decision."),
    )
    created_at = models.DateTimeField(gettext_lazy("proposed at"), auto_now_add=True)
    decided_at = models.DateTimeField(gettext_lazy("decided at"), null=True, blank=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=gettext_lazy("decided by"),
    )

    objects = ChangeProposalQuerySet.as_manager()

    class Meta:
        verbose_name = gettext_lazy("change proposal")
        verbose_name_plural = gettext_lazy("change proposals")
        ordering = ["-created_at", "-pk"]
        constraints = [
            # The backstop of clean()'s rule, for two saves at once.
            models.UniqueConstraint(
                fields=["session", "speaker"],
                condition=Q(state="pending"),
                name="one_pending_change_proposal_per_session_and_speaker",
                violation_error_message=gettext_lazy(
                    "You already proposed a change to this session: wait for the organizers' "
                    "answer before proposing another."
                ),
            ),
        ]

    def __str__(self):
        return gettext("%(speaker)s on “%(session)s”") % {
            "speaker": self.speaker,
            "session": self.original_title or self.session,
        }

    @property
    def conference(self):
        """The conference of its session: the admin shows its times in that zone."""
        return self.session.conference

    @classmethod
    def of(cls, session, speaker) -> "SessionChangeProposal":
        """A new proposal for ``session`` by ``speaker``, starting from the session's texts."""
        texts = {name: getattr(session, name) for name in cls.FIELDS}
        return cls(
            session=session,
            speaker=speaker,
            **texts,
            **{f"original_{name}": value for name, value in texts.items()},
        )

    @property
    def changed_fields(self) -> list[str]:
        """The fields the speaker changed, of ``FIELDS``: a text that differs only in the spaces
        around it or in its line endings (a browser sends CRLF) is unchanged."""
        return [
            name
            for name in self.FIELDS
            if same_text(getattr(self, name)) != same_text(getattr(self, f"original_{name}"))
        ]

    @property
    def is_pending(self) -> bool:
        return self.state == self.State.PENDING

    def clean(self):
        if not self.session_id or not self.speaker_id:
            return
        if not self._state.adding:
            return  # being decided: what held when it was made needs no asking again
        if not self.changed_fields:
            raise ValidationError(
                gettext("Nothing is changed: change the title, abstract or description first."),
                code="unchanged",
            )
        if not self.session.speakers.filter(pk=self.speaker_id).exists():
            raise ValidationError(
                gettext("Only a speaker of a session may propose changes to it."),
                code="not_a_speaker",
            )
        if self.is_pending:
            others = SessionChangeProposal.objects.pending().filter(
                session=self.session_id, speaker=self.speaker_id
            )
            if others.exists():
                raise ValidationError(
                    gettext(
                        "You already proposed a change to this session: wait for the "
                        "organizers' answer before proposing another."
                    ),
                    code="pending",
                )

    def session_as_accepted(self, *, lock: bool = False):
        """The session as stored, with the changed texts in, checked by its ``full_clean()``
        (a ValidationError when it refuses them); not saved."""
        sessions = type(self.session)._default_manager.select_related("conference")
        if lock:
            sessions = sessions.select_for_update()
        session = sessions.get(pk=self.session_id)
        for name in self.changed_fields:
            setattr(session, name, getattr(self, name))
        session.full_clean()
        return session

    def accept(self, by, message: str = "") -> list[str]:
        """Write the changed texts into the session, through its validation and save (its
        version, pages, release and webhooks follow); returns the changed fields. Refused
        (ValidationError) when no longer pending, or when the session refuses the texts; then
        nothing is written."""
        with transaction.atomic():
            proposal = self.decidable()
            proposal.session_as_accepted(lock=True).save()
            self.decide(proposal, self.State.ACCEPTED, by, message)
        return proposal.changed_fields

    def refuse(self, by, message: str = "") -> None:
        """Refuse it, leaving the session as it is. Refused when no longer pending."""
        with transaction.atomic():
            self.decide(self.decidable(), self.State.REFUSED, by, message)

    def decidable(self) -> "SessionChangeProposal":
        """This proposal locked, as stored; a ValidationError if it was decided meanwhile."""
        proposal = SessionChangeProposal.objects.select_for_update().get(pk=self.pk)
        if not proposal.is_pending:
            raise ValidationError(
                gettext("This proposal was already %(state)s.")
                % {"state": proposal.get_state_display()},
                code="decided",
            )
        return proposal

    def decide(self, proposal, state: str, by, message: str) -> None:
        proposal.state, proposal.message = state, message
        proposal.decided_at, proposal.decided_by = timezone.now(), by
        proposal.full_clean()
        proposal.save()
        for name in ("state", "message", "decided_at", "decided_by"):
            setattr(self, name, getattr(proposal, name))

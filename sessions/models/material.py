"""What a session links to and the files it offers: slides, videos, material."""

import contextlib
from datetime import timedelta
from urllib.parse import urlsplit

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q
from django.template.defaultfilters import filesizeformat
from django.urls import reverse
from django.utils.text import slugify
from django.utils.translation import gettext, gettext_lazy, ngettext, pgettext_lazy

from conference.accounts.limits import Limit
from conference.models import ChangesConferenceQuerySet
from conference.uploads import FileKindValidator, RandomName, kind_of_stored_name


class SessionPartQuerySet(ChangesConferenceQuerySet):
    conference_path = "session__conference"


class AttachmentQuerySet(SessionPartQuerySet):
    def available(self):
        """Attachments attendees can open: with a file or a URL, not only announced by title."""
        return self.exclude(file="", url="")

    def removable_by_speakers_of(self, session):
        """Attachments of ``session`` that its speakers may remove: those added by an account
        linked to one of its speakers (they or a co-speaker), never the organizers' or an
        import's (``added_by`` empty, or an account that gives none of its sessions)."""
        return self.filter(
            session=session,
            added_by__in=session.speakers.filter(user__isnull=False).values("user"),
        )


class SessionLink(models.Model):
    """A link about a session: its recording, a blog post, the project it presents."""

    class Kind(models.TextChoices):
        # The types of links and attachments the c3voc JSON schema names.
        RELATED = "related", pgettext_lazy("link kind", "Related")
        SLIDES = "slides", pgettext_lazy("link kind", "Slides")
        PAPER = "paper", pgettext_lazy("link kind", "Paper")
        WEB = "web", pgettext_lazy("link kind", "Web")
        BLOG = "blog", pgettext_lazy("link kind", "Blog")
        ARTICLE = "article", pgettext_lazy("link kind", "Article")
        MEDIA = "media", pgettext_lazy("link kind", "Media")
        ACTIVITYPUB = "activitypub", pgettext_lazy("link kind", "ActivityPub")

    session = models.ForeignKey(
        "schedule.Session",
        on_delete=models.CASCADE,
        related_name="links",
        verbose_name=gettext_lazy("session"),
    )
    title = models.CharField(max_length=300, blank=True, verbose_name=gettext_lazy("title"))
    url = models.URLField(gettext_lazy("URL"), max_length=500)
    # Free text, as schedule.xml allows; exports name it only when it is one of Kind.
    kind = models.CharField(
        gettext_lazy("type"),
        max_length=20,
        blank=True,
        help_text=gettext_lazy("For example slides."),
    )
    position = models.PositiveSmallIntegerField(default=0, verbose_name=gettext_lazy("position"))

    objects = SessionPartQuerySet.as_manager()

    class Meta:
        verbose_name = gettext_lazy("session link")
        verbose_name_plural = gettext_lazy("session links")
        ordering = ["position", "pk"]

    def __str__(self):
        return self.title or self.url


class Attachment(models.Model):
    """Slides and other material: an uploaded file or a link.

    An attachment may be announced by name before its file arrives; it is then listed without a link.
    """

    session = models.ForeignKey(
        "schedule.Session",
        on_delete=models.CASCADE,
        related_name="attachments",
        verbose_name=gettext_lazy("session"),
    )
    title = models.CharField(max_length=200, verbose_name=gettext_lazy("title"))
    file = models.FileField(
        upload_to=RandomName("attachments", "file"),
        blank=True,
        validators=[FileKindValidator("slides", max_bytes=50 * 1024 * 1024)],
        help_text=gettext_lazy(
            "PDF, PowerPoint, OpenDocument presentation or image; 50 MB at most."
        ),
        verbose_name=gettext_lazy("file"),
    )
    url = models.URLField(gettext_lazy("URL"), blank=True, max_length=500)
    kind = models.CharField(
        gettext_lazy("type"),
        max_length=20,
        blank=True,
        help_text=gettext_lazy("For example slides."),
    )
    position = models.PositiveSmallIntegerField(default=0, verbose_name=gettext_lazy("position"))
    # Set when a speaker adds it on their materials page; empty for the organizers' and imports'.
    added_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        editable=False,
        related_name="+",
        help_text=gettext_lazy(
            "The speaker's account that added it; empty when organizers or an import did."
        ),
        verbose_name=gettext_lazy("added by"),
    )

    objects = AttachmentQuerySet.as_manager()

    class Meta:
        verbose_name = gettext_lazy("attachment")
        verbose_name_plural = gettext_lazy("attachments")
        ordering = ["position", "pk"]
        constraints = [
            models.CheckConstraint(
                condition=Q(file="") | Q(url=""),
                name="attachment_has_file_or_url_not_both",
                violation_error_message=gettext_lazy(
                    "Give an attachment either a file or a URL, not both."
                ),
            ),
        ]

    def __str__(self):
        return self.title

    @property
    def is_available(self) -> bool:
        """Whether it can be opened (AttachmentQuerySet.available(), for one loaded row)."""
        return bool(self.file or self.url)

    @property
    def download_stem(self) -> str:
        """The name a downloaded file gets, before its kind's extension: its title as a slug."""
        return slugify(self.title) or "attachment"

    @property
    def what_it_is(self) -> str:
        """What attendees get, said beside its title: “my-talk.pdf, PDF, 2.3 MB” for a file,
        “link to docs.example.org” for a URL, or that there is neither yet."""
        if self.file:
            kind = kind_of_stored_name(self.file.name)
            facts = [f"{self.download_stem}.{kind.extension}", kind.name] if kind else []
            with contextlib.suppress(OSError, ValueError):  # gone from storage: say the rest
                facts.append(filesizeformat(self.file.size))
            return ", ".join(facts) or gettext("file")
        if self.url:
            host = urlsplit(self.url).hostname or self.url
            return gettext("link to %(host)s") % {"host": host.removeprefix("www.")}
        return gettext("announced, no file or link yet")

    @property
    def href(self) -> str:
        """Where attendees get it: our download view for a file (right type and name), else the URL."""
        if self.file:
            session = self.session
            return reverse(
                "sessions:attachment-download",
                kwargs={
                    "conference_slug": session.conference.slug,
                    "slug": session.slug,
                    "pk": self.pk,
                },
            )
        return self.url


# What speakers may upload on their materials page (speakers/views/materials.py); organizers,
# in the admin, are not bound. Per session: room for a deck in a few versions and formats, not
# for a file store. Per account and hour: a speaker with several talks uploads a few decks; a
# script refilling what it deletes stops here.
SPEAKER_FILES_PER_SESSION = 10
SPEAKER_BYTES_PER_SESSION = 200 * 1024 * 1024
SPEAKER_UPLOADS_PER_ACCOUNT = Limit("speaker-upload-account", 20, timedelta(hours=1))


def check_speaker_upload(session, user, size: int) -> None:
    """Refuse (ValidationError) a speaker's upload of ``size`` bytes that would take the files
    the session's speakers added past SPEAKER_FILES_PER_SESSION or SPEAKER_BYTES_PER_SESSION,
    or the account past SPEAKER_UPLOADS_PER_ACCOUNT; an upload within the session's bounds
    counts against the account's hour."""
    files = [
        attachment.file
        for attachment in Attachment.objects.filter(session=session, added_by__isnull=False)
        .exclude(file="")
        .only("file")
    ]
    if len(files) >= SPEAKER_FILES_PER_SESSION:
        raise ValidationError(
            ngettext(
                "This session already has %(count)d file from its speakers, the most it takes. "
                "Remove one to add another.",
                "This session already has %(count)d files from its speakers, the most it takes. "
                "Remove one to add another.",
                len(files),
            )
            % {"count": len(files)},
            code="too_many_files",
        )
    stored = 0
    for file in files:
        with contextlib.suppress(OSError, ValueError):  # gone from storage: takes no room
            stored += file.size
    if stored + size > SPEAKER_BYTES_PER_SESSION:
        raise ValidationError(
            gettext(
                "The files of this session's speakers would come to %(total)s; the limit is "
                "%(limit)s. Remove one, or upload a smaller file."
            )
            % {
                "total": filesizeformat(stored + size),
                "limit": filesizeformat(SPEAKER_BYTES_PER_SESSION),
            },
            code="session_files_too_large",
        )
    if not SPEAKER_UPLOADS_PER_ACCOUNT.allows(f"user:{user.pk}"):
        raise ValidationError(
            gettext("You uploaded many files in the last hour. Try again in %(minutes)s minutes.")
            % {"minutes": SPEAKER_UPLOADS_PER_ACCOUNT.minutes_left()},
            code="rate_limited",
        )

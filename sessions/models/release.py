"""Releases of a conference's schedule and the mails that announce them (sessions/releases.py
holds the publishing itself)."""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext, gettext_lazy

from conference.models import Conference
from conference.routing import reverse_slugs
from sessions.changes import SessionChange, changes_between
from speakers.models import Speaker


class Release(models.Model):
    """An announced checkpoint of a conference's public schedule (sessions/releases.py).

    The public pages stay live between releases; a release records what was public when the
    organizers announced it, so the changes between any two releases can still be told after
    the sessions changed again or were deleted.
    """

    conference = models.ForeignKey(
        Conference,
        on_delete=models.CASCADE,
        related_name="releases",
        verbose_name=gettext_lazy("conference"),
    )
    version = models.CharField(
        max_length=50,
        help_text=gettext_lazy("What exports and the change log call it, e.g. “v2”."),
        verbose_name=gettext_lazy("version"),
    )
    comment = models.TextField(
        blank=True,
        help_text=gettext_lazy("Shown to the public with the release's changes."),
        verbose_name=gettext_lazy("comment"),
    )
    released_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=gettext_lazy("released by"),
    )
    released_at = models.DateTimeField(verbose_name=gettext_lazy("released at"))
    # The public schedule as announced: releases.public_snapshot(), session id to its entry.
    snapshot = models.JSONField(default=dict, blank=True, verbose_name=gettext_lazy("snapshot"))

    class Meta:
        verbose_name = gettext_lazy("release")
        verbose_name_plural = gettext_lazy("releases")
        ordering = ["-released_at", "-pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["conference", "version"],
                name="release_version_unique_per_conference",
                violation_error_message=gettext_lazy(
                    "This conference already has a release of this name."
                ),
            ),
        ]

    def __str__(self):
        return f"{self.conference} {self.version}"

    def get_absolute_url(self):
        """Its entry on the conference's change log."""
        url = reverse_slugs("sessions:changes", conference_slug=self.conference.slug)
        return f"{url}#{self.anchor}"

    @property
    def anchor(self) -> str:
        """Its HTML id on the change log."""
        return f"release-{self.pk}"

    def previous(self) -> "Release | None":
        """The release of the same conference just before this one."""
        earlier = Q(released_at__lt=self.released_at) | Q(
            released_at=self.released_at, pk__lt=self.pk
        )
        return Release.objects.filter(earlier, conference=self.conference_id).first()

    def changes(self) -> list[SessionChange]:
        """What this release announced: its changes against the previous release (against
        nothing for the first)."""
        if hasattr(self, "prefetched_changes"):  # releases.prefetch_changes()
            return self.prefetched_changes
        previous = self.previous()
        return changes_between(previous.snapshot if previous else {}, self.snapshot)


class ReleaseMail(models.Model):
    """One mail about one release, to one attendee or one speaker (sessions/notifications.py).

    Written, one per recipient, before any mail goes out, and claimed (queued → sending) by the
    task that sends it: a task run twice, or two workers with the same batch, never mail anyone
    twice for one release. A mail whose sending failed goes back to queued for the next run.
    """

    class Status(models.TextChoices):
        QUEUED = "queued", gettext_lazy("Queued")
        SENDING = "sending", gettext_lazy("Sending")
        SENT = "sent", gettext_lazy("Sent")
        # Nothing to send when its turn came: mails turned off, address unverified, the
        # changed sessions no longer saved.
        SKIPPED = "skipped", gettext_lazy("Skipped")

    release = models.ForeignKey(
        Release,
        on_delete=models.CASCADE,
        related_name="mails",
        verbose_name=gettext_lazy("release"),
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=gettext_lazy("user"),
    )
    speaker = models.ForeignKey(
        Speaker,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=gettext_lazy("speaker"),
    )
    status = models.CharField(
        max_length=10,
        choices=Status.choices,
        default=Status.QUEUED,
        verbose_name=gettext_lazy("status"),
    )
    sent_at = models.DateTimeField(null=True, blank=True, verbose_name=gettext_lazy("sent at"))

    class Meta:
        verbose_name = gettext_lazy("release mail")
        verbose_name_plural = gettext_lazy("release mails")
        constraints = [
            models.UniqueConstraint(
                fields=["release", "user"],
                condition=Q(user__isnull=False),
                name="release_mail_once_per_user",
            ),
            models.UniqueConstraint(
                fields=["release", "speaker"],
                condition=Q(speaker__isnull=False),
                name="release_mail_once_per_speaker",
            ),
            models.CheckConstraint(
                condition=Q(user__isnull=True) ^ Q(speaker__isnull=True),
                name="release_mail_to_a_user_or_a_speaker",
            ),
        ]

    def __str__(self):
        return gettext("%(release)s mail to %(recipient)s") % {
            "release": self.release,
            "recipient": self.user or self.speaker,
        }

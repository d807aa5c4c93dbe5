"""What a syncing API client is told is gone (the API's ``removed/``)."""

import datetime

from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy

from conference.models import Conference
from conference.models.teams import preview_of


class RemovalQuerySet(models.QuerySet):
    def visible_to(self, user):
        """Removals ``user`` may learn of: all of the conferences their teams cover
        (``preview_of``), of the others only what was public.

        A draft deleted or never shown stays unknown to attendees, as it was while it existed.
        """
        preview = preview_of(user)
        if preview.everything:
            return self
        return self.filter(Q(was_public=True) | Q(conference__in=preview.conference_ids))

    def changed_since(self, moment: datetime.datetime):
        return self.filter(removed_at__gte=moment)

    def except_shown(self, sessions, speakers):
        """Without what ``sessions`` and ``speakers`` (what the client sees now) still show:
        a session hidden, then published again, is no longer removed for anyone."""
        return self.exclude(kind=Removal.Kind.SESSION, object_id__in=sessions.values("pk")).exclude(
            kind=Removal.Kind.SPEAKER, object_id__in=speakers.values("pk")
        )


class Removal(models.Model):
    """A session or speaker gone from a syncing API client's view: deleted, or no longer public.

    Written by sessions/signals.py, whatever deleted or hid it; read by the API's ``removed/``.
    """

    class Kind(models.TextChoices):
        SESSION = "session", gettext_lazy("Session")
        SPEAKER = "speaker", gettext_lazy("Speaker")

    class Reason(models.TextChoices):
        DELETED = "deleted", gettext_lazy("Deleted")
        HIDDEN = "hidden", gettext_lazy("No longer public")

    conference = models.ForeignKey(
        Conference,
        on_delete=models.CASCADE,
        related_name="removals",
        verbose_name=gettext_lazy("conference"),
    )
    kind = models.CharField(max_length=10, choices=Kind.choices, verbose_name=gettext_lazy("kind"))
    # The id the API showed; no slug or title, which a deleted draft must not reveal.
    object_id = models.PositiveBigIntegerField(verbose_name=gettext_lazy("object id"))
    reason = models.CharField(
        max_length=10, choices=Reason.choices, verbose_name=gettext_lazy("reason")
    )
    was_public = models.BooleanField(
        help_text=gettext_lazy("Attendees could see it just before."),
        verbose_name=gettext_lazy("was public"),
    )
    removed_at = models.DateTimeField(default=timezone.now, verbose_name=gettext_lazy("removed at"))

    objects = RemovalQuerySet.as_manager()

    class Meta:
        verbose_name = gettext_lazy("removal")
        verbose_name_plural = gettext_lazy("removals")
        indexes = [models.Index(fields=["conference", "removed_at"], name="removal_by_time")]

    def __str__(self):
        return f"{self.kind} {self.object_id} {self.reason} at {self.removed_at:%Y-%m-%d %H:%M}"

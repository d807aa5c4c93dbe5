"""A session's speakers in billing order (SessionSpeaker, the through model of
``Session.speakers``), with the rule that a speaker is in one place at a time."""

from django.core.exceptions import ValidationError
from django.db import models
from django.utils.translation import gettext, gettext_lazy

from sessions.models.material import SessionPartQuerySet
from sessions.models.session import Session
from speakers.models import Speaker


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

    objects = SessionPartQuerySet.as_manager()

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

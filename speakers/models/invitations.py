"""An organizer's invitation to link an account to a speaker (SpeakerInvitation); what accepting
it does is in speakers/invitations.py."""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy

from speakers.models.speaker import Speaker


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

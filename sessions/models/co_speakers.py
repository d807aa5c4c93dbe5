"""Co-speakers' invitations to a proposal (sessions/cfp/co_speakers.py mails and accepts them)."""

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext, gettext_lazy

from sessions.models.proposals import Proposal


class CoSpeakerInvitationQuerySet(models.QuerySet):
    def open(self):
        return self.filter(accepted_at__isnull=True, expires_at__gt=timezone.now())


class CoSpeakerInvitation(models.Model):
    """A speaker's invitation to another person to speak in their proposal, mailed as a link
    (sessions/cfp/co_speakers.py). As teams' invitations: the link's token is kept only as a
    digest, it works once and until it expires, and only the account that confirmed the invited
    address accepts it."""

    proposal = models.ForeignKey(
        Proposal,
        on_delete=models.CASCADE,
        related_name="invitations",
        verbose_name=gettext_lazy("proposal"),
    )
    email = models.EmailField(gettext_lazy("email"))
    invited_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        related_name="+",
        verbose_name=gettext_lazy("invited by"),
    )
    token_digest = models.CharField(max_length=64, unique=True, editable=False)
    created_at = models.DateTimeField(gettext_lazy("created at"), auto_now_add=True)
    expires_at = models.DateTimeField(gettext_lazy("expires at"))
    accepted_at = models.DateTimeField(gettext_lazy("accepted at"), null=True, blank=True)
    accepted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=gettext_lazy("accepted by"),
    )

    objects = CoSpeakerInvitationQuerySet.as_manager()

    class Meta:
        verbose_name = gettext_lazy("co-speaker invitation")
        verbose_name_plural = gettext_lazy("co-speaker invitations")
        ordering = ["-created_at", "-pk"]

    def __str__(self):
        return f"{self.email} → {self.proposal}"

    def clean(self):
        if self.proposal_id and self._state.adding:
            proposal = self.proposal
            speakers = proposal.proposal_speakers.count()
            pending = proposal.invitations.open().count()
            limit = proposal.conference.call.max_speakers
            if speakers + pending >= limit:
                raise ValidationError(
                    {
                        "email": gettext(
                            "A proposal has at most %(count)d speakers, invitations still "
                            "open included."
                        )
                        % {"count": limit}
                    }
                )
            if proposal.invitations.open().filter(email__iexact=self.email).exists():
                raise ValidationError({"email": gettext("This address is invited already.")})

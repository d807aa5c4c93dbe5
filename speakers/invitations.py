"""Inviting a speaker to link their own account: the invitation, its mail and its link.

The link carries the invitation's id signed with a timestamp (django.core.signing), so it
cannot be altered and stops working after ``settings.SPEAKER_INVITATION_MAX_AGE``; the
``SpeakerInvitation`` row makes it single-use and records who invited whom. The mail goes out
through the task worker, once the invitation is committed, like the account mails
(conference/accounts/mail.py), and counts against a per-address limit (conference/accounts/limits.py).

A link is accepted only by an account whose confirmed address is the invited one, unless the
inviter made it forwardable: then whoever holds it may, and its mail says so.
"""

from dataclasses import dataclass

from django.conf import settings
from django.core import signing
from django.core.exceptions import ValidationError
from django.db import transaction
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django_tasks import task

from conference.accounts.limits import SPEAKER_INVITATIONS_PER_ADDRESS, Limit
from conference.accounts.mail import absolute, templated_mail
from conference.models import has_confirmed_address
from speakers.models import Speaker, SpeakerInvitation

INVITATION_SALT = "speakers.invitations.accept"


class InvitationError(Exception):
    """A link that cannot be followed; ``status`` is the HTTP status its page answers with."""

    def __init__(self, title: str, message: str, status: int):
        super().__init__(message)
        self.title = title
        self.message = message
        self.status = status


def invitation_url(invitation: SpeakerInvitation) -> str:
    token = signing.dumps(invitation.pk, salt=INVITATION_SALT)
    path = reverse(
        "speakers:invitation",
        kwargs={"conference_slug": invitation.speaker.conference.slug, "token": token},
    )
    return absolute(path)


def read_invitation(token: str, conference_slug: str) -> SpeakerInvitation:
    """The pending invitation a link names, or InvitationError saying what is wrong with it."""
    try:
        pk = signing.loads(
            token,
            salt=INVITATION_SALT,
            max_age=settings.SPEAKER_INVITATION_MAX_AGE.total_seconds(),
        )
    except signing.SignatureExpired:
        raise InvitationError(
            _("This invitation has expired"),
            _("Invitation links work for %(days)s days. Ask the organizers to send you a new one.")
            % {"days": settings.SPEAKER_INVITATION_MAX_AGE.days},
            410,
        ) from None
    except (signing.BadSignature, ValueError, TypeError):
        raise InvitationError(
            _("This invitation link is not valid"),
            _(
                "The link was changed or cut short. Open it again from the invitation mail, "
                "or ask the organizers to send you a new one."
            ),
            400,
        ) from None
    invitation = (
        SpeakerInvitation.objects.select_related("speaker__conference")
        .filter(pk=pk if isinstance(pk, int) and not isinstance(pk, bool) else None)
        .first()
    )
    if invitation is None or invitation.speaker.conference.slug != conference_slug:
        raise InvitationError(
            _("This invitation no longer exists"),
            _("The organizers withdrew it. Ask them to send you a new one."),
            410,
        )
    if invitation.accepted_at is not None:
        raise InvitationError(
            _("This invitation has already been used"),
            _(
                "Each invitation link works once. If that was you, your speaker pages are in your "
                "account; if not, ask the organizers for a new invitation."
            ),
            410,
        )
    return invitation


def invite_speaker(
    speaker: Speaker, email: str, invited_by, *, forwardable: bool = False
) -> SpeakerInvitation | Limit:
    """Record an invitation of ``speaker`` to ``email`` and queue its mail once committed;
    ``forwardable``: anyone holding the link may accept it, not only that address's account.

    Refused with ValidationError when the speaker already has an account, or the address is
    the inviter's own; when too many invitations went to that address lately, nothing is
    recorded and the limit is returned.
    """
    if speaker.user_id is not None:
        raise ValidationError(
            _("%(speaker)s is already linked to an account.") % {"speaker": speaker}, code="linked"
        )
    if invited_by is not None and email.strip().lower() == (invited_by.email or "").lower():
        # An invitation to one's own address would link one's own account to the speaker.
        raise ValidationError(
            _("You cannot invite yourself; ask another organizer to."), code="self"
        )
    invitation = SpeakerInvitation(
        speaker=speaker, email=email, created_by=invited_by, forwardable=forwardable
    )
    invitation.full_clean()
    if not SPEAKER_INVITATIONS_PER_ADDRESS.allows(email.strip().lower()):
        return SPEAKER_INVITATIONS_PER_ADDRESS
    invitation.save()
    transaction.on_commit(lambda: send_invitation_mail.enqueue(invitation.pk))
    return invitation


@task()
def send_invitation_mail(invitation_id: int) -> bool:
    """Mail an invitation its link (in the background); nothing if it was accepted or withdrawn."""
    invitation = (
        SpeakerInvitation.objects.pending()
        .select_related("speaker__conference")
        .filter(pk=invitation_id)
        .first()
    )
    if invitation is None:
        return False
    conference = invitation.speaker.conference
    context = {
        "invitation": invitation,
        "speaker": invitation.speaker,
        "conference": conference,
        "accept_url": invitation_url(invitation),
        "days": settings.SPEAKER_INVITATION_MAX_AGE.days,
        "site_url": settings.SITE_URL,
    }
    with translation.override(conference.language):  # we know no other of the speaker's
        templated_mail(
            to=invitation.email,
            subject=_("%(conference)s: your speaker profile") % {"conference": conference.name},
            template="speakers/mail/invitation",
            context=context,
        ).send()
    return True


@dataclass(frozen=True)
class Accepted:
    speaker: Speaker
    already_linked: bool  # the same account had accepted another invitation of this speaker


def wrong_address(invitation: SpeakerInvitation, user) -> ValidationError | None:
    """Why ``user`` may not accept ``invitation``: it is not forwardable and their account's
    confirmed address is not the invited one. None if they may."""
    if invitation.forwardable or has_confirmed_address(user, invitation.email):
        return None
    if user.email.strip().lower() == invitation.email.strip().lower():
        message = _(
            "This invitation is for %(address)s, your account's address, which you have not "
            "confirmed yet. Follow the link we mailed you (or send it again from your account "
            "settings), then open this invitation again."
        )
    else:
        message = _(
            "This invitation was sent to %(address)s: only an account whose confirmed address "
            "is %(address)s can accept it. Log in with that account, or ask the organizers to "
            "invite this account's address."
        )
    return ValidationError(message % {"address": invitation.email}, code="wrong_address")


def accept_invitation(invitation: SpeakerInvitation, user) -> Accepted:
    """Link ``user``'s account to the invited speaker and use the invitation up.

    Refused (ValidationError, nothing written) when the account's confirmed address is not the
    invited one (unless the invitation is forwardable), when the speaker is linked to another
    account, or the account to another speaker of the same conference.
    """
    refused = wrong_address(invitation, user)
    if refused is not None:
        raise refused
    with transaction.atomic():
        speaker = Speaker.objects.select_for_update().get(pk=invitation.speaker_id)
        invitation = SpeakerInvitation.objects.select_for_update().get(pk=invitation.pk)
        if invitation.accepted_at is not None:
            raise ValidationError(_("This invitation has already been used."), code="used")
        if speaker.user_id is not None and speaker.user_id != user.pk:
            raise ValidationError(
                f"{speaker} is already linked to another account. If that is wrong, "
                "ask the organizers.",
                code="linked_elsewhere",
            )
        already_linked = speaker.user_id == user.pk
        if not already_linked:
            speaker.user = user
            # Only what this write changes: one speaker per account and conference.
            checked = {"conference", "user"}
            speaker.full_clean(
                exclude=[f.name for f in Speaker._meta.fields if f.name not in checked]
            )
            speaker.save()
        invitation.accepted_at = timezone.now()
        invitation.accepted_by = user
        invitation.save(update_fields=["accepted_at", "accepted_by"])
    return Accepted(speaker, already_linked)

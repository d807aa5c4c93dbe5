"""Co-speakers: a proposal's speakers invite others by mail, and the account whose confirmed
address was invited joins on accepting (docs/speakers.md, "Proposing a session").

The rules of every mailed invitation apply (conference/invitations.py): the link's token is kept
only as a digest, works once and for ``INVITATION_LIFETIME``, and only the account whose
confirmed address is the invited one may accept it; each inviter sends a few per hour. The call's
``max_speakers`` counts speakers and open invitations alike (``CoSpeakerInvitation.clean``).

Who does what: any speaker of the proposal invites, while its texts may still be written
(``Proposal.writing_refusal``); the proposer (the first speaker) removes co-speakers then, and
withdraws any open invitation, as its inviter may; a co-speaker leaves until the proposal is
confirmed, when its session carries them (the organizers change it there). The proposer stays.
An invitation sent before the deadline may be accepted after it, while its link works, unless
the proposal was withdrawn, declined or confirmed meanwhile.
"""

from dataclasses import dataclass, field

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Max, prefetch_related_objects
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django_tasks import task

from conference import invitations
from conference.accounts.limits import CO_SPEAKER_INVITATIONS_PER_INVITER, Limit
from conference.accounts.mail import absolute, templated_mail
from conference.invitations import (
    INVITATION_LIFETIME,
    InvitationError,
    link_token,
    save_with_token,
)
from conference.models.teams import hash_invitation_token
from sessions.models import CoSpeakerInvitation, Proposal, ProposalSpeaker

TOKEN_SALT = "sessions.cfp.co_speakers.invitation"
State = Proposal.State
# Proposals no one joins any more: gone, or their session made from the speakers they had.
CLOSED_TO_NEW_SPEAKERS = (State.WITHDRAWN, State.DECLINED, State.CONFIRMED)


def invitation_url(invitation: CoSpeakerInvitation) -> str:
    path = reverse(
        "cfp-co-speaker-invitation",
        kwargs={
            "conference_slug": invitation.proposal.conference.slug,
            "token": link_token(TOKEN_SALT, invitation),
        },
    )
    return absolute(path)


def proposer_of(proposal: Proposal) -> ProposalSpeaker | None:
    """The speaker who proposed: the first one (read from the proposal's loaded speakers)."""
    return next(iter(proposal.proposal_speakers.all()), None)


def speaker_name(proposal: Proposal, user) -> str:
    """How ``user`` is named in ``proposal``, else their account's name."""
    for speaker in proposal.proposal_speakers.all():
        if user is not None and speaker.user_id == user.pk:
            return speaker.name
    if user is None:
        return _("A speaker")
    return user.get_full_name() or user.get_username()


# --- Inviting ---------------------------------------------------------------------------------


def invite_co_speaker(
    proposal: Proposal, email: str, invited_by, *, now=None, language: str | None = None
) -> CoSpeakerInvitation | Limit:
    """Record an invitation to speak in ``proposal`` for ``email`` and mail its link once
    committed, in ``language`` (the inviter's, by default the active one); ``now`` is the
    moment the proposal's deadline is judged at.

    ValidationError (keyed by field) says why not; when ``invited_by`` sent too many invitations
    this hour, nothing is recorded and the limit is returned, to say how long to wait.
    """
    now = now or timezone.now()
    email = (email or "").strip()
    language = language or translation.get_language() or settings.LANGUAGE_CODE
    with transaction.atomic():
        # One invitation at a time per proposal: two at once could both fit the last place.
        proposal = Proposal.objects.select_for_update().get(pk=proposal.pk)
        if not proposal.is_spoken_by(invited_by):
            raise ValidationError(_("Only the proposal's speakers invite co-speakers."))
        refusal = proposal.writing_refusal(now)
        if refusal:
            raise ValidationError(refusal, code="closed")
        if any(
            speaker.user.email.strip().lower() == email.lower()
            for speaker in proposal.proposal_speakers.select_related("user")
        ):
            raise ValidationError({"email": _("A speaker of the proposal has this address.")})
        invitation = CoSpeakerInvitation(
            proposal=proposal,
            email=email,
            invited_by=invited_by,
            # From the clock, not ``now``: a preview time (an organizer trying the call at
            # another moment) would make a link that expires in the real world too early or late.
            expires_at=timezone.now() + INVITATION_LIFETIME,
        )
        invitation.full_clean(exclude=["token_digest"])
        # Counted once the address is fine: a typo does not use an invitation up.
        if not CO_SPEAKER_INVITATIONS_PER_INVITER.allows(str(invited_by.pk)):
            return CO_SPEAKER_INVITATIONS_PER_INVITER
        save_with_token(invitation, TOKEN_SALT)
    transaction.on_commit(lambda: send_co_speaker_invitation_mail.enqueue(invitation.pk, language))
    return invitation


@task()
def send_co_speaker_invitation_mail(
    invitation_id: int, language: str = settings.LANGUAGE_CODE
) -> bool:
    """Mail an invitation its link (in the background); nothing if it was used, withdrawn or
    has expired meanwhile."""
    invitation = (
        CoSpeakerInvitation.objects.open()
        .select_related("proposal__conference", "invited_by")
        .filter(pk=invitation_id)
        .first()
    )
    if invitation is None:
        return False
    proposal = invitation.proposal
    with translation.override(language):
        inviter = speaker_name(proposal, invitation.invited_by)
        context = {
            "invitation": invitation,
            "proposal": proposal,
            "conference": proposal.conference,
            "inviter": inviter,
            "accept_url": invitation_url(invitation),
            "days": INVITATION_LIFETIME.days,
            "site_url": settings.SITE_URL,
        }
        templated_mail(
            to=invitation.email,
            subject=_("%(inviter)s invites you to speak with them at %(conference)s")
            % {"inviter": inviter, "conference": proposal.conference.name},
            template="cfp/mail/co_speaker_invitation",
            context=context,
        ).send()
    return True


def withdraw_co_speaker_invitation(invitation: CoSpeakerInvitation, by) -> None:
    """Withdraw an open invitation (its link stops working): its inviter or the proposer may."""
    proposal = invitation.proposal
    proposer = proposer_of(proposal)
    may = by.pk == invitation.invited_by_id or (proposer and proposer.user_id == by.pk)
    if not may:
        raise ValidationError(_("Only the proposer or whoever sent it withdraws an invitation."))
    if invitation.accepted_at is not None:
        raise ValidationError(_("This invitation has been accepted already."))
    invitation.delete()


# --- Accepting --------------------------------------------------------------------------------


def read_co_speaker_invitation(token: str, conference_slug: str) -> CoSpeakerInvitation:
    """The open invitation a link's token names in the conference ``conference_slug``, or
    InvitationError saying what is wrong."""
    invitation = (
        CoSpeakerInvitation.objects.select_related("proposal__conference", "invited_by")
        .filter(
            token_digest=hash_invitation_token(token),
            proposal__conference__slug=conference_slug,
        )
        .first()
    )
    if invitation is None:
        raise InvitationError(
            _("This invitation link is not valid"),
            _(
                "The link was changed or cut short, or the invitation was withdrawn. Open it "
                "again from the invitation mail, or ask the speaker who invited you to invite "
                "you again."
            ),
            404,
        )
    if invitation.accepted_at is not None:
        raise InvitationError(
            _("This invitation has already been used"),
            _(
                "Each invitation link works once. If that was you, you speak in the proposal "
                "already. If not, ask the speaker who invited you to invite you again."
            ),
            410,
        )
    if invitation.expires_at <= timezone.now():
        raise InvitationError(
            _("This invitation has expired"),
            _(
                "Invitation links work for %(days)s days. Ask the speaker who invited you to "
                "invite you again."
            )
            % {"days": INVITATION_LIFETIME.days},
            410,
        )
    return invitation


def wrong_account(invitation: CoSpeakerInvitation, user) -> InvitationError | None:
    """Why ``user`` may not accept ``invitation`` (``conference.invitations.wrong_account``)."""
    return invitations.wrong_account(
        invitation.email,
        user,
        _(
            "It was sent to %(address)s, and only an account whose confirmed address is "
            "%(address)s can accept it. Log in with that account, or ask the speaker who "
            "invited you to invite this account's address."
        ),
    )


def joining_refusal(proposal: Proposal, user) -> str:
    """Why ``user`` cannot join ``proposal`` as a speaker now; empty when they can."""
    if proposal.state in CLOSED_TO_NEW_SPEAKERS:
        return _("This proposal is %(state)s: no one joins it any more.") % {
            "state": proposal.get_state_display().lower()
        }
    speakers = list(proposal.proposal_speakers.all())
    if any(speaker.user_id == user.pk for speaker in speakers):
        return _("You speak in this proposal already.")
    limit = proposal.conference.call.max_speakers
    if len(speakers) >= limit:
        return _("This proposal has its %(count)d speakers already.") % {"count": limit}
    return ""


def accept_co_speaker_invitation(
    invitation: CoSpeakerInvitation, user, name: str, bio: str = ""
) -> ProposalSpeaker:
    """Make ``user`` the proposal's last speaker, named and presented as they wrote, and use the
    invitation up, in one transaction; InvitationError (nothing written) when the account is not
    the invited address's, the link was used meanwhile or the proposal takes no one more;
    ValidationError when the name or bio do not fit."""
    refused = wrong_account(invitation, user)
    if refused is not None:
        raise refused
    with transaction.atomic():
        proposal = Proposal.objects.select_for_update().get(pk=invitation.proposal_id)
        locked = CoSpeakerInvitation.objects.select_for_update().get(pk=invitation.pk)
        if locked.accepted_at is not None:
            raise InvitationError(
                _("This invitation has already been used"),
                _("Each invitation link works once."),
                410,
            )
        refusal = joining_refusal(proposal, user)
        if refusal:
            raise InvitationError(_("You cannot join this proposal"), refusal, 409)
        last = proposal.proposal_speakers.aggregate(last=Max("position"))["last"]
        speaker = ProposalSpeaker(
            proposal=proposal,
            user=user,
            name=(name or "").strip(),
            bio=(bio or "").strip(),
            position=0 if last is None else last + 1,
            language=ProposalSpeaker.active_language(),
        )
        speaker.full_clean()
        speaker.save()
        locked.accepted_at, locked.accepted_by = timezone.now(), user
        locked.save(update_fields=["accepted_at", "accepted_by"])
    return speaker


# --- Removing and leaving ---------------------------------------------------------------------


def removal_refusal(proposal: Proposal, speaker: ProposalSpeaker, by, now) -> str:
    """Why ``by`` cannot take ``speaker`` out of ``proposal`` at ``now``; empty when they can.
    The proposer removes co-speakers while the proposal may be written; a co-speaker leaves
    until the proposal is confirmed; nobody removes the proposer."""
    proposer = proposer_of(proposal)
    if speaker.proposal_id != proposal.pk:
        return _("This speaker is not one of the proposal's.")
    if proposer is not None and speaker.pk == proposer.pk:
        return _("The speaker who proposed stays: withdraw the proposal instead.")
    if speaker.user_id == by.pk:
        if proposal.state == State.CONFIRMED:
            return _("Its session is in the programme: ask the organizers to change it.")
        return ""
    if proposer is None or proposer.user_id != by.pk:
        return _("Only the speaker who proposed removes co-speakers.")
    return proposal.writing_refusal(now)


def remove_co_speaker(proposal: Proposal, speaker: ProposalSpeaker, by, now=None) -> None:
    """Take ``speaker`` out of ``proposal`` (the proposer removes them, or they leave), or raise
    ValidationError saying why not."""
    refusal = removal_refusal(proposal, speaker, by, now or timezone.now())
    if refusal:
        raise ValidationError(refusal, code="refused")
    speaker.delete()


# --- What a proposal's page shows of its speakers ----------------------------------------------


@dataclass
class CoSpeakerPanel:
    """A proposal's speakers and open invitations as ``viewer`` may see and change them at
    ``now`` (templates/cfp/includes/co_speakers.html): a fixed few queries, whatever the size."""

    proposal: Proposal
    speakers: list[ProposalSpeaker]
    invitations: list[CoSpeakerInvitation]
    viewer: ProposalSpeaker | None
    invite_refusal: str
    removable: frozenset[int] = field(default_factory=frozenset)

    @property
    def is_speaker(self) -> bool:
        return self.viewer is not None

    @property
    def proposer(self) -> ProposalSpeaker | None:
        return self.speakers[0] if self.speakers else None

    def may_remove(self, speaker: ProposalSpeaker) -> bool:
        return speaker.pk in self.removable

    def may_withdraw(self, invitation: CoSpeakerInvitation) -> bool:
        proposer = self.proposer
        return self.viewer is not None and (
            invitation.invited_by_id == self.viewer.user_id
            or (proposer is not None and proposer.pk == self.viewer.pk)
        )

    def inviter_name(self, invitation: CoSpeakerInvitation) -> str:
        for speaker in self.speakers:
            if speaker.user_id == invitation.invited_by_id:
                return speaker.name
        return _("a former speaker")


def co_speaker_panel(proposal: Proposal, user, now) -> CoSpeakerPanel:
    # Loaded once (unless the page did), for every rule below that reads the speakers.
    prefetch_related_objects([proposal], "proposal_speakers")
    speakers = list(proposal.proposal_speakers.all())
    viewer = next((s for s in speakers if user.is_authenticated and s.user_id == user.pk), None)
    if viewer is None:
        return CoSpeakerPanel(proposal, speakers, [], None, "")
    invitations = list(proposal.invitations.open().order_by("created_at", "pk"))
    invite_refusal = proposal.writing_refusal(now)
    limit = proposal.conference.call.max_speakers
    if not invite_refusal and len(speakers) + len(invitations) >= limit:
        invite_refusal = _(
            "A proposal has at most %(count)d speakers, invitations still open included."
        ) % {"count": limit}
    removable = frozenset(
        speaker.pk for speaker in speakers if not removal_refusal(proposal, speaker, user, now)
    )
    return CoSpeakerPanel(proposal, speakers, invitations, viewer, invite_refusal, removable)

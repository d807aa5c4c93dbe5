"""Joining a team: organizers invite by mail, and the account whose confirmed address was invited
accepts (docs/organizers.md, "Teams"; who may do what then: conference/permissions.py).

The link's token is never stored, only its digest, and works once until the invitation expires
(conference/invitations.py, what every mailed invitation shares).
"""

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django_tasks import task

from conference import invitations
from conference.accounts.limits import TEAM_INVITATIONS_PER_INVITER, Limit
from conference.accounts.mail import absolute, templated_mail
from conference.invitations import (
    INVITATION_LIFETIME,
    InvitationError,
    link_token,
    save_with_token,
)
from conference.models import Role, Team, TeamInvitation
from conference.models.teams import hash_invitation_token

TOKEN_SALT = "conference.teams.invitation"


def invitation_token(invitation: TeamInvitation) -> str:
    """The token of ``invitation``'s link, made again from the saved row (its id and creation)."""
    return link_token(TOKEN_SALT, invitation)


def invitation_url(invitation: TeamInvitation) -> str:
    path = reverse("team-invitation", kwargs={"token": invitation_token(invitation)})
    return absolute(path)


def invite_member(
    team: Team, email: str, invited_by, language: str | None = None
) -> TeamInvitation | Limit:
    """Record an invitation to ``team`` for ``email`` and mail its link once committed, in
    ``language`` (the inviter's, by default the active one: we know nothing of the invited).

    When ``invited_by`` sent too many invitations this hour, nothing is recorded and the limit
    is returned, to say how long to wait.
    """
    email = email.strip()
    if not TEAM_INVITATIONS_PER_INVITER.allows(str(invited_by.pk)):
        return TEAM_INVITATIONS_PER_INVITER
    language = language or translation.get_language() or settings.LANGUAGE_CODE
    invitation = TeamInvitation(
        team=team,
        email=email,
        invited_by=invited_by,
        expires_at=timezone.now() + INVITATION_LIFETIME,
    )
    invitation.full_clean(exclude=["token_digest"])
    save_with_token(invitation, TOKEN_SALT)
    transaction.on_commit(lambda: send_team_invitation_mail.enqueue(invitation.pk, language))
    return invitation


@task()
def send_team_invitation_mail(invitation_id: int, language: str = settings.LANGUAGE_CODE) -> bool:
    """Mail an invitation its link (in the background); nothing if it was used, withdrawn or
    has expired meanwhile."""
    invitation = (
        TeamInvitation.objects.open()
        .select_related("team", "invited_by")
        .filter(pk=invitation_id)
        .first()
    )
    if invitation is None:
        return False
    with translation.override(language):
        context = {
            "invitation": invitation,
            "team": invitation.team,
            "conferences": conferences_of(invitation.team),
            "roles": roles_of(invitation.team),
            "accept_url": invitation_url(invitation),
            "days": INVITATION_LIFETIME.days,
            "site_url": settings.SITE_URL,
        }
        templated_mail(
            to=invitation.email,
            subject=_("You are invited to join the team “%(team)s”") % {"team": invitation.team},
            template="conference/mail/team_invitation",
            context=context,
        ).send()
    return True


def conferences_of(team: Team) -> str:
    """The conferences a team covers, in words, for the invitation's mail and page."""
    if team.all_conferences:
        return _("every conference of the site")
    return ", ".join(str(c) for c in team.conferences.order_by("starts_on", "pk"))


def roles_of(team: Team) -> str:
    return ", ".join(str(Role(role).label) for role in Role.values if role in team.roles)


def read_team_invitation(token: str) -> TeamInvitation:
    """The open invitation a link's token names, or InvitationError saying what is wrong."""
    invitation = (
        TeamInvitation.objects.select_related("team")
        .filter(token_digest=hash_invitation_token(token))
        .first()
    )
    if invitation is None:
        raise InvitationError(
            _("This invitation link is not valid"),
            _(
                "The link was changed or cut short, or the invitation was withdrawn. Open it "
                "again from the invitation mail, or ask the organizers to invite you again."
            ),
            404,
        )
    if invitation.accepted_at is not None:
        raise InvitationError(
            _("This invitation has already been used"),
            _(
                "Each invitation link works once. If that was you, the team is yours already: "
                "open the admin. If not, ask the organizers to invite you again."
            ),
            410,
        )
    if invitation.expires_at <= timezone.now():
        raise InvitationError(
            _("This invitation has expired"),
            _("Invitation links work for %(days)s days. Ask the organizers to invite you again.")
            % {"days": INVITATION_LIFETIME.days},
            410,
        )
    return invitation


def wrong_account(invitation: TeamInvitation, user) -> InvitationError | None:
    """Why ``user`` may not accept ``invitation`` (``conference.invitations.wrong_account``)."""
    return invitations.wrong_account(
        invitation.email,
        user,
        _(
            "It was sent to %(address)s, and only an account whose confirmed address is "
            "%(address)s can accept it. Log in with that account, or ask the organizers to "
            "invite this account's address."
        ),
    )


def join_team(team: Team, user) -> None:
    """Make ``user`` a member of ``team``, and staff: is_staff lets them open the admin, and
    their teams decide the rest."""
    team.members.add(user)
    if not user.is_staff:
        get_user_model().objects.filter(pk=user.pk).update(is_staff=True)
        user.is_staff = True


def accept_team_invitation(invitation: TeamInvitation, user) -> Team:
    """Add ``user`` to the invited team and use the invitation up; InvitationError (nothing
    written) when the account is not the invited address's, or the link was used meanwhile."""
    refused = wrong_account(invitation, user)
    if refused is not None:
        raise refused
    with transaction.atomic():
        locked = (
            TeamInvitation.objects.select_for_update().select_related("team").get(pk=invitation.pk)
        )
        if locked.accepted_at is not None:
            raise InvitationError(
                _("This invitation has already been used"),
                _("Each invitation link works once."),
                410,
            )
        join_team(locked.team, user)
        locked.accepted_at, locked.accepted_by = timezone.now(), user
        locked.save(update_fields=["accepted_at", "accepted_by"])
    return locked.team

"""What every invitation mailed as a link shares: joining a team (conference/teams.py) and
speaking in a proposal (sessions/cfp/co_speakers.py).

The link's token is never stored: the row keeps its digest (``hash_invitation_token``), and the
token is an HMAC of the row under the secret key, so a mail task makes the link again from the
row's id without the token passing through the task queue's table. A database alone gives no
link; a link works until its row expires or is used, whichever comes first.
"""

import secrets
from datetime import timedelta

from django.db import models, transaction
from django.utils.crypto import salted_hmac
from django.utils.translation import gettext as _

from conference.models.accounts import has_confirmed_address
from conference.models.teams import hash_invitation_token

# How long a link works: long enough for a holiday, short enough that an old mail is harmless.
INVITATION_LIFETIME = timedelta(days=14)


class InvitationError(Exception):
    """A link that cannot be followed, or an account that may not accept it; ``status`` is the
    HTTP status its page answers with."""

    def __init__(self, title: str, message: str, status: int):
        super().__init__(message)
        self.title = title
        self.message = message
        self.status = status


def wrong_account(invited: str, user, another_address: str) -> InvitationError | None:
    """Why ``user`` may not accept an invitation sent to the address ``invited``: only the
    account whose confirmed address it is may (an address not yet confirmed is told so); None if
    they may. ``another_address``: what to tell an account of another address, with
    ``%(address)s`` for the invited one (whom to ask for a new invitation differs by kind)."""
    if has_confirmed_address(user, invited):
        return None
    if user.email.strip().lower() == invited.strip().lower():
        return InvitationError(
            _("Confirm your address first"),
            _(
                "This invitation is for %(address)s, your account's address, which you have not "
                "confirmed yet. Follow the link we mailed you (or send it again from your account "
                "settings), then open this invitation again."
            )
            % {"address": invited},
            403,
        )
    return InvitationError(
        _("This invitation is for another address"), another_address % {"address": invited}, 403
    )


def link_token(salt: str, invitation: models.Model) -> str:
    """The token of ``invitation``'s link, made again from the saved row (its id and creation);
    ``salt`` keeps one kind of invitation's tokens from opening another's."""
    value = f"{invitation.pk}:{invitation.created_at.isoformat()}"
    return salted_hmac(salt, value, algorithm="sha256").hexdigest()


def save_with_token(invitation: models.Model, salt: str) -> None:
    """Save a new, validated ``invitation`` with the digest of its link's token.

    The token is made from the row's id and time, known once saved: until then the row holds
    the digest of a random token no link carries.
    """
    with transaction.atomic():
        invitation.token_digest = hash_invitation_token(secrets.token_urlsafe(32))
        invitation.save()
        invitation.token_digest = hash_invitation_token(link_token(salt, invitation))
        invitation.save(update_fields=["token_digest"])

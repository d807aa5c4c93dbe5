"""A speaker's steps on their proposal, as the pages and the API take them: the model checks
each step (``Proposal.move_to``); submitting also counts against the account's hourly limit
(``PROPOSAL_SUBMISSIONS_PER_ACCOUNT``), so no account floods the reviewers by either door."""

from django.core.exceptions import ValidationError
from django.utils.translation import ngettext

from conference.accounts.limits import PROPOSAL_SUBMISSIONS_PER_ACCOUNT
from sessions.models import Proposal


def take_speaker_step(proposal: Proposal, state: str, *, by, now) -> None:
    """Move ``proposal`` to ``state`` for its speaker ``by``, or raise ValidationError (code
    ``throttled`` past the hourly limit of submissions) or EditConflictError."""
    if state == Proposal.State.SUBMITTED:
        limit = PROPOSAL_SUBMISSIONS_PER_ACCOUNT
        if not limit.allows(str(by.pk)):
            minutes = limit.minutes_left()
            raise ValidationError(
                ngettext(
                    "You have submitted many proposals in the last hour: try again in "
                    "%(minutes)d minute.",
                    "You have submitted many proposals in the last hour: try again in "
                    "%(minutes)d minutes.",
                    minutes,
                )
                % {"minutes": minutes},
                code="throttled",
            )
    proposal.move_to(state, by=by, now=now, by_speaker=True)

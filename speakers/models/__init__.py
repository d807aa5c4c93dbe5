"""The speakers app's models, a module per idea:

- ``speaker``: Speaker and its queries (SpeakerQuerySet: who may read whom, who is mailed),
  the former slugs that keep old links working (FormerSpeakerSlug), their links (SpeakerLink).
- ``availability``: when a speaker can give sessions (Availability), and the rule that no two
  of their windows overlap (``refuse_overlapping_windows``).
- ``invitations``: an organizer's invitation to link an account to a speaker
  (SpeakerInvitation).
- ``change_proposals``: a speaker's proposal of new texts for a session of theirs
  (SessionChangeProposal), accepted or refused by the organizers.

Everything is imported from here (``from speakers.models import Speaker``), as Django finds it.
"""

from speakers.models.availability import (
    MAX_AVAILABILITY_WINDOWS,
    Availability,
    availability_prefetch,
    overlapping_windows,
    refuse_overlapping_windows,
)
from speakers.models.change_proposals import (
    PROPOSAL_TEXT_MAX_LENGTH,
    ChangeProposalQuerySet,
    SessionChangeProposal,
    same_text,
)
from speakers.models.invitations import SpeakerInvitation, SpeakerInvitationQuerySet
from speakers.models.speaker import (
    AVATAR_COLOURS,
    FormerSpeakerSlug,
    Speaker,
    SpeakerLink,
    SpeakerPartQuerySet,
    SpeakerQuerySet,
    new_guid,
)

__all__ = [
    "AVATAR_COLOURS",
    "MAX_AVAILABILITY_WINDOWS",
    "PROPOSAL_TEXT_MAX_LENGTH",
    "Availability",
    "ChangeProposalQuerySet",
    "FormerSpeakerSlug",
    "SessionChangeProposal",
    "Speaker",
    "SpeakerInvitation",
    "SpeakerInvitationQuerySet",
    "SpeakerLink",
    "SpeakerPartQuerySet",
    "SpeakerQuerySet",
    "availability_prefetch",
    "new_guid",
    "overlapping_windows",
    "refuse_overlapping_windows",
    "same_text",
]

"""The schedule app's models (app label ``schedule``), a module per idea:

- ``session``: Session, its fields and booking rules; ``display``: what pages show of it;
  ``session_speaker``: its speakers in billing order (SessionSpeaker).
- ``queries``: SessionQuerySet, where the schedule's rules live.
- ``loaders``: what each page and export loads of sessions (``for_cards()`` and the like,
  mixed into SessionQuerySet), and the prefetches they share.
- ``choices``: the kinds, audience levels and statuses of sessions, and what pages call them;
  the order schedules list sessions in (SCHEDULE_ORDER).
- ``material``: a session's links and attachments (slides, videos).
- ``saved``: what attendees keep: saved sessions and calendar feeds.
- ``release``: releases of the schedule and the mails that announce them.
- ``schedule_import``: uploaded schedule files and what their last import said.
- ``removal``: what syncing API clients are told is gone.
- ``bookings``: the locks and deferred checks that keep rooms and speakers from being
  double-booked by concurrent writers.
- ``feedback``: attendees' ratings and their rules (the window, the save limit, averages).
- ``call``: a conference's call for proposals: its dates, kinds, tracks, questions, review
  scale and decision mails.
- ``proposals``: speakers' proposals, their speakers, answers and the
  steps from draft to session (``Proposal.move_to``); ``co_speakers``: invitations to speak
  in one; ``reviews``: reviewers' scores.

Everything is imported from here (``from sessions.models import Session``), as Django finds it.
"""

from sessions.models.bookings import locking_all, room_bookings_checked_at_end
from sessions.models.call import Call, CallKind, CallQuestion, DecisionMailTemplate
from sessions.models.choices import AUDIENCE_LEVEL_NAMES, KIND_NAMES, SCHEDULE_ORDER
from sessions.models.co_speakers import CoSpeakerInvitation
from sessions.models.feedback import Feedback
from sessions.models.loaders import attachments_prefetch, links_prefetch, ordered_speakers_prefetch
from sessions.models.material import Attachment, SessionLink
from sessions.models.proposals import (
    Proposal,
    ProposalAnswer,
    ProposalSpeaker,
    ProposalStateChange,
)
from sessions.models.queries import SessionQuerySet, StatusChange, public_session
from sessions.models.release import Release, ReleaseMail
from sessions.models.removal import Removal
from sessions.models.reviews import Review
from sessions.models.saved import PENDING_SAVE_KEY, CalendarFeed, SavedSession
from sessions.models.schedule_import import ImportedValues, ScheduleImport
from sessions.models.session import FormerSessionSlug, Session, new_guid
from sessions.models.session_speaker import SessionSpeaker

__all__ = [
    "AUDIENCE_LEVEL_NAMES",
    "KIND_NAMES",
    "PENDING_SAVE_KEY",
    "SCHEDULE_ORDER",
    "Attachment",
    "CalendarFeed",
    "Call",
    "CallKind",
    "CallQuestion",
    "CoSpeakerInvitation",
    "DecisionMailTemplate",
    "Feedback",
    "FormerSessionSlug",
    "ImportedValues",
    "Proposal",
    "ProposalAnswer",
    "ProposalSpeaker",
    "ProposalStateChange",
    "Release",
    "ReleaseMail",
    "Removal",
    "Review",
    "SavedSession",
    "ScheduleImport",
    "Session",
    "SessionLink",
    "SessionQuerySet",
    "SessionSpeaker",
    "StatusChange",
    "attachments_prefetch",
    "links_prefetch",
    "locking_all",
    "new_guid",
    "ordered_speakers_prefetch",
    "public_session",
    "room_bookings_checked_at_end",
]

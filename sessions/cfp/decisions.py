"""Organizers' decisions on proposals and speakers' answers to them: the one place where a
proposal's step changes what else exists (docs/organizers.md, "Deciding").

- ``decide()``: accept, wait-list or reject one proposal or many; each step is checked by
  ``Proposal.move_to`` and recorded. Taking back a confirmation removes the draft session it
  made (a published one stops the step: the session is the schedule's now).
- ``confirm()``: an accepted speaker confirms; the proposal becomes a ``Session`` (a draft, no
  time, no room, its length the call's for its kind) with the proposal's speakers as
  ``Speaker`` rows linked to their accounts, so it waits in the planner's unscheduled list.
- ``decline()``: an accepted (or confirmed) speaker declines.

The mails each step sends are ``sessions/cfp/mails.py``'s, enqueued once the step commits.
"""

from dataclasses import dataclass, field

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.text import slugify

from conference.versioning import EditConflictError
from sessions.cfp.mails import send_decision_mails
from sessions.models import Proposal, Session, SessionSpeaker
from sessions.models.proposals import DECISIONS
from speakers.models import Speaker

State = Proposal.State


@dataclass
class Outcome:
    """What a bulk decision did: the proposals that moved, and why the others did not."""

    moved: list[Proposal] = field(default_factory=list)
    refused: list[tuple[Proposal, str]] = field(default_factory=list)


def decide(proposals, state: str, *, by, now=None, note: str = "") -> Outcome:
    """Move each of ``proposals`` to the decision ``state``; each one in its own transaction, so
    one refused proposal leaves the others decided. Proposals already in ``state`` are left
    as they are (a bulk action run twice changes nothing)."""
    if state not in DECISIONS:
        raise ValueError(f"{state} is not a decision")
    now = now or timezone.now()
    outcome = Outcome()
    for proposal in proposals:
        if proposal.state == state:
            continue
        try:
            with transaction.atomic():
                was_confirmed = proposal.state == State.CONFIRMED
                proposal.move_to(state, by=by, now=now, by_speaker=False, note=note)
                if was_confirmed:
                    remove_draft_session(proposal)
        except ValidationError as refusal:
            outcome.refused.append((proposal, " ".join(refusal.messages)))
        except EditConflictError:
            outcome.refused.append((proposal, EDITED_MEANWHILE))
        else:
            outcome.moved.append(proposal)
            transaction.on_commit(
                lambda pk=proposal.pk, state=state: send_decision_mails.enqueue(pk, state)
            )
    return outcome


EDITED_MEANWHILE = "It changed meanwhile: look at it again."


def remove_draft_session(proposal: Proposal) -> None:
    """A confirmation taken back: its session, never published, goes (the step refused a
    published one)."""
    session = proposal.session
    if session is None:
        return
    proposal.session = None
    proposal.save(update_fields=["session", "updated_at", "version"])
    session.delete()


def confirm(proposal: Proposal, *, by, now=None) -> Session:
    """The accepted speaker ``by`` confirms: the proposal becomes a draft session in the
    planner's unscheduled list, its speakers linked to their accounts."""
    now = now or timezone.now()
    with transaction.atomic():
        proposal.move_to(State.CONFIRMED, by=by, now=now, by_speaker=True)
        session = session_of(proposal)
        proposal.session = session
        proposal.save(update_fields=["session", "updated_at", "version"])
    return session


def decline(proposal: Proposal, *, by, now=None) -> None:
    with transaction.atomic():
        was_confirmed = proposal.state == State.CONFIRMED
        proposal.move_to(State.DECLINED, by=by, now=now, by_speaker=True)
        if was_confirmed:
            remove_draft_session(proposal)


def session_of(proposal: Proposal) -> Session:
    """A new draft session carrying ``proposal``'s texts and speakers, through the session's
    own validation."""
    conference = proposal.conference
    offered = {kind.kind: kind for kind in conference.call.kinds.all()}
    session = Session(
        conference=conference,
        title=proposal.title,
        slug=free_slug(Session.objects.filter(conference=conference), proposal.title),
        kind=proposal.kind,
        track=proposal.track,
        abstract=proposal.abstract,
        description=proposal.description,
        audience_level=proposal.audience_level,
        language=proposal.language,
        status=Session.Status.DRAFT,
        planned_minutes=offered[proposal.kind].minutes if proposal.kind in offered else None,
    )
    session.full_clean()
    session.save()
    for position, proposal_speaker in enumerate(proposal.proposal_speakers.all()):
        speaker = speaker_for(conference, proposal_speaker)
        SessionSpeaker.objects.create(session=session, speaker=speaker, position=position)
    return session


def speaker_for(conference, proposal_speaker) -> Speaker:
    """The conference's speaker linked to the proposal speaker's account, made from what they
    wrote in the proposal when there is none yet.

    Its ``email`` stays empty: release mails reach a speaker through the linked account's
    confirmed address (``SpeakerQuerySet.with_reach``), read when each mail is sent, so they
    follow the account's address as it changes. ``email`` is the address organizers enter
    and is mailed as it is: copying the account's into it would freeze it, and would send to
    an address its owner never confirmed."""
    existing = Speaker.objects.filter(conference=conference, user=proposal_speaker.user).first()
    if existing is not None:
        return existing
    speaker = Speaker(
        conference=conference,
        name=proposal_speaker.name,
        slug=free_slug(Speaker.objects.filter(conference=conference), proposal_speaker.name),
        bio=proposal_speaker.bio,
        user=proposal_speaker.user,
    )
    speaker.full_clean()
    speaker.save()
    return speaker


def free_slug(queryset, text: str) -> str:
    """A slug made of ``text`` that no row of ``queryset`` has: ``title``, ``title-2``..."""
    base = (slugify(text) or "session")[:280]
    taken = set(queryset.filter(slug__startswith=base).values_list("slug", flat=True))
    slug, number = base, 1
    while slug in taken:
        number += 1
        slug = f"{base}-{number}"
    return slug

"""Deciding on proposals and confirming them: a confirmed proposal is a draft session in the
planner's unscheduled list (sessions/cfp/decisions.py)."""

import pytest
from django.core.exceptions import ValidationError

from sessions.cfp import decisions
from sessions.models import Proposal, Session
from speakers.models import Speaker
from tests.builders import make_call, make_proposal, make_speaker, make_track, paris

pytestmark = pytest.mark.django_db

State = Proposal.State
AFTER_CALL = paris(1, 0, month=2)


@pytest.fixture
def call(conference):
    return make_call(conference)


@pytest.fixture
def grace(django_user_model):
    return django_user_model.objects.create_user("grace", "grace@example.org", "pw-grace-1")


@pytest.fixture
def alan(django_user_model):
    return django_user_model.objects.create_user("alan", "alan@example.org", "pw-alan-1")


def test_a_bulk_decision_moves_each_proposal_and_says_why_others_did_not(
    call, grace, organizer, dummy_tasks
):
    first = make_proposal(call.conference, grace, state=State.SUBMITTED)
    second = make_proposal(call.conference, grace, state=State.SUBMITTED)
    withdrawn = make_proposal(call.conference, grace, state=State.WITHDRAWN)
    outcome = decisions.decide([first, second, withdrawn], State.ACCEPTED, by=organizer)
    assert outcome.moved == [first, second]
    assert [proposal for proposal, _ in outcome.refused] == [withdrawn]
    assert "withdrawn" in outcome.refused[0][1]
    assert set(Proposal.objects.values_list("state", flat=True)) == {
        State.ACCEPTED,
        State.WITHDRAWN,
    }


def test_a_confirmed_proposal_is_an_unscheduled_draft_session_with_its_speakers_linked(
    call, grace, alan, organizer, dummy_tasks
):
    track = make_track(call.conference, name="Compilers")
    call.tracks.add(track)
    existing = make_speaker(call.conference, name="Alan T.", user=alan)
    proposal = make_proposal(
        call.conference, grace, alan, state=State.ACCEPTED, title="Fast kernels", track=track
    )
    session = decisions.confirm(proposal, by=grace, now=AFTER_CALL)
    assert list(Session.objects.unscheduled()) == [session]
    assert (session.title, session.status, session.track, session.room) == (
        "Fast kernels",
        Session.Status.DRAFT,
        track,
        None,
    )
    assert session.planned_minutes == 30
    speakers = list(session.speakers.order_by("session_links__position"))
    assert speakers[1] == existing  # the account's speaker of this conference, not a copy
    assert (speakers[0].user, speakers[0].name) == (grace, "grace")
    assert Proposal.objects.get(pk=proposal.pk).session == session


def test_taking_back_a_confirmation_removes_its_draft_session(call, grace, organizer, dummy_tasks):
    proposal = make_proposal(call.conference, grace, state=State.ACCEPTED)
    session = decisions.confirm(proposal, by=grace, now=AFTER_CALL)
    proposal = Proposal.objects.get(pk=proposal.pk)
    outcome = decisions.decide([proposal], State.WAITLISTED, by=organizer)
    assert outcome.moved == [proposal]
    assert not Session.objects.filter(pk=session.pk).exists()
    assert Speaker.objects.filter(user=grace).exists()  # the speaker stays, without the session


def test_a_speaker_cannot_decline_once_the_session_is_published(call, grace, dummy_tasks):
    proposal = make_proposal(call.conference, grace, state=State.ACCEPTED)
    session = decisions.confirm(proposal, by=grace, now=AFTER_CALL)
    Session.objects.filter(pk=session.pk).update(
        starts_at=paris(7, 10), ends_at=paris(7, 10, 30), status=Session.Status.PUBLISHED
    )
    proposal = Proposal.objects.get(pk=proposal.pk)
    with pytest.raises(ValidationError, match="write to the organizers to cancel it"):
        decisions.decline(proposal, by=grace, now=AFTER_CALL)
    assert Session.objects.filter(pk=session.pk).exists()

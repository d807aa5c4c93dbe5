"""The call's and proposals' rules, as every front door meets them (sessions/models/call.py,
proposals.py, reviews.py) and who may do what with them (conference/permissions.py)."""

import pytest
from django.core.exceptions import ValidationError

from conference.versioning import EditConflictError
from sessions.models import CallQuestion, CoSpeakerInvitation, Proposal, ProposalAnswer, Review
from sessions.models.proposals import MAX_DRAFTS_PER_ACCOUNT
from tests.builders import make_call, make_proposal, make_session, make_team, paris

pytestmark = pytest.mark.django_db

State = Proposal.State
DURING_CALL = paris(15, 12, month=1)
AFTER_CALL = paris(1, 0, month=2)


@pytest.fixture
def call(conference):
    return make_call(conference)


@pytest.fixture
def speaker_account(django_user_model):
    return django_user_model.objects.create_user("grace", "grace@example.org", "pw-grace-1")


def account(django_user_model, name, **fields):
    return django_user_model.objects.create_user(
        name, f"{name}@example.org", f"pw-{name}-1", **fields
    )


def test_a_draft_is_submitted_before_the_deadline_and_the_step_is_recorded(call, speaker_account):
    proposal = make_proposal(call.conference, speaker_account)
    proposal.move_to(State.SUBMITTED, by=speaker_account, now=DURING_CALL, by_speaker=True)
    proposal.refresh_from_db()
    assert proposal.state == State.SUBMITTED
    assert proposal.submitted_at == DURING_CALL
    (step,) = proposal.state_changes.all()
    assert (step.from_state, step.to_state, step.changed_by) == (
        State.DRAFT,
        State.SUBMITTED,
        speaker_account,
    )


def test_after_the_deadline_nothing_is_submitted_or_edited_but_a_speaker_may_withdraw(
    call, speaker_account
):
    draft = make_proposal(call.conference, speaker_account)
    with pytest.raises(ValidationError, match="call for proposals is closed"):
        draft.move_to(State.SUBMITTED, by=speaker_account, now=AFTER_CALL, by_speaker=True)
    submitted = make_proposal(call.conference, speaker_account, state=State.SUBMITTED)
    assert "closed" in submitted.writing_refusal(AFTER_CALL)
    assert submitted.writing_refusal(DURING_CALL) == ""
    submitted.move_to(State.WITHDRAWN, by=speaker_account, now=AFTER_CALL, by_speaker=True)
    assert Proposal.objects.get(pk=submitted.pk).state == State.WITHDRAWN


def test_a_kind_with_its_own_deadline_closes_before_the_call(call, speaker_account):
    call.kinds.filter(kind="lightning-talk").update(closes_at=paris(10, 0, month=1))
    call = type(call).objects.get(pk=call.pk)
    lightning = make_proposal(call.conference, speaker_account, kind="lightning-talk")
    lightning.conference.call = call
    with pytest.raises(ValidationError, match="deadline for this kind"):
        lightning.move_to(State.SUBMITTED, by=speaker_account, now=DURING_CALL, by_speaker=True)
    assert call.is_open_for("talk", DURING_CALL)


def test_a_required_question_must_be_answered_before_submitting(call, speaker_account):
    question = CallQuestion.objects.create(
        call=call, text="Have you spoken before?", answer_type="yes-no", required=True
    )
    proposal = make_proposal(call.conference, speaker_account)
    with pytest.raises(ValidationError, match="Have you spoken before"):
        proposal.move_to(State.SUBMITTED, by=speaker_account, now=DURING_CALL, by_speaker=True)
    ProposalAnswer.objects.create(proposal=proposal, question=question, value="no")
    proposal.move_to(State.SUBMITTED, by=speaker_account, now=DURING_CALL, by_speaker=True)


def test_answers_are_checked_against_their_question(call):
    choice = CallQuestion(call=call, text="Room?", answer_type="choice", choices="Big\nSmall")
    choice.full_clean()
    choice.save()
    assert choice.check_answer(" Big ") == "Big"
    with pytest.raises(ValidationError, match="listed answers"):
        choice.check_answer("Huge")
    one_choice = CallQuestion(call=call, text="Colour?", answer_type="choice", choices="Red")
    with pytest.raises(ValidationError, match="at least two"):
        one_choice.full_clean()


def test_speakers_do_not_decide_and_organizers_do_not_submit(call, speaker_account, organizer):
    proposal = make_proposal(call.conference, speaker_account, state=State.SUBMITTED)
    with pytest.raises(ValidationError, match="Only the organizers"):
        proposal.move_to(State.ACCEPTED, by=speaker_account, now=DURING_CALL, by_speaker=True)
    proposal.move_to(State.ACCEPTED, by=organizer, now=AFTER_CALL, by_speaker=False)
    with pytest.raises(ValidationError, match="Only the proposal's speakers"):
        proposal.move_to(State.CONFIRMED, by=organizer, now=AFTER_CALL, by_speaker=False)


def test_decisions_are_reversible_until_the_session_is_published(call, speaker_account, organizer):
    proposal = make_proposal(call.conference, speaker_account, state=State.SUBMITTED)
    for decision in (State.ACCEPTED, State.REJECTED, State.WAITLISTED, State.ACCEPTED):
        proposal.move_to(decision, by=organizer, now=AFTER_CALL, by_speaker=False)
    assert [step.to_state for step in proposal.state_changes.all()] == [
        State.ACCEPTED,
        State.REJECTED,
        State.WAITLISTED,
        State.ACCEPTED,
    ]
    proposal.session = make_session(call.conference, status="published")
    proposal.save()
    with pytest.raises(ValidationError, match="session is published"):
        proposal.move_to(State.REJECTED, by=organizer, now=AFTER_CALL, by_speaker=False)


def test_two_steps_from_the_same_state_do_not_both_happen(call, speaker_account, organizer):
    proposal = make_proposal(call.conference, speaker_account, state=State.SUBMITTED)
    other_tab = Proposal.objects.get(pk=proposal.pk)
    proposal.move_to(State.ACCEPTED, by=organizer, now=AFTER_CALL, by_speaker=False)
    with pytest.raises(EditConflictError):
        other_tab.move_to(State.REJECTED, by=organizer, now=AFTER_CALL, by_speaker=False)
    assert Proposal.objects.get(pk=proposal.pk).state == State.ACCEPTED
    assert proposal.state_changes.count() == 1


def test_a_proposal_offers_only_the_calls_kinds_and_tracks(call, speaker_account):
    proposal = Proposal(
        conference=call.conference, created_by=speaker_account, title="T", kind="workshop"
    )
    with pytest.raises(ValidationError) as refused:
        proposal.full_clean()
    assert "kind" in refused.value.message_dict


def test_an_account_keeps_a_limited_number_of_drafts(call, speaker_account):
    for _ in range(MAX_DRAFTS_PER_ACCOUNT):
        make_proposal(call.conference, speaker_account)
    one_more = Proposal(
        conference=call.conference, created_by=speaker_account, title="T", kind="talk"
    )
    with pytest.raises(ValidationError, match="drafts for this conference already"):
        one_more.full_clean()


def test_co_speaker_invitations_stop_at_the_calls_limit(call, speaker_account, django_user_model):
    call.max_speakers = 2
    call.save()
    proposal = make_proposal(call.conference, speaker_account)
    first = CoSpeakerInvitation(
        proposal=proposal,
        email="x@example.org",
        invited_by=speaker_account,
        token_digest="a" * 64,
        expires_at=AFTER_CALL.replace(year=2099),
    )
    first.full_clean()
    first.save()
    second = CoSpeakerInvitation(
        proposal=proposal,
        email="y@example.org",
        invited_by=speaker_account,
        token_digest="b" * 64,
        expires_at=first.expires_at,
    )
    with pytest.raises(ValidationError, match="at most 2 speakers"):
        second.full_clean()


def test_a_review_scores_on_the_calls_scale_and_never_ones_own_proposal(
    call, speaker_account, django_user_model
):
    reviewer = account(django_user_model, "rev")
    proposal = make_proposal(call.conference, speaker_account, reviewer, state=State.SUBMITTED)
    own = Review(proposal=proposal, reviewer=reviewer, score=2)
    with pytest.raises(ValidationError, match="You speak in this proposal"):
        own.full_clean()
    other = make_proposal(call.conference, speaker_account, state=State.SUBMITTED)
    too_high = Review(proposal=other, reviewer=reviewer, score=4)
    with pytest.raises(ValidationError, match="Score from 0 to 3"):
        too_high.full_clean()
    draft = make_proposal(call.conference, speaker_account)
    with pytest.raises(ValidationError, match="Only submitted"):
        Review(proposal=draft, reviewer=reviewer, score=1).full_clean()
    assert list(Proposal.objects.for_reviewer(reviewer)) == [other]


def test_reviewers_score_but_do_not_decide_and_see_speakers_unless_anonymised(
    call, speaker_account, django_user_model
):
    # Members of teams are staff (joining a team makes one staff).
    reviewer = account(django_user_model, "rev", is_staff=True)
    planner = account(django_user_model, "plan", is_staff=True)
    make_team(reviewer, conferences=[call.conference], is_reviewer=True)
    make_team(planner, conferences=[call.conference], is_programme=True)
    proposal = make_proposal(call.conference, speaker_account, state=State.SUBMITTED)
    assert reviewer.has_perm("schedule.review_proposal", proposal)
    assert not reviewer.has_perm("schedule.decide_proposal", proposal)
    assert planner.has_perm("schedule.decide_proposal", proposal)
    assert reviewer.has_perm("schedule.see_proposal_speakers", proposal)
    call.anonymised_review = True
    call.save()
    proposal = Proposal.objects.get(pk=proposal.pk)
    assert not reviewer.has_perm("schedule.see_proposal_speakers", proposal)
    assert planner.has_perm("schedule.see_proposal_speakers", proposal)
    assert not speaker_account.has_perm("schedule.view_proposal", proposal)
    mine = Review(proposal=proposal, reviewer=reviewer, score=1)
    assert reviewer.has_perm("schedule.change_review", mine)
    mine.save()
    assert not planner.has_perm("schedule.change_review", mine)

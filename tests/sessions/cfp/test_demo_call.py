"""The demo's conference with an open call, PyTorch Day Paris 2027, as `manage.py load_demo`
loads it (conference/site/demo_call.py): what README's tour follows must be there. The first
demo conference's own tests are tests/conference/test_load_demo.py."""

import datetime
import io
import itertools

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.utils import timezone

from conference.models import Conference, has_confirmed_address
from conference.site.demo_call import PARIS_SLUG, load_paris_call
from sessions.models import Proposal, Review, Session
from tests.builders import paris

pytestmark = pytest.mark.django_db

State = Proposal.State
TOUR_ACCOUNTS = (
    "paris-organizer",
    "paris-reviewer-1",
    "paris-reviewer-2",
    "paris-speaker",
    "paris-co-speaker",
)


@pytest.fixture(scope="module")
def loaded(module_db, django_db_blocker):
    """The demo, loaded once for the module; what ``load_demo`` printed, and when."""
    before = timezone.now()
    out = io.StringIO()
    with django_db_blocker.unblock():
        call_command("load_demo", stdout=out)
    return out.getvalue(), before


@pytest.fixture
def conference(loaded):
    return Conference.objects.get(slug=PARIS_SLUG)


@pytest.fixture
def accounts(loaded):
    users = get_user_model().objects.filter(username__in=TOUR_ACCOUNTS)
    return {user.username: user for user in users}


def printed_password(output: str, username: str) -> str:
    return output.split(f"“{username}”, password ")[1].split()[0]


def test_the_demo_has_an_unpublished_conference_in_paris_with_rooms_and_tracks(conference):
    assert conference.name == "PyTorch Day Paris 2027"
    assert conference.time_zone == "Europe/Paris"
    assert not conference.is_published
    assert conference.rooms.count() == 3
    assert conference.tracks.count() == 3


def test_its_call_is_open_when_loaded_for_three_kinds_and_two_tracks(loaded, conference):
    call = conference.call
    _, loaded_at = loaded
    assert call.is_open(loaded_at)
    assert call.opens_at < loaded_at - datetime.timedelta(days=29)
    assert call.closes_at > loaded_at + datetime.timedelta(days=29)
    assert {kind.kind: kind.minutes for kind in call.kinds.all()} == {
        "talk": 30,
        "lightning-talk": 10,
        "workshop": 90,
    }
    assert loaded_at < call.deadline_for("workshop") < call.closes_at
    assert call.tracks.count() == 2
    assert (call.score_min, call.score_max, call.anonymised_review) == (0, 3, True)
    questions = list(call.questions.all())
    assert {question.answer_type for question in questions} == {"text", "choice", "yes-no"}
    assert [question.required for question in questions].count(True) == 1


def test_the_call_is_open_whatever_the_day_the_demo_is_loaded(loaded):
    # Loaded anew (the module's copy removed, in this test's savepoint) on a day far from today.
    Conference.objects.filter(slug=PARIS_SLUG).delete()
    moment = paris(14, 11, month=2, year=2031)
    conference = load_paris_call(now=moment).conference
    assert conference.call.is_open(moment)
    assert conference.proposals.filter(state=State.CONFIRMED).count() == 1


def test_proposals_are_in_every_state_each_step_recorded_by_who_took_it(conference, accounts):
    proposals = Proposal.objects.of_conference(conference).prefetch_related("state_changes")
    assert {proposal.state for proposal in proposals} == set(State.values)
    for proposal in proposals:
        steps = list(proposal.state_changes.all())
        if proposal.state == State.DRAFT:
            assert steps == []
            continue
        assert steps[0].from_state == State.DRAFT
        assert steps[-1].to_state == proposal.state
        for before, after in itertools.pairwise(steps):
            assert before.to_state == after.from_state
            assert before.changed_at < after.changed_at
    decided = Proposal.objects.filter(state_changes__to_state=State.ACCEPTED).distinct()
    assert {proposal.state for proposal in decided} >= {State.DECLINED, State.CONFIRMED}
    decided_by = {change.changed_by for change in decided[0].state_changes.all()}
    assert accounts["paris-organizer"] in decided_by


def test_the_speaker_has_proposals_to_submit_confirm_and_to_see_accepted_in_bulk(
    conference, accounts
):
    mine = Proposal.objects.of_speaker(accounts["paris-speaker"])
    assert {proposal.state for proposal in mine} == {
        State.DRAFT,
        State.SUBMITTED,
        State.ACCEPTED,
        State.CONFIRMED,
    }
    assert Proposal.objects.of_conference(conference).filter(state=State.SUBMITTED).count() >= 2


def test_two_reviewers_in_a_reviewer_team_scored_what_was_sent(conference, accounts):
    reviewers = [accounts["paris-reviewer-1"], accounts["paris-reviewer-2"]]
    [team] = conference.teams.filter(is_reviewer=True)
    assert set(team.members.all()) == set(reviewers)
    proposal = Proposal.objects.of_conference(conference).filter(state=State.ACCEPTED).first()
    for reviewer in reviewers:
        assert reviewer.has_perm("schedule.review_proposal", proposal)
        assert not reviewer.has_perm("schedule.decide_proposal", proposal)
        assert not reviewer.has_perm("schedule.see_proposal_speakers", proposal)
        assert Review.objects.by(reviewer).of_conference(conference).exists()
    scores = Review.objects.of_conference(conference).values_list("score", flat=True)
    assert set(scores) == {0, 1, 2, 3}
    # "Not yet reviewed by me" has something to show each reviewer.
    for reviewer in reviewers:
        waiting = Proposal.objects.of_conference(conference).for_reviewer(reviewer)
        assert waiting.not_reviewed_by(reviewer).filter(state=State.SUBMITTED).exists()


def test_the_confirmed_proposal_waits_in_the_planners_unscheduled_list(conference, accounts):
    proposal = Proposal.objects.get(conference=conference, state=State.CONFIRMED)
    session = proposal.session
    assert list(Session.objects.filter(conference=conference).unscheduled()) == [session]
    assert (session.status, session.room, session.planned_minutes) == (
        Session.Status.DRAFT,
        None,
        90,
    )
    speakers = {speaker.user for speaker in session.speakers.all()}
    assert speakers == {accounts["paris-speaker"], accounts["paris-co-speaker"]}


def test_the_tour_accounts_log_in_with_their_printed_password(loaded, conference, accounts):
    output, _ = loaded
    assert set(accounts) == set(TOUR_ACCOUNTS)
    for username, user in accounts.items():
        assert user.check_password(printed_password(output, username))
    for username in ("paris-speaker", "paris-co-speaker"):
        user = accounts[username]
        assert has_confirmed_address(user, user.email)
        assert not user.is_staff
    organizer = accounts["paris-organizer"]
    assert organizer.has_perm("schedule.decide_proposal", conference)
    for other in Conference.objects.exclude(pk=conference.pk):
        assert not organizer.has_perm("schedule.change_session", other)


def test_loading_again_changes_nothing_and_asks_little(loaded, django_assert_max_num_queries):
    counts = (Proposal.objects.count(), Review.objects.count(), Session.objects.count())
    out = io.StringIO()
    with django_assert_max_num_queries(10):
        call_command("load_demo", stdout=out)
    assert "password" not in out.getvalue()
    assert (Proposal.objects.count(), Review.objects.count(), Session.objects.count()) == counts

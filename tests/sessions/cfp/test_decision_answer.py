"""An accepted speaker confirms or declines from the link of their mail
(/<conference>/call/<code>/answer/, sessions/cfp/decision_views.py), and a confirmed proposal
goes on to the planner, the schedule and the release mail."""

import datetime

import pytest
from django.template.loader import render_to_string
from django.test import RequestFactory
from django.urls import reverse
from django.utils import timezone

from conference.models import AccountEmail
from sessions.cfp import decisions
from sessions.models import Proposal, Session
from sessions.releases import release_schedule
from speakers.models import Speaker
from tests.builders import make_call, make_proposal, make_room, paris

pytestmark = pytest.mark.django_db

State = Proposal.State


@pytest.fixture
def call(conference):
    return make_call(conference)


@pytest.fixture
def grace(django_user_model):
    user = django_user_model.objects.create_user("grace", "grace@example.org", "pw-grace-1")
    AccountEmail.objects.create(user=user, verified_address=user.email)
    return user


@pytest.fixture
def proposal(call, grace):
    return make_proposal(call.conference, grace, state=State.ACCEPTED, title="Fast kernels")


@pytest.fixture
def grace_client(client, grace):
    client.force_login(grace)
    return client


def answer_url(proposal):
    return reverse(
        "cfp-decision-answer",
        kwargs={"conference_slug": proposal.conference.slug, "code": proposal.code},
    )


def answer(client, proposal, choice, version=None):
    version = proposal.version if version is None else version
    return client.post(answer_url(proposal), {"answer": choice, "version": version})


def reloaded(proposal):
    return Proposal.objects.get(pk=proposal.pk)


def test_the_speaker_sees_the_proposal_its_length_and_the_two_buttons(grace_client, proposal):
    response = grace_client.get(answer_url(proposal))

    html = response.content.decode()
    assert response.status_code == 200
    assert "<h1>Fast kernels</h1>" in html
    assert "Talk, 30 min" in html
    assert 'name="answer" value="confirm"' in html
    assert 'name="answer" value="decline"' in html


def test_the_call_being_closed_does_not_stop_an_answer(grace_client, call, proposal):
    assert not call.is_open(timezone.now())

    response = answer(grace_client, proposal, "confirm")

    assert response.status_code == 302
    assert reloaded(proposal).state == State.CONFIRMED


def test_confirming_makes_the_draft_session_and_says_the_organizers_schedule_it(
    grace_client, proposal
):
    response = answer(grace_client, proposal, "confirm")
    page = grace_client.get(response["Location"]).content.decode()

    [session] = Session.objects.unscheduled()
    assert (session.title, session.status) == ("Fast kernels", Session.Status.DRAFT)
    assert reloaded(proposal).session == session
    assert "The organizers will now place it in the schedule" in page
    assert 'value="confirm"' not in page


def test_the_step_is_recorded_as_the_speakers(grace_client, grace, proposal):
    answer(grace_client, proposal, "confirm")

    step = reloaded(proposal).state_changes.order_by("-pk").first()
    assert (step.from_state, step.to_state, step.changed_by) == (
        State.ACCEPTED,
        State.CONFIRMED,
        grace,
    )


def test_declining_makes_no_session(grace_client, proposal):
    response = answer(grace_client, proposal, "decline")
    page = grace_client.get(response["Location"]).content.decode()

    assert reloaded(proposal).state == State.DECLINED
    assert Session.objects.count() == 0
    assert "You declined this session." in page


def test_after_declining_nothing_more_can_be_answered(grace_client, proposal):
    answer(grace_client, proposal, "decline")
    declined = reloaded(proposal)

    response = answer(grace_client, declined, "confirm")

    assert response.status_code == 409
    assert "A proposal that is declined cannot become confirmed." in response.content.decode()
    assert (reloaded(proposal).state, Session.objects.count()) == (State.DECLINED, 0)
    assert 'value="confirm"' not in grace_client.get(answer_url(proposal)).content.decode()


def test_a_second_click_is_told_the_answer_is_given_and_makes_one_session(grace_client, proposal):
    answer(grace_client, proposal, "confirm")

    again = answer(grace_client, proposal, "confirm")  # the version the first page showed

    assert again.status_code == 409
    assert "This proposal changed since you opened the page" in again.content.decode()
    assert Session.objects.count() == 1


def test_a_page_left_open_across_a_new_decision_answers_nothing(
    grace_client, proposal, organizer, dummy_tasks
):
    shown = proposal.version
    decisions.decide([reloaded(proposal)], State.REJECTED, by=organizer)

    response = answer(grace_client, proposal, "confirm", version=shown)

    assert response.status_code == 409
    assert reloaded(proposal).state == State.REJECTED


def test_declining_after_confirming_takes_the_draft_session_away(grace_client, proposal):
    answer(grace_client, proposal, "confirm")
    confirmed = reloaded(proposal)
    assert 'value="decline"' in grace_client.get(answer_url(proposal)).content.decode()

    answer(grace_client, confirmed, "decline")

    assert (reloaded(proposal).state, Session.objects.count()) == (State.DECLINED, 0)


def test_a_published_session_is_not_declined_from_here(grace_client, grace, proposal, conference):
    session = decisions.confirm(proposal, by=grace)
    schedule(session, conference)
    confirmed = reloaded(proposal)

    page = grace_client.get(answer_url(proposal)).content.decode()
    response = answer(grace_client, confirmed, "decline")

    assert 'value="decline"' not in page
    assert response.status_code == 409
    assert "write to the organizers to cancel it" in response.content.decode()
    assert Session.objects.get(pk=session.pk).status == Session.Status.PUBLISHED


def test_another_account_is_told_the_proposal_does_not_exist(client, django_user_model, proposal):
    client.force_login(django_user_model.objects.create_user("mallory", "m@example.org", "pw"))

    assert client.get(answer_url(proposal)).status_code == 404
    assert answer(client, proposal, "confirm").status_code == 404
    assert reloaded(proposal).state == State.ACCEPTED


def test_an_anonymous_visitor_is_asked_to_log_in(client, proposal):
    response = client.get(answer_url(proposal))

    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


def test_a_co_speaker_answers_too(client, call, grace, django_user_model):
    alan = django_user_model.objects.create_user("alan", "alan@example.org", "pw")
    proposal = make_proposal(call.conference, grace, alan, state=State.ACCEPTED)
    client.force_login(alan)

    answer(client, proposal, "confirm")

    assert reloaded(proposal).state == State.CONFIRMED


HOSTILE = ["", "maybe", "CONFIRM", "0", "-1", "1e309", "99999999999999999999", "\x00", "x" * 10_000]


@pytest.mark.parametrize("field", ["answer", "version"])
@pytest.mark.parametrize("value", HOSTILE, ids=lambda value: repr(value[:12]))
def test_a_hostile_answer_is_refused_with_a_400(grace_client, proposal, field, value):
    data = {"answer": "confirm", "version": proposal.version, field: value}

    response = grace_client.post(answer_url(proposal), data)

    assert response.status_code == 400
    assert reloaded(proposal).state == State.ACCEPTED


@pytest.mark.parametrize("code", ["nothing", "x" * 300, "ABC-DEF", "_"])
def test_an_unknown_code_is_a_404(grace_client, proposal, code):
    url = f"/{proposal.conference.slug}/call/{code}/answer/"

    assert grace_client.get(url).status_code == 404
    assert grace_client.post(url, {"answer": "confirm", "version": 1}).status_code == 404


def render_box(proposal, user) -> str:
    request = RequestFactory().get("/")
    request.user = user
    return render_to_string(
        "cfp/includes/decision_answer.html", {"proposal": proposal}, request=request
    )


def test_the_box_shows_the_buttons_to_the_accepted_speaker_only(proposal, grace, django_user_model):
    other = django_user_model.objects.create_user("mallory", "m@example.org", "pw")

    box = render_box(proposal, grace)

    assert f'action="{answer_url(proposal)}"' in box
    assert f'name="version" value="{proposal.version}"' in box
    assert render_box(proposal, other).strip() == ""
    proposal.state = State.WAITLISTED
    assert render_box(proposal, grace).strip() == ""


def schedule(session, conference):
    """Place the session as the planner does (a room, a time), then publish it."""
    session.room = make_room(conference, name="Central Room")
    session.starts_at = paris(8, 14)
    session.ends_at = session.starts_at + datetime.timedelta(minutes=session.planned_minutes)
    session.full_clean()
    session.save()
    change = Session.objects.filter(pk=session.pk).publish()
    assert change.changed == [session]


@pytest.mark.usefixtures("immediate_tasks")
def test_a_confirmed_proposal_goes_on_to_the_schedule_and_its_release_mails_the_speaker(
    grace_client, proposal, conference, mailoutbox, django_capture_on_commit_callbacks
):
    answer(grace_client, proposal, "confirm")
    [session] = Session.objects.unscheduled()
    schedule(session, conference)

    with django_capture_on_commit_callbacks(execute=True):
        release_schedule(conference, version="v1", comment="", user=None)

    [message] = mailoutbox
    assert message.to == ["grace@example.org"]
    assert message.subject == "PyCon: schedule changes to your session"
    assert "Fast kernels" in message.body
    assert list(Session.objects.unscheduled()) == []


def test_the_confirmed_speaker_is_reached_at_the_accounts_confirmed_address(
    grace_client, grace, proposal
):
    """Not a copy of it: a later change of the account's address is followed."""
    answer(grace_client, proposal, "confirm")
    [speaker] = Speaker.objects.filter(user=grace)
    assert speaker.email == ""
    assert Speaker.objects.with_reach().get(pk=speaker.pk).reach_address == "grace@example.org"

    grace.email = "grace@hopper.example"
    grace.save()
    AccountEmail.objects.filter(user=grace).update(verified_address=grace.email)

    assert Speaker.objects.with_reach().get(pk=speaker.pk).reach_address == grace.email

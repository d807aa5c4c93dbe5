"""The speaker's pages of a call for proposals (sessions/cfp/views.py): the call's page, “My
proposals”, and a proposal from its draft to its withdrawal."""

import pytest
from django.urls import reverse

from conference.views.preview_time import SESSION_KEY
from sessions.models import CallQuestion, Proposal, ProposalSpeaker
from speakers.models import Speaker
from tests.builders import make_call, make_conference, make_proposal, make_track, paris

pytestmark = pytest.mark.django_db

State = Proposal.State
DURING_CALL = paris(15, 12, month=1)
AFTER_CALL = paris(1, 0, month=2)
BEFORE_CALL = paris(20, 12, month=12, year=2025)


@pytest.fixture
def call(conference, clock):
    clock(DURING_CALL)
    return make_call(conference)


@pytest.fixture
def grace(django_user_model):
    return django_user_model.objects.create_user(
        "grace", "grace@example.org", "pw-grace-1", first_name="Grace", last_name="Hopper"
    )


@pytest.fixture
def grace_client(client, grace):
    client.force_login(grace)
    return client


def call_url(conference, name="call", **kwargs):
    return reverse(name, kwargs={"conference_slug": conference.slug, **kwargs})


def proposal_url(proposal, name="proposal"):
    return reverse(
        name, kwargs={"conference_slug": proposal.conference.slug, "code": proposal.code}
    )


def form_data(**changes):
    return {
        "title": "Compilers for everyone",
        "kind": "talk",
        "audience_level": "beginner",
        "language": "en",
        "abstract": "How a compiler reads.",
        "description": "",
        "notes": "",
        "speaker_name": "Grace Hopper",
        "speaker_bio": "Wrote the first compiler.",
        "action": "save",
        **changes,
    }


def edit_data(proposal, **changes):
    return form_data(**{"version": proposal.version, **changes})


# --- The call's page ---------------------------------------------------------------------------


def test_the_call_page_shows_what_it_asks_for_and_until_when(client, call):
    call.text = "We look for **talks** about <script>alert(1)</script> compilers."
    call.save()
    track = make_track(call.conference, name="Languages")
    call.tracks.add(track)
    CallQuestion.objects.create(call=call, text="Have you spoken before?", required=True)

    response = client.get(call_url(call.conference))

    page = response.content.decode()
    assert response.status_code == 200
    assert "<strong>talks</strong>" in page
    assert "<script>alert" not in page
    assert "Open." in page
    assert "30 minutes" in page
    assert "10 minutes" in page
    assert "Languages" in page
    assert "Have you spoken before?" in page
    assert "Sat 31 Jan 2026 23:59 CET" in page
    assert "Log in to propose a session" in page
    assert response["Cache-Control"].startswith("max-age=0")


def test_the_call_shows_its_deadline_in_the_visitors_zone_and_the_conferences(client, call):
    page = client.get(call_url(call.conference), {"tz": "America/New_York"}).content.decode()
    assert "Sat 31 Jan 2026 17:59 EST" in page
    assert "Sat 31 Jan 2026 23:59 CET" in page


def test_the_call_says_whether_it_is_open_yet(client, call, clock):
    clock(BEFORE_CALL)
    assert "Not open yet." in client.get(call_url(call.conference)).content.decode()
    clock(AFTER_CALL)
    page = client.get(call_url(call.conference)).content.decode()
    assert "Closed." in page
    assert "Propose a session" not in page


def test_an_unpublished_conference_with_a_call_shows_its_call_and_links_to_it(client, clock):
    clock(DURING_CALL)
    conference = make_conference(slug="futurecon", is_published=False)
    make_call(conference)
    assert client.get(call_url(conference)).status_code == 200
    published = make_conference(slug="pastcon")
    make_call(published)
    assert call_url(published) in client.get(published.get_absolute_url()).content.decode()


def test_a_conference_without_a_call_has_no_call_pages(client, conference, grace_client):
    assert client.get(call_url(conference)).status_code == 404
    assert grace_client.get(call_url(conference, "proposal-new")).status_code == 404


# --- Drafting, editing, submitting, withdrawing ------------------------------------------------


def test_a_speaker_drafts_edits_submits_and_withdraws(grace_client, call, grace):
    new = call_url(call.conference, "proposal-new")
    page = grace_client.get(new).content.decode()
    assert 'value="Grace Hopper"' in page  # their name, to start from

    response = grace_client.post(new, form_data())
    proposal = Proposal.objects.get()
    assert response.status_code == 302
    assert response.url == proposal_url(proposal)
    assert proposal.state == State.DRAFT
    assert proposal.created_by == grace
    (speaker,) = proposal.proposal_speakers.all()
    assert (speaker.user, speaker.name, speaker.bio) == (
        grace,
        "Grace Hopper",
        "Wrote the first compiler.",
    )

    grace_client.post(proposal_url(proposal), edit_data(proposal, title="Compilers, gently"))
    proposal.refresh_from_db()
    assert proposal.title == "Compilers, gently"

    response = grace_client.post(proposal_url(proposal), edit_data(proposal, action="submit"))
    proposal.refresh_from_db()
    assert proposal.state == State.SUBMITTED
    page = grace_client.get(response.url).content.decode()
    assert "Your proposal is submitted" in page
    assert "You can still edit it until" in page

    assert grace_client.get(proposal_url(proposal, "proposal-withdraw")).status_code == 200
    response = grace_client.post(
        proposal_url(proposal, "proposal-withdraw"), {"version": proposal.version}
    )
    proposal.refresh_from_db()
    assert proposal.state == State.WITHDRAWN
    assert "Withdrawn" in grace_client.get(response.url).content.decode()


def test_my_proposals_lists_each_with_its_state_in_words(
    grace_client, call, grace, django_assert_max_num_queries
):
    make_proposal(call.conference, grace, title="A draft")
    make_proposal(call.conference, grace, title="Sent", state=State.SUBMITTED)
    make_proposal(call.conference, grace, title="Chosen", state=State.ACCEPTED)
    for number in range(10):
        make_proposal(call.conference, grace, title=f"Withdrawn {number}", state=State.WITHDRAWN)
    other = make_conference(slug="other")
    make_call(other)
    make_proposal(other, grace, title="Elsewhere")

    with django_assert_max_num_queries(12):
        page = grace_client.get(call_url(call.conference, "my-proposals")).content.decode()

    assert "Finish it and submit it before" in page
    assert "Submitted" in page
    assert "Accepted — confirm or decline" in page
    assert "Elsewhere" not in page


def test_deleting_a_draft_asks_first_and_only_its_author_may(
    grace_client, call, grace, django_user_model
):
    ada = django_user_model.objects.create_user("ada", "ada@example.org", "pw-ada-1")
    draft = make_proposal(call.conference, grace)
    co_spoken = make_proposal(call.conference, ada, grace)

    page = grace_client.get(proposal_url(draft, "proposal-delete")).content.decode()
    assert "Delete this draft?" in page
    assert Proposal.objects.filter(pk=draft.pk).exists()
    grace_client.post(proposal_url(draft, "proposal-delete"), {"version": draft.version})
    assert not Proposal.objects.filter(pk=draft.pk).exists()

    response = grace_client.post(
        proposal_url(co_spoken, "proposal-delete"), {"version": co_spoken.version}
    )
    assert response.status_code == 409
    assert "Only the speaker who started this draft" in response.content.decode()
    assert Proposal.objects.filter(pk=co_spoken.pk).exists()


def test_the_deadline_stops_edits_but_not_withdrawing(grace_client, call, grace, clock):
    proposal = make_proposal(call.conference, grace, state=State.SUBMITTED)
    clock(AFTER_CALL)

    page = grace_client.get(proposal_url(proposal)).content.decode()
    assert "The call for proposals is closed." in page
    assert 'name="title"' not in page  # read-only
    assert proposal.title in page
    response = grace_client.post(proposal_url(proposal), edit_data(proposal, title="Late"))
    assert response.status_code == 409
    proposal.refresh_from_db()
    assert proposal.title != "Late"

    grace_client.post(proposal_url(proposal, "proposal-withdraw"), {"version": proposal.version})
    proposal.refresh_from_db()
    assert proposal.state == State.WITHDRAWN


def test_no_new_proposal_once_the_call_is_closed(grace_client, call, clock):
    clock(AFTER_CALL)
    response = grace_client.post(call_url(call.conference, "proposal-new"), form_data())
    assert response.status_code == 409
    assert "closed" in response.content.decode()
    assert not Proposal.objects.exists()


def test_required_answers_are_asked_for_before_submitting(grace_client, call, grace):
    question = CallQuestion.objects.create(
        call=call, text="Have you spoken before?", answer_type="yes-no", required=True
    )
    form = grace_client.get(call_url(call.conference, "proposal-new")).content.decode()
    assert "Have you spoken before?" in form
    assert "(required)" in form

    response = grace_client.post(
        call_url(call.conference, "proposal-new"), form_data(action="submit")
    )
    proposal = Proposal.objects.get()
    assert proposal.state == State.DRAFT  # kept as a draft
    page = grace_client.get(response.url).content.decode()
    assert "Saved, but not submitted" in page
    assert "Have you spoken before?" in page

    grace_client.post(
        proposal_url(proposal),
        edit_data(proposal, action="submit", **{f"question_{question.pk}": "yes"}),
    )
    proposal.refresh_from_db()
    assert proposal.state == State.SUBMITTED
    assert proposal.answers.get().value == "yes"


def test_a_stale_form_is_refused_and_says_why(grace_client, call, grace):
    proposal = make_proposal(call.conference, grace)
    seen = proposal.version
    Proposal.objects.get(pk=proposal.pk).save()  # a co-speaker saved it meanwhile

    response = grace_client.post(proposal_url(proposal), form_data(version=seen, title="Mine"))

    assert response.status_code == 200
    assert "changed elsewhere" in response.content.decode()
    proposal.refresh_from_db()
    assert proposal.title != "Mine"


def test_the_speakers_name_comes_from_their_speaker_profile(grace_client, call, grace):
    Speaker.objects.create(
        conference=make_conference(slug="earlier"), name="Rear Admiral Hopper", slug="g", user=grace
    )
    page = grace_client.get(call_url(call.conference, "proposal-new")).content.decode()
    assert "Rear Admiral Hopper" in page


def test_submissions_are_limited_per_account_and_hour(grace_client, call, grace):
    drafts = [make_proposal(call.conference, grace) for _ in range(6)]
    for draft in drafts:
        grace_client.post(proposal_url(draft), edit_data(draft, action="submit"))
    states = [Proposal.objects.get(pk=draft.pk).state for draft in drafts]
    assert states == [State.SUBMITTED] * 5 + [State.DRAFT]
    page = grace_client.get(proposal_url(drafts[-1])).content.decode()
    assert "You have submitted many proposals in the last hour" in page


# --- Who gets in -------------------------------------------------------------------------------


def test_another_account_gets_not_found(call, grace, attendee_client):
    proposal = make_proposal(call.conference, grace)
    for name in ("proposal", "proposal-withdraw", "proposal-delete"):
        assert attendee_client.get(proposal_url(proposal, name)).status_code == 404
        assert attendee_client.post(proposal_url(proposal, name), form_data()).status_code == 404


def test_a_co_speaker_sees_and_edits_the_proposal(call, grace, attendee, attendee_client):
    proposal = make_proposal(call.conference, grace, attendee)
    attendee_client.post(proposal_url(proposal), edit_data(proposal, title="Together"))
    proposal.refresh_from_db()
    assert proposal.title == "Together"
    assert set(ProposalSpeaker.objects.values_list("user", flat=True)) == {grace.pk, attendee.pk}


@pytest.mark.parametrize("name", ["my-proposals", "proposal-new"])
def test_anonymous_visitors_are_sent_to_log_in(client, call, name):
    response = client.get(call_url(call.conference, name))
    assert response.status_code == 302
    assert response.url.startswith(reverse("login"))


# --- Hostile input -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "changes",
    [
        {"title": "x" * 100_000},
        {"abstract": "x" * 100_000},
        {"speaker_bio": "x" * 100_000},
        {"title": "nul\x00byte"},
        {"description": "nul\x00byte"},
        {"kind": "break"},
        {"kind": "no-such-kind"},
        {"track": "999999"},
        {"track": "not-a-number"},
        {"audience_level": "genius"},
        {"speaker_name": ""},
        {"version": "-5"},
        {"version": "99999999999999999999"},
        {"title": ""},
    ],
    ids=lambda changes: next(iter(changes)) + ":" + repr(next(iter(changes.values())))[:12],
)
def test_hostile_form_values_are_form_errors(grace_client, call, grace, changes):
    """A form error, or the site's 400 for a NUL anywhere in a request: never saved, never a 500."""
    call.tracks.add(make_track(call.conference, name="Languages"))
    proposal = make_proposal(call.conference, grace, title="Untouched")
    response = grace_client.post(proposal_url(proposal), edit_data(proposal, **changes))
    assert response.status_code in (200, 400)
    proposal.refresh_from_db()
    assert proposal.title == "Untouched"
    new = grace_client.post(call_url(call.conference, "proposal-new"), form_data(**changes))
    assert new.status_code in (200, 400)
    assert Proposal.objects.count() == 1


@pytest.mark.parametrize("value", ["maybe", "x" * 6000, "\x00", "Option C"])
def test_unknown_answers_are_form_errors(grace_client, call, grace, value):
    yes_no = CallQuestion.objects.create(call=call, text="Spoken before?", answer_type="yes-no")
    choice = CallQuestion.objects.create(
        call=call, text="Room?", answer_type="choice", choices="Option A\nOption B"
    )
    text = CallQuestion.objects.create(call=call, text="Anything else?")
    data = {f"question_{question.pk}": value for question in (yes_no, choice, text)}
    response = grace_client.post(call_url(call.conference, "proposal-new"), form_data(**data))
    assert response.status_code in (200, 400)
    assert not Proposal.objects.exists()


@pytest.mark.parametrize("code", ["AAAAAA", "ZZZZZZZZZZZZ", "x" * 300, "%00", "new%2F.."])
def test_bogus_codes_are_not_found(grace_client, call, code):
    # A NUL anywhere in an address is the site's 400, before any page.
    assert grace_client.get(f"/{call.conference.slug}/call/{code}/").status_code in (400, 404)


def test_the_account_page_links_to_my_proposals_of_each_conference(grace_client, call, grace):
    make_proposal(call.conference, grace)
    page = grace_client.get(reverse("account")).content.decode()
    assert call_url(call.conference, "my-proposals") in page


def test_a_kind_past_its_own_deadline_is_refused_on_its_field(grace_client, call):
    call.kinds.filter(kind="lightning-talk").update(closes_at=paris(10, 0, month=1))

    response = grace_client.post(
        call_url(call.conference, "proposal-new"), form_data(kind="lightning-talk")
    )

    assert response.status_code == 200
    assert response.context["form"].errors["kind"] == [
        "The deadline for this kind of session has passed."
    ]
    assert not Proposal.objects.exists()


def test_hostile_text_in_a_proposal_is_shown_inert(grace_client, call, grace):
    hostile = '<script>alert("x")</script><img src=x onerror=alert(1)>'
    proposal = make_proposal(call.conference, grace, title=hostile, abstract=hostile)
    for url in (call_url(call.conference, "my-proposals"), proposal_url(proposal)):
        page = grace_client.get(url).content.decode()
        assert "<script>alert" not in page
        assert "<img src=x" not in page
        assert "&lt;script&gt;" in page


def test_organizers_previewing_another_time_see_the_call_as_it_will_be(
    client, organizer, call, grace
):
    def preview_after_the_call():
        session = client.session
        session[SESSION_KEY] = {str(call.conference.pk): AFTER_CALL.isoformat()}
        session.save()

    client.force_login(organizer)
    preview_after_the_call()
    assert "Closed." in client.get(call_url(call.conference)).content.decode()
    client.force_login(grace)
    preview_after_the_call()  # whatever her session says, a speaker gets the real time
    assert "Open." in client.get(call_url(call.conference)).content.decode()

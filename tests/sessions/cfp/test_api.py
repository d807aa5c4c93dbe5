"""The proposals API (sessions/cfp/api/views.py): teams read, score and decide; speakers write their
own proposals; nothing of a proposal reaches anybody else."""

import pytest
from rest_framework.test import APIClient

from conference.models import ApiToken
from sessions.cfp import decisions
from sessions.models import CallQuestion, Proposal, Review, Session
from tests.api_fixtures import *  # noqa: F403
from tests.api_fixtures import client_in_team
from tests.builders import (
    make_call,
    make_conference,
    make_proposal,
    make_room,
    make_track,
    paris,
)

pytestmark = pytest.mark.django_db

State = Proposal.State
DURING_CALL = paris(15, 12, month=1)
AFTER_CALL = paris(1, 0, month=2)


@pytest.fixture
def call(conference):
    return make_call(conference)


def account(django_user_model, name, **fields):
    return django_user_model.objects.create_user(name, f"{name}@example.org", "pw", **fields)


@pytest.fixture
def grace(django_user_model):
    return django_user_model.objects.create_user(
        "grace", "grace@example.org", "pw", first_name="Grace", last_name="Hopper"
    )


@pytest.fixture
def reviewer(django_user_model, conference):
    user = account(django_user_model, "rita")
    client = client_in_team(user, conference, is_reviewer=True)
    return user, client


@pytest.fixture
def programme(django_user_model, conference):
    user = account(django_user_model, "paul")
    return user, client_in_team(user, conference, is_programme=True)


def api(conference, path=""):
    return f"/api/v1/conferences/{conference.slug}/{path}"


def proposal_url(proposal, path=""):
    return api(proposal.conference, f"proposals/{proposal.code}/{path}")


def mine_url(proposal, path=""):
    return api(proposal.conference, f"my-proposals/{proposal.code}/{path}")


def score(user, proposal, value, comment=""):
    return Review.objects.create(proposal=proposal, reviewer=user, score=value, comment=comment)


def speaker_client(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def token_client(user, scope) -> APIClient:
    token = ApiToken.objects.create(user=user, scope=scope)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return client


def publish(session):
    """``session`` in the schedule: a time, a room, published."""
    Session.objects.filter(pk=session.pk).update(
        status=Session.Status.PUBLISHED,
        room=make_room(session.conference),
        starts_at=paris(7, 10),
        ends_at=paris(7, 10, 30),
    )


# --- teams: reading ---------------------------------------------------------------------------


def test_the_list_shows_sent_proposals_with_their_mean_score_and_review_count(
    call, grace, organizer, organizer_client, programme
):
    call.scores_hidden_until_reviewed = False
    call.save()
    reviewed = make_proposal(call.conference, grace, state=State.SUBMITTED, title="Graphs")
    make_proposal(call.conference, grace, title="A draft")
    score(organizer, reviewed, 3)
    score(programme[0], reviewed, 2)
    response = organizer_client.get(api(call.conference, "proposals/"))
    assert response.status_code == 200
    [listed] = response.json()["results"]
    assert (listed["title"], listed["mean_score"], listed["review_count"]) == ("Graphs", 2.5, 2)
    assert listed["speakers"] == [{"name": "Grace Hopper", "bio": ""}]
    assert listed["reviewed_by_me"] is True


def test_the_detail_shows_answers_and_every_step_with_who_took_it(
    call, grace, organizer_client, organizer
):
    question = CallQuestion.objects.create(call=call, text="Spoken before?", answer_type="yes-no")
    proposal = make_proposal(call.conference, grace)
    proposal.answers.create(question=question, value="no")
    proposal.move_to(State.SUBMITTED, by=grace, now=DURING_CALL, by_speaker=True)
    decisions.decide([proposal], State.WAITLISTED, by=organizer, note="Maybe")
    body = organizer_client.get(proposal_url(proposal)).json()
    assert body["answers"] == [{"question": question.pk, "text": "Spoken before?", "value": "no"}]
    assert [
        (s["from_state"], s["to_state"], s["changed_by"], s["note"]) for s in body["history"]
    ] == [
        ("draft", "submitted", "grace", ""),
        ("submitted", "waitlisted", "organizer", "Maybe"),
    ]


def test_an_anonymised_review_hides_speakers_and_who_took_their_steps_from_reviewers(
    call, grace, reviewer, programme
):
    call.anonymised_review = True
    call.save()
    proposal = make_proposal(call.conference, grace)
    proposal.move_to(State.SUBMITTED, by=grace, now=DURING_CALL, by_speaker=True)
    seen = reviewer[1].get(proposal_url(proposal)).json()
    assert seen["speakers"] is None
    assert seen["history"][0]["changed_by"] is None
    assert "Hopper" not in reviewer[1].get(api(call.conference, "proposals/")).content.decode()
    # Those who decide (and mail the speakers) see them.
    assert programme[1].get(proposal_url(proposal)).json()["speakers"] == [
        {"name": "Grace Hopper", "bio": ""}
    ]


def test_scores_stay_hidden_from_a_reviewer_until_they_have_scored(
    call, grace, organizer, reviewer, clock
):
    clock(AFTER_CALL)
    proposal = make_proposal(call.conference, grace, state=State.SUBMITTED)
    score(organizer, proposal, 0, comment="Not for us.")
    _, client = reviewer
    assert client.get(proposal_url(proposal, "reviews/")).json() == []
    assert client.get(proposal_url(proposal)).json()["mean_score"] is None
    assert (
        client.put(proposal_url(proposal, "my-review/"), {"score": 3}, format="json").status_code
        == 201
    )
    reviews = client.get(proposal_url(proposal, "reviews/")).json()
    assert [(r["reviewer"], r["score"], r["comment"]) for r in reviews] == [
        ("organizer", 0, "Not for us."),
        ("rita", 3, ""),
    ]
    assert client.get(proposal_url(proposal)).json()["mean_score"] == 1.5


def test_ordering_by_score_does_not_tell_a_reviewer_hidden_scores(call, grace, organizer, reviewer):
    low = make_proposal(call.conference, grace, state=State.SUBMITTED, title="Low")
    high = make_proposal(call.conference, grace, state=State.SUBMITTED, title="High")
    mine = make_proposal(call.conference, grace, state=State.SUBMITTED, title="Mine")
    score(organizer, low, 0)
    score(organizer, high, 3)
    score(organizer, mine, 1)
    score(reviewer[0], mine, 1)
    listed = reviewer[1].get(api(call.conference, "proposals/"), {"ordering": "-score"}).json()
    # The one it scored first; the others without a score it may see, newest first.
    assert [(p["title"], p["mean_score"]) for p in listed["results"]] == [
        ("Mine", 1.0),
        ("High", None),
        ("Low", None),
    ]


def test_organizers_sort_by_score_best_first(call, grace, organizer, organizer_client):
    titles = {}
    for value, title in [(1, "Middle"), (3, "Best"), (0, "Worst")]:
        titles[title] = make_proposal(call.conference, grace, state=State.SUBMITTED, title=title)
        score(organizer, titles[title], value)
    make_proposal(call.conference, grace, state=State.SUBMITTED, title="Unscored")
    listed = organizer_client.get(api(call.conference, "proposals/"), {"ordering": "-score"})
    assert [p["title"] for p in listed.json()["results"]] == ["Best", "Middle", "Worst", "Unscored"]


def test_the_list_filters_by_state_kind_track_and_what_i_have_not_scored(call, grace, reviewer):
    track = make_track(call.conference, slug="ml")
    call.tracks.add(track)
    talk = make_proposal(call.conference, grace, state=State.SUBMITTED, title="Talk", track=track)
    lightning = make_proposal(
        call.conference, grace, state=State.ACCEPTED, title="Short", kind="lightning-talk"
    )
    score(reviewer[0], lightning, 2)
    client, url = reviewer[1], api(call.conference, "proposals/")

    def titles(**query):
        return [p["title"] for p in client.get(url, query).json()["results"]]

    assert titles(state="accepted") == ["Short"]
    assert titles(kind="talk") == ["Talk"]
    assert titles(track="ml") == ["Talk"]
    assert titles(not_reviewed_by_me="true") == ["Talk"]
    assert talk.code != lightning.code


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ({"state": "maybe"}, "state"),
        ({"ordering": "speakers"}, "ordering"),
        ({"limit": "x"}, "limit"),
    ],
)
def test_bad_list_parameters_are_a_400_naming_them(call, organizer_client, query, field):
    response = organizer_client.get(api(call.conference, "proposals/"), query)
    assert response.status_code == 400
    assert field in response.json()


def test_a_draft_is_nobody_elses_not_even_the_organizers(call, grace, organizer_client):
    draft = make_proposal(call.conference, grace)
    assert organizer_client.get(proposal_url(draft)).status_code == 404


@pytest.mark.parametrize("n", [1, 12])
def test_the_list_query_count_does_not_grow(
    call, grace, django_user_model, reviewer, organizer, django_assert_max_num_queries, n
):
    call.anonymised_review = True
    call.save()
    for _ in range(n):
        proposal = make_proposal(
            call.conference, grace, account(django_user_model, f"co-{_}"), state=State.SUBMITTED
        )
        score(organizer, proposal, 2)
    with django_assert_max_num_queries(6):
        response = reviewer[1].get(api(call.conference, "proposals/"))
    assert len(response.json()["results"]) == n


def test_a_read_answers_304_to_the_etag_it_gave(call, grace, organizer_client):
    proposal = make_proposal(call.conference, grace, state=State.SUBMITTED)
    for url in (api(call.conference, "proposals/"), proposal_url(proposal)):
        etag = organizer_client.get(url)["ETag"]
        assert organizer_client.get(url, HTTP_IF_NONE_MATCH=etag).status_code == 304


# --- doors ------------------------------------------------------------------------------------


def test_a_reviewer_of_another_conference_finds_no_proposals(call, grace, django_user_model):
    other = make_conference(slug="other")
    _, client = None, client_in_team(account(django_user_model, "olga"), other, is_reviewer=True)
    proposal = make_proposal(call.conference, grace, state=State.SUBMITTED)
    assert client.get(api(call.conference, "proposals/")).status_code == 404
    assert client.get(proposal_url(proposal)).status_code == 404
    assert (
        client.put(proposal_url(proposal, "my-review/"), {"score": 1}, format="json").status_code
        == 404
    )


def test_a_team_without_the_reviewer_role_is_refused(call, grace, django_user_model):
    venue = client_in_team(account(django_user_model, "vera"), call.conference, is_venue=True)
    assert venue.get(api(call.conference, "proposals/")).status_code == 403


def test_anonymous_clients_are_asked_to_authenticate(call, grace, anonymous):
    proposal = make_proposal(call.conference, grace, state=State.SUBMITTED)
    assert anonymous.get(api(call.conference, "proposals/")).status_code == 401
    assert anonymous.get(proposal_url(proposal)).status_code == 401
    assert anonymous.get(mine_url(proposal)).status_code == 401


def test_a_read_only_token_writes_no_review(call, grace, reviewer):
    proposal = make_proposal(call.conference, grace, state=State.SUBMITTED)
    client = token_client(reviewer[0], scope=ApiToken.Scope.READ)
    assert client.get(proposal_url(proposal)).status_code == 200
    assert (
        client.put(proposal_url(proposal, "my-review/"), {"score": 1}, format="json").status_code
        == 403
    )
    assert not Review.objects.exists()


def test_a_reviewer_cannot_decide(call, grace, reviewer):
    proposal = make_proposal(call.conference, grace, state=State.SUBMITTED)
    client = reviewer[1]
    assert (
        client.post(
            proposal_url(proposal, "decision/"), {"state": "accepted"}, format="json"
        ).status_code
        == 403
    )
    bulk = {"state": "accepted", "proposals": [proposal.code]}
    assert client.post(api(call.conference, "decisions/"), bulk, format="json").status_code == 403
    assert Proposal.objects.get().state == State.SUBMITTED


# --- reviews ----------------------------------------------------------------------------------


def test_a_reviewer_scores_then_changes_their_score(call, grace, reviewer):
    proposal = make_proposal(call.conference, grace, state=State.SUBMITTED)
    client, url = reviewer[1], proposal_url(proposal, "my-review/")
    assert client.put(url, {"score": 1, "comment": "Hmm"}, format="json").status_code == 201
    response = client.put(url, {"score": 2, "comment": "Better"}, format="json")
    assert response.status_code == 200
    assert (response.json()["score"], response.json()["comment"]) == (2, "Better")
    assert list(Review.objects.values_list("score", "comment")) == [(2, "Better")]


@pytest.mark.parametrize(
    ("body", "field"), [({"score": 4}, "score"), ({"score": "2"}, "score"), ({}, "score")]
)
def test_a_score_off_the_scale_is_a_400(call, grace, reviewer, body, field):
    proposal = make_proposal(call.conference, grace, state=State.SUBMITTED)
    response = reviewer[1].put(proposal_url(proposal, "my-review/"), body, format="json")
    assert response.status_code == 400
    assert field in response.json()


def test_reviewing_ones_own_proposal_is_a_400(call, reviewer, programme):
    proposal = make_proposal(call.conference, programme[0], state=State.SUBMITTED)
    response = programme[1].put(proposal_url(proposal, "my-review/"), {"score": 3}, format="json")
    assert response.status_code == 400
    assert response.json() == {"proposal": ["You speak in this proposal: you cannot review it."]}
    # Nor does its speaker read the others' reviews of it.
    score(reviewer[0], proposal, 0)
    assert programme[1].get(proposal_url(proposal, "reviews/")).json() == []
    assert programme[1].get(proposal_url(proposal)).json()["mean_score"] is None


# --- decisions --------------------------------------------------------------------------------


def test_a_decision_on_one_proposal_says_it_moved(call, grace, programme, dummy_tasks):
    proposal = make_proposal(call.conference, grace, state=State.SUBMITTED, title="Graphs")
    response = programme[1].post(
        proposal_url(proposal, "decision/"), {"state": "accepted"}, format="json"
    )
    assert response.status_code == 200
    assert response.json() == {
        "state": "accepted",
        "moved": [{"code": proposal.code, "title": "Graphs", "state": "accepted"}],
        "unchanged": [],
        "refused": [],
    }
    assert Proposal.objects.get().state == State.ACCEPTED


def test_a_bulk_decision_reports_what_moved_what_stayed_and_what_was_refused_and_why(
    call, grace, organizer, organizer_client, dummy_tasks
):
    first = make_proposal(call.conference, grace, state=State.SUBMITTED, title="First")
    already = make_proposal(call.conference, grace, state=State.REJECTED, title="Already")
    published = make_proposal(call.conference, grace, state=State.ACCEPTED, title="Published")
    session = decisions.confirm(published, by=grace, now=AFTER_CALL)
    publish(session)
    body = {"state": "rejected", "proposals": [first.code, already.code, published.code]}
    response = organizer_client.post(api(call.conference, "decisions/"), body, format="json")
    assert response.status_code == 200
    report = response.json()
    assert [p["title"] for p in report["moved"]] == ["First"]
    assert [p["title"] for p in report["unchanged"]] == ["Already"]
    assert report["refused"] == [
        {
            "code": published.code,
            "title": "Published",
            "state": "confirmed",
            "reason": "Its session is published: change the session in the schedule instead.",
        }
    ]
    assert Proposal.objects.get(pk=first.pk).state == State.REJECTED


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"state": "confirmed", "proposals": ["X"]}, "state"),
        ({"state": "accepted", "proposals": []}, "proposals"),
        ({"state": "accepted", "proposals": "ABC"}, "proposals"),
        ({"state": "accepted", "proposals": ["NOSUCH"]}, "proposals"),
        ({"state": "accepted", "proposals": [12]}, "proposals"),
    ],
)
def test_a_bad_bulk_decision_is_a_400_and_decides_nothing(
    call, grace, organizer_client, body, field
):
    make_proposal(call.conference, grace, state=State.SUBMITTED)
    response = organizer_client.post(api(call.conference, "decisions/"), body, format="json")
    assert response.status_code == 400
    assert field in response.json()
    assert Proposal.objects.get().state == State.SUBMITTED


def test_a_draft_cannot_be_decided_in_bulk(call, grace, organizer_client):
    draft = make_proposal(call.conference, grace)
    body = {"state": "accepted", "proposals": [draft.code]}
    response = organizer_client.post(api(call.conference, "decisions/"), body, format="json")
    assert response.status_code == 400
    assert Proposal.objects.get().state == State.DRAFT


# --- a speaker's own proposals ----------------------------------------------------------------


def test_a_speaker_drafts_edits_and_submits_a_proposal(call, grace, clock):
    clock(DURING_CALL)
    question = CallQuestion.objects.create(
        call=call, text="Spoken before?", answer_type="yes-no", required=True
    )
    client = speaker_client(grace)
    created = client.post(
        api(call.conference, "my-proposals/"),
        {"title": "Graphs", "kind": "talk", "answers": [{"question": question.pk, "value": "no"}]},
        format="json",
    )
    assert created.status_code == 201, created.json()
    code = created.json()["code"]
    proposal = Proposal.objects.get(code=code)
    assert (proposal.state, proposal.created_by) == (State.DRAFT, grace)
    assert created.json()["speakers"] == [{"name": "Grace Hopper", "bio": ""}]
    changed = client.patch(mine_url(proposal), {"abstract": "Nodes and edges."}, format="json")
    assert changed.json()["abstract"] == "Nodes and edges."
    submitted = client.post(mine_url(proposal, "submit/"))
    assert submitted.status_code == 200
    assert submitted.json()["state"] == "submitted"
    assert [s["to_state"] for s in submitted.json()["history"]] == ["submitted"]


def test_a_submit_after_the_deadline_is_a_400_saying_so(call, grace, clock):
    proposal = make_proposal(call.conference, grace)
    clock(AFTER_CALL)
    response = speaker_client(grace).post(mine_url(proposal, "submit/"))
    assert response.status_code == 400
    assert response.json() == {"state": ["The call for proposals is closed."]}
    assert Proposal.objects.get().state == State.DRAFT


def test_submissions_through_the_api_count_against_the_same_hourly_limit_as_the_pages(
    call, grace, clock
):
    clock(DURING_CALL)
    client = speaker_client(grace)
    drafts = [make_proposal(call.conference, grace) for _ in range(6)]
    answers = [client.post(mine_url(draft, "submit/")).status_code for draft in drafts]
    assert answers == [200] * 5 + [429]
    assert Proposal.objects.get(pk=drafts[-1].pk).state == State.DRAFT


def test_after_the_deadline_nothing_is_edited_but_a_speaker_may_withdraw(call, grace, clock):
    proposal = make_proposal(call.conference, grace, state=State.SUBMITTED)
    clock(AFTER_CALL)
    client = speaker_client(grace)
    edit = client.patch(mine_url(proposal), {"title": "Late"}, format="json")
    assert edit.status_code == 400
    assert edit.json() == {"non_field_errors": ["The call for proposals is closed."]}
    assert client.post(mine_url(proposal, "withdraw/")).json()["state"] == "withdrawn"


def test_a_required_question_must_be_answered_before_submitting(call, grace, clock):
    clock(DURING_CALL)
    CallQuestion.objects.create(
        call=call, text="Spoken before?", answer_type="yes-no", required=True
    )
    proposal = make_proposal(call.conference, grace)
    response = speaker_client(grace).post(mine_url(proposal, "submit/"))
    assert response.status_code == 400
    assert "Spoken before?" in response.json()["state"][0]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"title": "X", "kind": "workshop"}, "kind"),
        ({"title": "X", "kind": "talk", "track": "nope"}, "track"),
        ({"title": "X", "kind": "talk", "answers": [{"question": 999, "value": "x"}]}, "answers"),
        ({"title": "X", "kind": "talk", "answers": [{"question": 1}]}, "answers"),
        ({"kind": "talk"}, "title"),
        ({"title": 12, "kind": "talk"}, "title"),
    ],
)
def test_a_bad_proposal_is_a_400_naming_the_field(call, grace, clock, body, field):
    clock(DURING_CALL)
    response = speaker_client(grace).post(
        api(call.conference, "my-proposals/"), body, format="json"
    )
    assert response.status_code == 400
    assert field in response.json()
    assert not Proposal.objects.exists()


def test_a_wrong_answer_to_a_question_is_a_400(call, grace, clock):
    clock(DURING_CALL)
    question = CallQuestion.objects.create(call=call, text="Spoken before?", answer_type="yes-no")
    body = {"title": "X", "kind": "talk", "answers": [{"question": question.pk, "value": "maybe"}]}
    response = speaker_client(grace).post(
        api(call.conference, "my-proposals/"), body, format="json"
    )
    assert response.json() == {"answers": ["Spoken before? Answer yes or no."]}


def test_the_draft_limit_holds_in_the_api(call, grace, clock, monkeypatch):
    clock(DURING_CALL)
    monkeypatch.setattr("sessions.models.proposals.MAX_DRAFTS_PER_ACCOUNT", 1)
    make_proposal(call.conference, grace)
    response = speaker_client(grace).post(
        api(call.conference, "my-proposals/"), {"title": "Two", "kind": "talk"}, format="json"
    )
    assert response.status_code == 400
    assert "drafts" in response.json()["title"][0]


def test_a_step_based_on_a_stale_version_is_a_412_and_nothing_moves(call, grace, clock):
    clock(DURING_CALL)
    proposal = make_proposal(call.conference, grace)
    client = speaker_client(grace)
    etag = client.get(mine_url(proposal))["ETag"]
    client.patch(mine_url(proposal), {"title": "Renamed"}, format="json", HTTP_IF_MATCH=etag)
    stale = client.post(mine_url(proposal, "submit/"), HTTP_IF_MATCH=etag)
    assert stale.status_code == 412
    assert Proposal.objects.get().state == State.DRAFT
    fresh = client.get(mine_url(proposal))["ETag"]
    assert client.post(mine_url(proposal, "submit/"), HTTP_IF_MATCH=fresh).status_code == 200


def test_another_persons_proposal_is_a_404_to_a_speaker(call, grace, attendee, clock):
    clock(DURING_CALL)
    proposal = make_proposal(call.conference, grace)
    client = speaker_client(attendee)
    assert client.get(mine_url(proposal)).status_code == 404
    assert client.post(mine_url(proposal, "withdraw/")).status_code == 404
    assert client.patch(mine_url(proposal), {"title": "Mine"}, format="json").status_code == 404
    assert client.get(api(call.conference, "my-proposals/")).json()["results"] == []


@pytest.mark.parametrize("n", [1, 12])
def test_my_proposals_query_count_does_not_grow(
    call, grace, django_user_model, django_assert_max_num_queries, n
):
    question = CallQuestion.objects.create(call=call, text="Spoken before?", answer_type="yes-no")
    for index in range(n):
        proposal = make_proposal(call.conference, grace, account(django_user_model, f"co-{index}"))
        proposal.answers.create(question=question, value="no")
        proposal.move_to(State.SUBMITTED, by=grace, now=DURING_CALL, by_speaker=True)
    client = speaker_client(grace)
    with django_assert_max_num_queries(9):
        response = client.get(api(call.conference, "my-proposals/"))
    assert len(response.json()["results"]) == n


def test_a_speaker_lists_their_proposals_and_never_their_reviews(call, grace, organizer):
    proposal = make_proposal(call.conference, grace, state=State.SUBMITTED, title="Graphs")
    score(organizer, proposal, 0, comment="Secret")
    response = speaker_client(grace).get(api(call.conference, "my-proposals/"))
    assert [p["title"] for p in response.json()["results"]] == ["Graphs"]
    assert "Secret" not in response.content.decode()
    assert "score" not in response.content.decode()
    # Nor do the teams' routes open to them.
    assert speaker_client(grace).get(proposal_url(proposal)).status_code == 404


# --- the public API -----------------------------------------------------------------------------


def test_the_public_api_shows_nothing_of_a_proposal_before_its_session_is_published(
    call, grace, organizer, anonymous, dummy_tasks
):
    proposal = make_proposal(call.conference, grace, state=State.ACCEPTED, title="Secret plans")
    session = decisions.confirm(proposal, by=grace, now=AFTER_CALL)
    for path in ("sessions/", "speakers/", f"sessions/{session.slug}/"):
        response = anonymous.get(api(call.conference, path))
        assert "Secret plans" not in response.content.decode()
        assert "grace" not in response.content.decode().lower()
    publish(session)
    titles = [
        s["title"] for s in anonymous.get(api(call.conference, "sessions/")).json()["results"]
    ]
    assert titles == ["Secret plans"]


@pytest.mark.parametrize("path", ["proposals/", "decisions/", "my-proposals/"])
def test_options_describes_a_route_without_breaking(call, organizer_client, path):
    response = organizer_client.options(api(call.conference, path))
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"

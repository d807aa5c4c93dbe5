"""The review list and each proposal's review page in the admin (sessions/cfp/admin/)."""

import csv
import io

import pytest
from django.urls import reverse

from sessions.cfp.admin.export import COLUMNS
from sessions.models import CallQuestion, Proposal, ProposalAnswer, ProposalStateChange, Review
from tests.builders import (
    make_call,
    make_conference,
    make_proposal,
    make_team,
    make_track,
    paris,
)

pytestmark = pytest.mark.django_db

State = Proposal.State
LIST = reverse("admin:schedule_proposal_changelist")


def page(proposal) -> str:
    return reverse("admin:schedule_proposal_change", args=[proposal.pk])


def review(proposal, reviewer, score, comment=""):
    return Review.objects.create(proposal=proposal, reviewer=reviewer, score=score, comment=comment)


def listed(response) -> list[str]:
    return [proposal.title for proposal in response.context["cl"].result_list]


def logged_in(client, user):
    client.force_login(user)
    return client


# --- Doors ---------------------------------------------------------------------------------


def test_a_reviewer_sees_nothing_of_another_conference(client, call, reviewer, speaker_user):
    other = make_call(make_conference(name="Elsewhere"))
    make_proposal(call.conference, speaker_user, state=State.SUBMITTED, title="Ours")
    theirs = make_proposal(other.conference, speaker_user, state=State.SUBMITTED, title="Theirs")
    logged_in(client, reviewer)
    assert listed(client.get(LIST)) == ["Ours"]
    assert client.get(page(theirs)).status_code == 404
    export = reverse("admin:schedule_proposal_export", args=[other.conference_id])
    assert client.get(export).status_code == 404


def test_drafts_and_withdrawn_proposals_are_not_listed(client, call, reviewer, speaker_user):
    make_proposal(call.conference, speaker_user, title="Draft")
    make_proposal(call.conference, speaker_user, state=State.WITHDRAWN, title="Gone")
    make_proposal(call.conference, speaker_user, state=State.SUBMITTED, title="Sent")
    assert listed(logged_in(client, reviewer).get(LIST)) == ["Sent"]


@pytest.mark.parametrize("who", ["anonymous", "attendee"])
def test_the_review_list_asks_outsiders_to_log_in(client, attendee, call, who):
    if who == "attendee":
        client.force_login(attendee)
    response = client.get(LIST)
    assert response.status_code == 302
    assert response.url.startswith("/admin/login/")


def test_a_reviewer_can_neither_decide_nor_export_nor_change_the_call(
    client, call, reviewer, speaker_user
):
    proposal = make_proposal(call.conference, speaker_user, state=State.SUBMITTED)
    logged_in(client, reviewer)
    response = client.post(LIST, {"action": "accept", "_selected_action": [proposal.pk]})
    assert response.status_code == 200  # the list again: it offers them no action
    proposal.refresh_from_db()
    assert proposal.state == State.SUBMITTED
    assert client.post(page(proposal), {"decision": "accepted"}).status_code == 403
    proposal.refresh_from_db()
    assert proposal.state == State.SUBMITTED
    export = reverse("admin:schedule_proposal_export", args=[call.conference_id])
    assert client.get(export).status_code == 403
    call_page = reverse("admin:schedule_call_change", args=[call.pk])
    assert client.post(call_page, {"score_max": "9"}).status_code == 403
    call.refresh_from_db()
    assert call.score_max == 3


def test_the_list_offers_no_decision_to_a_reviewer(client, call, reviewer):
    response = logged_in(client, reviewer).get(LIST)
    assert response.context["action_form"] is None


# --- The list ------------------------------------------------------------------------------


@pytest.fixture
def scored(call, person, speaker_user, organizer):
    """Three submitted proposals in two tracks, scored by two reviewers."""
    ml, web = make_track(call.conference, name="ML"), make_track(call.conference, name="Web")
    call.tracks.set([ml, web])
    alice = person("alice", call.conference, is_reviewer=True)
    first = make_proposal(
        call.conference, speaker_user, state=State.SUBMITTED, title="Best", track=ml
    )
    second = make_proposal(
        call.conference, speaker_user, state=State.SUBMITTED, title="Middle", track=web
    )
    third = make_proposal(
        call.conference,
        speaker_user,
        state=State.SUBMITTED,
        title="Unscored",
        kind="lightning-talk",
    )
    review(first, alice, 3)
    review(first, organizer, 2)
    review(second, alice, 1)
    return {"first": first, "second": second, "third": third, "alice": alice, "ml": ml}


def test_those_who_decide_see_the_best_mean_score_first(organizer_client, scored):
    response = organizer_client.get(LIST)
    assert listed(response) == ["Best", "Middle", "Unscored"]
    html = response.content.decode()
    assert "2.50" in html
    assert "1.00" in html


def test_the_filters_narrow_the_list(organizer_client, scored):
    by = lambda **query: listed(organizer_client.get(LIST, query))  # noqa: E731
    assert by(track__id__exact=scored["ml"].pk) == ["Best"]
    assert by(kind="lightning-talk") == ["Unscored"]
    assert by(reviewed="no") == ["Middle", "Unscored"]
    assert by(reviewed="yes") == ["Best"]
    assert by(score_from="2") == ["Best"]
    assert by(score_from="0.5", score_to="2") == ["Middle"]
    assert by(score_from="nonsense") == ["Best", "Middle", "Unscored"]
    assert by(state="submitted") == ["Best", "Middle", "Unscored"]


def test_each_reviewers_progress_is_shown_above_the_list(organizer_client, scored):
    response = organizer_client.get(LIST)
    [(_conference, progress)] = response.context["progress"]
    counts = {each.reviewer.username: (each.reviewed, each.to_review) for each in progress}
    assert counts == {"alice": (2, 3), "organizer": (1, 3)}
    assert "reviewed 2 of 3" in response.content.decode()


def test_a_reviewer_sees_no_mean_score_before_scoring_when_the_call_hides_them(
    client, scored, reviewer
):
    response = logged_in(client, reviewer).get(LIST)
    html = response.content.decode()
    assert "2.50" not in html
    assert "1.00" not in html
    assert "mean_score_shown" not in response.context["cl"].sortable_by


def test_the_speakers_column_follows_the_call(client, call, scored, person):
    alice = scored["alice"]
    assert "Grace Hopper" in logged_in(client, alice).get(LIST).content.decode()
    call.anonymised_review = True
    call.save()
    assert "Grace Hopper" not in client.get(LIST).content.decode()


@pytest.mark.parametrize("count", [1, 12])
def test_the_review_list_query_count_does_not_grow(
    organizer_client, django_assert_max_num_queries, call, speaker_user, person, count
):
    alice = person("alice", call.conference, is_reviewer=True)
    for number in range(count):
        proposal = make_proposal(call.conference, speaker_user, state=State.SUBMITTED)
        review(proposal, alice, number % 4)
    with django_assert_max_num_queries(18):
        response = organizer_client.get(LIST)
    assert response.context["cl"].result_count == count


# --- Decisions from the list ----------------------------------------------------------------


def test_bulk_accept_asks_first_then_moves_and_reports_refusals(
    organizer_client, call, speaker_user, dummy_tasks
):
    sent = make_proposal(call.conference, speaker_user, state=State.SUBMITTED, title="Sent")
    confirmed = make_proposal(call.conference, speaker_user, state=State.CONFIRMED, title="Kept")
    done = make_proposal(call.conference, speaker_user, state=State.ACCEPTED, title="Done")
    selection = {"action": "accept", "_selected_action": [sent.pk, confirmed.pk, done.pk]}
    asked = organizer_client.post(LIST, selection)
    assert asked.status_code == 200
    assert [(p.title, what) for p, what, _ in asked.context["plan"]] == [
        ("Done", "same"),
        ("Kept", "moves"),
        ("Sent", "moves"),
    ]
    assert Proposal.objects.get(pk=sent.pk).state == State.SUBMITTED  # nothing yet
    withdrawn = make_proposal(call.conference, speaker_user, state=State.WITHDRAWN, title="Gone")
    selection["_selected_action"].append(withdrawn.pk)
    response = organizer_client.post(LIST, {**selection, "post": "yes"}, follow=True)
    said = [str(message) for message in response.context["messages"]]
    assert said[0] == "2 proposals accepted."
    assert "Done" in said[1]
    # Withdrawn proposals are not listed for review, so they cannot even be selected.
    assert Proposal.objects.get(pk=sent.pk).state == State.ACCEPTED
    assert Proposal.objects.get(pk=withdrawn.pk).state == State.WITHDRAWN


def test_bulk_decisions_refuse_conferences_where_one_does_not_decide(
    client, call, person, speaker_user, dummy_tasks
):
    other = make_call(make_conference(name="Elsewhere")).conference
    planner = person("paula", call.conference, is_programme=True)
    make_team(planner, conferences=[other], is_reviewer=True)
    ours = make_proposal(call.conference, speaker_user, state=State.SUBMITTED, title="Ours")
    theirs = make_proposal(other, speaker_user, state=State.SUBMITTED, title="Theirs")
    selection = {"action": "reject", "_selected_action": [ours.pk, theirs.pk], "post": "yes"}
    response = logged_in(client, planner).post(LIST, selection, follow=True)
    said = [str(message) for message in response.context["messages"]]
    assert said[0] == "1 proposal rejected."
    assert "Theirs" in said[1]
    assert "Elsewhere" in said[1]
    assert Proposal.objects.get(pk=theirs.pk).state == State.SUBMITTED


# --- The review page -----------------------------------------------------------------------


def test_the_review_page_renders_markdown_cleaned(organizer_client, call, speaker_user):
    proposal = make_proposal(
        call.conference,
        speaker_user,
        state=State.SUBMITTED,
        abstract="**Bold** <script>alert(1)</script>",
    )
    html = organizer_client.get(page(proposal)).content.decode()
    assert "<strong>Bold</strong>" in html
    assert "<script>alert(1)</script>" not in html


def test_an_anonymised_review_hides_the_speakers_from_reviewers_not_organizers(
    client, call, reviewer, organizer, speaker_user
):
    call.anonymised_review = True
    call.save()
    proposal = make_proposal(call.conference, speaker_user, state=State.DRAFT)
    proposal.proposal_speakers.update(bio="Wrote the first compiler.")
    ProposalStateChange.objects.create(
        proposal=proposal, from_state="draft", to_state="submitted", changed_by=speaker_user
    )
    Proposal.objects.filter(pk=proposal.pk).update(state=State.SUBMITTED)
    seen = logged_in(client, reviewer).get(page(proposal)).content.decode()
    assert "Grace" not in seen
    assert "compiler" not in seen
    assert "hidden: the review is anonymised" in seen
    assert "Grace Hopper" in logged_in(client, organizer).get(page(proposal)).content.decode()


def test_the_first_reviewer_is_told_there_is_no_other_review_not_that_none_is_hidden(
    client, call, reviewer, speaker_user
):
    proposal = make_proposal(call.conference, speaker_user, state=State.SUBMITTED)
    seen = logged_in(client, reviewer).get(page(proposal)).content.decode()
    assert "No other review yet." in seen
    assert "shown once you have scored" not in seen


def test_others_scores_show_only_once_the_reviewer_has_scored(
    client, call, reviewer, person, speaker_user
):
    proposal = make_proposal(call.conference, speaker_user, state=State.SUBMITTED)
    review(proposal, person("alice", call.conference, is_reviewer=True), 3, "Brilliant idea")
    logged_in(client, reviewer)
    assert "Brilliant idea" not in client.get(page(proposal)).content.decode()
    response = client.post(page(proposal), {"score": "1", "comment": "Meh", "_save": "Save"})
    assert response.status_code == 302
    assert "Brilliant idea" in client.get(page(proposal)).content.decode()
    assert Review.objects.get(reviewer=reviewer).comment == "Meh"


def test_a_reviewer_sees_others_scores_at_once_when_the_call_allows(
    client, call, reviewer, person, speaker_user
):
    call.scores_hidden_until_reviewed = False
    call.save()
    proposal = make_proposal(call.conference, speaker_user, state=State.SUBMITTED)
    review(proposal, person("alice", call.conference, is_reviewer=True), 3, "Brilliant idea")
    assert "Brilliant idea" in logged_in(client, reviewer).get(page(proposal)).content.decode()


def test_organizers_see_the_scores_without_scoring(organizer_client, call, person, speaker_user):
    proposal = make_proposal(call.conference, speaker_user, state=State.SUBMITTED)
    review(proposal, person("alice", call.conference, is_reviewer=True), 3, "Brilliant idea")
    assert "Brilliant idea" in organizer_client.get(page(proposal)).content.decode()


def test_nobody_reviews_their_own_proposal(client, call, reviewer):
    proposal = make_proposal(call.conference, reviewer, state=State.SUBMITTED)
    response = logged_in(client, reviewer).post(page(proposal), {"score": "2", "_save": "Save"})
    assert response.status_code == 200
    assert "You speak in this proposal: you cannot review it." in response.content.decode()
    assert not Review.objects.exists()
    # The page says so before anything is typed, and offers no score form.
    html = client.get(page(proposal)).content.decode()
    assert "You speak in this proposal: you cannot review it." in html
    assert 'id="review-form"' not in html


def test_save_and_next_opens_the_next_proposal_not_yet_reviewed(
    client, call, reviewer, speaker_user
):
    first, second, third = (
        make_proposal(call.conference, speaker_user, state=State.SUBMITTED) for _ in range(3)
    )
    Proposal.objects.filter(pk=first.pk).update(submitted_at=call.opens_at)
    Proposal.objects.filter(pk=second.pk).update(submitted_at=call.closes_at)
    Proposal.objects.filter(pk=third.pk).update(submitted_at=call.opens_at)
    review(third, reviewer, 1)
    logged_in(client, reviewer)
    response = client.post(page(first), {"score": "2", "_next": "Save and next"})
    assert response.url == page(second)
    response = client.post(page(second), {"score": "0", "_next": "Save and next"})
    assert response.url.startswith(LIST)


@pytest.mark.parametrize(
    "data",
    [
        {"score": "9"},
        {"score": "-1"},
        {"score": "two"},
        {"score": "99999999999999999999999"},
        {"score": ""},
        {},
        {"score": "2", "comment": "x" * 100_000},
    ],
    ids=["above", "below", "word", "huge", "empty", "missing", "long"],
)
def test_hostile_input_in_the_review_form_is_refused_with_errors(
    client, call, reviewer, speaker_user, data
):
    proposal = make_proposal(call.conference, speaker_user, state=State.SUBMITTED)
    response = logged_in(client, reviewer).post(page(proposal), {**data, "_save": "Save"})
    assert response.status_code == 200
    assert response.context["form"].errors
    assert not Review.objects.exists()


@pytest.mark.parametrize("data", [{"score": "2", "comment": "nul\x00here"}, {"score": "\x00"}])
def test_a_nul_character_in_the_review_form_is_a_400(client, call, reviewer, speaker_user, data):
    proposal = make_proposal(call.conference, speaker_user, state=State.SUBMITTED)
    response = logged_in(client, reviewer).post(page(proposal), {**data, "_save": "Save"})
    assert response.status_code == 400
    assert not Review.objects.exists()


def test_an_odd_decision_on_the_page_changes_nothing(organizer_client, call, speaker_user):
    proposal = make_proposal(call.conference, speaker_user, state=State.SUBMITTED)
    for value in ("confirmed", "", "x" * 5000):
        response = organizer_client.post(page(proposal), {"decision": value})
        assert response.status_code == 302
    proposal.refresh_from_db()
    assert proposal.state == State.SUBMITTED


def test_a_decision_button_on_the_page_decides_one_proposal(
    organizer_client, call, speaker_user, dummy_tasks
):
    proposal = make_proposal(call.conference, speaker_user, state=State.SUBMITTED)
    response = organizer_client.post(page(proposal), {"decision": "waitlisted"}, follow=True)
    assert [str(m) for m in response.context["messages"]] == ["1 proposal wait-listed."]
    proposal.refresh_from_db()
    assert proposal.state == State.WAITLISTED
    assert (
        "by Organizer" in response.content.decode() or "by organizer" in response.content.decode()
    )


def test_organizers_cannot_edit_or_delete_what_speakers_wrote(organizer_client, call, speaker_user):
    proposal = make_proposal(call.conference, speaker_user, state=State.SUBMITTED, title="Mine")
    organizer_client.post(page(proposal), {"title": "Theirs now", "score": "2"})
    proposal.refresh_from_db()
    assert proposal.title == "Mine"
    delete = reverse("admin:schedule_proposal_delete", args=[proposal.pk])
    assert organizer_client.post(delete, {"post": "yes"}).status_code == 403
    assert organizer_client.get(reverse("admin:schedule_proposal_add")).status_code == 403


@pytest.mark.parametrize("count", [1, 8])
def test_the_review_page_query_count_does_not_grow(
    organizer_client, django_assert_max_num_queries, call, person, speaker_user, count
):
    proposal = make_proposal(call.conference, speaker_user, state=State.SUBMITTED)
    for number in range(count):
        review(proposal, person(f"r{number}", call.conference, is_reviewer=True), number % 4)
    with django_assert_max_num_queries(16):
        response = organizer_client.get(page(proposal))
    assert len(response.context["others"]) == count


# --- CSV export ----------------------------------------------------------------------------


def export_rows(client, conference) -> list[list[str]]:
    response = client.get(reverse("admin:schedule_proposal_export", args=[conference.pk]))
    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    return list(csv.reader(io.StringIO(response.content.decode())))


def test_the_csv_lists_scores_speakers_and_answers(organizer_client, call, person, speaker_user):
    question = CallQuestion.objects.create(call=call, text="Done it before?", answer_type="yes-no")
    proposal = make_proposal(call.conference, speaker_user, state=State.SUBMITTED, title="Kernels")
    ProposalAnswer.objects.create(proposal=proposal, question=question, value="yes")
    review(proposal, person("alice", call.conference, is_reviewer=True), 3)
    review(proposal, person("bob", call.conference, is_reviewer=True), 2)
    make_proposal(call.conference, speaker_user, title="A draft")
    assert export_rows(organizer_client, call.conference) == [
        [*COLUMNS, "Done it before?"],
        [
            proposal.code,
            "Kernels",
            "Talk",
            "",
            "Submitted",
            "Grace Hopper <grace@example.org>",
            "2.50",
            "2",
            "yes",
        ],
    ]


def test_the_csv_cannot_run_formulas_in_a_spreadsheet(organizer_client, call, speaker_user):
    make_proposal(call.conference, speaker_user, state=State.SUBMITTED, title="=HYPERLINK(1)")
    make_proposal(call.conference, speaker_user, state=State.SUBMITTED, title="@SUM(A1)")
    titles = sorted(row[1] for row in export_rows(organizer_client, call.conference)[1:])
    assert titles == ["'=HYPERLINK(1)", "'@SUM(A1)"]


def test_the_list_links_the_export_for_those_who_decide(organizer_client, call):
    export = reverse("admin:schedule_proposal_export", args=[call.conference_id])
    assert export in organizer_client.get(LIST).content.decode()


def test_a_reviewer_never_sees_the_reviews_of_a_proposal_they_speak_in(
    client, call, reviewer, person, speaker_user
):
    call.scores_hidden_until_reviewed = False
    call.save()
    proposal = make_proposal(call.conference, reviewer, state=State.SUBMITTED)
    review(proposal, person("alice", call.conference, is_reviewer=True), 0, "Not convinced")
    response = logged_in(client, reviewer).get(page(proposal))
    assert "Not convinced" not in response.content.decode()
    assert "0.00" not in client.get(LIST).content.decode()


def test_the_history_says_when_in_the_conferences_zone_and_the_readers_language(
    client, call, reviewer, speaker_user
):
    proposal = make_proposal(call.conference, speaker_user, state=State.SUBMITTED)
    ProposalStateChange.objects.create(
        proposal=proposal,
        from_state="draft",
        to_state="submitted",
        changed_by=speaker_user,
        changed_at=paris(15, 17, 5, month=1),
    )
    seen = logged_in(client, reviewer).get(page(proposal)).content.decode()
    assert "Thu 15 Jan 2026 17:05 CET" in seen
    french = client.get(page(proposal), headers={"Accept-Language": "fr"}).content.decode()
    assert "jeu. 15 jan. 2026 17 h 05 CET" in french

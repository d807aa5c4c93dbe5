"""The call for proposals' admin page (sessions/cfp/admin/call.py)."""

import datetime

import pytest
from django.urls import reverse

from sessions.models import Call, CallQuestion, DecisionMailTemplate
from sessions.models.call import MAX_QUESTIONS
from tests.admin_forms import opened_change_form
from tests.builders import make_call, make_conference, make_team, make_track

pytestmark = pytest.mark.django_db

ADD = reverse("admin:schedule_call_add")
LIST = reverse("admin:schedule_call_changelist")
UTC = datetime.UTC


def change(call) -> str:
    return reverse("admin:schedule_call_change", args=[call.pk])


def inline_management(**rows) -> dict:
    data = {}
    for prefix in ("kinds", "questions", "mail_templates"):
        data |= {
            f"{prefix}-TOTAL_FORMS": str(rows.get(prefix, 0)),
            f"{prefix}-INITIAL_FORMS": "0",
        }
    return data


def new_call(conference, **fields) -> dict:
    return {
        "conference": conference.pk,
        "opens_at_0": "2026-01-05",
        "opens_at_1": "09:00",
        "closes_at_0": "2026-07-01",
        "closes_at_1": "23:59",
        "max_speakers": "3",
        "score_min": "0",
        "score_max": "3",
        "scores_hidden_until_reviewed": "on",
        **inline_management(kinds=1),
        "kinds-0-kind": "talk",
        "kinds-0-minutes": "30",
        "kinds-0-closes_at_0": "2026-06-01",
        "kinds-0-closes_at_1": "12:00",
        **fields,
    }


def test_the_call_is_saved_in_the_conferences_time_zone(organizer_client, conference):
    response = organizer_client.post(ADD, new_call(conference))
    assert response.status_code == 302, response.context["adminform"].form.errors
    call = Call.objects.get()
    # Paris is UTC+1 in winter and UTC+2 in summer.
    assert call.opens_at == datetime.datetime(2026, 1, 5, 8, 0, tzinfo=UTC)
    assert call.closes_at == datetime.datetime(2026, 7, 1, 21, 59, tzinfo=UTC)
    assert call.kinds.get().closes_at == datetime.datetime(2026, 6, 1, 10, 0, tzinfo=UTC)


def test_the_call_form_shows_times_on_the_conferences_clocks(organizer_client, conference):
    conference.time_zone = "America/New_York"
    conference.save()
    call = make_call(conference)  # opens 1 January 2026, 00:00 in Paris
    form = opened_change_form(organizer_client, change(call))
    assert form["opens_at_1"] == "18:00:00"
    assert "31" in form["opens_at_0"]
    assert "2025" in form["opens_at_0"]
    html = organizer_client.get(change(call)).content.decode()
    assert "In America/New_York, the conference" in html


def test_one_call_per_conference(organizer_client, conference):
    make_call(conference)
    response = organizer_client.post(ADD, new_call(conference))
    assert response.status_code == 200
    assert Call.objects.count() == 1


def test_the_call_offers_only_its_conferences_tracks(organizer_client, conference):
    ours = make_track(conference, name="Ours")
    theirs = make_track(make_conference(), name="Theirs")
    call = make_call(conference)
    page = organizer_client.get(change(call))
    assert list(page.context["adminform"].form.fields["tracks"].queryset) == [ours]
    data = opened_change_form(organizer_client, change(call)) | {"tracks": [theirs.pk]}
    assert organizer_client.post(change(call), data).status_code == 200
    assert list(call.tracks.all()) == []


def test_a_call_asks_at_most_ten_questions(organizer_client, conference):
    data = new_call(conference) | {"questions-TOTAL_FORMS": str(MAX_QUESTIONS + 1)}
    for number in range(MAX_QUESTIONS + 1):
        data |= {
            f"questions-{number}-text": f"Question {number}?",
            f"questions-{number}-answer_type": "text",
            f"questions-{number}-position": str(number),
        }
    response = organizer_client.post(ADD, data)
    assert response.status_code == 200
    assert "Please submit at most 10 forms." in response.content.decode()
    assert not CallQuestion.objects.exists()


def test_a_decision_mail_with_an_unknown_placeholder_is_refused(organizer_client, conference):
    data = new_call(conference) | {
        "mail_templates-TOTAL_FORMS": "1",
        "mail_templates-0-decision": "rejected",
        "mail_templates-0-language": "en",
        "mail_templates-0-subject": "About {title}",
        "mail_templates-0-body": "Dear {speaker}, confirm at {confirm_url}.",
    }
    response = organizer_client.post(ADD, data)
    assert response.status_code == 200
    assert "Unknown placeholder {confirm_url}" in response.content.decode()
    assert not DecisionMailTemplate.objects.exists()
    data["mail_templates-0-body"] = "Dear {speaker}, “{title}” was not chosen."
    assert organizer_client.post(ADD, data).status_code == 302
    assert DecisionMailTemplate.objects.get().subject == "About {title}"


def test_a_reviewer_reads_the_call_and_cannot_change_it(client, django_user_model, conference):
    call = make_call(conference)
    reviewer = django_user_model.objects.create_user("rita", is_staff=True)
    make_team(reviewer, conferences=[conference], is_reviewer=True)
    client.force_login(reviewer)
    assert client.get(change(call)).status_code == 200
    data = opened_change_form(client, change(call))
    assert client.post(change(call), {**data, "score_max": "9"}).status_code == 403
    assert client.get(ADD).status_code == 403


def test_the_call_list_shows_only_the_conferences_of_ones_teams(
    client, django_user_model, conference
):
    make_call(conference)
    other = make_call(make_conference(name="Elsewhere"))
    planner = django_user_model.objects.create_user("paula", is_staff=True)
    make_team(planner, conferences=[conference], is_programme=True)
    client.force_login(planner)
    response = client.get(LIST)
    assert [call.conference for call in response.context["cl"].result_list] == [conference]
    assert client.get(change(other)).status_code == 404
    choices = client.get(ADD).context["adminform"].form.fields["conference"].queryset
    assert list(choices) == [conference]


@pytest.mark.parametrize("value", ["\x01", "", "not-a-date", "-1", "9" * 30, "🦄" * 300])
def test_bad_values_in_the_call_form_never_break_it(organizer_client, conference, value):
    data = new_call(conference)
    for name in ("opens_at_0", "opens_at_1", "score_min", "score_max", "max_speakers"):
        response = organizer_client.post(ADD, {**data, name: value})
        assert response.status_code in (200, 302)

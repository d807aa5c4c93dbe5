import pytest
from django.urls import reverse

from sessions.models.feedback import Feedback
from tests.api_fixtures import *  # noqa: F403 -- pytest fixtures, the autouse one included
from tests.builders import make_session, make_track, paris

pytestmark = pytest.mark.django_db


def summary_url(conference):
    return reverse("api:feedback-summary", kwargs={"conference_slug": conference.slug})


def rated(conference, django_user_model, count):
    """``count`` sessions of track ML, each rated 4 and 5 by two attendees."""
    ml = make_track(conference, name="ML", slug="ml")
    users = [django_user_model.objects.create_user(f"rater{n}") for n in range(2)]
    for number in range(count):
        session = make_session(
            conference,
            title=f"Talk {number:02}",
            track=ml,
            starts_at=paris(8, 9, 0) + number * (paris(8, 9, 30) - paris(8, 9, 0)),
        )
        for user, rating in zip(users, [4, 5], strict=True):
            Feedback.objects.create(session=session, user=user, rating=rating, comment="Secret.")


def test_staff_get_averages_per_session_track_and_conference(
    organizer_client, conference, django_user_model
):
    ml = make_track(conference, name="ML", slug="ml")
    graphs = make_session(conference, title="Graphs", track=ml, starts_at=paris(8, 9))
    lunch_talk = make_session(conference, title="Untracked", starts_at=paris(8, 10))
    users = [django_user_model.objects.create_user(f"u{n}") for n in range(3)]
    for user, rating in zip(users, [5, 4, 4], strict=True):
        Feedback.objects.create(session=graphs, user=user, rating=rating, comment="Words.")
    Feedback.objects.create(session=lunch_talk, user=users[0], rating=1)

    response = organizer_client.get(summary_url(conference))

    assert response.status_code == 200
    assert response.json() == {
        "conference": "pycon",
        "count": 4,
        "average": 3.5,
        "tracks": [
            {"track": "", "name": "(no track)", "count": 1, "average": 1.0},
            {"track": "ml", "name": "ML", "count": 3, "average": 4.33},
        ],
        "sessions": [
            {"session": "graphs", "title": "Graphs", "track": "ml", "count": 3, "average": 4.33},
            {"session": "untracked", "title": "Untracked", "track": "", "count": 1, "average": 1.0},
        ],
    }
    assert "Words." not in response.content.decode()
    assert response["ETag"]


def test_a_conference_without_feedback_has_no_averages(organizer_client, conference):
    response = organizer_client.get(summary_url(conference))
    assert response.json() == {
        "conference": "pycon",
        "count": 0,
        "average": None,
        "tracks": [],
        "sessions": [],
    }


def test_feedback_averages_are_refused_to_attendees(attendee_client, conference):
    response = attendee_client.get(summary_url(conference))
    assert response.status_code == 403
    assert response.json() == {"detail": "You do not have permission to perform this action."}


def test_feedback_averages_ask_anonymous_clients_to_authenticate(anonymous, conference):
    assert anonymous.get(summary_url(conference)).status_code == 401


def test_feedback_averages_of_an_unknown_conference_are_a_404(organizer_client):
    response = organizer_client.get(
        reverse("api:feedback-summary", kwargs={"conference_slug": "nope"})
    )
    assert response.status_code == 404


@pytest.mark.parametrize("count", [1, 12])
def test_feedback_averages_query_count_does_not_grow(
    organizer_client, django_assert_max_num_queries, conference, django_user_model, count
):
    rated(conference, django_user_model, count)
    with django_assert_max_num_queries(4):
        response = organizer_client.get(summary_url(conference))
    assert len(response.json()["sessions"]) == count
    assert response.json()["count"] == 2 * count

"""A preview time (conference/views/preview_time.py): the conference's organizers and venue team
see now and next, door signs and feedback's opening as at a moment they choose; nobody else."""

import pytest
from django.urls import reverse

from conference.views.preview_time import SESSION_KEY
from sessions.models.feedback import Feedback
from tests.builders import make_room, make_session, make_team, paris

pytestmark = pytest.mark.django_db

BANNER = "You are seeing this as at"


@pytest.fixture
def hall(conference):
    return make_room(conference, name="Hall", position=1)


@pytest.fixture
def talk(hall):
    return make_session(title="Opening", room=hall, starts_at=paris(8, 10))


def url(name, conference, **kwargs):
    return reverse(name, kwargs={"conference_slug": conference.slug, **kwargs})


def set_preview_time(client, conference, moment):
    """What the preview-time form keeps in the session, written as any client could wish."""
    session = client.session
    session[SESSION_KEY] = {str(conference.pk): moment.isoformat()}
    session.save()


@pytest.fixture
def venue_member(django_user_model, conference):
    user = django_user_model.objects.create_user(
        "venue", "venue@example.org", "venue-password", is_staff=True
    )
    make_team(user, conferences=[conference], is_venue=True)
    return user


def test_a_venue_member_chooses_a_time_and_now_and_next_shows_that_slot(
    client, clock, conference, talk, venue_member
):
    clock(paris(20, 12))  # the conference is long over
    client.force_login(venue_member)
    page = client.get(url("conference:preview-time", conference))
    assert page.status_code == 200

    response = client.post(
        url("conference:preview-time", conference),
        {"moment_0": "2026-04-08", "moment_1": "10:20", "moment_fold": ""},
    )
    assert response.status_code == 302
    assert response["Location"] == url("sessions:now", conference)

    now = client.get(url("sessions:now", conference))
    html = now.content.decode()
    assert [s.title for s in now.context["board"].rooms[0].running] == ["Opening"]
    assert "is over" not in html
    assert BANNER in html
    assert "attendees see the real time" in html

    sign = client.get(url("sessions:door-sign", conference, room_slug=talk.room.slug))
    assert [s.title for s in sign.context["sign"].running] == ["Opening"]
    assert BANNER in sign.content.decode()


def test_at_the_preview_time_a_team_member_can_leave_feedback(
    client, clock, conference, talk, venue_member
):
    clock(paris(30, 12))  # feedback closed on 22 April
    client.force_login(venue_member)
    feedback_url = url("feedback:session-feedback", conference, slug=talk.slug)
    assert "closed" in client.get(feedback_url).content.decode()

    set_preview_time(client, conference, paris(8, 10, 30))
    page = client.get(feedback_url).content.decode()
    assert 'name="rating"' in page
    assert BANNER in page
    response = client.post(feedback_url, {"rating": "4", "comment": "Clear."})
    assert response.status_code == 302
    assert Feedback.objects.get().rating == 4


def test_an_attendee_sending_a_preview_time_sees_the_real_time(
    attendee_client, clock, conference, talk
):
    clock(paris(30, 12))  # feedback closed on 22 April
    set_preview_time(attendee_client, conference, paris(8, 10, 20))

    now = attendee_client.get(url("sessions:now", conference))
    html = now.content.decode()
    assert "PyCon is over" in html
    assert BANNER not in html
    feedback_url = url("feedback:session-feedback", conference, slug=talk.slug)
    response = attendee_client.post(feedback_url, {"rating": "5"})
    assert response.status_code == 400
    assert Feedback.objects.count() == 0
    assert attendee_client.get(url("conference:preview-time", conference)).status_code == 404


def test_a_member_who_left_the_team_is_back_at_the_real_time(
    client, clock, conference, talk, venue_member
):
    clock(paris(20, 12))
    client.force_login(venue_member)
    set_preview_time(client, conference, paris(8, 10, 20))
    venue_member.teams.clear()

    html = client.get(url("sessions:now", conference)).content.decode()
    assert "PyCon is over" in html
    assert BANNER not in html


def test_a_reviewer_may_not_set_a_preview_time(client, django_user_model, conference):
    user = django_user_model.objects.create_user("reviewer", is_staff=True)
    make_team(user, conferences=[conference], is_reviewer=True)
    client.force_login(user)
    assert client.get(url("conference:preview-time", conference)).status_code == 404


def test_the_preview_time_page_asks_an_anonymous_visitor_to_log_in(client, conference):
    response = client.get(url("conference:preview-time", conference))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


def test_back_to_the_real_time_ends_the_preview(client, clock, conference, talk, organizer):
    clock(paris(20, 12))
    client.force_login(organizer)
    set_preview_time(client, conference, paris(8, 10, 20))
    now_url = url("sessions:now", conference)
    assert BANNER in client.get(now_url).content.decode()

    response = client.post(
        url("conference:preview-time", conference), {"end": "1", "next": now_url}
    )
    assert response["Location"] == now_url
    html = client.get(now_url).content.decode()
    assert BANNER not in html
    assert "PyCon is over" in html
    # Team members are offered the way to choose one.
    assert "See this page at another time" in html


def test_a_preview_minute_cached_for_a_member_is_the_real_page_of_that_minute_for_others(
    client, clock, conference, talk, organizer, attendee
):
    """The shared copy made at the preview minute holds no banner and no sign it was a preview:
    an attendee who asks at that very minute gets it, as it should be."""
    client.force_login(organizer)
    clock(paris(20, 12))
    set_preview_time(client, conference, paris(8, 10, 20))
    assert BANNER in client.get(url("sessions:now", conference)).content.decode()

    clock(paris(8, 10, 20))
    client.force_login(attendee)
    html = client.get(url("sessions:now", conference)).content.decode()
    assert BANNER not in html
    assert "See this page at another time" not in html
    client.logout()
    html = client.get(url("sessions:now", conference)).content.decode()
    assert BANNER not in html
    assert "Opening" in html


def test_the_wrong_time_in_the_form_is_a_form_error(client, conference, organizer):
    client.force_login(organizer)
    response = client.post(
        url("conference:preview-time", conference),
        {"moment_0": "not a day", "moment_1": "25:99", "moment_fold": ""},
    )
    assert response.status_code == 200
    assert "field-error" in response.content.decode()
    assert SESSION_KEY not in client.session

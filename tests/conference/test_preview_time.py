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


def test_no_cache_keeps_a_page_seen_at_a_preview_time(client, clock, conference, talk, organizer):
    """Neither the browser nor the offline worker keeps it: no copy outlives the preview."""
    clock(paris(20, 12))
    client.force_login(organizer)
    now_url = url("sessions:now", conference)
    sign_url = url("sessions:door-sign", conference, room_slug=talk.room.slug)
    feedback_url = url("feedback:session-feedback", conference, slug=talk.slug)
    for page in (now_url, sign_url):  # the feedback form is never kept (its own no-store)
        assert "no-store" not in client.get(page)["Cache-Control"], page

    set_preview_time(client, conference, paris(8, 10, 20))
    for page in (now_url, sign_url, feedback_url):
        response = client.get(page)
        assert BANNER in response.content.decode(), page
        assert "no-store" in response["Cache-Control"], page


def test_the_banner_brings_the_member_back_to_the_page_they_were_on(
    client, clock, conference, talk, venue_member
):
    clock(paris(20, 12))
    client.force_login(venue_member)
    sign_url = url("sessions:door-sign", conference, room_slug=talk.room.slug)
    assert f"preview-time/?next={sign_url}" in client.get(sign_url).content.decode()

    response = client.post(
        url("conference:preview-time", conference),
        {"moment_0": "2026-04-08", "moment_1": "10:20", "moment_fold": "", "next": sign_url},
    )
    assert response["Location"] == sign_url
    assert BANNER in client.get(sign_url).content.decode()


def test_an_anonymous_visitor_gets_the_same_public_page_before_and_after_a_preview(
    client, clock, conference, talk, organizer, django_assert_max_num_queries
):
    """The public's cached copy of now and next is untouched by a member's preview: the same
    bytes, the real time, no banner, and still kept by a cache in front for a few seconds."""
    clock(paris(20, 12))
    now_url = url("sessions:now", conference)
    before = client.get(now_url)
    assert "PyCon is over" in before.content.decode()

    client.force_login(organizer)
    set_preview_time(client, conference, paris(8, 10, 20))
    with django_assert_max_num_queries(12):
        previewed = client.get(now_url)
    assert "Opening" in previewed.content.decode()
    client.logout()

    after = client.get(now_url)
    assert after.content == before.content
    assert BANNER not in after.content.decode()
    assert "public" in after["Cache-Control"]
    assert "no-store" not in after["Cache-Control"]


def test_the_form_offers_the_moment_the_most_sessions_run_at_once(client, conference, organizer):
    rooms = [make_room(conference) for _ in range(3)]
    make_session(room=rooms[0], starts_at=paris(7, 10), ends_at=paris(7, 11))
    # 14:00–14:30, 14:10–14:20 and 14:30–15:00: two at once from 14:10, not three at 14:30.
    make_session(room=rooms[0], starts_at=paris(8, 14), ends_at=paris(8, 14, 30))
    make_session(room=rooms[1], starts_at=paris(8, 14, 10), ends_at=paris(8, 14, 20))
    make_session(room=rooms[2], starts_at=paris(8, 14, 30), ends_at=paris(8, 15))
    client.force_login(organizer)
    form = client.get(url("conference:preview-time", conference)).context["form"]
    assert form["moment"].value() == paris(8, 14, 15)


def test_with_no_session_the_form_offers_the_first_morning(client, conference, organizer):
    client.force_login(organizer)
    form = client.get(url("conference:preview-time", conference)).context["form"]
    assert form["moment"].value() == paris(7, 10)


def test_my_schedule_says_what_is_happening_at_the_preview_time(
    client, clock, conference, talk, venue_member
):
    from sessions.models import SavedSession

    clock(paris(20, 12))  # the conference is long over
    SavedSession.objects.add(venue_member, talk)
    client.force_login(venue_member)
    my_schedule = url("sessions:my-schedule", conference)
    assert "Happening now" not in client.get(my_schedule).content.decode()
    set_preview_time(client, conference, paris(8, 10, 15))
    page = client.get(my_schedule).content.decode()
    assert "Happening now" in page
    assert BANNER in page

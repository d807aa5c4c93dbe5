import pytest
from django.urls import reverse

from sessions.models import Session
from sessions.models.feedback import FEEDBACK_SAVES_PER_ACCOUNT, Feedback
from tests.builders import make_session, make_speaker, paris

pytestmark = pytest.mark.django_db


@pytest.fixture
def speaker_user(django_user_model):
    return django_user_model.objects.create_user("grace")


@pytest.fixture
def talk(conference, speaker_user):
    speaker = make_speaker(conference, name="Grace Hopper", user=speaker_user)
    return make_session(conference, title="Graphs", starts_at=paris(8, 10), speakers=[speaker])


@pytest.fixture
def attendee(django_user_model):
    """An attendee named "ada_lovelace", which no speaker's name contains, so the page about
    their feedback shows no author only if it shows neither their username nor address."""
    return django_user_model.objects.create_user("ada_lovelace", "ada@example.org")


def feedback_url(session):
    return reverse(
        "feedback:session-feedback",
        kwargs={"conference_slug": session.conference.slug, "slug": session.slug},
    )


def speaker_feedback_url(conference):
    return reverse("feedback:speaker-feedback", kwargs={"conference_slug": conference.slug})


def test_the_feedback_page_asks_an_anonymous_visitor_to_log_in(client, talk):
    response = client.get(feedback_url(talk))
    html = response.content.decode()
    assert response.status_code == 200
    assert f'href="{reverse("login")}?next=/pycon/sessions/graphs/feedback/">Log in</a>' in html
    assert 'name="rating"' not in html


def test_feedback_posted_by_an_anonymous_visitor_leads_to_the_login(client, clock, talk):
    clock(paris(8, 10, 20))
    response = client.post(feedback_url(talk), {"rating": "5"})
    assert response.status_code == 302
    assert response["Location"] == f"{reverse('login')}?next=/pycon/sessions/graphs/feedback/"
    assert Feedback.objects.count() == 0


def test_the_speaker_page_asks_an_anonymous_visitor_to_log_in(client, talk):
    response = client.get(speaker_feedback_url(talk.conference))
    assert response.status_code == 200
    assert "Log in to continue" in response.content.decode()


def test_the_feedback_page_of_an_unknown_session_is_a_404(client, conference):
    url = reverse("feedback:session-feedback", kwargs={"conference_slug": "pycon", "slug": "no"})
    assert client.get(url).status_code == 404


def test_the_feedback_page_says_feedback_opens_at_the_start(attendee_client, clock, talk):
    clock(paris(8, 9))
    response = attendee_client.get(feedback_url(talk))
    html = response.content.decode()
    assert response.status_code == 200
    assert "Feedback opens when the session starts." in html
    assert 'name="rating"' not in html


def test_the_feedback_page_shows_five_star_radio_buttons_once_the_session_started(
    attendee_client, clock, talk
):
    clock(paris(8, 10, 1))
    response = attendee_client.get(feedback_url(talk))
    html = response.content.decode()
    assert response.status_code == 200
    assert html.count('type="radio" name="rating"') == 5
    assert "<legend>Your rating</legend>" in html
    assert response["Cache-Control"] == "private, max-age=0, no-cache, no-store, must-revalidate"


def test_sending_feedback_saves_it_and_comes_back_with_a_message(
    attendee_client, attendee, clock, talk
):
    clock(paris(8, 10, 20))
    response = attendee_client.post(feedback_url(talk), {"rating": "4", "comment": "Clear."})
    assert response.status_code == 302
    assert response["Location"] == feedback_url(talk)
    assert list(Feedback.objects.values_list("user", "rating", "comment")) == [
        (attendee.pk, 4, "Clear.")
    ]
    page = attendee_client.get(feedback_url(talk)).content.decode()
    assert "Thank you: your feedback is saved." in page
    assert "You rated this session 4 of 5." in page
    assert page.count(" checked>") == 1
    assert 'value="4" id="id_rating_3" required checked>' in page


def test_sending_feedback_again_edits_it(attendee_client, clock, talk):
    clock(paris(8, 10, 20))
    attendee_client.post(feedback_url(talk), {"rating": "2", "comment": "Hm."})
    attendee_client.post(feedback_url(talk), {"rating": "5", "comment": "Grew on me."})
    assert list(Feedback.objects.values_list("rating", "comment")) == [(5, "Grew on me.")]


def test_feedback_without_a_rating_is_refused_with_a_clear_error(attendee_client, clock, talk):
    clock(paris(8, 10, 20))
    response = attendee_client.post(feedback_url(talk), {"comment": "No stars."})
    assert response.status_code == 400
    assert "Choose a rating from 1 to 5 stars." in response.content.decode()
    assert Feedback.objects.count() == 0


def test_a_too_long_comment_is_refused_and_nothing_is_saved(attendee_client, clock, talk):
    clock(paris(8, 10, 20))
    response = attendee_client.post(feedback_url(talk), {"rating": "3", "comment": "x" * 2001})
    assert response.status_code == 400
    assert "Ensure this value has at most 2000 characters" in response.content.decode()
    assert Feedback.objects.count() == 0


def test_feedback_posted_before_the_start_is_refused(attendee_client, clock, talk):
    clock(paris(8, 9))
    response = attendee_client.post(feedback_url(talk), {"rating": "5"})
    assert response.status_code == 400
    assert "Feedback opens when the session starts." in response.content.decode()
    assert Feedback.objects.count() == 0


def test_a_break_has_no_feedback_form(attendee_client, clock, conference):
    lunch = make_session(conference, title="Lunch", kind=Session.Kind.BREAK)
    clock(paris(8, 10, 20))
    html = attendee_client.get(feedback_url(lunch)).content.decode()
    assert "Breaks take no feedback." in html
    assert 'name="rating"' not in html
    response = attendee_client.post(feedback_url(lunch), {"rating": "5"})
    assert response.status_code == 400
    assert Feedback.objects.count() == 0


def test_a_draft_session_has_no_feedback_page(attendee_client, conference):
    draft = make_session(conference, status=Session.Status.DRAFT)
    assert attendee_client.get(feedback_url(draft)).status_code == 404


def test_the_page_says_when_the_hourly_limit_is_reached(attendee_client, attendee, clock, talk):
    clock(paris(8, 10, 20))
    for _ in range(FEEDBACK_SAVES_PER_ACCOUNT.allowed):
        assert attendee_client.post(feedback_url(talk), {"rating": "3"}).status_code == 302
    response = attendee_client.post(feedback_url(talk), {"rating": "1"})
    assert response.status_code == 400
    assert "You saved feedback many times in the last hour." in response.content.decode()
    assert Feedback.objects.get().rating == 3


def test_the_shared_session_page_links_to_the_form_and_holds_no_rating(
    attendee_client, attendee, clock, talk
):
    clock(paris(8, 10, 20))
    Feedback.objects.create(session=talk, user=attendee, rating=2, comment="SECRET-WORDS")
    html = attendee_client.get(talk.get_absolute_url()).content.decode()
    assert f'href="{feedback_url(talk)}">Rate this session</a>' in html
    assert "SECRET-WORDS" not in html
    assert "rated this session" not in html


def test_the_session_page_stops_offering_feedback_when_the_window_closes(client, clock, talk):
    """The page is shared and kept; the copy kept while feedback was open is not served after."""
    clock(paris(8, 10, 20))
    assert "Rate this session" in client.get(talk.get_absolute_url()).content.decode()
    clock(talk.conference.feedback_closes_at)
    html = client.get(talk.get_absolute_url()).content.decode()
    assert "Rate this session" not in html
    assert talk.title in html


def test_a_break_page_has_no_feedback_link(client, conference):
    lunch = make_session(conference, title="Lunch", kind=Session.Kind.BREAK)
    assert "Rate this session" not in client.get(lunch.get_absolute_url()).content.decode()


def test_a_speaker_sees_ratings_and_comments_without_their_authors(
    client, attendee, speaker_user, talk, django_user_model
):
    Feedback.objects.create(session=talk, user=attendee, rating=5, comment="Loved the graphs.")
    other = django_user_model.objects.create_user("bob_builder", "bob@example.org")
    Feedback.objects.create(session=talk, user=other, rating=2)
    client.force_login(speaker_user)
    response = client.get(speaker_feedback_url(talk.conference))
    html = response.content.decode()
    assert response.status_code == 200
    assert "Average rating <strong>3.5</strong> of 5, from 2 ratings." in html
    assert "Loved the graphs." in html
    for author in ("ada_lovelace", "ada@example.org", "bob_builder", "bob@example.org"):
        assert author not in html


def test_a_speaker_does_not_see_hidden_comments(client, attendee, speaker_user, talk):
    Feedback.objects.create(session=talk, user=attendee, rating=1, comment="Rude.", hidden=True)
    client.force_login(speaker_user)
    html = client.get(speaker_feedback_url(talk.conference)).content.decode()
    assert "Rude." not in html
    assert "from 1 rating." in html


def test_a_speaker_sees_only_their_own_sessions(
    client, attendee, speaker_user, talk, conference, django_user_model
):
    someone_else = make_speaker(conference, user=django_user_model.objects.create_user("x"))
    theirs = make_session(conference, title="Not yours", speakers=[someone_else])
    Feedback.objects.create(session=theirs, user=attendee, rating=1, comment="Other talk.")
    client.force_login(speaker_user)
    html = client.get(speaker_feedback_url(conference)).content.decode()
    assert "Graphs" in html
    assert "Not yours" not in html
    assert "Other talk." not in html


def test_the_speaker_feedback_page_is_a_404_for_non_speakers(attendee_client, talk):
    response = attendee_client.get(speaker_feedback_url(talk.conference))
    assert response.status_code == 404


def test_the_speakers_pages_link_to_the_feedback_page(client, speaker_user, talk, clock):
    clock(paris(8, 11))  # the talk takes feedback
    client.force_login(speaker_user)
    url = speaker_feedback_url(talk.conference)
    html = client.get(url).content.decode()
    assert f'<a href="{url}" aria-current="page">Feedback</a>' in html
    my_talks = reverse("speakers:my_talks", kwargs={"conference_slug": "pycon"})
    assert f'<a href="{url}">Feedback</a>' in client.get(my_talks).content.decode()


@pytest.mark.parametrize("count", [1, 12])
def test_speaker_feedback_page_query_count_does_not_grow(
    client, django_assert_max_num_queries, conference, speaker_user, attendee, count
):
    speaker = make_speaker(conference, user=speaker_user)
    for number in range(count):
        session = make_session(conference, title=f"Talk {number}", speakers=[speaker])
        Feedback.objects.create(session=session, user=attendee, rating=4, comment=f"Note {number}")
    client.force_login(speaker_user)
    with django_assert_max_num_queries(12):
        response = client.get(speaker_feedback_url(conference))
    assert len(response.context["sessions"]) == count
    assert sum(len(session.comments) for session in response.context["sessions"]) == count

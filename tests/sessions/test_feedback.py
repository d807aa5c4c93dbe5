import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from sessions.models import Session
from sessions.models.feedback import FEEDBACK_SAVES_PER_ACCOUNT, Feedback, save_feedback, summarize
from tests.builders import make_conference, make_session, make_track, paris

pytestmark = pytest.mark.django_db


@pytest.fixture
def conference():
    """PyCon, 7–8 April 2026, with feedback open 7 days after instead of 14: until the end of
    15 April."""
    return make_conference(slug="pycon", feedback_days_after=7)


@pytest.fixture
def talk(conference):
    return make_session(conference, title="Graphs", starts_at=paris(8, 10))


def feedback(session, user, rating=4, comment=""):
    return Feedback(session=session, user=user, rating=rating, comment=comment)


def messages_of(error: ValidationError) -> list[str]:
    return error.messages


def test_feedback_is_refused_before_the_session_starts(clock, talk, attendee):
    clock(paris(8, 9, 59))
    with pytest.raises(ValidationError) as error:
        feedback(talk, attendee).full_clean()
    assert messages_of(error.value) == ["Feedback opens when the session starts."]


def test_feedback_is_taken_from_the_moment_the_session_starts(clock, talk, attendee):
    clock(paris(8, 10))
    saved = save_feedback(feedback(talk, attendee, rating=5, comment="Clear."))
    assert list(Feedback.objects.values_list("rating", "comment")) == [(5, "Clear.")]
    assert saved.pk is not None


def test_feedback_is_taken_until_the_days_after_the_conference_end(clock, talk, attendee):
    clock(paris(15, 23, 59))
    feedback(talk, attendee).full_clean()


def test_feedback_is_refused_after_the_window(clock, talk, attendee):
    clock(paris(16, 0))
    with pytest.raises(ValidationError) as error:
        feedback(talk, attendee).full_clean()
    assert messages_of(error.value) == ["Feedback on this conference closed after 15 April 2026."]


def test_feedback_window_defaults_to_fourteen_days(clock, attendee):
    session = make_session(make_conference(), starts_at=paris(8, 10))
    clock(paris(22, 12))
    feedback(session, attendee).full_clean()
    clock(paris(23, 12))
    with pytest.raises(ValidationError):
        feedback(session, attendee).full_clean()


def test_breaks_take_no_feedback(clock, conference, attendee):
    lunch = make_session(conference, title="Lunch", kind=Session.Kind.BREAK)
    clock(paris(8, 10, 5))
    with pytest.raises(ValidationError) as error:
        feedback(lunch, attendee).full_clean()
    assert messages_of(error.value) == ["Breaks take no feedback."]


def test_cancelled_sessions_take_no_feedback(clock, conference, attendee):
    cancelled = make_session(conference, status=Session.Status.CANCELLED)
    clock(paris(8, 10, 5))
    with pytest.raises(ValidationError) as error:
        feedback(cancelled, attendee).full_clean()
    assert messages_of(error.value) == ["This session was cancelled: it takes no feedback."]


def test_draft_sessions_take_no_feedback(clock, conference, attendee):
    draft = make_session(conference, status=Session.Status.DRAFT)
    clock(paris(8, 10, 5))
    with pytest.raises(ValidationError) as error:
        feedback(draft, attendee).full_clean()
    assert messages_of(error.value) == ["This session is not published."]


@pytest.mark.parametrize("rating", [0, 6])
def test_a_rating_is_one_to_five(clock, talk, attendee, rating):
    clock(paris(8, 10, 5))
    with pytest.raises(ValidationError) as error:
        feedback(talk, attendee, rating=rating).full_clean()
    assert list(error.value.message_dict) == ["rating"]


def test_the_database_refuses_a_rating_out_of_range(talk, attendee):
    with pytest.raises(IntegrityError), transaction.atomic():
        Feedback.objects.create(session=talk, user=attendee, rating=9)


def test_a_comment_is_at_most_two_thousand_characters(clock, talk, attendee):
    clock(paris(8, 10, 5))
    feedback(talk, attendee, comment="x" * 2000).full_clean()
    with pytest.raises(ValidationError) as error:
        feedback(talk, attendee, comment="x" * 2001).full_clean()
    assert list(error.value.message_dict) == ["comment"]


def test_feedback_is_once_per_session_and_user(clock, talk, attendee):
    clock(paris(8, 10, 5))
    save_feedback(feedback(talk, attendee))
    with pytest.raises(ValidationError) as error:
        feedback(talk, attendee).full_clean()
    assert error.value.messages == ["You already gave feedback on this session; edit it."]


def test_feedback_can_be_edited_in_the_window(clock, talk, attendee):
    clock(paris(8, 10, 5))
    first = save_feedback(feedback(talk, attendee, rating=2))
    first.rating, first.comment = 5, "Better on reflection."
    save_feedback(first)
    assert list(Feedback.objects.values_list("rating", "comment")) == [(5, "Better on reflection.")]


def test_feedback_cannot_be_edited_after_the_window(clock, talk, attendee):
    clock(paris(8, 10, 5))
    saved = save_feedback(feedback(talk, attendee, rating=2))
    clock(paris(20, 12))
    saved = Feedback.objects.get(pk=saved.pk)
    saved.rating = 5
    with pytest.raises(ValidationError):
        save_feedback(saved)
    assert Feedback.objects.get().rating == 2


def test_an_organizer_can_hide_a_comment_after_the_window(clock, talk, attendee):
    clock(paris(8, 10, 5))
    saved = save_feedback(feedback(talk, attendee, comment="Rude words."))
    clock(paris(30, 12))
    saved = Feedback.objects.get(pk=saved.pk)
    saved.hidden = True
    saved.full_clean()
    saved.save()
    assert Feedback.objects.get().hidden is True


def test_feedback_saves_are_limited_per_account(clock, conference, attendee, django_user_model):
    clock(paris(8, 18))
    sessions = [
        make_session(conference, starts_at=paris(8, 9) + number * (paris(8, 9, 1) - paris(8, 9)))
        for number in range(FEEDBACK_SAVES_PER_ACCOUNT.allowed + 1)
    ]
    for session in sessions[:-1]:
        save_feedback(feedback(session, attendee))
    with pytest.raises(ValidationError) as error:
        save_feedback(feedback(sessions[-1], attendee))
    assert error.value.code == "rate_limited"
    assert Feedback.objects.count() == FEEDBACK_SAVES_PER_ACCOUNT.allowed
    # Another account is counted on its own.
    save_feedback(feedback(sessions[-1], django_user_model.objects.create_user("bob")))


def test_summary_averages_per_session_track_and_conference(conference, django_user_model):
    ml, web = make_track(conference, name="ML"), make_track(conference, name="Web")
    first = make_session(conference, title="A", track=ml, starts_at=paris(8, 9))
    second = make_session(conference, title="B", track=ml, starts_at=paris(8, 10))
    third = make_session(conference, title="C", track=web, starts_at=paris(8, 11))
    users = [django_user_model.objects.create_user(f"user{n}") for n in range(3)]
    for session, ratings in [(first, [5, 4, 3]), (second, [1]), (third, [2, 2])]:
        for user, rating in zip(users, ratings, strict=False):
            Feedback.objects.create(session=session, user=user, rating=rating)

    [summary] = summarize(Feedback.objects.of_conference(conference).totals_by_session())

    assert [(row.title, row.count, row.average) for row in summary.sessions] == [
        ("A", 3, 4.0),
        ("B", 1, 1.0),
        ("C", 2, 2.0),
    ]
    assert {name: (t.count, t.average) for name, t in summary.tracks.items()} == {
        "ML": (4, 3.25),
        "Web": (2, 2.0),
    }
    assert (summary.overall.count, summary.overall.average) == (6, 2.83)

import datetime

import pytest
from django.urls import reverse

from sessions.warnings import schedule_warnings
from speakers.forms import AvailabilityFormSet
from speakers.models import Availability
from tests.builders import make_conference, make_room, make_session, make_speaker, paris

pytestmark = pytest.mark.django_db

PREFIX = "availability"


@pytest.fixture
def user(django_user_model):
    return django_user_model.objects.create_user("ada", "ada@example.org", "speak-2026")


@pytest.fixture
def speaker(conference, user):
    """Ada Lovelace of the shared conference, with the account ``user`` (``speaker_client``)."""
    return make_speaker(conference, name="Ada Lovelace", user=user)


@pytest.fixture
def speaker_client(client, user):
    client.force_login(user)
    return client


def availability_url(conference):
    return reverse("speaker-pages:availability", kwargs={"conference_slug": conference.slug})


def window_data(number, day="", starts="", ends="", ends_day=None, pk="", delete=False):
    row = {
        f"{PREFIX}-{number}-id": pk,
        f"{PREFIX}-{number}-starts_at_0": day,
        f"{PREFIX}-{number}-starts_at_1": starts,
        f"{PREFIX}-{number}-ends_at_0": day if ends_day is None else ends_day,
        f"{PREFIX}-{number}-ends_at_1": ends,
    }
    if delete:
        row[f"{PREFIX}-{number}-DELETE"] = "on"
    return row


def formset_data(*rows, initial=0):
    data = {
        f"{PREFIX}-TOTAL_FORMS": str(len(rows)),
        f"{PREFIX}-INITIAL_FORMS": str(initial),
        f"{PREFIX}-MIN_NUM_FORMS": "0",
        f"{PREFIX}-MAX_NUM_FORMS": "1000",
    }
    for row in rows:
        data.update(row)
    return data


def windows(speaker):
    return list(speaker.availability.values_list("starts_at", "ends_at"))


def test_a_speaker_adds_a_window_in_the_conferences_zone(speaker_client, conference, speaker):
    speaker_client.cookies["tz"] = "America/New_York"  # the visitor reads elsewhere; times don't
    response = speaker_client.post(
        availability_url(conference), formset_data(window_data(0, "2026-04-08", "09:00", "12:30"))
    )
    assert response.status_code == 302
    assert windows(speaker) == [(paris(8, 9), paris(8, 12, 30))]


def test_the_page_shows_windows_on_the_conferences_clocks(speaker_client, conference, speaker):
    Availability.objects.create(speaker=speaker, starts_at=paris(8, 9), ends_at=paris(8, 12))
    html = speaker_client.get(availability_url(conference)).content.decode()
    assert '<option value="2026-04-08" selected>Wednesday 8 April</option>' in html
    assert 'value="09:00"' in html
    assert 'value="12:00"' in html
    assert "Times in Europe/Paris, the conference's time zone." in html


def test_a_speaker_changes_one_window_and_removes_another_at_once(
    speaker_client, conference, speaker
):
    kept = Availability.objects.create(speaker=speaker, starts_at=paris(7, 9), ends_at=paris(7, 12))
    gone = Availability.objects.create(speaker=speaker, starts_at=paris(8, 9), ends_at=paris(8, 12))
    data = formset_data(
        window_data(0, "2026-04-07", "13:00", "17:00", pk=kept.pk),
        window_data(1, "2026-04-08", "09:00", "12:00", pk=gone.pk, delete=True),
        window_data(2),  # the empty new row is left alone
        initial=2,
    )
    assert speaker_client.post(availability_url(conference), data).status_code == 302
    assert windows(speaker) == [(paris(7, 13), paris(7, 17))]


def test_a_window_outside_the_conference_saves_nothing(speaker_client, conference, speaker):
    kept = Availability.objects.create(speaker=speaker, starts_at=paris(7, 9), ends_at=paris(7, 12))
    data = formset_data(
        window_data(0, "2026-04-07", "10:00", "11:00", pk=kept.pk),
        window_data(1, "2026-04-08", "14:00", "18:00"),
        window_data(2, "2026-04-10", "09:00", "10:00"),
        initial=1,
    )
    response = speaker_client.post(availability_url(conference), data)
    assert response.status_code == 200
    assert [form.errors for form in response.context["form"]] == [
        {},
        {},
        {
            "starts_at": [
                f"{conference.name} runs from Tuesday 7 April 2026 to Wednesday 8 April 2026 "
                "(Europe/Paris); an availability window must lie within those days."
            ]
        },
    ]
    assert "Nothing was saved: correct what is marked below" in response.content.decode()
    assert windows(speaker) == [(paris(7, 9), paris(7, 12))]


def test_a_window_that_ends_before_it_starts_is_refused(speaker_client, conference, speaker):
    response = speaker_client.post(
        availability_url(conference), formset_data(window_data(0, "2026-04-08", "12:00", "09:00"))
    )
    (form,) = response.context["form"]
    assert form.errors == {"ends_at": ["An availability window must end after it starts."]}
    assert "An availability window must end after it starts." in response.content.decode()
    assert windows(speaker) == []


def test_a_window_without_a_time_is_refused(speaker_client, conference, speaker):
    response = speaker_client.post(
        availability_url(conference), formset_data(window_data(0, "2026-04-08", "", "12:00"))
    )
    (form,) = response.context["form"]
    assert form.errors == {"starts_at": ["Enter a time."]}
    assert windows(speaker) == []


def test_a_time_the_clocks_skip_is_refused_by_name(speaker_client, speaker):
    conference = speaker.conference
    conference.starts_on = conference.ends_on = datetime.date(2026, 3, 29)
    conference.save()
    response = speaker_client.post(
        availability_url(conference), formset_data(window_data(0, "2026-03-29", "02:30", "09:00"))
    )
    (form,) = response.context["form"]
    assert form.errors == {
        "starts_at": [
            "02:30 does not exist on Sunday 29 March 2026 in Europe/Paris: the clocks jump "
            "from 02:00 to 03:00 that night."
        ]
    }


def test_a_speaker_cannot_change_another_speakers_window(speaker_client, conference, speaker):
    other = make_speaker(conference, name="Grace")
    theirs = Availability.objects.create(speaker=other, starts_at=paris(8, 9), ends_at=paris(8, 12))
    for delete in (False, True):
        data = formset_data(
            window_data(0, "2026-04-08", "13:00", "14:00", pk=theirs.pk, delete=delete), initial=1
        )
        # Django's formset drops a row naming a window not among the speaker's own.
        speaker_client.post(availability_url(conference), data)
    assert windows(other) == [(paris(8, 9), paris(8, 12))]
    assert windows(speaker) == []


def test_after_a_speaker_saves_a_window_the_planner_warns_about_their_session(
    speaker_client, conference, speaker
):
    session = make_session(
        conference, speakers=[speaker], room=make_room(conference), starts_at=paris(8, 10)
    )
    assert schedule_warnings(conference, conference.sessions.all()) == {}
    speaker_client.post(
        availability_url(conference), formset_data(window_data(0, "2026-04-08", "14:00", "18:00"))
    )
    assert schedule_warnings(conference, conference.sessions.all()) == {
        session.pk: ["Ada Lovelace is not available then (available Wed 14:00–18:00 CEST)"]
    }


def test_the_page_marks_a_session_outside_the_speakers_availability(
    speaker_client, conference, speaker
):
    make_session(conference, title="Engines", speakers=[speaker], starts_at=paris(8, 10))
    Availability.objects.create(speaker=speaker, starts_at=paris(8, 14), ends_at=paris(8, 18))
    response = speaker_client.get(availability_url(conference))
    assert [(s.title, s.outside_availability) for s in response.context["sessions"]] == [
        ("Engines", True)
    ]
    assert "Outside your availability" in response.content.decode()


def test_a_logged_out_visitor_is_sent_to_log_in(client, conference):
    response = client.get(availability_url(conference))
    assert response["Location"] == f"{reverse('login')}?next={availability_url(conference)}"


def test_a_user_who_is_no_speaker_of_the_conference_gets_not_found(
    client, conference, speaker, django_user_model
):
    client.force_login(django_user_model.objects.create_user("attendee"))
    assert client.get(availability_url(conference)).status_code == 404
    data = formset_data(window_data(0, "2026-04-08", "14:00", "18:00"))
    assert client.post(availability_url(conference), data).status_code == 404
    assert not Availability.objects.exists()


def test_a_speaker_of_another_conference_gets_not_found(client, conference, user):
    elsewhere = make_conference(slug="djangocon")
    make_speaker(elsewhere, user=user)
    client.force_login(user)
    assert client.get(availability_url(conference)).status_code == 404
    assert client.get(availability_url(elsewhere)).status_code == 200


def test_the_availability_page_is_personal(speaker_client, conference, speaker):
    response = speaker_client.get(availability_url(conference))
    assert {"private", "no-store"} <= set(response["Cache-Control"].replace(",", " ").split())
    assert "ETag" not in response


def test_a_time_that_happens_twice_asks_which_then_saves_the_one_chosen(speaker_client, speaker):
    conference = speaker.conference
    conference.starts_on = conference.ends_on = datetime.date(2026, 10, 24)
    conference.day_change = datetime.time(4)
    conference.save()
    data = formset_data(window_data(0, "2026-10-24", "22:00", "02:30", ends_day="2026-10-25"))
    response = speaker_client.post(availability_url(conference), data)
    (form,) = response.context["form"]
    assert form.errors == {
        "ends_at": [
            "02:30 happens twice on Sunday 25 October 2026 in Europe/Paris: the clocks go back "
            "from 03:00 to 02:00 that night. Choose which 02:30 you mean, next to the time."
        ]
    }
    html = response.content.decode()
    assert '<option value="1">02:30 CET (second)</option>' in html
    data[f"{PREFIX}-0-ends_at_fold"] = "1"
    assert speaker_client.post(availability_url(conference), data).status_code == 302
    second = datetime.datetime(2026, 10, 25, 1, 30, tzinfo=datetime.UTC)  # 02:30 CET
    assert windows(speaker) == [(paris(24, 22, month=10), second)]


@pytest.mark.parametrize("n", [1, 12])
def test_availability_page_query_count_does_not_grow(
    speaker_client, conference, speaker, django_assert_max_num_queries, n
):
    for number in range(n):
        make_session(conference, title=f"Talk {number}", speakers=[speaker], starts_at=paris(7, 9))
        Availability.objects.create(
            speaker=speaker, starts_at=paris(7, 9 + number % 3), ends_at=paris(7, 13)
        )
    with django_assert_max_num_queries(12):
        response = speaker_client.get(availability_url(conference))
    assert len(response.context["sessions"]) == n
    assert len(response.context["form"]) == n + 2  # and an empty row per conference day


def test_the_page_offers_an_empty_window_for_each_conference_day(
    speaker_client, conference, speaker
):
    form = speaker_client.get(availability_url(conference)).context["form"]
    assert [window["starts_at"].value()[0] for window in form] == ["2026-04-07", "2026-04-08"]
    assert [window["ends_at"].value()[0] for window in form] == ["2026-04-07", "2026-04-08"]


def test_a_speaker_gives_a_window_on_each_day_in_one_save(speaker_client, conference, speaker):
    data = formset_data(
        window_data(0, "2026-04-07", "09:00", "12:00"),
        window_data(1, "2026-04-08", "14:00", "18:00"),
    )
    assert speaker_client.post(availability_url(conference), data).status_code == 302
    assert windows(speaker) == [(paris(7, 9), paris(7, 12)), (paris(8, 14), paris(8, 18))]


def test_a_day_left_without_times_is_left_alone(speaker_client, conference, speaker):
    # What the page posts for a day's row nobody filled in: its day, no times.
    data = formset_data(
        window_data(0, "2026-04-07", "09:00", "12:00"), window_data(1, "2026-04-08")
    )
    assert speaker_client.post(availability_url(conference), data).status_code == 302
    assert windows(speaker) == [(paris(7, 9), paris(7, 12))]


def test_two_new_windows_that_overlap_are_refused_and_nothing_is_saved(
    speaker_client, conference, speaker
):
    data = formset_data(
        window_data(0, "2026-04-07", "09:00", "12:00"),
        window_data(1, "2026-04-08", "09:00", "12:00"),
        window_data(2, "2026-04-08", "11:00", "13:00"),
    )
    response = speaker_client.post(availability_url(conference), data)
    assert response.status_code == 200
    message = (
        "Two windows overlap: Wednesday 8 April, 09:00–12:00 CEST and Wednesday 8 April, "
        "11:00–13:00 CEST. Join them into one window, or change one so they no longer overlap."
    )
    assert response.context["form"].non_form_errors() == [message]
    assert message in response.content.decode()
    assert windows(speaker) == []


def test_a_new_window_overlapping_a_kept_one_is_refused(speaker_client, conference, speaker):
    kept = Availability.objects.create(speaker=speaker, starts_at=paris(8, 9), ends_at=paris(8, 12))
    data = formset_data(
        window_data(0, "2026-04-08", "09:00", "12:00", pk=kept.pk),
        window_data(1, "2026-04-08", "10:00", "11:00"),
        initial=1,
    )
    response = speaker_client.post(availability_url(conference), data)
    assert response.status_code == 200
    assert "Two windows overlap" in response.context["form"].non_form_errors()[0]
    assert windows(speaker) == [(paris(8, 9), paris(8, 12))]


def test_windows_that_only_touch_or_replace_a_removed_one_are_saved(
    speaker_client, conference, speaker
):
    gone = Availability.objects.create(speaker=speaker, starts_at=paris(8, 9), ends_at=paris(8, 12))
    data = formset_data(
        window_data(0, "2026-04-08", "09:00", "12:00", pk=gone.pk, delete=True),
        window_data(1, "2026-04-08", "10:00", "12:00"),
        window_data(2, "2026-04-08", "12:00", "14:00"),
        initial=1,
    )
    assert speaker_client.post(availability_url(conference), data).status_code == 302
    assert windows(speaker) == [(paris(8, 10), paris(8, 12)), (paris(8, 12), paris(8, 14))]


def test_more_windows_than_the_cap_are_refused(speaker_client, conference, speaker, monkeypatch):
    rows = [window_data(n, "2026-04-07", f"{8 + n:02}:00", f"{8 + n:02}:30") for n in range(4)]
    monkeypatch.setattr(AvailabilityFormSet, "max_num", 3)
    response = speaker_client.post(availability_url(conference), formset_data(*rows))
    assert response.status_code == 200
    assert response.context["form"].non_form_errors() == ["Please submit at most 3 forms."]
    assert windows(speaker) == []

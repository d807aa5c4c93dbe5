import datetime

import pytest
from django.urls import reverse

from sessions.models import SavedSession, Session
from tests.builders import (
    make_conference,
    make_room,
    make_session,
    make_speaker,
    make_track,
    paris,
)

pytestmark = pytest.mark.django_db


def session_form_data(session_or_conference, **overrides):
    """What the admin's add/change form posts, times typed as an organizer types them."""
    conference = getattr(session_or_conference, "conference", session_or_conference)
    data = {
        "conference": conference.pk,
        "title": "Fresh talk",
        "slug": "fresh-talk",
        "kind": Session.Kind.TALK,
        "status": Session.Status.PUBLISHED,
        "starts_at_0": "2026-04-08",
        "starts_at_1": "10:35",
        "ends_at_0": "2026-04-08",
        "ends_at_1": "11:00",
        "room": "",
        "track": "",
        "description": "",
        "audience_level": Session.AudienceLevel.ANY,
        "session_speakers-TOTAL_FORMS": "0",
        "session_speakers-INITIAL_FORMS": "0",
        "attachments-TOTAL_FORMS": "0",
        "attachments-INITIAL_FORMS": "0",
    }
    return {**data, **overrides}


def test_admin_add_reads_typed_times_in_the_conference_zone(admin_client):
    conference = make_conference(time_zone="Europe/Paris")
    response = admin_client.post(
        reverse("admin:schedule_session_add"), session_form_data(conference)
    )
    assert response.status_code == 302
    session = Session.objects.get(slug="fresh-talk")
    assert session.starts_at == datetime.datetime(2026, 4, 8, 8, 35, tzinfo=datetime.UTC)


def test_admin_add_reads_times_in_the_chosen_conference_zone_among_several(
    admin_client,
):
    make_conference(time_zone="Europe/Paris")
    new_york = make_conference(time_zone="America/New_York")
    response = admin_client.post(reverse("admin:schedule_session_add"), session_form_data(new_york))
    assert response.status_code == 302
    assert Session.objects.get().starts_at == datetime.datetime(
        2026, 4, 8, 14, 35, tzinfo=datetime.UTC
    )


def test_admin_change_form_shows_times_in_the_conference_zone(admin_client):
    session = make_session(starts_at=paris(8, 10, 35))
    response = admin_client.get(reverse("admin:schedule_session_change", args=[session.pk]))
    assert response.context["adminform"].form["starts_at"].value() == session.starts_at
    html = response.content.decode()
    assert 'name="starts_at_1" value="10:35:00"' in html
    assert "In Europe/Paris, the conference's time zone." in html


def test_admin_add_shows_the_room_clash_and_saves_nothing(admin_client):
    room = make_room(name="Central Room")
    booked = make_session(
        room.conference, title="Booked talk", room=room, starts_at=paris(8, 10, 30)
    )
    response = admin_client.post(
        reverse("admin:schedule_session_add"), session_form_data(booked, room=room.pk)
    )
    assert response.status_code == 200
    assert response.context["adminform"].form.errors["room"] == [
        "Central Room already hosts “Booked talk” then (Wednesday 8 April 2026 10:30–11:00 CEST)."
    ]
    assert list(Session.objects.all()) == [booked]


def test_admin_add_rejects_a_local_time_that_does_not_exist(admin_client):
    # 02:30 on 29 March 2026 is skipped in Paris: clocks jump from 02:00 to 03:00.
    conference = make_conference(
        starts_on=datetime.date(2026, 3, 29), ends_on=datetime.date(2026, 3, 29)
    )
    data = session_form_data(
        conference,
        starts_at_0="2026-03-29",
        starts_at_1="02:30",
        ends_at_0="2026-03-29",
    )
    response = admin_client.post(reverse("admin:schedule_session_add"), data)
    assert response.status_code == 200
    assert "starts_at" in response.context["adminform"].form.errors
    assert Session.objects.count() == 0


def test_admin_change_shows_the_speaker_clash_and_saves_nothing(admin_client):
    conference = make_conference()
    speaker = make_speaker(conference, name="Ada Lovelace")
    make_session(conference, title="Engines", speakers=[speaker], starts_at=paris(8, 10, 30))
    session = make_session(conference, title="Looms", starts_at=paris(8, 14))
    data = session_form_data(
        session,
        title="Looms renamed",
        slug=session.slug,
        **{
            "session_speakers-TOTAL_FORMS": "1",
            "session_speakers-0-speaker": speaker.pk,
            "session_speakers-0-position": "0",
        },
    )
    response = admin_client.post(reverse("admin:schedule_session_change", args=[session.pk]), data)
    assert response.status_code == 200
    assert "Ada Lovelace already gives “Engines” then" in response.content.decode()
    session.refresh_from_db()
    assert (session.title, list(session.speakers.all())) == ("Looms", [])


def test_admin_change_saves_ordered_speakers(admin_client):
    conference = make_conference()
    first, second = (
        make_speaker(conference, name="First"),
        make_speaker(conference, name="Second"),
    )
    session = make_session(conference, starts_at=paris(8, 14))
    data = session_form_data(
        session,
        slug=session.slug,
        **{
            "session_speakers-TOTAL_FORMS": "2",
            "session_speakers-0-speaker": second.pk,
            "session_speakers-0-position": "1",
            "session_speakers-1-speaker": first.pk,
            "session_speakers-1-position": "0",
        },
    )
    response = admin_client.post(reverse("admin:schedule_session_change", args=[session.pk]), data)
    assert response.status_code == 302
    assert Session.objects.for_listing().get(pk=session.pk).ordered_speakers == [
        first,
        second,
    ]


@pytest.mark.parametrize("value", ["abc", "99999999999999999999999"])
def test_admin_shows_a_form_error_for_an_autocomplete_value_that_is_no_key(admin_client, value):
    data = {"session": value, "title": "Slides", "url": "https://example.org/", "position": "0"}
    response = admin_client.post(reverse("admin:schedule_attachment_add"), data)
    assert response.status_code == 200
    assert response.context["adminform"].form.errors["session"] == [
        "Select a valid choice. That choice is not one of the available choices."
    ]


def test_admin_add_with_a_tampered_speaker_row_shows_errors_and_saves_nothing(admin_client):
    conference = make_conference()
    data = session_form_data(
        conference,
        **{
            "session_speakers-TOTAL_FORMS": "1",
            "session_speakers-0-session": "42",
            "session_speakers-0-speaker": make_speaker(conference).pk,
        },
    )
    response = admin_client.post(reverse("admin:schedule_session_add"), data)
    assert response.status_code == 200
    assert Session.objects.count() == 0


def test_admin_speaker_autocomplete_lists_speakers_by_name(admin_client):
    conference = make_conference()
    for name in ["Grace", "Ada", "Barbara"]:
        make_speaker(conference, name=name)
    query = {"app_label": "schedule", "model_name": "sessionspeaker", "field_name": "speaker"}
    response = admin_client.get(reverse("admin:autocomplete"), query)
    assert [result["text"] for result in response.json()["results"]] == ["Ada", "Barbara", "Grace"]


def test_admin_cancel_action_cancels_the_selected_sessions(admin_client):
    session = make_session()
    admin_client.post(
        reverse("admin:schedule_session_changelist"),
        {"action": "cancel", "_selected_action": [session.pk]},
    )
    session.refresh_from_db()
    assert session.status == Session.Status.CANCELLED


def test_admin_publish_action_refuses_a_clash_and_says_why(admin_client):
    room = make_room(name="Central Room")
    cancelled = make_session(
        room.conference, title="Old slot", room=room, status=Session.Status.CANCELLED
    )
    make_session(room.conference, title="New slot", room=room)
    response = admin_client.post(
        reverse("admin:schedule_session_changelist"),
        {"action": "publish", "_selected_action": [cancelled.pk]},
        follow=True,
    )
    assert [str(message) for message in response.context["messages"]] == [
        "Nothing was published: “Old slot”: Central Room already hosts “New slot” then "
        "(Wednesday 8 April 2026 10:00–10:30 CEST)."
    ]
    cancelled.refresh_from_db()
    assert cancelled.status == Session.Status.CANCELLED


def test_admin_changelist_shows_day_and_time_in_the_conference_zone(admin_client):
    make_session(title="Morning talk", starts_at=paris(8, 10, 35))
    response = admin_client.get(reverse("admin:schedule_session_changelist"))
    html = response.content.decode()
    assert "Wed 8 Apr 2026" in html
    assert "10:35–11:05 CEST" in html


def test_admin_changelist_search_finds_sessions_by_speaker_company(admin_client):
    conference = make_conference()
    make_session(conference, title="By Meta", speakers=[make_speaker(conference, company="Meta")])
    make_session(
        conference,
        title="By Google",
        starts_at=paris(8, 14),
        speakers=[make_speaker(conference, company="Google")],
    )
    response = admin_client.get(reverse("admin:schedule_session_changelist"), {"q": "meta"})
    assert [session.title for session in response.context["cl"].result_list] == ["By Meta"]


def test_admin_refuses_to_delete_a_room_that_has_sessions(admin_client):
    session = make_session(room=make_room(name="Central Room"))
    response = admin_client.post(
        reverse("admin:conference_room_delete", args=[session.room.pk]), {"post": "yes"}
    )
    assert response.status_code == 200
    assert (
        "would require deleting the following protected related objects"
        in response.content.decode()
    )
    assert Session.objects.filter(room=session.room).count() == 1


@pytest.mark.parametrize("count", [1, 12])
def test_session_changelist_query_count_does_not_grow(
    admin_client, django_assert_max_num_queries, count
):
    conference = make_conference()
    room, track = make_room(conference), make_track(conference)
    for number in range(count):
        speakers = [make_speaker(conference), make_speaker(conference)]
        make_session(
            conference,
            room=room,
            track=track,
            starts_at=paris(7, 8) + datetime.timedelta(hours=number),
            speakers=speakers,
        )
    with django_assert_max_num_queries(12):
        response = admin_client.get(reverse("admin:schedule_session_changelist"))
    assert len(response.context["cl"].result_list) == count


@pytest.mark.parametrize("count", [1, 12])
@pytest.mark.parametrize(
    "changelist",
    [
        "admin:conference_conference_changelist",
        "admin:conference_room_changelist",
        "admin:conference_track_changelist",
        "admin:speakers_speaker_changelist",
    ],
)
def test_other_changelists_query_count_does_not_grow(
    admin_client, django_assert_max_num_queries, count, changelist
):
    for _ in range(count):
        conference = make_conference()
        speaker = make_speaker(conference)
        make_session(
            conference,
            room=make_room(conference),
            track=make_track(conference),
            speakers=[speaker],
        )
    with django_assert_max_num_queries(10):
        response = admin_client.get(reverse(changelist))
    assert len(response.context["cl"].result_list) == count


def test_admin_counts_saves_and_flags_sessions_over_room_capacity(admin_client, django_user_model):
    conference = make_conference()
    small = make_room(conference, name="Small", capacity=1)
    popular = make_session(conference, title="Popular", room=small)
    quiet = make_session(
        conference, title="Quiet", room=make_room(conference, capacity=100), starts_at=paris(8, 14)
    )
    for name in ("a", "b"):
        SavedSession.objects.add(django_user_model.objects.create_user(name), popular)
    response = admin_client.get(reverse("admin:schedule_session_changelist"), {"interest": "over"})
    rows = response.context["cl"].result_list
    assert [(session.title, session.save_count) for session in rows] == [("Popular", 2)]
    assert quiet not in rows

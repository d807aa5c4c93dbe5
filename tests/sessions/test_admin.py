import datetime
import io
import json
import re

import pytest
from django.urls import reverse

from sessions.exports.frab_schedule import build_frab_data
from sessions.importers import import_schedule
from sessions.models import SavedSession, Session
from tests.admin_forms import opened_change_form
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
    """What the admin's add/change form posts, times typed as an organizer types them.

    A change form also posts the version of the session it was opened at.
    """
    conference = getattr(session_or_conference, "conference", session_or_conference)
    version = getattr(session_or_conference, "version", None)
    data = {
        **({"loaded_version": str(version)} if version is not None else {}),
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
        "links-TOTAL_FORMS": "0",
        "links-INITIAL_FORMS": "0",
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


# --- The nights the clocks change ------------------------------------------------------------

SPRING_SKIPPED = (
    "02:30 does not exist on Sunday 29 March 2026 in Europe/Paris: the clocks jump from "
    "02:00 to 03:00 that night."
)
AUTUMN_TWICE = (
    "02:30 happens twice on Sunday 25 October 2026 in Europe/Paris: the clocks go back from "
    "03:00 to 02:00 that night. Choose which 02:30 you mean, next to the time."
)
UTC = datetime.UTC


def conference_on(day: datetime.date):
    return make_conference(starts_on=day, ends_on=day)


def typed_on(day: str, starts: str, ends: str, **fold) -> dict:
    times = {"starts_at_0": day, "starts_at_1": starts, "ends_at_0": day, "ends_at_1": ends}
    return {**times, **fold}


def test_admin_add_refuses_a_time_the_spring_change_skips_and_says_why(admin_client):
    conference = conference_on(datetime.date(2026, 3, 29))
    data = session_form_data(conference, **typed_on("2026-03-29", "02:30", "04:00"))
    response = admin_client.post(reverse("admin:schedule_session_add"), data)
    assert response.context["adminform"].form.errors["starts_at"] == [SPRING_SKIPPED]
    assert Session.objects.count() == 0


def test_admin_change_refuses_a_move_into_the_hour_the_spring_change_skips(admin_client):
    conference = conference_on(datetime.date(2026, 3, 29))
    session = make_session(conference, starts_at=paris(29, 10, month=3))
    opened = opened_form(admin_client, session)
    response = save_in_admin(
        admin_client, session, opened, **typed_on("2026-03-29", "01:30", "02:30")
    )
    assert response.context["adminform"].form.errors["ends_at"] == [SPRING_SKIPPED]
    assert Session.objects.get(pk=session.pk).starts_at == session.starts_at


def test_admin_add_asks_which_of_the_two_autumn_0230s_and_saves_nothing(admin_client):
    conference = conference_on(datetime.date(2026, 10, 25))
    data = session_form_data(conference, **typed_on("2026-10-25", "02:30", "04:00"))
    response = admin_client.post(reverse("admin:schedule_session_add"), data)
    assert response.context["adminform"].form.errors["starts_at"] == [AUTUMN_TWICE]
    assert offered_folds(response, "starts_at") == [
        ("", "Which 02:30?", True),
        ("0", "02:30 CEST (first)", False),
        ("1", "02:30 CET (second)", False),
    ]
    assert offered_folds(response, "ends_at") == []  # 04:00 happens once
    assert Session.objects.count() == 0


@pytest.mark.parametrize(
    ("fold", "starts_at"),
    [
        ("0", datetime.datetime(2026, 10, 25, 0, 30, tzinfo=UTC)),
        ("1", datetime.datetime(2026, 10, 25, 1, 30, tzinfo=UTC)),
    ],
)
def test_admin_add_saves_the_autumn_0230_the_organizer_chose(admin_client, fold, starts_at):
    conference = conference_on(datetime.date(2026, 10, 25))
    data = session_form_data(
        conference, **typed_on("2026-10-25", "02:30", "04:00", starts_at_fold=fold)
    )
    response = admin_client.post(reverse("admin:schedule_session_add"), data)
    assert response.status_code == 302
    session = Session.objects.get()
    assert (session.starts_at, session.ends_at) == (
        starts_at,
        datetime.datetime(2026, 10, 25, 3, 0, tzinfo=UTC),
    )


@pytest.mark.parametrize(("fold", "hour_utc"), [("0", 0), ("1", 1)])
def test_admin_change_form_of_a_session_in_the_autumn_hour_shows_its_0230_and_saves_it_unchanged(
    admin_client, fold, hour_utc
):
    # As the API or an import stores it: an instant, which the admin shows as 02:30.
    starts_at = datetime.datetime(2026, 10, 25, hour_utc, 30, tzinfo=UTC)
    session = make_session(
        conference_on(datetime.date(2026, 10, 25)),
        starts_at=starts_at,
        ends_at=starts_at + datetime.timedelta(minutes=45),
    )
    opened = opened_form(admin_client, session)
    assert (opened["starts_at_1"], opened["starts_at_fold"]) == ("02:30:00", fold)

    response = save_in_admin(admin_client, session, opened, description="Now with details.")

    assert response.status_code == 302
    stored = Session.objects.get(pk=session.pk)
    assert (stored.starts_at, stored.ends_at, stored.description) == (
        session.starts_at,
        session.ends_at,
        "Now with details.",
    )


def test_admin_change_moves_a_session_to_the_second_autumn_0230(admin_client):
    session = make_session(
        conference_on(datetime.date(2026, 10, 25)), starts_at=paris(25, 10, month=10)
    )
    opened = opened_form(admin_client, session)
    refused = save_in_admin(
        admin_client, session, opened, **typed_on("2026-10-25", "02:30", "03:15")
    )
    assert refused.context["adminform"].form.errors["starts_at"] == [AUTUMN_TWICE]

    response = save_in_admin(
        admin_client,
        session,
        opened,
        **typed_on("2026-10-25", "02:30", "03:15", starts_at_fold="1"),
    )

    assert response.status_code == 302
    assert Session.objects.get(pk=session.pk).starts_at == datetime.datetime(
        2026, 10, 25, 1, 30, tzinfo=UTC
    )


def test_admin_refuses_a_time_whose_instant_falls_past_the_calendar(admin_client):
    # 23:30 on 31 December 9999 in New York is in the year 10000 in UTC.
    conference = make_conference(time_zone="America/New_York")
    data = session_form_data(conference, **typed_on("9999-12-31", "23:30", "23:45"))
    response = admin_client.post(reverse("admin:schedule_session_add"), data)
    assert response.context["adminform"].form.errors["starts_at"] == [
        "Enter a date between the years 1 and 9999."
    ]


def test_admin_refuses_a_duration_ending_past_the_calendar(admin_client):
    data = session_form_data(
        make_conference(time_zone="UTC"),
        **typed_on("9999-12-31", "10:00", "") | {"ends_at_0": ""},
        duration="10080",
    )
    response = admin_client.post(reverse("admin:schedule_session_add"), data)
    assert response.context["adminform"].form.errors["duration"] == [
        "That would end after the year 9999."
    ]


def offered_folds(response, name: str) -> list[tuple[str, str, bool]]:
    """The choice between a time's two instants next to field ``name``, as (value, label, chosen)."""
    html = response.content.decode()
    select = re.search(rf'<select name="{name}_fold".*?</select>', html, re.DOTALL)
    if select is None:
        return []
    return [
        (value, label, bool(chosen))
        for value, chosen, label in re.findall(
            r'<option value="(\d?)"( selected)?>([^<]*)</option>', select.group()
        )
    ]


# --- Start and duration ----------------------------------------------------------------------


def test_admin_add_ends_a_session_after_its_duration(admin_client):
    data = session_form_data(make_conference(), starts_at_1="10:35", duration="10")
    data |= {"ends_at_0": "", "ends_at_1": ""}
    response = admin_client.post(reverse("admin:schedule_session_add"), data)
    assert response.status_code == 302
    assert Session.objects.get().local_times == ("10:35", "10:45 CEST", "")


def test_admin_add_says_so_when_the_end_and_the_duration_disagree(admin_client):
    data = session_form_data(make_conference(), starts_at_1="10:35", ends_at_1="11:00")
    response = admin_client.post(reverse("admin:schedule_session_add"), data | {"duration": "10"})
    assert response.context["adminform"].form.errors["duration"] == [
        "The end (11:00 CEST) and the duration (10 minutes) disagree: 10:35 CEST for 10 "
        "minutes ends at 10:45 CEST. Change or clear one of them."
    ]
    assert Session.objects.count() == 0


def test_admin_add_takes_an_end_and_a_duration_that_agree(admin_client):
    data = session_form_data(make_conference(), starts_at_1="10:35", ends_at_1="11:00")
    response = admin_client.post(reverse("admin:schedule_session_add"), data | {"duration": "25"})
    assert response.status_code == 302
    assert Session.objects.get().duration == datetime.timedelta(minutes=25)


def test_admin_add_refuses_a_duration_without_a_start(admin_client):
    empty_times = {"starts_at_0": "", "starts_at_1": "", "ends_at_0": "", "ends_at_1": ""}
    data = session_form_data(make_conference(), status=Session.Status.DRAFT, **empty_times)
    response = admin_client.post(reverse("admin:schedule_session_add"), data | {"duration": "30"})
    assert response.context["adminform"].form.errors["duration"] == [
        "Give the start too: a duration counts from it."
    ]
    assert Session.objects.count() == 0


def test_admin_session_form_offers_the_common_durations(admin_client):
    make_conference()
    html = admin_client.get(reverse("admin:schedule_session_add")).content.decode()
    datalist = re.search(r'<datalist id="id_duration_suggestions">(.*?)</datalist>', html).group(1)
    assert re.findall(r'<option value="(\d+)">', datalist) == [
        "5",
        "10",
        "15",
        "20",
        "25",
        "30",
        "40",
        "45",
        "60",
        "90",
    ]
    assert 'list="id_duration_suggestions"' in html


def test_admin_change_form_shows_the_current_duration(admin_client):
    session = make_session(starts_at=paris(8, 10, 35), ends_at=paris(8, 11, 15))
    assert opened_form(admin_client, session)["duration"] == "40"


def test_admin_change_of_the_duration_moves_the_end(admin_client):
    session = make_session(starts_at=paris(8, 10, 35), ends_at=paris(8, 11, 5))
    response = save_in_admin(
        admin_client, session, opened_form(admin_client, session), duration="10"
    )
    assert response.status_code == 302
    assert Session.objects.get(pk=session.pk).ends_at == paris(8, 10, 45)


def test_admin_change_of_the_end_keeps_it_over_the_duration_shown(admin_client):
    session = make_session(starts_at=paris(8, 10, 35), ends_at=paris(8, 11, 5))
    response = save_in_admin(
        admin_client, session, opened_form(admin_client, session), ends_at_1="11:20"
    )
    assert response.status_code == 302
    assert Session.objects.get(pk=session.pk).duration == datetime.timedelta(minutes=45)


def test_admin_change_of_the_start_alone_keeps_the_duration(admin_client):
    session = make_session(starts_at=paris(8, 10, 35), ends_at=paris(8, 11, 5))
    response = save_in_admin(
        admin_client, session, opened_form(admin_client, session), starts_at_1="12:05"
    )
    assert response.status_code == 302
    assert str(Session.objects.get(pk=session.pk).local_times) == "12:05–12:35 CEST"


def test_admin_change_of_the_start_and_the_end_keeps_the_end_typed(admin_client):
    session = make_session(starts_at=paris(8, 10, 35), ends_at=paris(8, 11, 5))
    opened = opened_form(admin_client, session)
    response = save_in_admin(admin_client, session, opened, starts_at_1="12:05", ends_at_1="13:00")
    assert response.status_code == 302
    assert str(Session.objects.get(pk=session.pk).local_times) == "12:05–13:00 CEST"


def test_admin_change_of_the_start_and_the_duration_ends_after_the_new_duration(admin_client):
    session = make_session(starts_at=paris(8, 10, 35), ends_at=paris(8, 11, 5))
    opened = opened_form(admin_client, session)
    response = save_in_admin(admin_client, session, opened, starts_at_1="12:05", duration="45")
    assert response.status_code == 302
    assert str(Session.objects.get(pk=session.pk).local_times) == "12:05–12:50 CEST"


def test_admin_change_of_the_start_keeps_an_odd_imported_length(admin_client):
    session = make_session(
        starts_at=paris(8, 10, 35), ends_at=paris(8, 11, 5) + datetime.timedelta(seconds=30)
    )
    opened = opened_form(admin_client, session)
    assert opened["duration"] == ""
    response = save_in_admin(admin_client, session, opened, starts_at_1="12:05")
    assert response.status_code == 302
    moved = Session.objects.get(pk=session.pk)
    assert (moved.starts_at, moved.duration) == (
        paris(8, 12, 5),
        datetime.timedelta(minutes=30, seconds=30),
    )


def test_admin_change_of_the_end_and_the_duration_that_disagree_says_so(admin_client):
    session = make_session(starts_at=paris(8, 10, 35), ends_at=paris(8, 11, 5))
    opened = opened_form(admin_client, session)
    response = save_in_admin(admin_client, session, opened, ends_at_1="11:20", duration="10")
    assert response.context["adminform"].form.errors == {
        "duration": [
            "The end (11:20 CEST) and the duration (10 minutes) disagree: 10:35 CEST for 10 "
            "minutes ends at 10:45 CEST. Change or clear one of them."
        ]
    }
    assert Session.objects.get(pk=session.pk).ends_at == paris(8, 11, 5)


def test_admin_change_unschedules_a_session_whatever_its_duration_shows(admin_client):
    session = make_session(status=Session.Status.DRAFT)
    empty_times = {"starts_at_0": "", "starts_at_1": "", "ends_at_0": "", "ends_at_1": ""}
    response = save_in_admin(
        admin_client, session, opened_form(admin_client, session), **empty_times
    )
    assert response.status_code == 302
    assert Session.objects.unscheduled().get() == session


def test_admin_counts_a_duration_across_the_autumn_change_in_real_minutes(admin_client):
    conference = conference_on(datetime.date(2026, 10, 25))
    data = session_form_data(
        conference,
        **typed_on("2026-10-25", "02:30", "", starts_at_fold="0") | {"ends_at_0": ""},
        duration="60",
    )
    response = admin_client.post(reverse("admin:schedule_session_add"), data)
    assert response.status_code == 302
    session = Session.objects.get()
    assert (session.ends_at, str(session.local_times)) == (
        datetime.datetime(2026, 10, 25, 1, 30, tzinfo=UTC),
        "02:30 CEST–02:30 CET",
    )


# --- Only the session's conference's rooms, tracks and speakers -----------------------------


@pytest.fixture
def two_conferences():
    """PyCon and DjangoCon, each with a room, a track and a speaker."""
    conferences = []
    for name in ("PyCon", "DjangoCon"):
        conference = make_conference(name=name)
        make_room(conference, name=f"{name} Hall")
        make_track(conference, name=f"{name} Track")
        make_speaker(conference, name=f"{name} Speaker")
        conferences.append(conference)
    return conferences


def offered(response, name: str) -> list[str]:
    """The labels of a form field's choices, the empty one left out."""
    field = response.context["adminform"].form.fields[name]
    return [str(label) for value, label in field.choices if value != ""]


def test_admin_change_form_offers_only_the_sessions_conference_rooms_and_tracks(
    admin_client, two_conferences
):
    pycon, _ = two_conferences
    session = make_session(pycon)
    response = admin_client.get(reverse("admin:schedule_session_change", args=[session.pk]))
    assert (offered(response, "room"), offered(response, "track")) == (
        ["PyCon Hall"],
        ["PyCon Track"],
    )


def test_admin_add_form_for_a_chosen_conference_offers_only_its_rooms_and_tracks(
    admin_client, two_conferences
):
    _, djangocon = two_conferences
    response = admin_client.get(reverse("admin:schedule_session_add"), {"conference": djangocon.pk})
    assert (offered(response, "room"), offered(response, "track")) == (
        ["DjangoCon Hall"],
        ["DjangoCon Track"],
    )


def test_admin_add_form_of_the_only_conference_offers_its_rooms(admin_client):
    make_room(make_conference(), name="Hall")
    response = admin_client.get(reverse("admin:schedule_session_add"))
    assert offered(response, "room") == ["Hall"]


def test_admin_add_form_among_several_conferences_names_each_choice_with_its_conference(
    admin_client, two_conferences
):
    pycon, djangocon = two_conferences
    response = admin_client.get(reverse("admin:schedule_session_add"))
    assert sorted(offered(response, "room")) == ["DjangoCon Hall (DjangoCon)", "PyCon Hall (PyCon)"]
    html = response.content.decode()
    assert f'<a href="?conference={pycon.pk}">PyCon</a>' in html
    assert f'<a href="?conference={djangocon.pk}">DjangoCon</a>' in html


def test_admin_add_rereads_choices_for_the_posted_conference(admin_client, two_conferences):
    pycon, djangocon = two_conferences
    other_room = pycon.rooms.get()
    response = admin_client.post(
        reverse("admin:schedule_session_add"), session_form_data(djangocon, room=other_room.pk)
    )
    assert offered(response, "room") == ["DjangoCon Hall"]
    assert response.context["adminform"].form.errors["room"] == [
        "Select a valid choice. That choice is not one of the available choices."
    ]
    assert Session.objects.count() == 0


def test_admin_session_form_asks_the_speaker_autocomplete_for_its_conference(
    admin_client, two_conferences
):
    pycon, _ = two_conferences
    session = make_session(pycon)
    html = admin_client.get(
        reverse("admin:schedule_session_change", args=[session.pk])
    ).content.decode()
    assert f'data-ajax--url="/admin/autocomplete/?conference={pycon.pk}"' in html
    # Its “+” opens the speaker add form with this conference chosen.
    assert (
        f'href="/admin/speakers/speaker/add/?_to_field=id&amp;_popup=1&amp;conference={pycon.pk}"'
        in html
    )
    assert (
        f'href="/admin/conference/room/add/?_to_field=id&amp;_popup=1&amp;conference={pycon.pk}"'
        in html
    )


def test_admin_speaker_add_popup_opens_with_the_sessions_conference_chosen(
    admin_client, two_conferences
):
    _, djangocon = two_conferences
    response = admin_client.get(
        reverse("admin:speakers_speaker_add"),
        {"_to_field": "id", "_popup": "1", "conference": djangocon.pk},
    )
    assert response.context["adminform"].form["conference"].value() == str(djangocon.pk)


def test_admin_speaker_autocomplete_offers_only_the_forwarded_conferences_speakers(
    admin_client, two_conferences
):
    _, djangocon = two_conferences
    query = {
        "app_label": "schedule",
        "model_name": "sessionspeaker",
        "field_name": "speaker",
        "term": "Speaker",
    }
    scoped = admin_client.get(reverse("admin:autocomplete"), query | {"conference": djangocon.pk})
    everyone = admin_client.get(reverse("admin:autocomplete"), query)
    assert [result["text"] for result in scoped.json()["results"]] == ["DjangoCon Speaker"]
    assert len(everyone.json()["results"]) == 2


@pytest.mark.parametrize("value", ["abc", "-1", "99999999999999999999999", "١"])
def test_admin_speaker_autocomplete_ignores_a_conference_that_is_no_id(
    admin_client, two_conferences, value
):
    query = {"app_label": "schedule", "model_name": "sessionspeaker", "field_name": "speaker"}
    response = admin_client.get(reverse("admin:autocomplete"), query | {"conference": value})
    assert response.status_code == 200
    assert len(response.json()["results"]) == 2


def filter_choices(response, title: str) -> list[str]:
    (spec,) = [spec for spec in response.context["cl"].filter_specs if spec.title == title]
    return [str(label) for value, label in spec.lookup_choices]


def test_admin_changelist_room_and_track_filters_follow_the_chosen_conference(
    admin_client, two_conferences
):
    pycon, _ = two_conferences
    response = admin_client.get(
        reverse("admin:schedule_session_changelist"), {"conference__id__exact": pycon.pk}
    )
    assert (filter_choices(response, "room"), filter_choices(response, "track")) == (
        ["PyCon Hall"],
        ["PyCon Track"],
    )


def test_admin_changelist_filters_name_the_conference_of_each_room_when_none_is_chosen(
    admin_client, two_conferences
):
    response = admin_client.get(reverse("admin:schedule_session_changelist"))
    assert sorted(filter_choices(response, "room")) == [
        "DjangoCon Hall (DjangoCon)",
        "PyCon Hall (PyCon)",
    ]


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


def run_action(client, action, sessions, **extra):
    return client.post(
        reverse("admin:schedule_session_changelist"),
        {"action": action, "_selected_action": [session.pk for session in sessions], **extra},
        follow=True,
    )


def shown_messages(response):
    return [str(message) for message in response.context["messages"]]


def test_admin_publish_action_publishes_drafts_and_says_why_it_left_the_others(admin_client):
    conference = make_conference()
    draft = make_session(conference, title="Draft", status=Session.Status.DRAFT)
    cancelled = make_session(
        conference, title="Called off", status=Session.Status.CANCELLED, starts_at=paris(8, 11)
    )
    live = make_session(conference, title="Live", starts_at=paris(8, 12))

    response = run_action(admin_client, "publish", [draft, cancelled, live])

    assert shown_messages(response) == [
        "1 session published.",
        "2 sessions left alone: “Called off” is cancelled (bringing a session back is the "
        "action “Reinstate cancelled sessions”); “Live” is already published.",
    ]
    assert [Session.objects.get(pk=s.pk).status for s in (draft, cancelled, live)] == [
        "published",
        "cancelled",
        "published",
    ]


def test_admin_reinstate_action_asks_first_listing_the_sessions_and_changes_nothing(
    admin_client,
):
    conference = make_conference()
    cancelled = make_session(
        conference,
        title="Called off",
        status=Session.Status.CANCELLED,
        room=make_room(conference, name="Hall"),
    )
    draft = make_session(
        conference, title="Draft", status=Session.Status.DRAFT, starts_at=paris(8, 11)
    )

    response = run_action(admin_client, "reinstate", [cancelled, draft])

    html = response.content.decode()
    assert (
        response.templates[0].name == "admin/schedule/session/reinstate_selected_confirmation.html"
    )
    assert "<li>“Called off”: Wednesday 8 April 2026 10:00–10:30 CEST, Hall</li>" in html
    assert "<li>“Draft”: draft</li>" in html
    assert "takes its room and its speakers' time" in html.replace("&#x27;", "'")
    assert f'name="_selected_action" value="{cancelled.pk}"' in html
    assert '<input type="hidden" name="post" value="yes">' in html
    assert Session.objects.get(pk=cancelled.pk).status == Session.Status.CANCELLED


def test_admin_reinstate_action_reinstates_once_confirmed(admin_client):
    cancelled = make_session(title="Called off", status=Session.Status.CANCELLED)

    response = run_action(admin_client, "reinstate", [cancelled], post="yes")

    assert shown_messages(response) == ["1 session reinstated."]
    assert Session.objects.get(pk=cancelled.pk).status == Session.Status.PUBLISHED


def test_admin_reinstate_action_with_nothing_cancelled_offers_no_confirm_button(admin_client):
    draft = make_session(title="Draft", status=Session.Status.DRAFT)

    response = run_action(admin_client, "reinstate", [draft])

    html = response.content.decode()
    assert "None of the selected sessions is cancelled: there is nothing to reinstate." in html
    assert 'name="post"' not in html


def test_admin_reinstate_refuses_a_clash_by_name_and_reinstates_the_rest(admin_client):
    room = make_room(name="Central Room")
    blocked = make_session(
        room.conference, title="Old slot", room=room, status=Session.Status.CANCELLED
    )
    free = make_session(
        room.conference, title="Free", status=Session.Status.CANCELLED, starts_at=paris(8, 14)
    )
    make_session(room.conference, title="New slot", room=room)

    response = run_action(admin_client, "reinstate", [blocked, free], post="yes")

    assert shown_messages(response) == [
        "1 session reinstated.",
        "Not reinstated: “Old slot”: Central Room already hosts “New slot” then "
        "(Wednesday 8 April 2026 10:00–10:30 CEST).",
    ]
    assert Session.objects.get(pk=blocked.pk).status == Session.Status.CANCELLED
    assert Session.objects.get(pk=free.pk).status == Session.Status.PUBLISHED


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
    # 13: one of them finds the conference whose days the day filter offers.
    with django_assert_max_num_queries(13):
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


def test_admin_adds_an_unscheduled_session_and_lists_it_as_such(admin_client):
    conference = make_conference()
    empty_times = {"starts_at_0": "", "starts_at_1": "", "ends_at_0": "", "ends_at_1": ""}
    response = admin_client.post(
        reverse("admin:schedule_session_add"),
        session_form_data(conference, status=Session.Status.DRAFT, **empty_times),
    )
    assert response.status_code == 302
    assert Session.objects.unscheduled().get().title == "Fresh talk"
    changelist = admin_client.get(reverse("admin:schedule_session_changelist")).content.decode()
    assert '<td class="field-day">Unscheduled</td>' in changelist


def test_admin_refuses_to_publish_a_session_without_a_time(admin_client):
    conference = make_conference()
    empty_times = {"starts_at_0": "", "starts_at_1": "", "ends_at_0": "", "ends_at_1": ""}
    response = admin_client.post(
        reverse("admin:schedule_session_add"), session_form_data(conference, **empty_times)
    )
    assert response.status_code == 200
    assert "An unscheduled session cannot be published: give it a time first." in (
        response.content.decode()
    )
    assert not Session.objects.exists()


# --- Two organizers editing one session ----------------------------------------------------


def opened_form(admin_client, session) -> dict:
    """What the session's change form, opened now, posts back if nothing is changed on it."""
    return opened_change_form(
        admin_client, reverse("admin:schedule_session_change", args=[session.pk])
    )


def save_in_admin(admin_client, session, opened: dict, **values):
    """Post the change form of ``session`` as it was ``opened``, with ``values`` changed."""
    return admin_client.post(
        reverse("admin:schedule_session_change", args=[session.pk]), {**opened, **values}
    )


@pytest.fixture
def two_rooms():
    conference = make_conference()
    return make_room(conference, name="Central Room"), make_room(conference, name="Master Stage")


def test_admin_merges_a_save_from_a_page_opened_before_anothers_save_of_other_fields(
    admin_client, two_rooms
):
    central, master = two_rooms
    session = make_session(central.conference, title="Old title", room=central)
    opened_by_b = opened_form(admin_client, session)
    response = save_in_admin(
        admin_client,
        session,
        opened_form(admin_client, session),
        title="New title",
        room=master.pk,
        starts_at_1="14:00",
        ends_at_1="14:30",
    )
    assert response.status_code == 302
    speaker = make_speaker(session.conference, name="Grace Hopper")

    response = save_in_admin(
        admin_client,
        session,
        opened_by_b,
        description="More detail.",
        **{
            "session_speakers-TOTAL_FORMS": "1",
            "session_speakers-0-speaker": speaker.pk,
            "session_speakers-0-position": "0",
        },
    )

    assert response.status_code == 302
    stored = Session.objects.get(pk=session.pk)
    assert (
        stored.title,
        stored.room,
        stored.starts_at,
        stored.description,
        list(stored.speakers.all()),
    ) == ("New title", master, paris(8, 14), "More detail.", [speaker])


def test_admin_refuses_an_overwrite_of_a_version_the_organizer_was_not_shown(
    admin_client, two_rooms
):
    central, master = two_rooms
    session = make_session(central.conference, title="Old title", room=central)
    opened_by_b = opened_form(admin_client, session)
    save_in_admin(admin_client, session, opened_form(admin_client, session), title="Second")
    refused = save_in_admin(admin_client, session, opened_by_b, title="Mine")
    offered = refused.context["adminform"].form
    save_in_admin(admin_client, session, opened_form(admin_client, session), room=master.pk)

    response = save_in_admin(
        admin_client,
        session,
        opened_by_b,
        title="Mine",
        description="More detail.",
        overwrite_version=str(offered.overwrite_offer),
    )

    assert response.status_code == 200
    form = response.context["adminform"].form
    assert [change.label for change in form.changed_meanwhile] == ["Title", "Room"]
    assert form.overwrite_offer == 3
    assert Session.objects.get(pk=session.pk).description == ""


def test_admin_change_form_offers_no_overwrite_without_a_conflict(admin_client):
    session = make_session()
    response = admin_client.get(reverse("admin:schedule_session_change", args=[session.pk]))
    assert "Save my version anyway" not in response.content.decode()


def test_admin_saves_again_from_the_reloaded_page(admin_client):
    session = make_session(title="Old title")
    save_in_admin(admin_client, session, opened_form(admin_client, session), title="Once")
    session.refresh_from_db()
    response = save_in_admin(
        admin_client, session, opened_form(admin_client, session), title="Twice"
    )
    assert response.status_code == 302
    assert Session.objects.get(pk=session.pk).title == "Twice"


def test_admin_refuses_a_change_form_that_does_not_say_its_version(admin_client):
    session = make_session(title="Old title")
    data = {**session_form_data(session, title="Sneaky", slug=session.slug)}
    del data["loaded_version"]
    response = admin_client.post(reverse("admin:schedule_session_change", args=[session.pk]), data)
    assert response.context["adminform"].form.non_field_errors() == [
        "This page does not say which version it was opened at, so nothing was saved. "
        "Reload it to edit the current version."
    ]
    assert Session.objects.get(pk=session.pk).title == "Old title"


def test_admin_merges_a_save_that_lands_between_its_check_and_its_write(admin_client, monkeypatch):
    session = make_session(title="Old title")
    opened = opened_form(admin_client, session)
    Session.objects.filter(pk=session.pk).update(title="Landed meanwhile")
    check_version, checks = Session.check_version, []

    def read_before_the_other_save_landed(instance, seen_version):
        checks.append(seen_version)
        if len(checks) == 1:  # this first check read the row just before the other save
            instance.version = seen_version
        else:
            check_version(instance, seen_version)

    monkeypatch.setattr(Session, "check_version", read_before_the_other_save_landed)
    response = save_in_admin(admin_client, session, opened, description="Mine.")

    assert (response.status_code, checks) == (302, [1, 1])  # refused at the write, then merged
    stored = Session.objects.get(pk=session.pk)
    assert (stored.title, stored.description) == ("Landed meanwhile", "Mine.")


def test_admin_keeps_a_cancel_action_made_after_a_change_form_was_opened(admin_client):
    session = make_session(title="Talk")
    opened = opened_form(admin_client, session)
    admin_client.post(
        reverse("admin:schedule_session_changelist"),
        {"action": "cancel", "_selected_action": [session.pk]},
    )
    response = save_in_admin(admin_client, session, opened, description="Mine.")
    assert response.status_code == 302
    stored = Session.objects.get(pk=session.pk)
    assert (stored.status, stored.description) == (Session.Status.CANCELLED, "Mine.")


def test_admin_refuses_a_title_an_import_changed_since_the_form_was_opened(admin_client):
    session = make_session(title="Talk", room=make_room(name="Hall"))
    opened = opened_form(admin_client, session)
    schedule = build_frab_data(
        session.conference, list(Session.objects.for_listing()), base_url="https://example.org"
    )
    (imported,) = [
        event
        for day in schedule["schedule"]["conference"]["days"]
        for events in day["rooms"].values()
        for event in events
    ]
    imported["title"] = "Talk, as imported"
    import_schedule(session.conference, io.BytesIO(json.dumps(schedule).encode()))

    response = save_in_admin(admin_client, session, opened, title="Mine")

    form = response.context["adminform"].form
    assert [(o.label, o.theirs, o.mine) for o, _ in form.overlap_choices] == [
        ("Title", "Talk, as imported", "Mine")
    ]
    assert Session.objects.get(pk=session.pk).title == "Talk, as imported"


@pytest.fixture
def late_night():
    """Days change at 04:00: a session at 01:30 on 9 April belongs to 8 April, the last day."""
    conference = make_conference(day_change=datetime.time(4, 0))
    make_session(conference, title="First day", starts_at=paris(7, 10))
    make_session(conference, title="Evening", starts_at=paris(8, 21))
    make_session(conference, title="Night", starts_at=paris(9, 1, 30))
    return conference


def test_admin_changelist_lists_a_session_after_midnight_on_its_conference_day(
    admin_client, late_night
):
    response = admin_client.get(reverse("admin:schedule_session_changelist"))
    html = response.content.decode()
    assert '<td class="field-day">Wed 8 Apr 2026, after midnight</td>' in html
    assert '<td class="field-day">Wed 8 Apr 2026</td>' in html


@pytest.mark.parametrize(
    ("day", "titles"),
    [("2026-04-07", ["First day"]), ("2026-04-08", ["Evening", "Night"])],
)
def test_admin_day_filter_counts_days_as_the_conference_does(admin_client, late_night, day, titles):
    response = admin_client.get(
        reverse("admin:schedule_session_changelist"),
        {"conference__id__exact": late_night.pk, "day": day},
    )
    assert [session.title for session in response.context["cl"].result_list] == titles


def test_admin_day_filter_offers_the_conference_days_and_ignores_a_day_typed_wrong(
    admin_client, late_night
):
    url = reverse("admin:schedule_session_changelist")
    html = admin_client.get(url, {"conference__id__exact": late_night.pk}).content.decode()
    assert "By conference day" in html
    assert "Tue 7 Apr 2026" in html

    response = admin_client.get(url, {"conference__id__exact": late_night.pk, "day": "8 April"})
    assert response.status_code == 200
    assert len(response.context["cl"].result_list) == 3


# --- Layout of the session form and list ------------------------------------------------------


def test_admin_session_form_puts_the_speakers_after_the_time_and_before_the_text(admin_client):
    session = make_session()
    html = admin_client.get(
        reverse("admin:schedule_session_change", args=[session.pk])
    ).content.decode()
    landmarks = [
        ">What<",
        'name="title"',
        ">When and where<",
        'name="starts_at_1"',
        'id="session_speakers-group"',
        ">Text<",
        'name="description"',
        'id="attachments-group"',
        'id="links-group"',
        ">More links<",
    ]
    positions = [html.index(landmark) for landmark in landmarks]
    assert positions == sorted(positions)
    assert html.count('id="session_speakers-group"') == 1


def test_admin_session_form_shows_why_an_import_held_a_session_only_when_it_did(admin_client):
    held = make_session(status=Session.Status.DRAFT, held_reason="Central Room is taken then.")
    plain = make_session(held.conference)
    url = "admin:schedule_session_change"
    assert (
        "Central Room is taken then."
        in admin_client.get(reverse(url, args=[held.pk])).content.decode()
    )
    assert "Held for review" not in admin_client.get(reverse(url, args=[plain.pk])).content.decode()


def changelist_headers(response) -> list[str]:
    return [header["text"] for header in response.context["result_headers"]]


def test_admin_changelist_names_the_conference_only_when_there_are_several(admin_client):
    make_session(make_conference(name="PyCon"))
    url = reverse("admin:schedule_session_changelist")
    assert "conference" not in changelist_headers(admin_client.get(url))
    make_session(make_conference(name="DjangoCon"))
    assert changelist_headers(admin_client.get(url))[1:3] == ["title", "conference"]


def test_admin_changelist_says_what_over_capacity_means_in_its_header(admin_client):
    make_session()
    response = admin_client.get(reverse("admin:schedule_session_changelist"))
    assert changelist_headers(response)[-1] == "more saves than seats"


def test_admin_add_without_a_slug_opens_its_folded_fieldset_with_the_error(admin_client):
    data = session_form_data(make_conference(), slug="")
    response = admin_client.get(reverse("admin:schedule_session_add"))
    assert "<details><summary>" in response.content.decode()  # folded when nothing is wrong
    response = admin_client.post(reverse("admin:schedule_session_add"), data)
    form = response.context["adminform"].form
    assert form.errors["slug"] == ["This field is required."]
    fieldset = next(f for f in response.context["adminform"] if f.name == "Address and history")
    assert not fieldset.is_collapsible

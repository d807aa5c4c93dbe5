import datetime

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import RestrictedError

from conference.models import Conference, Room, Track
from sessions.models import Session
from tests.builders import make_conference, make_room, make_session, make_track

pytestmark = pytest.mark.django_db


def conference_form_fields(**overrides):
    fields = {
        "name": "PyCon Test",
        "slug": "pycon-test",
        "starts_on": datetime.date(2026, 4, 7),
        "ends_on": datetime.date(2026, 4, 8),
        "time_zone": "Europe/Paris",
    }
    return Conference(**{**fields, **overrides})


def test_conference_accepts_an_iana_time_zone():
    conference_form_fields(time_zone="America/New_York").full_clean()


@pytest.mark.parametrize("zone", ["CEST", "Paris", "UTC+2", "Europe/Atlantis", ""])
def test_conference_rejects_a_time_zone_that_is_not_iana(zone):
    with pytest.raises(ValidationError) as error:
        conference_form_fields(time_zone=zone).full_clean()
    assert "time_zone" in error.value.message_dict


def test_conference_rejects_last_day_before_first_day():
    with pytest.raises(ValidationError) as error:
        conference_form_fields(
            starts_on=datetime.date(2026, 4, 8), ends_on=datetime.date(2026, 4, 7)
        ).full_clean()
    assert error.value.messages == ["The last day cannot be before the first day."]


def test_conference_days_lists_each_local_day():
    conference = make_conference(
        starts_on=datetime.date(2026, 4, 7), ends_on=datetime.date(2026, 4, 9)
    )
    assert conference.days == [
        datetime.date(2026, 4, 7),
        datetime.date(2026, 4, 8),
        datetime.date(2026, 4, 9),
    ]


def test_conference_day_bounds_are_23_hours_on_the_spring_dst_change():
    conference = make_conference(
        starts_on=datetime.date(2026, 3, 29), ends_on=datetime.date(2026, 3, 29)
    )
    start, end = conference.day_bounds(datetime.date(2026, 3, 29))
    assert end - start == datetime.timedelta(hours=23)
    assert start.astimezone(datetime.UTC) == datetime.datetime(
        2026, 3, 28, 23, 0, tzinfo=datetime.UTC
    )


def test_room_slug_is_unique_within_a_conference():
    room = make_room(name="Master Stage")
    with pytest.raises(ValidationError) as error:
        Room(conference=room.conference, name="Master Stage 2", slug="master-stage").full_clean()
    assert error.value.messages == ["This conference already has a room with this slug."]


def test_room_slug_may_repeat_in_another_conference():
    make_room(name="Master Stage")
    Room(conference=make_conference(), name="Master Stage", slug="master-stage").full_clean()


def test_track_rejects_a_colour_that_is_not_hex():
    track = make_track()
    track.colour = "red"
    with pytest.raises(ValidationError) as error:
        track.full_clean()
    assert "colour" in error.value.message_dict


def test_database_refuses_a_track_colour_that_is_not_hex():
    track = make_track()
    with pytest.raises(IntegrityError), transaction.atomic():
        Track.objects.filter(pk=track.pk).update(colour="red")


def test_deleting_a_room_with_sessions_is_refused_and_keeps_them():
    session = make_session(room=make_room())
    with pytest.raises(RestrictedError):
        session.room.delete()
    assert Session.objects.filter(pk=session.pk).exists()


def test_deleting_a_track_with_sessions_is_refused_and_keeps_them():
    session = make_session(track=make_track())
    with pytest.raises(RestrictedError):
        session.track.delete()
    assert Session.objects.filter(pk=session.pk).exists()


def test_deleting_a_conference_removes_its_rooms_tracks_and_sessions():
    conference = make_conference()
    make_session(conference, room=make_room(conference), track=make_track(conference))
    conference.delete()
    assert (Room.objects.count(), Track.objects.count(), Session.objects.count()) == (
        0,
        0,
        0,
    )

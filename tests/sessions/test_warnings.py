import datetime

import pytest
from django.utils import translation

from sessions.models import SavedSession, Session, SessionSpeaker
from sessions.warnings import schedule_warnings, warning_list
from speakers.models import Availability
from tests.builders import make_conference, make_room, make_session, make_speaker, make_track, paris

pytestmark = pytest.mark.django_db


@pytest.fixture
def ada(conference):
    return make_speaker(conference, name="Ada Lovelace")


def minutes(count: int) -> datetime.timedelta:
    return datetime.timedelta(minutes=count)


def talk(conference, title, starts_at, length=30, **fields):
    return make_session(
        conference, title=title, starts_at=starts_at, ends_at=starts_at + minutes(length), **fields
    )


def warnings_of(conference):
    return schedule_warnings(conference, conference.sessions.all())


def saved_by(session, count, django_user_model):
    for _ in range(count):
        user = django_user_model.objects.create_user(f"attendee-{session.pk}-{_}")
        SavedSession.objects.create(user=user, session=session)


# --- Availability --------------------------------------------------------------------------


def test_a_speaker_outside_their_availability_is_named_with_their_windows(conference, ada):
    Availability.objects.create(speaker=ada, starts_at=paris(8, 10), ends_at=paris(8, 12))
    Availability.objects.create(speaker=ada, starts_at=paris(7, 14), ends_at=paris(7, 15))
    late = talk(conference, "Late", paris(8, 11, 45), speakers=[ada])
    assert warnings_of(conference) == {
        late.pk: [
            "Ada Lovelace is not available then "
            "(available Tue 14:00–15:00 CEST, Wed 10:00–12:00 CEST)"
        ]
    }


def test_no_warning_for_speakers_inside_their_availability_or_without_any(conference, ada):
    Availability.objects.create(speaker=ada, starts_at=paris(8, 10), ends_at=paris(8, 12))
    talk(conference, "Inside", paris(8, 10), speakers=[ada, make_speaker(conference)])
    assert warnings_of(conference) == {}


# --- One track in parallel -------------------------------------------------------------------


def test_sessions_of_one_track_running_in_parallel_name_each_other(conference):
    compilers = make_track(conference, name="Compilers")
    rooms = [make_room(conference) for _ in range(3)]
    first = talk(conference, "First", paris(8, 10), 60, track=compilers, room=rooms[0])
    second = talk(conference, "Second", paris(8, 10, 30), 60, track=compilers, room=rooms[1])
    third = talk(conference, "Third", paris(8, 11), 30, track=compilers, room=rooms[0])
    talk(conference, "Elsewhere", paris(8, 10), 60, track=make_track(conference), room=rooms[2])
    assert warnings_of(conference) == {
        first.pk: ["Runs in parallel with “Second”, also in the Compilers track"],
        second.pk: [
            "Runs in parallel with “First”, also in the Compilers track",
            "Runs in parallel with “Third”, also in the Compilers track",
        ],
        third.pk: ["Runs in parallel with “Second”, also in the Compilers track"],
    }


def test_back_to_back_sessions_of_one_track_are_not_parallel(conference):
    compilers = make_track(conference)
    talk(conference, "First", paris(8, 10), track=compilers, room=make_room(conference))
    talk(conference, "Second", paris(8, 10, 30), track=compilers, room=make_room(conference))
    assert warnings_of(conference) == {}


# --- Seats -----------------------------------------------------------------------------------


def test_a_session_saved_by_more_attendees_than_its_room_seats(conference, django_user_model):
    room = make_room(conference, name="Central Room", capacity=2)
    crowded = talk(conference, "Crowded", paris(8, 10), room=room)
    saved_by(crowded, 3, django_user_model)
    full = talk(conference, "Full", paris(8, 11), room=room)
    saved_by(full, 2, django_user_model)
    unknown = talk(conference, "Unknown", paris(8, 10), room=make_room(conference))
    saved_by(unknown, 3, django_user_model)
    assert warnings_of(conference) == {crowded.pk: ["3 saved, Central Room seats 2"]}


def test_warnings_speak_the_active_language(conference, ada):
    Availability.objects.create(speaker=ada, starts_at=paris(8, 10), ends_at=paris(8, 12))
    master = make_room(conference, name="Master Stage")
    junior = make_room(conference, name="Junior Stage")
    talk(conference, "Tensors", paris(8, 11, 30), room=master, speakers=[ada])
    late = talk(conference, "Late", paris(8, 12), room=junior, speakers=[ada])
    with translation.override("fr"):
        warnings = warnings_of(conference)
    assert warnings == {
        late.pk: [
            "Ada Lovelace n’est pas disponible à ce moment-là (disponible mer 10 h 00–12 h 00 CEST)",
            "Ada Lovelace enchaîne « Tensors » en Master Stage (fin à 12 h 00) et cette session "
            "en Junior Stage",
        ]
    }


# --- Changing rooms --------------------------------------------------------------------------


def test_a_speaker_going_straight_to_another_room(conference, ada):
    master = make_room(conference, name="Master Stage")
    junior = make_room(conference, name="Junior Stage")
    talk(conference, "Opening", paris(8, 10), room=master, speakers=[ada])
    straight = talk(conference, "Next", paris(8, 10, 30), room=junior, speakers=[ada])
    assert warnings_of(conference) == {
        straight.pk: [
            "Ada Lovelace goes straight from “Opening” in Master Stage (ends 10:30) "
            "to this in Junior Stage"
        ]
    }


def test_a_speaker_staying_in_the_room_or_with_a_gap_gets_no_warning(conference, ada):
    master = make_room(conference)
    talk(conference, "Opening", paris(8, 10), room=master, speakers=[ada])
    talk(conference, "Same room", paris(8, 10, 30), room=master, speakers=[ada])
    talk(conference, "After a break", paris(8, 11, 5), room=make_room(conference), speakers=[ada])
    assert warnings_of(conference) == {}


def test_times_are_read_in_the_conference_zone():
    conference = make_conference(time_zone="America/New_York")
    ada = make_speaker(conference, name="Ada Lovelace")
    Availability.objects.create(speaker=ada, starts_at=paris(8, 16), ends_at=paris(8, 16, 30))
    master = make_room(conference, name="Master Stage")
    talk(conference, "Opening", paris(8, 16), room=master, speakers=[ada])
    straight = talk(conference, "Next", paris(8, 16, 30), room=make_room(conference, name="Hall"))
    straight.speakers.add(ada)
    assert warnings_of(conference)[straight.pk] == [
        "Ada Lovelace is not available then (available Wed 10:00–10:30 EDT)",
        "Ada Lovelace goes straight from “Opening” in Master Stage (ends 10:30) to this in Hall",
    ]


# --- What gives and gets warnings ------------------------------------------------------------


def test_cancelled_and_unscheduled_sessions_give_and_get_no_warnings(
    conference, ada, django_user_model
):
    Availability.objects.create(speaker=ada, starts_at=paris(8, 14), ends_at=paris(8, 15))
    compilers = make_track(conference)
    room = make_room(conference)
    talk(conference, "On time", paris(8, 14), 60, track=compilers, room=room, speakers=[ada])
    cancelled = {"status": Session.Status.CANCELLED, "speakers": [ada], "track": compilers}
    # Each would warn, and be warned about, on all counts if it were not cancelled.
    talk(conference, "Before", paris(8, 13, 30), room=make_room(conference), **cancelled)
    during = talk(
        conference, "During", paris(8, 14, 45), room=make_room(conference, capacity=0), **cancelled
    )
    saved_by(during, 1, django_user_model)
    waiting = Session.objects.create(
        conference=conference, title="Waiting", slug="waiting", track=compilers
    )
    SessionSpeaker.objects.create(session=waiting, speaker=ada)
    assert warnings_of(conference) == {}


def test_only_the_sessions_given_are_compared(conference):
    compilers = make_track(conference)
    given = talk(conference, "Given", paris(8, 10), track=compilers, room=make_room(conference))
    talk(conference, "Not given", paris(8, 10), track=compilers, room=make_room(conference))
    assert schedule_warnings(conference, [given]) == {}


def test_sessions_of_another_conference_are_left_out(conference):
    other = make_conference()
    compilers = make_track(other)
    talk(other, "A", paris(8, 10), track=compilers, room=make_room(other))
    talk(other, "B", paris(8, 10), track=compilers, room=make_room(other))
    assert schedule_warnings(conference, Session.objects.all()) == {}


def test_warning_list_pairs_each_message_with_its_session_in_the_order_given(conference, ada):
    compilers = make_track(conference, name="Compilers")
    first = talk(conference, "First", paris(8, 10), track=compilers, room=make_room(conference))
    second = talk(conference, "Second", paris(8, 10), track=compilers, room=make_room(conference))
    sessions = [second, first]
    assert warning_list(schedule_warnings(conference, sessions), sessions) == [
        (second, "Runs in parallel with “First”, also in the Compilers track"),
        (first, "Runs in parallel with “Second”, also in the Compilers track"),
    ]


@pytest.mark.parametrize("n", [2, 20])
def test_schedule_warnings_query_count_does_not_grow(
    conference, django_assert_num_queries, django_user_model, n
):
    compilers = make_track(conference)
    rooms = [make_room(conference, capacity=0), make_room(conference, capacity=0)]
    for number in range(n):
        speaker = make_speaker(conference)
        Availability.objects.create(speaker=speaker, starts_at=paris(8, 8), ends_at=paris(8, 9))
        session = talk(
            conference,
            f"Talk {number}",
            paris(8, 9) + minutes(30 * (number // 2)),
            track=compilers,
            room=rooms[number % 2],
            speakers=[speaker],
        )
        saved_by(session, 1, django_user_model)
    with django_assert_num_queries(6):
        warnings = warnings_of(conference)
    # Each: outside availability, in parallel with its pair, over the room's seats.
    assert [len(messages) for messages in warnings.values()] == [3] * n

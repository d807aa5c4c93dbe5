import datetime

import pytest
from django.utils import translation

from sessions.planner import build_planner_day, moment_text, placement_text
from tests.builders import (
    make_conference,
    make_room,
    make_session,
    make_unscheduled_session,
    paris,
)

pytestmark = pytest.mark.django_db


def test_an_empty_day_is_drawn_from_eight_to_seven_in_quarter_hour_labels():
    conference = make_conference()
    day = build_planner_day(conference, datetime.date(2026, 4, 8), [], [])
    assert day.first_row_at == paris(8, 8)
    assert day.rows == 11 * 12
    assert [label.text for label in day.labels[:5]] == ["08:00", "08:15", "08:30", "08:45", "09:00"]
    assert [label.on_the_hour for label in day.labels[:5]] == [True, False, False, False, True]


def test_the_rows_drawn_reach_the_earliest_start_and_the_latest_end():
    conference = make_conference()
    room = make_room(conference)
    early = make_session(conference, room=room, starts_at=paris(8, 7, 35))
    late = make_session(conference, room=room, starts_at=paris(8, 20, 50), ends_at=paris(8, 21, 20))
    day = build_planner_day(conference, datetime.date(2026, 4, 8), [early, late], [room])
    assert day.first_row_at == paris(8, 7)
    assert day.rows == (22 - 7) * 12
    assert (early.planner_row, early.planner_span) == (8, 6)


def test_a_start_off_the_grid_is_drawn_from_the_row_it_falls_in():
    conference = make_conference()
    room = make_room(conference)
    session = make_session(
        conference, room=room, starts_at=paris(8, 10, 2), ends_at=paris(8, 10, 13)
    )
    build_planner_day(conference, datetime.date(2026, 4, 8), [session], [room])
    assert (session.planner_row, session.planner_span) == (25, 3)  # 10:00 to 10:15


def test_a_session_running_past_midnight_is_cut_at_the_end_of_the_day():
    conference = make_conference()
    room = make_room(conference)
    session = make_session(
        conference, room=room, starts_at=paris(7, 23, 30), ends_at=paris(8, 0, 30)
    )
    day = build_planner_day(conference, datetime.date(2026, 4, 7), [session], [room])
    assert day.rows == 16 * 12  # 08:00 to midnight
    assert session.planner_row + session.planner_span - 1 == day.rows


def test_on_the_night_the_clocks_go_back_rows_count_real_time_and_labels_read_the_clocks():
    conference = make_conference(
        starts_on=datetime.date(2026, 10, 25), ends_on=datetime.date(2026, 10, 25)
    )
    room = make_room(conference)
    # 02:30 CEST, then an hour later it is 02:30 CET again.
    first = make_session(
        conference, room=room, starts_at=datetime.datetime(2026, 10, 25, 0, 30, tzinfo=datetime.UTC)
    )
    second = make_session(
        conference, room=room, starts_at=datetime.datetime(2026, 10, 25, 1, 30, tzinfo=datetime.UTC)
    )
    day = build_planner_day(conference, datetime.date(2026, 10, 25), [first, second], [room])
    assert day.first_row_at == datetime.datetime(2026, 10, 25, 0, 0, tzinfo=datetime.UTC)
    assert second.planner_row - first.planner_row == 12
    labels = [label.text for label in day.labels if label.on_the_hour][:3]
    assert labels == ["02:00 CEST", "02:00 CET", "03:00 CET"]


def test_on_an_ordinary_day_the_time_labels_need_no_zone():
    conference = make_conference()
    room = make_room(conference)
    session = make_session(conference, room=room, starts_at=paris(8, 10))
    day = build_planner_day(conference, datetime.date(2026, 4, 8), [session], [room])
    assert [label.text for label in day.labels][:2] == ["08:00", "08:15"]
    assert not day.names_zones


def test_a_session_booked_over_a_cancelled_one_is_drawn_beside_it():
    conference = make_conference()
    room = make_room(conference)
    cancelled = make_session(conference, room=room, starts_at=paris(8, 11), status="cancelled")
    booked = make_session(conference, room=room, starts_at=paris(8, 11, 15))
    later = make_session(conference, room=room, starts_at=paris(8, 11, 45))
    build_planner_day(conference, datetime.date(2026, 4, 8), [cancelled, booked, later], [room])
    assert (booked.planner_shared, later.planner_shared) == (True, False)


def test_with_a_later_day_change_the_nights_sessions_are_drawn_on_the_evenings_day():
    conference = make_conference(day_change=datetime.time(4, 0))
    room = make_room(conference)
    night = make_session(conference, room=room, starts_at=paris(9, 1, 30), ends_at=paris(9, 2))
    sessions = list(conference.sessions.on_day(conference, datetime.date(2026, 4, 8)))
    day = build_planner_day(conference, datetime.date(2026, 4, 8), sessions, [room])
    assert sessions == [night]
    assert day.first_row_at == paris(8, 8)  # the usual hours still start at 08:00
    assert day.labels[-1].text == "01:45"
    drawn = sessions[0]
    assert drawn.planner_row + drawn.planner_span - 1 == day.rows  # 01:30 to 02:00, at the end


def test_where_and_when_a_session_went_are_said_in_the_organizers_language():
    conference = make_conference()
    placed = make_session(
        conference, room=make_room(conference, name="Central Room"), starts_at=paris(8, 10, 30)
    )
    waiting = make_unscheduled_session(conference)
    with translation.override("fr"):
        assert placement_text(placed) == "Central Room, mercredi 8 avril 2026 10 h 30–11 h 00 CEST"
        assert placement_text(waiting) == "la liste des sessions sans horaire"
        assert moment_text(paris(7, 23, 41), conference) == "le mardi 7 avril à 23 h 41 CEST"

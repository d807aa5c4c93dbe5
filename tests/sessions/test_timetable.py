import zoneinfo

import pytest
from django.utils import timezone

from sessions.models import Session
from sessions.timetable import build_grid
from tests.builders import make_conference, make_room, make_session, paris

pytestmark = pytest.mark.django_db

PARIS = zoneinfo.ZoneInfo("Europe/Paris")


@pytest.fixture
def room():
    return make_room(make_conference(slug="pycon"))


def grid_of(*sessions, zone=PARIS):
    with timezone.override(zone):
        return build_grid(list(sessions), [sessions[0].room])


def clock(instant, zone=PARIS):
    return instant.astimezone(zone).strftime("%H:%M")


def test_grid_labels_every_half_hour_where_no_session_starts(room):
    grid = grid_of(
        make_session(room=room, starts_at=paris(8, 10, 35), ends_at=paris(8, 11, 20)),
        make_session(room=room, starts_at=paris(8, 11, 30), ends_at=paris(8, 12, 5)),
    )
    # Row 1 is 10:30; 11:30 is a start time, labelled by its heading instead.
    assert [(clock(tick.at), tick.row) for tick in grid.ticks] == [
        ("10:30", 1),
        ("11:00", 7),
        ("12:00", 19),
    ]
    assert [(clock(time.starts_at), time.row) for time in grid.times] == [
        ("10:35", 2),
        ("11:30", 13),
    ]


def test_grid_folds_an_hour_without_sessions_into_one_marked_band(room):
    grid = grid_of(
        make_session(room=room, starts_at=paris(8, 11, 35), ends_at=paris(8, 12)),
        make_session(room=room, starts_at=paris(8, 13, 30), ends_at=paris(8, 13, 40)),
    )
    [gap] = grid.gaps
    assert (clock(gap.starts_at), clock(gap.ends_at), gap.row, gap.span) == ("12:00", "13:30", 7, 3)
    # 13:30 comes right after the band, not 18 rows of lunch later; still on a quarter-hour line.
    assert [time.row for time in grid.times] == [2, 10]
    assert (grid.times[1].row - 1) % 3 == 0
    assert [clock(tick.at) for tick in grid.ticks] == ["11:30"]
    assert grid.rows == 11


def test_grid_keeps_gaps_shorter_than_an_hour(room):
    grid = grid_of(
        make_session(room=room, starts_at=paris(8, 10), ends_at=paris(8, 10, 30)),
        make_session(room=room, starts_at=paris(8, 11, 25), ends_at=paris(8, 11, 45)),
    )
    assert grid.gaps == []
    assert [time.row for time in grid.times] == [1, 18]


def test_grid_axis_lists_ticks_gaps_and_start_times_in_time_order(room):
    grid = grid_of(
        make_session(room=room, starts_at=paris(8, 9, 45), ends_at=paris(8, 10, 15)),
        make_session(room=room, starts_at=paris(8, 14), ends_at=paris(8, 14, 45)),
    )
    assert [(item.kind, item.row) for item in grid.axis] == [
        ("time", 1),
        ("tick", 4),
        ("gap", 7),
        ("time", 10),
        ("tick", 16),
    ]


def test_grid_ticks_fall_on_the_half_hours_of_the_display_zone(room):
    kathmandu = zoneinfo.ZoneInfo("Asia/Kathmandu")  # UTC+05:45
    grid = grid_of(
        make_session(room=room, starts_at=paris(8, 10), ends_at=paris(8, 11)), zone=kathmandu
    )
    assert [clock(tick.at, kathmandu) for tick in grid.ticks] == ["14:00", "14:30"]


def test_grid_columns_are_the_rooms_used_that_day_in_room_order():
    conference = make_conference(slug="summit")
    hall = make_room(conference, name="Hall", position=0)
    side = make_room(conference, name="Side", position=1)
    workshop = make_room(conference, name="Workshop", position=2)  # nothing on this day
    sessions = [
        make_session(room=side, starts_at=paris(8, 10), ends_at=paris(8, 10, 30)),
        make_session(room=hall, starts_at=paris(8, 10, 30), ends_at=paris(8, 11)),
    ]
    with timezone.override(PARIS):
        grid = build_grid(sessions, [hall, side, workshop])
    assert grid.columns == [hall, side]
    assert grid.headings == [(2, hall), (3, side)]
    # The header and the body share this one column list: the time column and two rooms.
    assert grid.rooms_class == "rooms2"
    assert [(block.session, block.column) for time in grid.times for block in time.blocks] == [
        (sessions[0], 3),
        (sessions[1], 2),
    ]


def test_grid_gives_the_whole_venue_a_first_column_only_on_a_day_with_venue_wide_sessions():
    conference = make_conference(slug="summit")
    hall = make_room(conference, name="Hall")
    workshop = make_room(conference, name="Workshop")
    talk = make_session(room=hall, starts_at=paris(8, 11), ends_at=paris(8, 11, 30))
    lunch = make_session(
        conference, kind=Session.Kind.BREAK, starts_at=paris(8, 12), ends_at=paris(8, 13)
    )
    with timezone.override(PARIS):
        with_lunch = build_grid([talk, lunch], [hall, workshop])
        without = build_grid([talk], [hall, workshop])
    assert (with_lunch.columns, with_lunch.rooms_class) == ([None, hall], "rooms2")
    assert (without.columns, without.rooms_class) == ([hall], "rooms1")

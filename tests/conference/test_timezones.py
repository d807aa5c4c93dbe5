import datetime
import zoneinfo

import pytest

from conference.i18n.timezones import read_wall_clock, time_range

UTC = datetime.UTC


def reading(zone: str, *local: int) -> tuple[list[datetime.datetime], str]:
    wall_clock = datetime.datetime(*local)  # noqa: DTZ001 - a time as clocks show it, no zone yet
    clock = read_wall_clock(wall_clock, zoneinfo.ZoneInfo(zone))
    return list(clock.instants), str(clock.change or "")


def at(*moment: int) -> datetime.datetime:
    return datetime.datetime(*moment, tzinfo=UTC)


def test_an_ordinary_time_is_one_instant():
    assert reading("Europe/Paris", 2026, 10, 25, 3, 30) == ([at(2026, 10, 25, 2, 30)], "")


@pytest.mark.parametrize(
    ("zone", "local", "instants", "change"),
    [
        (
            "Europe/Paris",
            (2026, 10, 25, 2, 30),
            [at(2026, 10, 25, 0, 30), at(2026, 10, 25, 1, 30)],
            "the clocks go back from 03:00 to 02:00",
        ),
        (
            "America/New_York",
            (2026, 11, 1, 1, 0),
            [at(2026, 11, 1, 5), at(2026, 11, 1, 6)],
            "the clocks go back from 02:00 to 01:00",
        ),
        # Lord Howe Island moves its clocks by half an hour; its autumn is in April.
        (
            "Australia/Lord_Howe",
            (2026, 4, 5, 1, 45),
            [at(2026, 4, 4, 14, 45), at(2026, 4, 4, 15, 15)],
            "the clocks go back from 02:00 to 01:30",
        ),
    ],
)
def test_a_time_in_the_hour_the_clocks_go_back_is_two_instants(zone, local, instants, change):
    assert reading(zone, *local) == (instants, change)


@pytest.mark.parametrize(
    ("zone", "local", "change"),
    [
        ("Europe/Paris", (2026, 3, 29, 2, 30), "the clocks jump from 02:00 to 03:00"),
        ("Australia/Lord_Howe", (2026, 10, 4, 2, 15), "the clocks jump from 02:00 to 02:30"),
        (
            "Pacific/Apia",
            (2011, 12, 30, 12, 0),
            "the clocks jump from 00:00 on Friday 30 December to 00:00 on Saturday 31 December",
        ),
    ],
)
def test_a_time_the_clocks_skip_is_no_instant_and_names_the_jump(zone, local, change):
    assert reading(zone, *local) == ([], change)


PARIS = zoneinfo.ZoneInfo("Europe/Paris")


def test_a_time_range_in_one_zone_offers_its_end_without_the_zone():
    times = time_range(at(2026, 4, 8, 8, 35), at(2026, 4, 8, 8, 45), PARIS)
    assert (times.end_clock, times.shared_zone) == ("10:45", "CEST")


def test_a_time_range_across_a_clock_change_keeps_both_zones():
    times = time_range(at(2026, 10, 25, 0, 30), at(2026, 10, 25, 1, 30), PARIS)
    assert (str(times), times.shared_zone) == ("02:30 CEST–02:30 CET", "")

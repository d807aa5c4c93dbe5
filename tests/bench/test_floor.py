"""The floor (bench/floor.py) says what a page must cost only if its views read what the pages
read: the cached schedule makes exactly the floor's queries, no fewer."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from bench.floor import FLOOR, SCHEDULE, rows, verdict
from bench.generator import generate_conference
from bench.in_process import attendee_cookie

pytestmark = [pytest.mark.django_db, pytest.mark.urls("bench.floor_urls")]


@pytest.fixture
def attendee_client(client):
    conference = generate_conference(30, slug="bench")
    client.cookies.load(attendee_cookie(conference))
    return client


def queries_of(client, path) -> int:
    with CaptureQueriesContext(connection) as captured:
        response = client.get(path)
    assert response.status_code == 200
    return len(captured.captured_queries)


def test_the_anonymous_floor_reads_what_the_cached_schedule_reads(client):
    generate_conference(30, slug="bench")
    client.get(SCHEDULE)  # cached from here on
    floor = queries_of(client, f"{FLOOR}/version/")
    assert floor == 1
    assert queries_of(client, SCHEDULE) == floor
    assert queries_of(client, f"{FLOOR}/no-read/") == 0


def test_the_logged_in_floor_reads_what_the_attendees_cached_schedule_reads(attendee_client):
    attendee_client.get(SCHEDULE)
    floor = queries_of(attendee_client, f"{FLOOR}/personal/")
    assert floor == 4  # the session, the user, the conference, the saved sessions
    assert queries_of(attendee_client, SCHEDULE) == floor


def test_a_floor_over_its_target_says_so():
    anonymous_floor = next(row for row in rows() if row.get("target", {}).get("median_ms") == 1)
    under = {**anonymous_floor, "in_process": {"median_ms": 0.7}, "served": {"ratio": 0.35}}
    over = {**anonymous_floor, "in_process": {"median_ms": 1.4}, "served": {"ratio": 0.22}}
    assert verdict(under) == "time: under the limit; throughput: within it"
    assert verdict(over) == "time: **over** the limit; throughput: **below** it"

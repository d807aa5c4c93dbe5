"""The bench's own parts that decide what its figures mean (bench/run.py)."""

import pytest
from django.test import Client

from bench.generator import generate_conference
from bench.run import attendee_cookie

pytestmark = pytest.mark.django_db


def test_the_logged_in_rows_cookie_is_an_attendee_with_saved_talks():
    """The throughput's logged-in rows must really fill personal parts: a session cookie of an
    attendee whose saved talks show as Saved, and the CSRF cookie a browser sends back."""
    conference = generate_conference(30, slug="bench")
    cookie = attendee_cookie(conference)
    names = {pair.split("=", 1)[0] for pair in cookie.split("; ")}
    assert names == {"sessionid", "csrftoken"}
    html = Client().get("/bench/schedule/", headers={"Cookie": cookie}).content.decode()
    assert '<span class="muted-on-dark">bench-attendee</span>' in html
    assert html.count('aria-pressed="true"') == 10

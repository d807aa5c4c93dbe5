"""Anonymous visitors' repeated requests answered before the middleware, and each worker's copies
of cached pages (conference.page_cache)."""

import gzip
import re

import pytest
from django.db import connection
from django.test import Client
from django.urls import reverse

from conference.page_cache import WorkerCopies, early_requests, worker_copies
from sessions.models import SavedSession
from tests.builders import make_conference, make_session, paris
from tests.conference.test_shared_pages import redis_cache  # noqa: F401 (a fixture)

pytestmark = pytest.mark.django_db

SCHEDULE = "/pycon/schedule/"


@pytest.fixture
def conference():
    conference = make_conference(slug="pycon")
    make_session(conference, title="Opening talk", starts_at=paris(8, 10))
    return conference


def answered_early(response) -> bool:
    """Whether the request skipped the middleware that gives every request its visitor."""
    return not hasattr(response.wsgi_request, "user")


def test_an_anonymous_repeat_is_answered_early_with_the_same_page_and_headers(
    client, conference, django_assert_num_queries
):
    first = client.get(SCHEDULE)
    with django_assert_num_queries(1):  # whether the conference changed since
        second = client.get(SCHEDULE)
    assert answered_early(second)
    assert not answered_early(first)
    assert second.status_code == 200
    assert second.content == first.content
    assert dict(second.headers) == dict(first.headers)
    for name in ("Content-Security-Policy", "ETag", "Last-Modified", "X-Frame-Options", "Vary"):
        assert second.headers[name] == first.headers[name]
    assert second.headers["Referrer-Policy"] == "same-origin"  # SecurityMiddleware still runs


def test_an_export_is_answered_early_too(client, conference):
    # The first request streams the export as it is built; the next ones are sent whole.
    streamed = b"".join(client.get("/pycon/schedule.ics").streaming_content)
    whole = client.get("/pycon/schedule.ics")
    early = client.get("/pycon/schedule.ics")
    assert not answered_early(whole)
    assert answered_early(early)
    assert early.content == whole.content == streamed
    assert dict(early.headers) == dict(whole.headers)


def test_a_visitor_holding_the_page_gets_a_304(client, conference):
    etag = client.get(SCHEDULE).headers["ETag"]
    client.get(SCHEDULE)
    response = client.get(SCHEDULE, headers={"If-None-Match": etag})
    assert response.status_code == 304
    assert response.content == b""
    assert response.headers["X-Frame-Options"] == "DENY"


def test_a_logged_in_visitor_gets_their_own_page_after_anonymous_ones(
    client, conference, django_user_model
):
    ada = django_user_model.objects.create_user("ada")
    SavedSession.objects.add(ada, conference.sessions.get())
    client.get(SCHEDULE)
    client.get(SCHEDULE)
    client.force_login(ada)
    response = client.get(SCHEDULE)
    html = response.content.decode()
    assert not answered_early(response)
    assert '<span class="muted-on-dark">ada</span>' in html
    assert 'aria-pressed="true"' in html
    assert "ETag" not in response.headers


def test_a_session_cookie_takes_the_full_way_and_still_gets_the_anonymous_page(client, conference):
    anonymous = client.get(SCHEDULE)
    client.cookies["sessionid"] = "expired-or-made-up"
    response = client.get(SCHEDULE)
    assert not answered_early(response)
    assert response.content == anonymous.content


def test_an_edit_shows_at_once_on_the_next_anonymous_request(client, conference):
    client.get(SCHEDULE)
    assert answered_early(client.get(SCHEDULE))
    session = conference.sessions.get()
    session.title = "Renamed talk"
    session.save()
    response = client.get(SCHEDULE)
    assert not answered_early(response)
    assert "Renamed talk" in response.content.decode()
    assert "Opening talk" not in response.content.decode()
    repeat = client.get(SCHEDULE)
    assert answered_early(repeat)
    assert repeat.content == response.content


def test_an_unpublished_conference_is_not_served_early(client, conference):
    client.get(SCHEDULE)
    conference.is_published = False
    conference.save()
    assert client.get(SCHEDULE).status_code == 404


def test_a_host_we_do_not_serve_is_refused_on_the_early_path_too(client, conference):
    client.get(SCHEDULE)
    assert client.get(SCHEDULE, headers={"Host": "evil.example"}).status_code == 400


def test_a_zone_chosen_in_the_address_is_remembered_every_time(client, conference):
    for _ in range(2):
        response = client.get(SCHEDULE, {"tz": "America/New_York"})
        assert not answered_early(response)
        assert response.cookies["tz"].value == "America/New_York"
    # The cookie alone then names the zone; that page is answered early, in that zone.
    response = client.get(SCHEDULE)
    assert ">04:00 EDT</time>" in response.content.decode()
    repeat = client.get(SCHEDULE)
    assert answered_early(repeat)
    assert ">04:00 EDT</time>" in repeat.content.decode()
    client.cookies.pop("tz")
    assert ">10:00 CEST</time>" in client.get(SCHEDULE).content.decode()


def test_htmx_and_head_requests_take_the_full_way(client, conference):
    client.get(SCHEDULE)
    assert not answered_early(client.get(SCHEDULE, headers={"HX-Request": "true"}))
    assert not answered_early(client.head(SCHEDULE))


def test_a_message_for_one_visitor_never_reaches_another(client, conference, django_user_model):
    session = conference.sessions.get()
    ada = django_user_model.objects.create_user("ada")
    client.force_login(ada)
    save = reverse(
        "sessions:session-save", kwargs={"conference_slug": "pycon", "slug": session.slug}
    )
    client.post(save, {"action": "save", "next": SCHEDULE})  # no JavaScript: a message waits
    anonymous = client.__class__()
    for _ in range(2):  # rendered, then answered early
        assert "Saved to your schedule." not in anonymous.get(SCHEDULE).content.decode()
    assert "Saved to your schedule." in client.get(SCHEDULE).content.decode()  # it waited
    assert "Saved to your schedule." not in client.get(SCHEDULE).content.decode()  # shown once
    for _ in range(2):
        assert "Saved to your schedule." not in anonymous.get(SCHEDULE).content.decode()


@pytest.mark.usefixtures("redis_cache")
def test_a_new_worker_reads_the_page_from_redis(client, conference, django_assert_num_queries):
    first = client.get(SCHEDULE)
    worker_copies.clear()  # another worker: the shared cache has the page, its memory not
    early_requests.clear()
    with django_assert_num_queries(1):
        second = client.get(SCHEDULE)
    assert second.content == first.content


def test_worker_copies_keep_the_most_recently_used_within_their_bytes():
    copies = WorkerCopies(max_bytes=100)
    copies.set("a", (b"a" * 40, {}), 40)
    copies.set("b", (b"b" * 40, {}), 40)
    copies.get("a")
    copies.set("c", (b"c" * 40, {}), 40)
    assert copies.get("b") is None
    assert copies.get("a") is not None
    assert copies.get("c") is not None
    copies.set("huge", (b"h" * 200, {}), 200)  # larger than all: not kept, nothing evicted
    assert copies.get("huge") is None
    assert copies.size == 80


def test_a_browser_accepting_gzip_gets_the_same_page_compressed(client, conference):
    plain = client.get(SCHEDULE)
    for _ in range(2):  # rendered, then answered early
        response = client.get(SCHEDULE, headers={"Accept-Encoding": "gzip, deflate, br"})
        assert response.headers["Content-Encoding"] == "gzip"
        assert gzip.decompress(response.content) == plain.content
        assert response.headers["ETag"] == f"W/{plain.headers['ETag']}"
        assert response.headers["Content-Length"] == str(len(response.content))
        assert "Accept-Encoding" in response.headers["Vary"]
        assert (
            response.headers["Content-Security-Policy"] == plain.headers["Content-Security-Policy"]
        )
    assert answered_early(response)
    assert "Content-Encoding" not in client.get(SCHEDULE).headers  # and without, plain again
    etag = response.headers["ETag"]
    assert client.get(SCHEDULE, headers={"If-None-Match": etag}).status_code == 304


def test_a_logged_in_page_is_never_compressed(client, conference, django_user_model):
    """It holds the visitor's CSRF token: compressed beside reflected text it would leak (BREACH)."""
    client.force_login(django_user_model.objects.create_user("ada"))
    response = client.get(SCHEDULE, headers={"Accept-Encoding": "gzip"})
    assert "Content-Encoding" not in response.headers
    assert "csrfmiddlewaretoken" in response.content.decode()


CSRF_FIELD = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')


def test_the_save_form_of_a_shared_page_carries_each_visitors_own_csrf_token(
    conference, django_user_model
):
    """The buttons are shared by every visitor; the Save form they submit holds the visitor's
    CSRF field, which works for them and for nobody else."""
    session = conference.sessions.get()
    save = reverse(
        "sessions:session-save", kwargs={"conference_slug": "pycon", "slug": session.slug}
    )
    visitors, tokens = {}, {}
    for name in ("ada", "bob"):
        visitors[name] = Client(enforce_csrf_checks=True)
        visitors[name].force_login(django_user_model.objects.create_user(name))
        html = visitors[name].get(SCHEDULE).content.decode()
        save_form = re.search(r'<form id="save-form".*?</form>', html)[0]
        tokens[name] = CSRF_FIELD.search(save_form)[1]
    for name, other in (("ada", "bob"), ("bob", "ada")):
        refused = visitors[name].post(
            save, {"action": "save", "csrfmiddlewaretoken": tokens[other]}
        )
        assert refused.status_code == 403
        response = visitors[name].post(
            save, {"action": "save", "next": SCHEDULE, "csrfmiddlewaretoken": tokens[name]}
        )
        assert response.status_code == 302
        assert SavedSession.objects.filter(user__username=name, session=session).exists()


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(
    connection.vendor != "postgresql", reason="a dropped server connection (PostgreSQL)"
)
def test_a_connection_the_database_dropped_is_replaced_not_a_failure(conference, django_user_model):
    """The first query of a request is its connection's health check (conference.compiled):
    when the server has dropped the connection, the query runs again on a new one."""

    def server_dropped_the_connection():
        connection.connection.close()  # as a restarted server leaves it
        # As each request starts (close_old_connections, which the test client leaves out).
        connection.health_check_done = False

    anonymous = Client()
    first = anonymous.get(SCHEDULE)
    server_dropped_the_connection()
    second = anonymous.get(SCHEDULE)
    assert second.status_code == 200
    assert answered_early(second)
    assert second.content == first.content

    attendee = Client()
    attendee.force_login(django_user_model.objects.create_user("ada"))
    assert b"Log out" in attendee.get(SCHEDULE).content
    server_dropped_the_connection()
    again = attendee.get(SCHEDULE)
    assert again.status_code == 200
    assert b"Log out" in again.content  # the session was found: still logged in


@pytest.mark.django_db(transaction=True)  # as served: not inside a transaction
def test_a_logged_in_page_checks_its_connection_with_its_first_query(
    conference, django_user_model, monkeypatch
):
    """No "SELECT 1" of Django's before the session's lookup: that lookup is the check
    (conference.compiled.as_health_check), a round trip less on PostgreSQL."""
    attendee = Client()
    attendee.force_login(django_user_model.objects.create_user("ada"))
    attendee.get(SCHEDULE)
    checks = []
    monkeypatch.setattr(connection, "is_usable", lambda: checks.append(True) or True)
    connection.health_check_done = False  # as each request starts (close_old_connections)

    assert b"Log out" in attendee.get(SCHEDULE).content
    assert checks == []

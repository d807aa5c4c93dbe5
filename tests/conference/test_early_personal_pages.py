"""Logged-in visitors' repeated requests answered before the middleware and the view, when
nothing their page was made of has changed (conference.page_cache.EarlyPersonalPageMiddleware)."""

import datetime
import zlib
from types import SimpleNamespace
from unittest import mock

import pytest
from django.contrib.sessions.models import Session as StoredSession
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from conference.models import Conference
from conference.page_cache import personal_requests
from sessions.models import SavedSession
from sessions.personal import SaveTogglesMixin
from tests.builders import make_conference, make_session
from tests.conference.test_compiled import save_states

pytestmark = pytest.mark.django_db

SCHEDULE = "/pycon/schedule/"


def answered_early(response) -> bool:
    """Whether the request skipped the middleware that gives every request its visitor."""
    return not hasattr(response.wsgi_request, "user")


@pytest.fixture
def attendee(client, django_user_model):
    conference = make_conference(slug="pycon")
    talks = [make_session(conference, title=f"Talk {number}") for number in range(3)]
    ada = django_user_model.objects.create_user("ada-lovelace", password="a long passphrase 42")
    SavedSession.objects.add(ada, talks[0])
    client.force_login(ada)
    # The first page gives the visitor their CSRF cookie; the second is remembered.
    client.get(SCHEDULE)
    client.get(SCHEDULE)
    return SimpleNamespace(client=client, user=ada, conference=conference, talks=talks)


def test_a_logged_in_repeat_is_answered_early_with_the_same_page(attendee):
    full_way = attendee.client.get(SCHEDULE)  # remembered by the request before: early already
    with CaptureQueriesContext(connection) as queries:
        early = attendee.client.get(SCHEDULE)
    assert answered_early(early)
    assert early.status_code == 200
    assert early.content == full_way.content
    assert b"Log out" in early.content
    assert b"ada-lovelace" in early.content
    assert save_states(early)[attendee.talks[0].pk] == "remove"
    assert save_states(early)[attendee.talks[1].pk] == "save"
    # The session, the account, the conference and the saved sessions, read again: on
    # PostgreSQL in one round trip.
    assert len(queries) == (1 if connection.vendor == "postgresql" else 4)
    for name in ("Content-Security-Policy", "X-Frame-Options", "Vary", "Content-Type"):
        assert early.headers[name] == full_way.headers[name]
    assert early.headers["Referrer-Policy"] == "same-origin"  # SecurityMiddleware still runs
    assert early.headers["Content-Length"] == str(len(early.content))
    # The CSRF cookie is renewed, as Django renews it whenever a page uses the token.
    assert early.cookies["csrftoken"].value == attendee.client.cookies["csrftoken"].value
    assert early.cookies["csrftoken"]["max-age"] == full_way.cookies["csrftoken"]["max-age"]


def test_a_compressed_logged_in_page_is_answered_early_too(attendee):
    deflate = {"Accept-Encoding": "gzip, deflate"}
    full_way = attendee.client.get(SCHEDULE, headers=deflate)  # another request: its coding
    early = attendee.client.get(SCHEDULE, headers=deflate)
    assert not answered_early(full_way)
    assert answered_early(early)
    assert early.headers["Content-Encoding"] == "deflate"
    assert zlib.decompress(early.content) == zlib.decompress(full_way.content)
    assert b"Log out" in zlib.decompress(early.content)


def change_saves(attendee):
    SavedSession.objects.add(attendee.user, attendee.talks[1])


def log_out_elsewhere(attendee):
    StoredSession.objects.all().delete()  # a password reset, an admin ending sessions


def deactivate(attendee):
    type(attendee.user).objects.filter(pk=attendee.user.pk).update(is_active=False)


def change_password(attendee):
    attendee.user.set_password("another long passphrase")
    attendee.user.save()


def edit_conference(attendee):
    attendee.talks[2].title = "Talk renamed"
    attendee.talks[2].save()


@pytest.mark.parametrize(
    ("change", "shows"),
    [
        (
            change_saves,
            lambda response, attendee: save_states(response)[attendee.talks[1].pk] == "remove",
        ),
        (log_out_elsewhere, lambda response, attendee: b"Log in" in response.content),
        (deactivate, lambda response, attendee: b"Log in" in response.content),
        (change_password, lambda response, attendee: b"Log in" in response.content),
        (edit_conference, lambda response, attendee: b"Talk renamed" in response.content),
    ],
    ids=["saved elsewhere", "logged out elsewhere", "deactivated", "password changed", "edited"],
)
def test_what_changed_since_shows_at_once(attendee, change, shows):
    assert answered_early(attendee.client.get(SCHEDULE))
    change(attendee)
    response = attendee.client.get(SCHEDULE)
    assert not answered_early(response)
    assert shows(response, attendee)


def test_an_expired_session_is_not_answered_early(attendee):
    expire_date = StoredSession.objects.get().expire_date
    later = expire_date + datetime.timedelta(seconds=1)
    with mock.patch.object(timezone, "now", return_value=later):
        response = attendee.client.get(SCHEDULE)
    assert not answered_early(response)
    assert b"Log in" in response.content


def test_a_message_shows_once_then_the_page_is_answered_early_again(attendee):
    talk = attendee.talks[1]
    attendee.client.post(f"/pycon/sessions/{talk.slug}/save/", {"action": "save", "next": SCHEDULE})
    with_message = attendee.client.get(SCHEDULE)
    assert not answered_early(with_message)
    assert b"Saved to your schedule." in with_message.content
    attendee.client.get(SCHEDULE)  # remembered again, now with the new save
    again = attendee.client.get(SCHEDULE)
    assert answered_early(again)
    assert b"Saved to your schedule." not in again.content
    assert save_states(again)[talk.pk] == "remove"


def test_another_visitor_never_gets_this_page(attendee, django_user_model):
    grace = django_user_model.objects.create_user("grace-hopper")
    other = Client()
    other.force_login(grace)
    pages = [other.get(SCHEDULE) for _ in range(3)]
    assert answered_early(pages[-1])
    assert all(
        b"grace-hopper" in page.content and b"ada-lovelace" not in page.content for page in pages
    )
    assert save_states(pages[-1])[attendee.talks[0].pk] == "save"
    assert b"ada-lovelace" in attendee.client.get(SCHEDULE).content


def test_a_page_that_read_anything_else_is_not_remembered(attendee):
    """Only what was read by compiled lookups is read again: a page made of more than that
    takes the full way each time."""
    personal_requests.clear()
    original = SaveTogglesMixin.personal_context

    def reads_more(view):
        Conference.objects.count()
        return original(view)

    with mock.patch.object(SaveTogglesMixin, "personal_context", reads_more):
        responses = [attendee.client.get(SCHEDULE) for _ in range(3)]
    assert not any(answered_early(response) for response in responses)


def test_a_host_we_do_not_serve_gets_a_400(attendee):
    response = attendee.client.get(SCHEDULE, headers={"Host": "attacker.example"})
    assert response.status_code == 400


def test_the_zone_cookie_picks_another_page(attendee):
    attendee.client.cookies["tz"] = "America/New_York"
    response = attendee.client.get(SCHEDULE)
    assert not answered_early(response)
    assert "America/New_York" in response.content.decode()

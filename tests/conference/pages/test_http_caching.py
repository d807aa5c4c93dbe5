"""What the caching headers let an HTTP cache in front do (conference/pages/, deploy/nginx.conf):
keep anonymous pages and exports for a few seconds, never keep an answer meant for one visitor.
"""

import importlib
from types import SimpleNamespace

import pytest
from django.apps import apps
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
from django.contrib.sessions.backends.db import SessionStore
from django.db import connection
from django.test import Client

from tests.builders import make_conference, make_session, paris

pytestmark = pytest.mark.django_db

PUBLIC = "public, max-age=0, s-maxage=10, stale-while-revalidate=30"


@pytest.fixture
def conference():
    """PyCon with one talk, so that its pages have something to change."""
    conference = make_conference(slug="pycon")
    make_session(conference, title="Talk", starts_at=paris(8, 10))
    return conference


def vary(response) -> set[str]:
    return {name.strip().lower() for name in response.get("Vary", "").split(",")}


@pytest.mark.parametrize("path", ["/pycon/schedule/", "/pycon/schedule.ics", "/pycon/tracks.css"])
def test_an_anonymous_page_or_export_may_be_kept_by_a_cache_in_front(client, conference, path):
    response = client.get(path)
    assert response["Cache-Control"] == PUBLIC
    assert response.has_header("ETag")
    assert response.has_header("Last-Modified")
    assert {"accept-encoding", "cookie"} <= vary(response)


def test_the_time_a_cache_may_keep_a_page_comes_from_the_settings(client, conference, settings):
    settings.PAGE_SHARED_MAX_AGE, settings.PAGE_STALE_WHILE_REVALIDATE = 3, 7
    response = client.get("/pycon/schedule/")
    assert response["Cache-Control"] == "public, max-age=0, s-maxage=3, stale-while-revalidate=7"


def test_a_304_carries_the_version_and_the_same_caching_headers(client, conference):
    first = client.get("/pycon/schedule/")
    again = client.get("/pycon/schedule/", headers={"If-None-Match": first["ETag"]})
    assert again.status_code == 304
    assert again["ETag"] == first["ETag"]
    assert again["Cache-Control"] == PUBLIC


@pytest.mark.parametrize("path", ["/pycon/schedule/", "/pycon/schedule.ics", "/pycon/my-schedule/"])
def test_every_answer_to_a_logged_in_visitor_is_private(
    client, django_user_model, conference, path
):
    client.force_login(django_user_model.objects.create_user("ada"))
    response = client.get(path)
    assert response.status_code == 200
    assert response["Cache-Control"].split(", ")[0] == "private"
    assert "public" not in response["Cache-Control"]
    assert "s-maxage" not in response["Cache-Control"]


def test_staff_pages_and_the_admin_are_private(admin_client, conference):
    for path in ("/pycon/schedule/", "/admin/"):
        response = admin_client.get(path)
        assert response.status_code == 200
        assert "private" in response["Cache-Control"]
        assert "public" not in response["Cache-Control"]


def test_a_session_cookie_makes_an_answer_private_even_when_no_one_is_logged_in(conference):
    client = Client()
    client.cookies["sessionid"] = "expired-or-forged"
    response = client.get("/pycon/schedule/")
    assert response.status_code == 200
    assert response["Cache-Control"].startswith("private")
    assert "s-maxage" not in response["Cache-Control"]


def test_the_answer_that_logs_a_visitor_in_is_private(client, django_user_model):
    django_user_model.objects.create_user("ada", password="correct horse")
    response = client.post("/accounts/login/", {"username": "ada", "password": "correct horse"})
    assert response.status_code == 302
    assert "sessionid" in response.cookies
    assert response["Cache-Control"].startswith("private")


def test_sessions_of_the_former_account_backend_stay_logged_in(client, django_user_model):
    """Migration conference 0009 moves them to Django's ModelBackend, 0020 from there to ours."""
    user = django_user_model.objects.create_user("ada")
    store = SessionStore()
    store[SESSION_KEY] = str(user.pk)
    store[BACKEND_SESSION_KEY] = "conference.session_store.AccountBackend"
    store[HASH_SESSION_KEY] = user.get_session_auth_hash()
    store.create()
    migration = importlib.import_module(
        "conference.migrations.0009_plain_sessions_and_no_change_notices"
    )
    move = migration.moving_sessions(migration.ACCOUNT_BACKEND, migration.MODEL_BACKEND)
    move(apps, SimpleNamespace(connection=connection))
    teams = importlib.import_module("conference.migrations.0020_sessions_to_account_backend")
    move = teams.moving_sessions(teams.MODEL_BACKEND, teams.ACCOUNT_BACKEND)
    move(apps, SimpleNamespace(connection=connection))
    client.cookies["sessionid"] = store.session_key
    assert client.get("/accounts/").wsgi_request.user == user

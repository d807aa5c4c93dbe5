"""A write that found the database locked past its timeout (SQLite behind a long write) is a
503 with Retry-After, never a 500: nothing was saved, and the same request works a moment later."""

import pytest
from django.contrib.sessions.backends.db import SessionStore
from django.db import OperationalError
from django.urls import reverse

pytestmark = pytest.mark.django_db

LOGIN = {"username": "ada", "password": "correct horse battery"}


def locked(*args, **kwargs):
    raise OperationalError("database is locked")


@pytest.fixture
def client(client):
    client.raise_request_exception = False
    return client


def test_a_login_finding_the_database_locked_is_asked_to_retry(client, attendee, monkeypatch):
    monkeypatch.setattr(SessionStore, "create", locked)  # the view's login() saves the session

    response = client.post(reverse("login"), LOGIN)

    assert (response.status_code, response["Retry-After"]) == (503, "5")
    assert "try again in a few seconds" in response.content.decode()


def test_a_session_save_after_the_view_finding_it_locked_is_asked_to_retry(
    client, attendee, monkeypatch
):
    """SessionMiddleware saves the logged-in session again after the view: no process_exception
    sees an error there."""
    save = SessionStore.save

    def save_locked_after_the_view(self, must_create=False):
        if not must_create:  # login() creates it in the view; the middleware saves it after
            locked()
        return save(self, must_create)

    monkeypatch.setattr(SessionStore, "save", save_locked_after_the_view)

    response = client.post(reverse("login"), LOGIN)

    assert (response.status_code, response["Retry-After"]) == (503, "5")


def test_the_api_is_asked_to_retry_in_json(client, monkeypatch):
    monkeypatch.setattr("conference.api.views.ObtainTokenView.post", locked)

    response = client.post("/api/v1/auth/token/", LOGIN, content_type="application/json")

    assert (response.status_code, response["Retry-After"]) == (503, "5")
    assert response.json() == {
        "detail": "The site is busy writing and saved nothing. Please try again in a few seconds."
    }


def test_other_database_errors_stay_500(client, attendee, monkeypatch):
    def broken(*args, **kwargs):
        raise OperationalError("disk I/O error")

    monkeypatch.setattr(SessionStore, "create", broken)

    response = client.post(reverse("login"), LOGIN)

    assert (response.status_code, response.has_header("Retry-After")) == (500, False)

"""Fixtures for the API tests: one APIClient per kind of caller, and throttles counted per test.

The callers are tests/conftest.py's ``attendee`` and ``organizer``; the clients here, named as
its test clients are, authenticate them to the API instead of logging them in.

Test modules import them all (``from tests.api_fixtures import *``) so that the autouse
``fresh_throttle_counts`` applies to their tests too.
"""

import datetime
import json
import uuid

import pytest
from django.core.cache.backends.locmem import LocMemCache
from django.urls import reverse
from rest_framework.test import APIClient

from conference.accounts.limits import SharedThrottleMixin
from tests.builders import make_team

__all__ = [
    "anonymous",
    "api_schema",
    "api_schema_text",
    "attendee_client",
    "client_in_team",
    "fresh_throttle_counts",
    "organizer_client",
]


@pytest.fixture(autouse=True)
def fresh_throttle_counts(monkeypatch):
    """Each test starts with no requests counted, whatever cache the settings name (Redis in CI)."""
    monkeypatch.setattr(SharedThrottleMixin, "cache", LocMemCache(f"throttle-{uuid.uuid4()}", {}))


@pytest.fixture
def anonymous():
    return APIClient()


@pytest.fixture(scope="session")
def api_schema_text(django_db_setup, django_db_blocker):
    """The OpenAPI schema as the API serves it, asked once per test process: made and read as
    YAML it takes a second or two, and a dozen tests read it."""
    with django_db_blocker.unblock():
        response = APIClient().get(reverse("api:schema"), {"format": "json"})
    assert response.status_code == 200
    return response.content


@pytest.fixture
def api_schema(api_schema_text):
    """The schema, a copy of its own for each test."""
    return json.loads(api_schema_text)


@pytest.fixture
def attendee_client(attendee):
    client = APIClient()
    client.force_authenticate(attendee)
    return client


@pytest.fixture
def organizer_client(organizer):
    client = APIClient()
    client.force_authenticate(organizer)
    return client


def client_in_team(user, conference, **roles) -> APIClient:
    """A client for ``user``, made a member of a team of ``conference`` with ``roles``, e.g.
    ``is_venue=True`` (members of teams are staff)."""
    user.is_staff = True
    user.save(update_fields=["is_staff"])
    make_team(user, conferences=[conference], **roles)
    client = APIClient()
    client.force_authenticate(user)
    return client


def stamps_read(body: dict) -> dict:
    """``body`` with its created_at and updated_at read as datetimes, to compare with the database."""
    return {
        **body,
        **{
            name: datetime.datetime.fromisoformat(body[name])
            for name in ("created_at", "updated_at")
        },
    }

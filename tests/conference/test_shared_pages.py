"""Shared pages: rendered once per content version, cached, personalised per request."""

import os
import socket

import pytest
from django.urls import reverse

from sessions.models import SavedSession, Session, SessionSpeaker
from tests.builders import make_conference, make_session, make_speaker, paris

pytestmark = pytest.mark.django_db


@pytest.fixture
def conference():
    return make_conference(slug="pycon")


def schedule(client, **query):
    return client.get(reverse("sessions:schedule", kwargs={"conference_slug": "pycon"}), query)


def test_a_repeated_anonymous_visit_is_served_from_the_cache(
    client, conference, django_assert_num_queries
):
    for number in range(5):
        make_session(
            conference, starts_at=paris(8, 9 + number), speakers=[make_speaker(conference)]
        )
    first = schedule(client)
    with django_assert_num_queries(1):  # the conference row, whose changed_at names the version
        second = schedule(client)
    assert second.content == first.content


def test_a_change_shows_at_once_on_a_cached_page(client, conference):
    session = make_session(conference, title="Old title")
    schedule(client)
    session.title = "New title"
    session.save()
    html = schedule(client).content.decode()
    assert "New title" in html
    assert "Old title" not in html


@pytest.mark.parametrize("change", ["add speaker", "admin action", "delete"])
def test_every_kind_of_write_invalidates_the_cached_page(client, admin_client, conference, change):
    session = make_session(conference, title="Watched")
    schedule(client)
    if change == "add speaker":
        SessionSpeaker.objects.create(
            session=session, speaker=make_speaker(conference, name="Newcomer")
        )
        expected, gone = "Newcomer", None
    elif change == "admin action":
        admin_client.post(
            reverse("admin:schedule_session_changelist"),
            {"action": "cancel", "_selected_action": [session.pk]},
        )
        expected, gone = "badge-cancelled", None
    else:
        session.delete()
        expected, gone = "The schedule has not been published yet.", "Watched"
    html = schedule(client).content.decode()
    assert expected in html
    if gone:
        assert gone not in html


def test_each_user_sees_their_own_saved_markers_on_the_shared_page(
    client, conference, django_user_model
):
    first = make_session(conference, title="First")
    second = make_session(conference, title="Second", starts_at=paris(8, 14))
    ada, bob = (
        django_user_model.objects.create_user("ada"),
        django_user_model.objects.create_user("bob"),
    )
    SavedSession.objects.add(ada, first)
    SavedSession.objects.add(bob, second)
    client.force_login(ada)
    ada_html = schedule(client).content.decode()
    client.force_login(bob)
    bob_html = schedule(client).content.decode()
    assert 'aria-label="Remove “First” from my schedule"' in ada_html
    assert 'aria-label="Save “Second” to my schedule"' in ada_html
    assert 'aria-label="Remove “Second” from my schedule"' in bob_html
    assert 'aria-label="Save “First” to my schedule"' in bob_html
    assert '<span class="muted-on-dark">bob</span>' in bob_html
    assert '<span class="muted-on-dark">ada</span>' not in bob_html


def test_a_saved_marker_changes_at_once_although_the_page_is_cached(
    client, conference, django_user_model
):
    session = make_session(conference, title="Talk")
    user = django_user_model.objects.create_user("ada")
    client.force_login(user)
    schedule(client)
    SavedSession.objects.add(user, session)
    assert 'aria-label="Remove “Talk” from my schedule"' in schedule(client).content.decode()


def test_staff_and_public_never_share_a_cached_page(client, admin_client, conference):
    make_session(conference, title="Public talk")
    make_session(
        conference, title="Draft talk", status=Session.Status.DRAFT, starts_at=paris(8, 14)
    )
    assert "Draft talk" in admin_client.get("/pycon/schedule/").content.decode()
    assert "Draft talk" not in schedule(client).content.decode()


def test_filters_and_zones_are_cached_apart(client, conference):
    make_session(conference, title="Morning", starts_at=paris(8, 10, 35))
    make_session(conference, title="Afternoon", starts_at=paris(8, 14))
    assert "Afternoon" not in schedule(client, q="morning").content.decode()
    assert "Afternoon" in schedule(client).content.decode()
    assert ">04:35 EDT</time>" in schedule(client, tz="America/New_York").content.decode()
    assert ">10:35 CEST</time>" in schedule(client, tz="Europe/Paris").content.decode()


def redis_url() -> str | None:
    url = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/15")
    try:
        socket.create_connection(("127.0.0.1", 6379), timeout=0.5).close()
    except OSError:
        if os.environ.get("CI") == "true":
            pytest.fail("Redis is not running: CI must test the Redis cache.")
        pytest.skip("Redis is not running here; the Redis cache test needs it.")
    return url


@pytest.fixture
def redis_cache(settings):
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": redis_url(),
            "KEY_PREFIX": "confsched-tests",
        }
    }
    from django.core.cache import cache

    cache.clear()
    yield cache
    cache.clear()


def test_the_redis_cache_serves_and_invalidates_shared_pages(
    client, conference, redis_cache, django_assert_num_queries
):
    session = make_session(conference, title="Old title")
    first = schedule(client)
    with django_assert_num_queries(1):
        assert schedule(client).content == first.content
    session.title = "New title"
    session.save()
    assert "New title" in schedule(client).content.decode()

"""Shared pages: rendered once per content version, cached, personalised per request."""

import os
import re
import socket

import pytest
from django.urls import reverse

from conference.pages import views as page_views
from conference.pages.copies import forget_pages
from sessions.models import SavedSession, Session, SessionSpeaker
from tests.builders import (
    make_session,
    make_speaker,
    make_track,
    paris,
    shows_save_button,
)

pytestmark = pytest.mark.django_db


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
    assert shows_save_button(ada_html, "First", saved=True)
    assert shows_save_button(ada_html, "Second", saved=False)
    assert shows_save_button(bob_html, "Second", saved=True)
    assert shows_save_button(bob_html, "First", saved=False)
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
    assert shows_save_button(schedule(client).content.decode(), "Talk", saved=True)


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


CSRF_VALUE = re.compile(r'name="csrfmiddlewaretoken" value="[^"]+"')


def page_text(response) -> str:
    """The page with its CSRF tokens blanked: Django masks them afresh for every form."""
    return CSRF_VALUE.sub('name="csrfmiddlewaretoken" value=""', response.content.decode())


@pytest.fixture
def varied_conference(conference, django_user_model):
    """Sessions of every state a card can show, one of them saved by ada."""
    speaker = make_speaker(conference, name="Grace", company="Navy")
    saved = make_session(conference, title="Saved <talk>", speakers=[speaker])
    make_session(conference, title="Not saved", starts_at=paris(8, 14))
    make_session(
        conference, title="Called off", starts_at=paris(8, 15), status=Session.Status.CANCELLED
    )
    make_session(
        conference, title="Unfinished", starts_at=paris(8, 16), status=Session.Status.DRAFT
    )
    ada = django_user_model.objects.create_user("ada")
    django_user_model.objects.create_user("root", is_staff=True)
    SavedSession.objects.add(ada, saved)
    return conference


PAGES = [
    "/pycon/",
    "/pycon/schedule/",
    "/pycon/schedule/?track=none&q=talk&tz=America/New_York",
    "/pycon/schedule/grid/",
    "/pycon/speakers/",
    "/pycon/sessions/saved-talk/",
]


@pytest.mark.parametrize("visitor", [None, "ada", "root"])
@pytest.mark.parametrize("url", PAGES)
def test_a_cached_page_is_byte_identical_to_a_fresh_rendering(
    client, varied_conference, django_user_model, visitor, url
):
    if visitor:
        client.force_login(django_user_model.objects.get(username=visitor))
    fresh = client.get(url)
    cached = client.get(url)
    assert fresh.status_code == 200
    assert page_text(cached) == page_text(fresh)


@pytest.mark.parametrize("url", PAGES)
def test_the_shared_part_does_not_depend_on_who_rendered_it_first(
    client, varied_conference, django_user_model, url
):
    """Ada's page built on a rendering made for an anonymous visitor equals her own fresh one."""
    ada = django_user_model.objects.get(username="ada")
    client.force_login(ada)
    own = page_text(client.get(url))
    forget_pages()
    client.logout()
    client.get(url)  # an anonymous visitor fills the cache
    client.force_login(ada)
    assert page_text(client.get(url)) == own


def test_a_page_ignores_query_parameters_it_does_not_read(
    client, conference, django_assert_num_queries
):
    make_session(conference, title="Talk")
    plain = schedule(client)
    with django_assert_num_queries(1):  # the same version: straight from the cache
        tagged = schedule(client, utm_source="newsletter")
    assert tagged.content == plain.content
    assert "newsletter" not in tagged.content.decode()


def test_the_save_button_of_a_cached_page_comes_back_to_that_page(client, conference):
    make_session(conference, title="Talk")
    html = schedule(client, q="talk", utm_source="x").content.decode()
    assert '<input type="hidden" name="next" value="/pycon/schedule/?q=talk">' in html
    assert 'formaction="/pycon/sessions/talk/save/"' in html


def test_a_thousand_junk_parameters_add_no_cache_entries(
    client, conference, django_user_model, monkeypatch
):
    """Unread parameters (tracking tags, cache busters) must not grow the cache."""
    make_session(conference, title="Talk")
    schedule(client)  # the plain page's entries
    client.force_login(django_user_model.objects.create_user("ada"))
    schedule(client)  # and the shared rendering a logged-in visitor's page is filled from
    client.logout()
    stored = []
    monkeypatch.setattr(page_views, "keep_page", lambda key, *args: stored.append(key))
    for number in range(1000):
        assert (
            schedule(client, **{f"junk{number}": number, "utm_source": number}).status_code == 200
        )
    assert stored == []


def test_reordered_repeated_and_empty_values_share_one_entry(client, conference, monkeypatch):
    track = make_track(conference, name="Compilers")
    other = make_track(conference, name="Kernels")
    make_session(conference, title="Talk", track=track)
    stored = []
    real_keep = page_views.keep_page
    monkeypatch.setattr(
        page_views, "keep_page", lambda key, *args: [stored.append(key), real_keep(key, *args)]
    )
    url = reverse("sessions:schedule", kwargs={"conference_slug": "pycon"})
    first = client.get(f"{url}?track={track.slug}&track={other.slug}")
    for query in (
        f"track={other.slug}&track={track.slug}",
        f"track={track.slug}&track={other.slug}&track={track.slug}",
        f"q=&track={other.slug}&track={track.slug}&day=",
    ):
        # Empty values are redirected away first (DropsEmptyParametersMixin).
        assert client.get(f"{url}?{query}", follow=True).content == first.content
    assert len(stored) == 2  # the shared rendering and the finished page, once


def test_a_page_renders_each_different_personal_part_once_however_many_sessions_it_lists(
    client, conference, monkeypatch
):
    """Every card has a Save button, a clash mark and a confirmation; their usual texts differ
    only by whether the session can be saved, so a longer schedule renders no more of them."""
    from conference.pages import holes

    renderings = []
    render_hole = holes.render_hole
    monkeypatch.setattr(
        holes,
        "render_hole",
        lambda name, *args: renderings.append(name) or render_hole(name, *args),
    )

    def renderings_of_a_schedule_listing(count):
        make_session(conference, starts_at=paris(8, 9), status=Session.Status.CANCELLED)
        for number in range(count):
            make_session(conference, starts_at=paris(8, 9, 10 * number))
        renderings.clear()
        forget_pages()
        assert schedule(client).status_code == 200
        return sorted(renderings)

    short = renderings_of_a_schedule_listing(2)
    long = renderings_of_a_schedule_listing(5)

    assert long == short
    assert short.count("sessions/includes/save_state.html") == 2  # can be saved, or not

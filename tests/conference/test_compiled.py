"""Lookups whose SQL is compiled once per process (conference.compiled)."""

import datetime
import importlib
import re
from types import SimpleNamespace
from unittest import mock

import pytest
from django.apps import apps as django_apps
from django.contrib.auth import BACKEND_SESSION_KEY, get_user_model
from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.models import AnonymousUser
from django.contrib.sessions.models import Session as StoredSession
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from conference.compiled import CompiledQuery, Remembered, can_read_ahead, reading_ahead
from conference.models import VISIBLE_BY_SLUG, Conference
from conference.session_store import AccountBackend, SessionStore
from sessions.models import SavedSession
from tests.builders import make_conference, make_session

pytestmark = pytest.mark.django_db


def test_an_example_that_does_not_reach_the_sql_is_refused():
    query = CompiledQuery(lambda slug: Conference.objects.filter(slug="fixed"), slug="example")
    with pytest.raises(ValueError, match="slug"):
        query.sql()


def test_the_compiled_query_runs_with_the_values_given():
    make_conference(slug="pycon", name="PyCon")
    make_conference(slug="djangocon", name="DjangoCon")
    query = CompiledQuery(
        lambda slug: Conference.objects.filter(slug=slug).values_list("name"), slug="example"
    )
    assert query.rows(slug="djangocon") == [("DjangoCon",)]
    assert query.rows(slug="pycon") == [("PyCon",)]
    assert query.rows(slug="nothing") == []


@pytest.mark.parametrize("staff", [False, True])
def test_visible_by_slug_finds_what_visible_to_does(admin_user, staff):
    make_conference(slug="public")
    make_conference(slug="draft", is_published=False)
    user = admin_user if staff else AnonymousUser()
    for slug in ("public", "draft", "unknown"):
        expected = Conference.objects.visible_to(user).filter(slug=slug).first()
        found = Conference.objects.visible_by_slug(user, slug)
        assert found == expected
        if found:  # a whole conference, its fields converted as the ORM converts them
            assert found.changed_at == expected.changed_at
            assert found.tz == expected.tz


def test_session_ids_of_are_the_sessions_the_visitor_saved(django_user_model):
    pycon, djangocon = make_conference(slug="pycon"), make_conference(slug="djangocon")
    ada, bob = (django_user_model.objects.create_user(name) for name in ("ada", "bob"))
    talks = [make_session(pycon, title=f"Talk {number}") for number in range(3)]
    elsewhere = make_session(djangocon, title="Elsewhere")
    for talk in (talks[0], talks[2], elsewhere):
        SavedSession.objects.add(ada, talk)
    SavedSession.objects.add(bob, talks[1])
    assert SavedSession.objects.session_ids_of(ada) == {talks[0].pk, talks[2].pk, elsewhere.pk}
    assert SavedSession.objects.session_ids_of(bob) == {talks[1].pk}
    assert SavedSession.objects.session_ids_of(AnonymousUser()) == set()


def test_a_session_loads_until_it_expires(client, django_user_model):
    make_conference(slug="pycon")
    user = get_user_model().objects.create_user("ada")
    client.force_login(user)
    key = client.cookies["sessionid"].value
    assert SessionStore(key).load()  # the visitor's data
    assert b"Log out" in client.get("/pycon/schedule/").content
    StoredSession.objects.filter(session_key=key).update(
        expire_date=timezone.now() - datetime.timedelta(seconds=1)
    )
    store = SessionStore(key)
    assert store.load() == {}
    assert store.session_key is None
    client.cookies["sessionid"] = key  # the browser still sends it
    assert b"Log out" not in client.get("/pycon/schedule/").content


def test_an_account_is_found_as_model_backend_finds_it(django_user_model):
    ada = django_user_model.objects.create_user("ada", "ada@example.org", "pw")
    gone = django_user_model.objects.create_user("gone", is_active=False)
    backend, django_backend = AccountBackend(), ModelBackend()
    for user_id in (str(ada.pk), ada.pk, str(gone.pk), "999999", "not a number"):
        try:
            expected = django_backend.get_user(user_id)
        except ValueError:  # ModelBackend lets a malformed id raise; ours finds nobody
            expected = None
        found = backend.get_user(user_id)
        assert found == expected
        if found:  # the whole account, as the ORM builds it
            assert (found.username, found.email, found.date_joined) == (
                ada.username,
                ada.email,
                ada.date_joined,
            )
            assert found.check_password("pw")


def test_a_session_logged_in_before_the_account_backend_stays_logged_in(client, django_user_model):
    make_conference(slug="pycon")
    ada = django_user_model.objects.create_user("ada")
    client.force_login(ada, backend="django.contrib.auth.backends.ModelBackend")
    key = client.cookies["sessionid"].value
    migration = importlib.import_module("conference.migrations.0007_sessions_to_account_backend")

    forward = migration.moving_sessions(migration.MODEL_BACKEND, migration.ACCOUNT_BACKEND)
    forward(django_apps, SimpleNamespace(connection=connection))

    assert SessionStore(key).load()[BACKEND_SESSION_KEY] == migration.ACCOUNT_BACKEND
    assert b"Log out" in client.get("/pycon/schedule/").content
    backward = migration.moving_sessions(migration.ACCOUNT_BACKEND, migration.MODEL_BACKEND)
    backward(django_apps, SimpleNamespace(connection=connection))
    assert SessionStore(key).load()[BACKEND_SESSION_KEY] == migration.MODEL_BACKEND


def test_logging_in_records_the_account_backend(client, django_user_model):
    django_user_model.objects.create_user("ada", password="a long enough password")
    response = client.post(
        "/accounts/login/", {"username": "ada", "password": "a long enough password"}
    )
    assert response.status_code == 302
    key = client.cookies["sessionid"].value
    assert (
        SessionStore(key).load()[BACKEND_SESSION_KEY] == "conference.session_store.AccountBackend"
    )


# Read ahead (ReadAheadMiddleware): PostgreSQL only, where a lookup is a round trip -----------

postgresql_only = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="lookups are read ahead on PostgreSQL only"
)
SAVE_STATES = re.compile(r'id="save-(\d+)" class="save-button" value="(save|remove)"')


def save_states(response) -> dict[int, str]:
    return {int(pk): value for pk, value in SAVE_STATES.findall(response.content.decode())}


@pytest.fixture
def attendee(client, django_user_model):
    conference = make_conference(slug="pycon")
    talks = [make_session(conference, title=f"Talk {number}") for number in range(3)]
    ada = django_user_model.objects.create_user("ada")
    SavedSession.objects.add(ada, talks[0])
    client.force_login(ada)
    return SimpleNamespace(client=client, user=ada, talks=talks)


@postgresql_only
def test_a_repeated_logged_in_page_reads_its_lookups_in_one_query(attendee):
    first = attendee.client.get("/pycon/schedule/")
    with CaptureQueriesContext(connection) as queries:
        second = attendee.client.get("/pycon/schedule/")
    # the session, the account, the conference and the saved sessions: one round trip
    assert len(queries) == 1
    assert queries[0]["sql"].count("SELECT") == 4
    assert b"Log out" in second.content
    assert save_states(second) == save_states(first)
    assert save_states(second)[attendee.talks[0].pk] == "remove"


@postgresql_only
def test_rows_read_ahead_are_read_for_this_request(attendee):
    """What changed since the visitor's last request shows: the rows are read, not kept."""
    attendee.client.get("/pycon/schedule/")
    SavedSession.objects.add(attendee.user, attendee.talks[1])
    saved_now = save_states(attendee.client.get("/pycon/schedule/"))
    assert saved_now[attendee.talks[1].pk] == "remove"

    StoredSession.objects.all().delete()  # logged out elsewhere (a password reset, an admin)
    logged_out = attendee.client.get("/pycon/schedule/")
    assert b"Log out" not in logged_out.content
    assert b"Log in" in logged_out.content


@postgresql_only
def test_a_lookup_not_read_ahead_runs_as_usual(django_assert_num_queries):
    pycon, djangocon = make_conference(slug="pycon"), make_conference(slug="djangocon")
    by_slug = VISIBLE_BY_SLUG[False]
    with reading_ahead("default", [(by_slug, "default", (("slug", "pycon"),))]):
        with django_assert_num_queries(0):
            assert by_slug.first(Conference, slug="pycon") == pycon
        with django_assert_num_queries(1):  # each row read ahead serves once
            assert by_slug.first(Conference, slug="pycon") == pycon
        with django_assert_num_queries(1):
            assert by_slug.first(Conference, slug="djangocon") == djangocon


def test_lookups_are_read_ahead_only_where_they_cost_a_round_trip(settings):
    expected = connection.vendor == "postgresql"
    assert can_read_ahead("default") is expected
    options = {**connection.settings_dict["OPTIONS"], "server_side_binding": True}
    with mock.patch.dict(connection.settings_dict, {"OPTIONS": options}):
        assert can_read_ahead("default") is False  # one query may hold one statement only


def test_remembered_requests_are_bounded_the_least_recently_set_going_first():
    remembered = Remembered(max_entries=2)
    remembered.set("schedule", 1)
    remembered.set("speakers", 2)
    remembered.set("schedule", 3)  # set again: the most recent now
    remembered.set("session", 4)
    assert remembered.get("speakers") is None
    assert (remembered.get("schedule"), remembered.get("session")) == (3, 4)

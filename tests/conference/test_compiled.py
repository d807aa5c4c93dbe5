"""Lookups whose SQL is compiled once per process (conference.compiled)."""

import datetime

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AnonymousUser
from django.contrib.sessions.models import Session as StoredSession
from django.utils import timezone

from conference.compiled import CompiledQuery
from conference.models import Conference
from conference.session_store import SessionStore
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


def test_session_ids_of_are_the_saved_sessions_in_that_conference(django_user_model):
    pycon, djangocon = make_conference(slug="pycon"), make_conference(slug="djangocon")
    ada, bob = (django_user_model.objects.create_user(name) for name in ("ada", "bob"))
    talks = [make_session(pycon, title=f"Talk {number}") for number in range(3)]
    elsewhere = make_session(djangocon, title="Elsewhere")
    for talk in (talks[0], talks[2], elsewhere):
        SavedSession.objects.add(ada, talk)
    SavedSession.objects.add(bob, talks[1])
    assert SavedSession.objects.session_ids_of(ada, pycon) == {talks[0].pk, talks[2].pk}
    assert SavedSession.objects.session_ids_of(bob, pycon) == {talks[1].pk}
    assert SavedSession.objects.session_ids_of(AnonymousUser(), pycon) == set()


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

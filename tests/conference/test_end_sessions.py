"""``manage.py end_sessions`` logs people out in the database and in Redis alike: with Redis
(``cached_db``) deleting rows of django_session logs nobody out."""

import os
import uuid

import pytest
import redis
from django.contrib.sessions.models import Session
from django.core.management import CommandError, call_command
from django.test import Client
from django.urls import reverse

pytestmark = pytest.mark.django_db

REDIS_URL = "redis://127.0.0.1:6379/7"


def redis_is_there() -> bool:
    try:
        with redis.Redis.from_url(REDIS_URL, socket_connect_timeout=1) as client:
            return client.ping()
    except redis.RedisError:
        return False


@pytest.fixture
def redis_sessions(settings):
    if not redis_is_there():
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI runs Redis at {REDIS_URL}")
        pytest.skip(f"no Redis at {REDIS_URL}")
    prefix = f"test-end-sessions-{uuid.uuid4().hex}"
    settings.CACHES = {
        **settings.CACHES,
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": prefix,
        },
    }
    settings.SESSION_ENGINE = "django.contrib.sessions.backends.cached_db"
    yield
    with redis.Redis.from_url(REDIS_URL) as client:
        for key in client.scan_iter(match=f"{prefix}:*"):
            client.delete(key)


def logged_in(client) -> bool:
    return client.get(reverse("account")).status_code == 200


@pytest.fixture
def two_logged_in(redis_sessions, django_user_model, attendee):
    grace = django_user_model.objects.create_user("grace", "grace@example.org", "pw-grace-1906")
    ada_client, grace_client = Client(), Client()
    ada_client.force_login(attendee)
    grace_client.force_login(grace)
    assert (logged_in(ada_client), logged_in(grace_client)) == (True, True)
    return ada_client, grace_client


def test_deleting_session_rows_alone_leaves_everyone_logged_in_with_redis(two_logged_in):
    Session.objects.all().delete()  # what an operator's DELETE FROM django_session does

    assert [logged_in(client) for client in two_logged_in] == [True, True]


def test_end_sessions_all_logs_everyone_out_of_both_stores(two_logged_in, capsys):
    call_command("end_sessions", "--all")

    assert [logged_in(client) for client in two_logged_in] == [False, False]
    assert Session.objects.count() == 0
    assert capsys.readouterr().out == "Ended 2 sessions.\n"


def test_end_sessions_all_also_ends_sessions_whose_rows_were_deleted_by_hand(two_logged_in):
    Session.objects.all().delete()

    call_command("end_sessions", "--all")

    assert [logged_in(client) for client in two_logged_in] == [False, False]


def test_end_sessions_of_one_user_leaves_the_others_logged_in(two_logged_in):
    Session.objects.all().delete()  # even rows deleted by hand

    call_command("end_sessions", "--user", "ada")

    assert [logged_in(client) for client in two_logged_in] == [False, True]


def test_end_sessions_without_redis_ends_database_sessions(client, attendee):
    client.force_login(attendee)

    call_command("end_sessions", "--user", "ada")

    assert (logged_in(client), Session.objects.count()) == (False, 0)


def test_end_sessions_refuses_an_unknown_account(attendee):
    with pytest.raises(CommandError, match=r"No such account: nobody\."):
        call_command("end_sessions", "--user", "nobody")

"""One login limit for every door (site, admin, API token), and the per-client limits beside it:
API throttles and password-reset mail, counted by the trusted client address in a shared store."""

import itertools
import os
import re
import socket
from datetime import timedelta
from types import SimpleNamespace

import pytest
from axes.models import AccessAttempt
from django.conf import settings
from django.core import mail
from django.db import connection
from django.db.models import F, Sum
from django.test.utils import override_settings
from rest_framework.test import APIClient
from rest_framework.throttling import AnonRateThrottle, UserRateThrottle

from conference.accounts import limits
from conference.accounts.limits import client_address, limits_cache
from conference.models import AccountEmail

pytestmark = pytest.mark.django_db

FAILURE_LIMIT = settings.AXES_FAILURE_LIMIT
LOCKED_MESSAGE = (
    "Too many failed logins for this account. Try again in 15 minutes, or reset your password."
)
PASSWORD = "correct horse battery"


def redis_limits_url() -> str:
    try:
        socket.create_connection(("127.0.0.1", 6379), timeout=0.5).close()
    except OSError:
        if os.environ.get("CI") == "true":
            pytest.fail("Redis is not running: CI must test the limits in Redis.")
        pytest.skip("Redis is not running here; the Redis limits tests need it.")
    return "redis://127.0.0.1:6379/2"


@pytest.fixture(params=["without-redis", "redis"])
def limits_store(request):
    """The tests below run against each shared store the "limits" cache may be (settings.CACHES)."""
    if request.param == "without-redis":
        # The test settings' own: on PostgreSQL the database table, on SQLite a folder of files.
        # Emptied here, not only rolled back after each test: a test that commits (transaction=True,
        # a live server) leaves its counts in the table, and a count lives a minute.
        limits_cache.clear()
        yield limits_cache
        return
    redis = {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": redis_limits_url(),
        "KEY_PREFIX": "confsched-limits-tests",
    }
    with override_settings(CACHES={**settings.CACHES, "limits": redis}):
        limits_cache.clear()
        yield limits_cache
        limits_cache.clear()


def test_without_redis_limits_are_counted_in_the_database_unless_it_is_sqlite():
    assert settings.CACHES["limits"]["BACKEND"] == (
        "django.core.cache.backends.filebased.FileBasedCache"
        if connection.vendor == "sqlite"
        else "django.core.cache.backends.db.DatabaseCache"
    )


# --- One login limit for every door -----------------------------------------------------------


@pytest.fixture
def organizer(django_user_model):
    """A staff account whose address is confirmed, so password resets reach it."""
    user = django_user_model.objects.create_user("ada", "ada@example.org", PASSWORD, is_staff=True)
    AccountEmail.objects.for_user(user).mark_verified("ada@example.org")
    return user


def addresses():
    """A new client address for every try: the limit is per account, from anywhere."""
    return (f"198.51.100.{number}" for number in itertools.count(1))


def site_login(password, address):
    client = APIClient()  # a plain test client that also speaks JSON to the token endpoint
    response = client.post(
        "/accounts/login/", {"username": "ada", "password": password}, REMOTE_ADDR=address
    )
    return response, response.status_code == 302 and "_auth_user_id" in client.session


def admin_login(password, address):
    client = APIClient()
    response = client.post(
        "/admin/login/?next=/admin/",
        {"username": "ada", "password": password, "next": "/admin/"},
        REMOTE_ADDR=address,
    )
    return response, response.status_code == 302 and "_auth_user_id" in client.session


def token_login(password, address):
    response = APIClient().post(
        "/api/v1/auth/token/",
        {"username": "ada", "password": password},
        format="json",
        REMOTE_ADDR=address,
    )
    return response, response.status_code == 200 and "token" in response.json()


DOORS = {"site": site_login, "admin": admin_login, "api-token": token_login}


def fail(door, times, address_source):
    for _ in range(times):
        assert not DOORS[door]("wrong password", next(address_source))[1]


@pytest.mark.parametrize("door", DOORS)
def test_failures_below_the_limit_leave_the_right_password_working(organizer, door):
    source = addresses()
    fail(door, FAILURE_LIMIT - 1, source)
    assert DOORS[door](PASSWORD, next(source))[1]


@pytest.mark.parametrize("door", DOORS)
def test_each_door_locks_the_account_and_then_refuses_the_right_password(organizer, door):
    source = addresses()
    fail(door, FAILURE_LIMIT, source)
    response, logged_in = DOORS[door](PASSWORD, next(source))
    assert not logged_in
    assert response.status_code == 429
    # 15 minutes from the first failure, less the seconds a slow run took to fail ten times.
    assert 890 <= int(response["Retry-After"]) <= 900


@pytest.mark.parametrize(("locked_at", "tried_at"), itertools.permutations(DOORS, 2))
def test_a_lock_made_at_one_door_holds_at_the_others(organizer, locked_at, tried_at):
    source = addresses()
    fail(locked_at, FAILURE_LIMIT, source)
    response, logged_in = DOORS[tried_at](PASSWORD, next(source))
    assert not logged_in
    assert response.status_code == 429


@pytest.mark.parametrize("door", DOORS)
def test_failures_at_all_doors_add_up_to_one_count(organizer, door):
    source = addresses()
    for other in DOORS:
        fail(other, FAILURE_LIMIT // 3, source)
    fail(door, FAILURE_LIMIT - 3 * (FAILURE_LIMIT // 3), source)
    assert not DOORS[door](PASSWORD, next(source))[1]


@pytest.mark.parametrize("door", ["site", "admin"])
def test_a_locked_login_page_says_why_and_how_long(organizer, door):
    source = addresses()
    fail(door, FAILURE_LIMIT, source)
    response, _ = DOORS[door](PASSWORD, next(source))
    assert LOCKED_MESSAGE in response.content.decode()
    assert "correct username and password" not in response.content.decode()


def age_failures(username, minutes):
    """Moves the account's recorded failures ``minutes`` into the past."""
    AccessAttempt.objects.filter(username=username).update(
        attempt_time=F("attempt_time") - timedelta(minutes=minutes)
    )


@pytest.mark.parametrize("door", DOORS)
def test_a_lock_says_how_long_it_has_left(organizer, door):
    source = addresses()
    fail(door, FAILURE_LIMIT, source)
    age_failures("ada", 10)
    response, _ = DOORS[door](PASSWORD, next(source))
    assert "Try again in 5 minutes, or reset your password." in response.content.decode()
    assert 240 < int(response["Retry-After"]) <= 300


def test_tries_while_locked_are_refused_without_counting(organizer):
    source = addresses()
    fail("site", FAILURE_LIMIT, source)
    fail("admin", 5, source)
    recorded = AccessAttempt.objects.filter(username="ada").aggregate(Sum("failures_since_start"))
    assert recorded == {"failures_since_start__sum": FAILURE_LIMIT}
    age_failures("ada", 15)
    assert site_login(PASSWORD, next(source))[1]


def test_the_token_endpoint_answers_a_lock_in_json(organizer):
    source = addresses()
    fail("api-token", FAILURE_LIMIT, source)
    response, _ = token_login(PASSWORD, next(source))
    assert response["Content-Type"] == "application/json"
    assert response.json() == {"detail": LOCKED_MESSAGE}


def test_the_lock_is_per_account(organizer, django_user_model):
    django_user_model.objects.create_user("grace", password="grace's own passphrase")
    fail("site", FAILURE_LIMIT, addresses())
    response = APIClient().post(
        "/accounts/login/", {"username": "grace", "password": "grace's own passphrase"}
    )
    assert response.status_code == 302


def test_resetting_the_password_lifts_the_lock(client, organizer):
    source = addresses()
    fail("site", FAILURE_LIMIT, source)
    client.post("/accounts/password/reset/", {"email": "ada@example.org"})
    link = re.search(r"http://testserver(/accounts/password/reset/\S+/)", mail.outbox[0].body)
    form_url = client.get(link.group(1)).url
    client.post(
        form_url,
        {"new_password1": "brand new passphrase 7", "new_password2": "brand new passphrase 7"},
    )
    assert site_login("brand new passphrase 7", next(source))[1]


def test_an_overlong_username_at_the_token_endpoint_is_a_400(organizer):
    response = APIClient().post(
        "/api/v1/auth/token/", {"username": "a" * 300, "password": "x"}, format="json"
    )
    assert response.status_code == 400
    assert response.json() == {"username": ["Ensure this field has no more than 150 characters."]}


# --- The client address -----------------------------------------------------------------------


class Request:
    def __init__(self, remote_addr, forwarded_for=None):
        self.META = {"REMOTE_ADDR": remote_addr}
        if forwarded_for is not None:
            self.META["HTTP_X_FORWARDED_FOR"] = forwarded_for


@pytest.mark.parametrize(
    ("proxies", "forwarded_for", "expected"),
    [
        (0, None, "10.0.0.9"),
        (0, "203.0.113.7", "10.0.0.9"),  # nobody vouches for the header
        (1, None, "10.0.0.9"),
        (1, "203.0.113.7", "203.0.113.7"),
        (1, "1.2.3.4, 203.0.113.7", "203.0.113.7"),  # the client wrote 1.2.3.4 itself
        (2, "1.2.3.4, 203.0.113.7, 10.0.0.5", "203.0.113.7"),
        (2, "203.0.113.7", "203.0.113.7"),
        (1, "2001:db8::1", "2001:db8::1"),
        (1, "not-an-address", "10.0.0.9"),
    ],
)
def test_client_address_trusts_only_the_configured_proxies(
    settings, proxies, forwarded_for, expected
):
    settings.TRUSTED_PROXIES = proxies
    assert client_address(Request("10.0.0.9", forwarded_for)) == expected


@pytest.mark.parametrize(("proxies", "recorded"), [(0, "10.0.0.9"), (1, "203.0.113.7")])
def test_failed_logins_are_recorded_from_the_trusted_client_address(
    organizer, settings, proxies, recorded
):
    settings.TRUSTED_PROXIES = proxies
    APIClient().post(
        "/accounts/login/",
        {"username": "ada", "password": "wrong password"},
        REMOTE_ADDR="10.0.0.9",
        HTTP_X_FORWARDED_FOR="1.2.3.4, 203.0.113.7",
    )
    assert list(AccessAttempt.objects.values_list("ip_address", flat=True)) == [recorded]


def test_drf_counts_by_the_same_number_of_proxies():
    assert settings.REST_FRAMEWORK["NUM_PROXIES"] == settings.TRUSTED_PROXIES == 0


# --- API throttles: shared store, trusted address ---------------------------------------------


def token_attempt(number, **headers):
    return APIClient().post(
        "/api/v1/auth/token/",
        {"username": f"nobody-{number}", "password": "guess"},
        format="json",
        **headers,
    )


def test_forwarded_for_does_not_dodge_the_token_throttle_by_default(limits_store):
    statuses = [
        token_attempt(n, HTTP_X_FORWARDED_FOR=f"203.0.113.{n}").status_code for n in range(11)
    ]
    assert statuses == [400] * 10 + [429]  # auth-token: 10 a minute per client


def test_forwarded_for_does_not_dodge_the_anonymous_throttle_by_default(limits_store, monkeypatch):
    monkeypatch.setattr(AnonRateThrottle, "rate", "3/minute", raising=False)
    client = APIClient()
    statuses = [
        client.get("/api/v1/conferences/", HTTP_X_FORWARDED_FOR=f"203.0.113.{n}").status_code
        for n in range(5)
    ]
    assert statuses == [200, 200, 200, 429, 429]


def test_anonymous_clients_get_the_anonymous_rate_alone(limits_store, monkeypatch):
    monkeypatch.setattr(UserRateThrottle, "rate", "2/minute", raising=False)
    client = APIClient()
    statuses = [client.get("/api/v1/conferences/").status_code for _ in range(4)]
    assert statuses == [200] * 4


def test_logged_in_clients_get_the_user_rate(limits_store, monkeypatch, organizer):
    monkeypatch.setattr(UserRateThrottle, "rate", "2/minute", raising=False)
    client = APIClient()
    client.force_authenticate(organizer)
    statuses = [client.get("/api/v1/conferences/").status_code for _ in range(3)]
    assert statuses == [200, 200, 429]


def test_behind_one_trusted_proxy_the_address_it_appended_is_counted(limits_store, settings):
    settings.TRUSTED_PROXIES = 1
    same_client = [
        token_attempt(n, HTTP_X_FORWARDED_FOR=f"1.2.3.{n}, 203.0.113.7").status_code
        for n in range(11)
    ]
    other_client = token_attempt(99, HTTP_X_FORWARDED_FOR="1.2.3.4, 203.0.113.8").status_code
    assert same_client == [400] * 10 + [429]
    assert other_client == 400


# --- Password-reset mail ----------------------------------------------------------------------


@pytest.fixture(autouse=True)
def limits_clock(monkeypatch):
    """Limits count in fixed windows (an hour for reset mail); their clock stands 25 minutes into
    one, so that no test straddles two windows."""
    monkeypatch.setattr(limits, "time", SimpleNamespace(time=lambda: 1_800_000_000 + 25 * 60))


def request_reset(client, email, address="10.0.0.1", **headers):
    return client.post(
        "/accounts/password/reset/", {"email": email}, REMOTE_ADDR=address, **headers
    )


def test_password_reset_mails_one_address_three_times_an_hour(client, organizer, limits_store):
    statuses = [
        request_reset(client, "ada@example.org", address=f"10.0.1.{n}").status_code
        for n in range(40)
    ]
    assert statuses == [302] * 3 + [429] * 37
    assert len(mail.outbox) == 3


def test_password_reset_counts_an_address_however_it_is_capitalised(
    client, organizer, limits_store
):
    for email in ["ada@example.org", "ADA@example.org", " Ada@Example.org "]:
        request_reset(client, email)
    response = request_reset(client, "ada@EXAMPLE.org")
    assert response.status_code == 429


def test_password_reset_requests_are_limited_per_client(client, limits_store):
    statuses = [
        request_reset(
            client, f"someone-{n}@example.org", HTTP_X_FORWARDED_FOR=f"1.2.3.{n}"
        ).status_code
        for n in range(21)
    ]
    elsewhere = request_reset(client, "someone-else@example.org", address="10.0.0.2")
    assert statuses == [302] * 20 + [429]
    assert elsewhere.status_code == 302


def test_a_limited_password_reset_says_so_and_for_how_long(client, limits_store):
    for _ in range(3):
        request_reset(client, "ada@example.org")
    response = request_reset(client, "ada@example.org")
    assert response.context["form"].non_field_errors() == [
        "Too many password reset requests. Try again in 35 minutes."
    ]


CSRF_VALUE = re.compile(r'name="csrfmiddlewaretoken" value="[^"]+"')


def answers(client, email) -> list[tuple[int, str]]:
    """What four requests for ``email`` answer: status and page (CSRF token and the address as
    typed, which the form shows again, blanked)."""
    seen = []
    for _ in range(4):
        response = request_reset(client, email, follow=True)
        page = CSRF_VALUE.sub("", response.content.decode()).replace(email, "")
        seen.append((response.status_code, page))
    return seen


def test_password_reset_answers_the_same_whether_or_not_an_account_uses_the_address(
    client, organizer, limits_store
):
    known = answers(client, "ada@example.org")
    limits_store.clear()
    unknown = answers(client, "nobody@example.org")
    assert known == unknown
    assert [status for status, _ in known] == [200, 200, 200, 429]
    assert len(mail.outbox) == 3


def test_an_organizer_unlocks_an_account_by_deleting_its_attempts_in_the_admin(
    admin_client, organizer
):
    source = addresses()
    fail("site", FAILURE_LIMIT, source)
    changelist = admin_client.get("/admin/axes/accessattempt/", {"q": "ada"})
    attempts = list(changelist.context["cl"].result_list)  # one per address it came from
    assert {attempt.username for attempt in attempts} == {"ada"}
    assert sum(attempt.failures_since_start for attempt in attempts) == FAILURE_LIMIT
    admin_client.post(
        "/admin/axes/accessattempt/",
        {
            "action": "delete_selected",
            "_selected_action": [attempt.pk for attempt in attempts],
            "post": "yes",
        },
    )
    assert site_login(PASSWORD, next(source))[1]

"""Two app servers sharing PostgreSQL and Redis behave as one site.

Each server is a real gunicorn process with production settings. What one server writes, the
other serves on the very next request (its cached pages, exports and my schedule included), and
a login lockout earned on one holds on the other.
"""

import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests
from django.conf import settings
from django.db import connection

from tests.builders import make_conference, make_session

PROJECT = Path(__file__).resolve().parents[2]
REDIS_URL = "redis://127.0.0.1:6379/9"


def redis_is_reachable() -> bool:
    try:
        socket.create_connection(("127.0.0.1", 6379), timeout=1).close()
    except OSError:
        return False
    return True


def two_servers_possible() -> str | None:
    """Why the test cannot run here, or None. In CI the PostgreSQL leg must run it."""
    if connection.vendor != "postgresql":
        return "two servers share a PostgreSQL database (the suite's PostgreSQL run)"
    if not redis_is_reachable():
        return "needs Redis on 127.0.0.1:6379"
    return None


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Server:
    """One gunicorn process on the test database; ``get``/``post`` speak to it."""

    def __init__(self, tmp_path: Path):
        self.port = free_port()
        self.address = f"127.0.0.1:{self.port}"
        self.base = f"http://{self.address}"
        database = settings.DATABASES["default"]
        environment = {
            name: value
            for name, value in os.environ.items()
            if not name.startswith("DJANGO_") and name not in ("PYTEST_VERSION", "REDIS_URL")
        }
        environment.update(
            DJANGO_SETTINGS_MODULE="two_servers_settings",
            PYTHONPATH=f"{tmp_path}{os.pathsep}{PROJECT}",
            DJANGO_DEBUG="0",
            DJANGO_SECRET_KEY="two-servers-test-key",
            DJANGO_ALLOWED_HOSTS="127.0.0.1",
            DATABASE_URL=(
                f"postgres://{database['USER']}@{database['HOST'] or '127.0.0.1'}:"
                f"{database['PORT'] or 5432}/{database['NAME']}"
            ),
            REDIS_URL=REDIS_URL,
        )
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "gunicorn",
                "conference.site.wsgi",
                "-w",
                "1",
                "-b",
                self.address,
            ],
            cwd=PROJECT,
            env=environment,
        )

    def wait_until_serving(self, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"gunicorn on port {self.port} exited")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                time.sleep(0.05)  # polling for start-up, not waiting for a result
        raise RuntimeError(f"gunicorn did not listen on port {self.port} within {timeout} s")

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


@pytest.fixture
def two_servers(transactional_db, tmp_path):
    if reason := two_servers_possible():
        if os.environ.get("CI") == "true" and connection.vendor == "postgresql":
            pytest.fail(f"CI's PostgreSQL run must test two servers: {reason}")
        pytest.skip(reason)
    import redis

    redis.Redis.from_url(REDIS_URL).flushdb()
    # Production settings, except: plain static names, which need no collectstatic manifest,
    # and the suite's fast password hasher, which the users made here are stored with.
    (tmp_path / "static").mkdir()
    (tmp_path / "two_servers_settings.py").write_text(
        "from conference.site.settings import *  # noqa: F403\n\n"
        f"STATIC_ROOT = {str(tmp_path / 'static')!r}\n"
        "STORAGES = {**STORAGES, 'staticfiles': "
        "{'BACKEND': 'django.contrib.staticfiles.storage.StaticFilesStorage'}}\n"
        f"PASSWORD_HASHERS = {settings.PASSWORD_HASHERS!r}\n"
    )
    servers = [Server(tmp_path), Server(tmp_path)]
    try:
        for server in servers:
            server.wait_until_serving()
        yield servers
    finally:
        for server in servers:
            server.stop()
        redis.Redis.from_url(REDIS_URL).flushdb()


def logged_in(server: Server, username: str, password: str) -> requests.Session:
    browser = requests.Session()
    login = f"{server.base}/accounts/login/"
    browser.get(login, timeout=30)
    response = browser.post(
        login,
        {
            "username": username,
            "password": password,
            "csrfmiddlewaretoken": browser.cookies["csrftoken"],
        },
        headers={"Referer": login},
        allow_redirects=False,
        timeout=30,
    )
    browser.login_response = response
    return browser


def test_a_change_through_one_server_shows_at_once_on_the_other(two_servers, django_user_model):
    first, second = two_servers
    conference = make_conference(slug="pycon")
    session = make_session(conference, title="Compilers for everyone")
    django_user_model.objects.create_superuser("root", password="organizer-password")
    django_user_model.objects.create_user("ada", password="attendee-password")
    pages = [
        "/pycon/schedule/",
        "/pycon/schedule.ics",
        "/pycon/schedule.json",
        f"/pycon/sessions/{session.slug}/",
    ]
    ada = logged_in(second, "ada", "attendee-password")
    assert ada.login_response.status_code == 302
    for path in pages:  # both servers have the current version cached
        for server in two_servers:
            assert "Compilers for everyone" in requests.get(server.base + path, timeout=30).text
    assert "Compilers for everyone" not in ada.get(f"{second.base}/pycon/my-schedule/").text

    token = requests.post(
        f"{first.base}/api/v1/auth/token/",
        json={"username": "root", "password": "organizer-password"},
        timeout=30,
    ).json()["token"]
    edit = requests.patch(
        f"{first.base}/api/v1/conferences/pycon/sessions/{session.slug}/",
        json={"title": "Compilers revisited"},
        headers={"Authorization": f"Token {token}"},
        timeout=30,
    )
    assert edit.status_code == 200, edit.text
    saved = ada.post(
        f"{first.base}/api/v1/me/schedule/",
        json={"conference": "pycon", "session": session.slug},
        headers={"X-CSRFToken": ada.cookies["csrftoken"], "Referer": first.base + "/"},
        timeout=30,
    )
    assert saved.status_code == 201, saved.text  # saved now: ada had not saved it before

    for path in pages:
        text = requests.get(second.base + path, timeout=30).text
        assert "Compilers revisited" in text, path
        assert "Compilers for everyone" not in text, path
    assert "Compilers revisited" in ada.get(f"{second.base}/pycon/my-schedule/").text


def test_a_login_lockout_earned_on_one_server_holds_on_the_other(two_servers, django_user_model):
    first, second = two_servers
    django_user_model.objects.create_user("ada", password="attendee-password")
    django_user_model.objects.create_user("bob", password="attendee-password")
    for _ in range(25):  # past both the per-address and the per-account limit
        assert logged_in(first, "ada", "wrong-password").login_response.status_code != 302
    refused = logged_in(second, "ada", "attendee-password").login_response
    assert refused.status_code != 302
    assert re.search(r"too many", refused.text, re.IGNORECASE)
    assert logged_in(second, "bob", "attendee-password").login_response.status_code == 302

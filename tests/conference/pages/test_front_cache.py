"""nginx with deploy/nginx.conf in front of gunicorn: what its micro-cache answers, and what never.

One gunicorn with production settings on a SQLite file of its own (the demo conference, loaded
by manage.py as `make serve` does, so the test runs the same in both legs of CI), and one nginx
running a copy of deploy/nginx.conf with its ports changed, both started once for the module.
Shared pages may be cached for DJANGO_PAGE_SHARED_MAX_AGE seconds, as the app's Cache-Control says.
"""

import os
import re
import shutil
import socket
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

import pytest
import requests

PROJECT = Path(__file__).resolve().parents[3]
CONFIG = PROJECT / "deploy" / "nginx.conf"
# The two lines `make front` rewrites too (Makefile).
LISTEN = "listen 127.0.0.1:8080;"
UPSTREAM = "server 127.0.0.1:8000;"
SHARED_MAX_AGE = 2
SCHEDULE = "/pytorch-eu-2026/schedule/"
ORGANIZER = "front-organizer"
PASSWORD = "front-cache-organizer-password"


def installed_nginx() -> str:
    """Its path: Debian installs it in /usr/sbin, which is not on every user's PATH. Without it
    the tests skip, as the browser tests do without Chromium; under CI=true they fail."""
    if found := shutil.which("nginx") or shutil.which("nginx", path="/usr/sbin"):
        return found
    message = "nginx is not installed (apt-get install nginx)"
    if os.environ.get("CI") == "true":
        pytest.fail(f"{message}: the front cache must be tested in CI.")
    pytest.skip(f"{message}; front cache tests skipped.")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def nginx_config(front_port: int, app_port: int) -> str:
    text = CONFIG.read_text()
    for line in (LISTEN, UPSTREAM):
        if text.count(line) != 1:
            raise AssertionError(
                f"deploy/nginx.conf must hold `{line}` once, as make front expects"
            )
    return text.replace(LISTEN, f"listen 127.0.0.1:{front_port};").replace(
        UPSTREAM, f"server 127.0.0.1:{app_port};"
    )


def log_of(path: Path) -> str:
    return path.read_text(errors="replace") if path.exists() else "(no log)"


def wait_until_answering(url: str, process: subprocess.Popen, log: Path, timeout: float = 60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{process.args[0]} exited:\n{log_of(log)}")
        try:
            requests.get(url, timeout=5, allow_redirects=False)
            return
        except requests.ConnectionError:
            time.sleep(0.05)  # polling for start-up, not waiting for a result
    raise RuntimeError(f"nothing answered {url} within {timeout} s:\n{log_of(log)}")


def stop(process: subprocess.Popen) -> None:
    process.terminate()
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


@dataclass
class Front:
    base: str  # nginx
    folder: Path  # nginx's prefix: its .nginx/ and staticfiles/, and the database
    environment: dict[str, str]
    app_access_log: Path

    def manage(self, *arguments: str, **environment: str) -> str:
        done = subprocess.run(
            [sys.executable, "manage.py", *arguments],
            cwd=PROJECT,
            env={**self.environment, **environment},
            capture_output=True,
            text=True,
            timeout=300,
        )
        if done.returncode:
            raise RuntimeError(f"manage.py {arguments[0]} failed:\n{done.stdout}{done.stderr}")
        return done.stdout


@pytest.fixture(scope="module")
def front(tmp_path_factory):
    nginx = installed_nginx()
    folder = tmp_path_factory.mktemp("front")
    (folder / ".nginx").mkdir()
    front_port, app_port = free_port(), free_port()
    environment = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith("DJANGO_")
        and name not in ("PYTEST_VERSION", "DATABASE_URL", "REDIS_URL")
    }
    environment.update(
        DJANGO_SETTINGS_MODULE="conference.site.settings",
        DJANGO_ENV_FILE=str(folder / "no-env-file"),  # a checkout's .env.local turns debug on
        DJANGO_DEBUG="0",
        DJANGO_SECRET_KEY="front-cache-test-key",
        DJANGO_ALLOWED_HOSTS="127.0.0.1",
        DJANGO_SITE_URL=f"http://127.0.0.1:{front_port}",
        DJANGO_TRUSTED_PROXIES="1",
        DATABASE_URL=f"sqlite:///{folder / 'db.sqlite3'}",
        DJANGO_STATIC_ROOT=str(folder / "staticfiles"),
        DJANGO_MEDIA_ROOT=str(folder / "media"),
        DJANGO_PAGE_SHARED_MAX_AGE=str(SHARED_MAX_AGE),
    )
    front = Front(f"http://127.0.0.1:{front_port}", folder, environment, folder / "app-access.log")

    collecting = subprocess.Popen(  # needs no database: runs beside the migrations
        [sys.executable, "manage.py", "collectstatic", "--no-input", "--verbosity", "0"],
        cwd=PROJECT,
        env=environment,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        front.manage("migrate", "--no-input")
        front.manage(
            "createsuperuser",
            "--no-input",
            f"--username={ORGANIZER}",
            "--email=organizer@example.org",
            DJANGO_SUPERUSER_PASSWORD=PASSWORD,
        )
    finally:
        _, collect_errors = collecting.communicate(timeout=300)
    if collecting.returncode:
        raise RuntimeError(f"collectstatic failed:\n{collect_errors.decode(errors='replace')}")
    front.manage("load_demo", "--port", str(front_port))

    (folder / "nginx.conf").write_text(nginx_config(front_port, app_port))
    app = [sys.executable, "-m", "gunicorn", "conference.site.wsgi", "-w", "1"]
    app += ["-b", f"127.0.0.1:{app_port}", "--access-logfile", str(front.app_access_log)]
    processes = []
    try:
        with open(folder / "app.log", "wb") as log:
            processes.append(
                subprocess.Popen(app, cwd=PROJECT, env=environment, stdout=log, stderr=log)
            )
        wait_until_answering(f"http://127.0.0.1:{app_port}/", processes[-1], folder / "app.log")
        command = [nginx, "-p", str(folder), "-c", "nginx.conf", "-e", "stderr"]
        if os.geteuid() == 0:  # else its workers run as nobody, who cannot enter tmp_path
            command += ["-g", "user root;"]
        with open(folder / "nginx.log", "wb") as log:  # its access log is .nginx/access.log
            processes.append(subprocess.Popen(command, stdout=log, stderr=log))
        wait_until_answering(f"{front.base}/", processes[-1], folder / "nginx.log")
        yield front
    finally:
        for process in reversed(processes):
            stop(process)


def visit_url(front: Front) -> str:
    """The schedule at an address of its own in nginx's cache (the app ignores the parameter)."""
    return f"{front.base}{SCHEDULE}?visit={uuid.uuid4().hex}"


def anonymous_get(url: str) -> requests.Response:
    response = requests.get(url, timeout=30)
    assert response.status_code == 200, url
    return response


def cache_statuses_until_hit(url: str, tries: int = 5) -> list[str | None]:
    """Ask until nginx answers from its cache: on a busy machine an entry may expire between
    two requests (it is fresh for SHARED_MAX_AGE seconds only)."""
    statuses = []
    while len(statuses) < tries and "HIT" not in statuses:
        statuses.append(anonymous_get(url).headers.get("X-Cache-Status"))
    return statuses


@pytest.fixture(scope="module")
def organizer(front):
    """A browser logged in through the site's login form, CSRF token and all."""
    browser = requests.Session()
    login = f"{front.base}/accounts/login/"
    browser.get(login, timeout=30)
    response = browser.post(
        login,
        {
            "username": ORGANIZER,
            "password": PASSWORD,
            "csrfmiddlewaretoken": browser.cookies["csrftoken"],
        },
        headers={"Referer": login},
        allow_redirects=False,
        timeout=30,
    )
    assert response.status_code == 302, response.text
    assert "sessionid" in browser.cookies
    return browser


def test_the_deploy_config_passes_nginx_test(tmp_path):
    nginx = installed_nginx()
    (tmp_path / ".nginx").mkdir()
    checked = subprocess.run(
        [nginx, "-t", "-p", str(tmp_path), "-c", str(CONFIG), "-e", "stderr"],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert checked.returncode == 0, checked.stderr


def test_an_anonymous_repeat_of_the_schedule_is_answered_by_nginx(front):
    url = visit_url(front)
    first = anonymous_get(url)
    later = cache_statuses_until_hit(url)
    assert (first.headers.get("X-Cache-Status"), later[-1]) == ("MISS", "HIT"), (
        f"nginx answered {first.headers.get('X-Cache-Status')}, then {later}; the app sent "
        f"Cache-Control: {first.headers.get('Cache-Control')}"
    )


def test_logged_in_and_staff_pages_are_never_answered_from_the_cache(front, organizer):
    url = visit_url(front)
    for _ in range(2):  # what a logged-in request must not be answered with
        anonymous_get(url)
    statuses = {
        path: [organizer.get(path, timeout=30).headers.get("X-Cache-Status") for _ in range(3)]
        for path in (url, f"{front.base}/admin/")
    }
    assert statuses == {url: ["BYPASS"] * 3, f"{front.base}/admin/": ["BYPASS"] * 3}
    assert "Log out" in organizer.get(url, timeout=30).text


def test_a_page_fetched_logged_in_is_not_stored_for_anonymous_visitors(front, organizer):
    url = visit_url(front)
    for _ in range(2):
        assert organizer.get(url, timeout=30).status_code == 200
    anonymous = anonymous_get(url)
    assert anonymous.headers.get("X-Cache-Status") == "MISS"
    assert "Log out" not in anonymous.text


def test_an_edit_shows_through_the_cache_within_its_max_age(front):
    url = visit_url(front)
    assert cache_statuses_until_hit(url)[-1] == "HIT"  # the page before the edit is cached
    title = f"Retitled behind nginx {uuid.uuid4().hex[:8]}"
    front.manage(
        "shell",
        "--verbosity",
        "0",
        "--command",
        "from sessions.models import Session\n"
        "session = (Session.objects.public().scheduled()\n"
        "    .filter(conference__slug='pytorch-eu-2026').order_by('starts_at', 'pk').first())\n"
        f"session.title = {title!r}\n"
        "session.full_clean()\n"
        "session.save()\n",
    )
    # Fresh for SHARED_MAX_AGE seconds; then one request may still get the old page while nginx
    # fetches the new one in the background; the rest is margin for a busy machine.
    deadline = time.monotonic() + SHARED_MAX_AGE + 10
    while title not in anonymous_get(url).text:
        assert time.monotonic() < deadline, f"“{title}” not shown {SHARED_MAX_AGE + 10} s later"
        time.sleep(0.1)  # polling for the new page, not waiting a fixed time


def test_static_files_are_served_by_nginx_from_the_collected_folder(front):
    page = anonymous_get(f"{front.base}{SCHEDULE}").text
    path = re.search(r"/static/css/site\.[0-9a-f]{12}\.css", page).group()
    response = requests.get(front.base + path, timeout=30)
    assert response.status_code == 200
    assert (
        response.content
        == (front.folder / "staticfiles" / path.removeprefix("/static/")).read_bytes()
    )
    assert response.headers["Cache-Control"] == "public, max-age=31536000, immutable"
    # gunicorn logs each request it answers: once it logged a later one, it never saw this one.
    marker = f"/?after-static={uuid.uuid4().hex}"
    requests.get(front.base + marker, timeout=30, allow_redirects=False)
    deadline = time.monotonic() + 10
    while marker not in log_of(front.app_access_log):
        assert time.monotonic() < deadline, "gunicorn did not log the request after the file"
        time.sleep(0.05)
    assert "/static/" not in log_of(front.app_access_log)

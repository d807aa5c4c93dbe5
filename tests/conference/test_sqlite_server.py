"""`make serve` on SQLite: several gunicorn workers on one database file under a conference's load.

One gunicorn with production settings on a SQLite file of its own, started once for the module,
with five workers of four threads: twenty requests at once, as `make serve`'s workers take them
on a machine with ten cores. Parallel writes that break a rule get the same 400 as on PostgreSQL,
never "database is locked"; reads answer while an import writes. The server's database is not
the suite's, so the SQLite leg of CI runs this alone.
"""

import os
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

import pytest
import requests
from django.db import connection

PROJECT = Path(__file__).resolve().parents[2]
SCHEDULE = PROJECT / "tests" / "data" / "schedules" / "39c3-himmel.schedule.json"

pytestmark = pytest.mark.skipif(
    connection.vendor != "sqlite", reason="the server runs on SQLite: the SQLite leg tests it"
)

ANONYMOUS_READS_A_MINUTE = 3
SETUP = """
import datetime
from conference.models import ApiToken
from django.contrib.auth import get_user_model
from tests.builders import make_conference, make_room

make_room(make_conference(slug="pycon"), name="Hall", slug="hall")
make_conference(
    slug="39c3",
    starts_on=datetime.date(2025, 12, 27),
    ends_on=datetime.date(2025, 12, 30),
    time_zone="Europe/Berlin",
)
organizer = get_user_model().objects.create_superuser("organizer", "o@example.org", None)
print(ApiToken.objects.create(user=organizer, scope="write").key)
"""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@dataclass
class Server:
    base: str
    database: Path
    environment: dict[str, str]
    token: str
    log: Path

    def manage(self, *arguments: str, **options) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "manage.py", *arguments],
            cwd=PROJECT,
            env=self.environment,
            capture_output=True,
            text=True,
            timeout=300,
            **options,
        )


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("sqlite-server")
    port = free_port()
    # Production settings, except plain static names, which need no collectstatic manifest.
    (folder / "sqlite_server_settings.py").write_text(
        "from conference.site.settings import *  # noqa: F403\n\n"
        "STORAGES = {**STORAGES, 'staticfiles': "
        "{'BACKEND': 'django.contrib.staticfiles.storage.StaticFilesStorage'}}\n"
    )
    environment = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith("DJANGO_")
        and name not in ("PYTEST_VERSION", "DATABASE_URL", "REDIS_URL")
    }
    environment.update(
        DJANGO_SETTINGS_MODULE="sqlite_server_settings",
        PYTHONPATH=f"{folder}{os.pathsep}{PROJECT}",
        DJANGO_ENV_FILE=str(folder / "no-env-file"),  # a checkout's .env.local turns debug on
        DJANGO_DEBUG="0",
        DJANGO_SECRET_KEY="sqlite-server-test-key",
        DJANGO_ALLOWED_HOSTS="127.0.0.1",
        DATABASE_URL=f"sqlite:///{folder / 'db.sqlite3'}",
        DJANGO_MEDIA_ROOT=str(folder / "media"),
        # Every request counts towards its throttle: the organizer's are never refused here,
        # anonymous ones past the third in a minute are (the only anonymous API reads are one
        # test's).
        DJANGO_API_ANON_RATE=f"{ANONYMOUS_READS_A_MINUTE}/minute",
        DJANGO_API_USER_RATE="100000/minute",
    )
    server = Server(
        f"http://127.0.0.1:{port}", folder / "db.sqlite3", environment, "", folder / "app.log"
    )
    for arguments in (["migrate", "--no-input"], ["shell", "-c", SETUP]):
        done = server.manage(*arguments)
        assert done.returncode == 0, done.stdout + done.stderr
    server.token = done.stdout.split()[-1]  # after what the shell says it imported

    command = [sys.executable, "-m", "gunicorn", "conference.site.wsgi", "--workers", "5"]
    command += ["--threads", "4", "--bind", f"127.0.0.1:{port}", "--graceful-timeout", "5"]
    with open(server.log, "wb") as log:
        process = subprocess.Popen(command, cwd=PROJECT, env=environment, stdout=log, stderr=log)
    try:
        deadline = time.monotonic() + 60
        while True:
            assert process.poll() is None, server.log.read_text(errors="replace")
            assert time.monotonic() < deadline, server.log.read_text(errors="replace")
            try:
                requests.get(f"{server.base}/accounts/login/", timeout=5)  # not throttled
                break
            except (requests.ConnectionError, requests.Timeout):  # workers still starting
                time.sleep(0.05)  # polling for start-up, not waiting for a result
        yield server
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def test_of_twenty_parallel_bookings_of_one_room_and_time_one_wins_and_the_rest_get_400(server):
    start = threading.Barrier(20)

    def book(number):
        body = {
            "slug": f"contender-{number}",
            "title": f"Contender {number}",
            "kind": "talk",
            "status": "published",
            "room": "hall",
            "starts_at": "2026-04-08T10:00:00+02:00",
            "ends_at": "2026-04-08T10:45:00+02:00",
        }
        start.wait()
        return requests.post(
            f"{server.base}/api/v1/conferences/pycon/sessions/",
            json=body,
            headers={"Authorization": f"Token {server.token}"},
            timeout=60,
        )

    with ThreadPoolExecutor(20) as pool:
        answers = list(pool.map(book, range(20)))

    assert sorted(answer.status_code for answer in answers) == [201] + [400] * 19, [
        answer.text for answer in answers if answer.status_code != 400
    ]
    refusals = [answer.json() for answer in answers if answer.status_code == 400]
    assert all("already hosts" in refusal["room"][0] for refusal in refusals), refusals


def test_api_reads_answer_and_are_counted_while_a_long_write_holds_the_database(server):
    answers = []
    # A large write in SQLite's default journal mode takes this lock once its changes outgrow
    # the page cache and keeps it until it commits: an import does, for its whole length.
    with closing(sqlite3.connect(server.database, isolation_level=None)) as writer:
        writer.execute("BEGIN EXCLUSIVE")
        writer.execute("UPDATE conference_conference SET name = name || ' (importing)'")
        while len(answers) <= ANONYMOUS_READS_A_MINUTE:
            answers.append(
                requests.get(f"{server.base}/api/v1/conferences/pycon/rooms/", timeout=60)
            )
            if answers[-1].status_code != 200:
                break
        writer.execute("ROLLBACK")

    assert [answer.status_code for answer in answers] == [200] * ANONYMOUS_READS_A_MINUTE + [429], (
        answers[-1].text
    )
    assert [room["slug"] for room in answers[0].json()["results"]] == ["hall"]


def writer_is_busy(database: Path) -> bool:
    """Whether a transaction is writing to ``database`` now: its write lock is taken."""
    with closing(sqlite3.connect(database, timeout=0, isolation_level=None)) as probe:
        try:
            probe.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError:
            return True
        probe.execute("ROLLBACK")
        return False


def test_api_reads_answer_while_an_import_writes(server):
    importing = subprocess.Popen(
        [sys.executable, "manage.py", "import_schedule", str(SCHEDULE), "--conference", "39c3"],
        cwd=PROJECT,
        env=server.environment,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    answers_during_the_import = []
    while importing.poll() is None:
        if writer_is_busy(server.database):
            answer = requests.get(
                f"{server.base}/api/v1/conferences/39c3/sessions/",
                headers={"Authorization": f"Token {server.token}"},
                timeout=60,
            )
            answers_during_the_import.append(answer.status_code)
        else:
            time.sleep(0.02)  # polling for the import's write transaction, not for a result
    output = importing.communicate()[0].decode()

    assert importing.returncode == 0, output
    assert answers_during_the_import, "no read happened while the import held the write lock"
    assert set(answers_during_the_import) == {200}, answers_during_the_import


def test_checking_an_import_never_takes_the_write_lock(server):
    """A check (a dry run) writes into a copy of the database: it runs to the end while another
    process holds the live file's write lock, where a write would wait, then fail."""
    with closing(sqlite3.connect(server.database, isolation_level=None)) as writer:
        writer.execute("BEGIN IMMEDIATE")
        checked = server.manage(
            "import_schedule", str(SCHEDULE), "--conference", "39c3", "--dry-run"
        )
        writer.execute("ROLLBACK")

    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "dry run" in (checked.stdout + checked.stderr).lower()

"""Logins beside the check of a large import, on SQLite under gunicorn as `make serve` runs it.

A fresh SQLite file in a temporary folder gets a conference, 20 attendee accounts and gunicorn
(5 workers of 4 threads, production settings). A second process then checks (dry run) a
3,000-row CSV into the conference, as the admin's import page does for a large file, while 20
attendees log in over and over until the check ends. Reported: how long the check took, and the
logins' answers (302 is a login; 503 asks to retry; a 500 is the defect) and times.

    .venv/bin/python bench/import_check_logins.py                  # this checkout
    .venv/bin/python bench/import_check_logins.py --project /tmp/old-checkout   # another one

Results are printed and appended to bench/results/import_check_logins.md with the command.
"""

import argparse
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parent.parent
ATTENDEES = 20
ROOMS = 20
CHECK = ["--conference", "bench", "--dry-run"]
SETUP = """
import datetime
from django.contrib.auth import get_user_model
from conference.models import Conference
Conference.objects.create(
    slug="bench", name="Bench", starts_on=datetime.date(2026, 4, 8),
    ends_on=datetime.date(2026, 4, 10), time_zone="Europe/Paris",
)
User = get_user_model()
for number in range({attendees}):
    User.objects.create_user(f"attendee{{number}}", f"a{{number}}@example.org", "bench-password-1")
"""


def csv_rows(count: int) -> str:
    """``count`` sessions in ROOMS rooms over three days, 15 minutes each, a speaker each."""
    lines = ["id,title,kind,room,date,start,duration,speakers,description"]
    per_room_and_day = -(-count // (ROOMS * 3))
    for number in range(count):
        slot, rest = divmod(number, ROOMS * 3)
        day, room = divmod(rest, ROOMS)
        minutes = 8 * 60 + slot * 15
        assert slot < per_room_and_day
        lines.append(
            f"s{number},Session {number},talk,Room {room},2026-04-{8 + day:02d},"
            f"{minutes // 60:02d}:{minutes % 60:02d},15,Speaker {number % 1500},"
            f"About session {number}."
        )
    return "\n".join(lines) + "\n"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def log_in(base: str, number: int) -> tuple[int, float]:
    started = time.monotonic()
    with requests.Session() as browser:
        form = browser.get(f"{base}/accounts/login/", timeout=120)
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form.text)
        answer = browser.post(
            f"{base}/accounts/login/",
            data={
                "csrfmiddlewaretoken": token.group(1) if token else "",
                "username": f"attendee{number}",
                "password": "bench-password-1",
            },
            headers={"Referer": f"{base}/accounts/login/"},
            allow_redirects=False,
            timeout=120,
        )
    return answer.status_code, time.monotonic() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--project", type=Path, default=ROOT, help="the checkout to run")
    parser.add_argument("--rows", type=int, default=3000)
    parser.add_argument(
        "--pause",
        type=float,
        default=0,
        help="seconds each attendee waits between logins (0: none; on two cores twenty "
        "attendees hashing passwords without a pause leave the check little CPU)",
    )
    arguments = parser.parse_args()
    # Stopped by SIGTERM, still stop gunicorn and the check (the finally blocks below).
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    project = arguments.project.resolve()

    with tempfile.TemporaryDirectory(prefix="bench-check-logins-") as folder:
        folder = Path(folder)
        (folder / "bench_check_settings.py").write_text(
            "from conference.site.settings import *  # noqa: F403\n\n"
            "STORAGES = {**STORAGES, 'staticfiles': "
            "{'BACKEND': 'django.contrib.staticfiles.storage.StaticFilesStorage'}}\n"
        )
        environment = {
            name: value
            for name, value in os.environ.items()
            if not name.startswith("DJANGO_") and name not in ("DATABASE_URL", "REDIS_URL")
        }
        environment.update(
            DJANGO_SETTINGS_MODULE="bench_check_settings",
            PYTHONPATH=f"{folder}{os.pathsep}{project}",
            DJANGO_ENV_FILE=str(folder / "no-env-file"),
            DJANGO_DEBUG="0",
            DJANGO_SECRET_KEY="bench-check-logins",
            DJANGO_ALLOWED_HOSTS="127.0.0.1",
            DATABASE_URL=f"sqlite:///{folder / 'db.sqlite3'}",
            DJANGO_MEDIA_ROOT=str(folder / "media"),
        )

        def manage(*command: str) -> subprocess.CompletedProcess:
            done = subprocess.run(
                [sys.executable, "manage.py", *command],
                cwd=project,
                env=environment,
                capture_output=True,
                text=True,
            )
            assert done.returncode == 0, done.stdout + done.stderr
            return done

        manage("migrate", "--no-input")
        manage("shell", "-c", SETUP.format(attendees=ATTENDEES))
        schedule = folder / "schedule.csv"
        schedule.write_text(csv_rows(arguments.rows))

        port = free_port()
        base = f"http://127.0.0.1:{port}"
        command = [sys.executable, "-m", "gunicorn", "conference.site.wsgi", "--workers", "5"]
        command += ["--threads", "4", "--bind", f"127.0.0.1:{port}", "--timeout", "120"]
        log = open(folder / "gunicorn.log", "wb")  # noqa: SIM115 - closed below
        server = subprocess.Popen(command, cwd=project, env=environment, stdout=log, stderr=log)
        try:
            while True:
                try:
                    requests.get(f"{base}/accounts/login/", timeout=30)
                    break
                except (requests.ConnectionError, requests.Timeout):
                    assert server.poll() is None, (folder / "gunicorn.log").read_text()
                    time.sleep(0.1)  # polling for start-up

            check_started = time.monotonic()
            check = subprocess.Popen(
                [sys.executable, "manage.py", "import_schedule", str(schedule), *CHECK],
                cwd=project,
                env=environment,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
            )
            answers: list[tuple[int, float]] = []
            lock = threading.Lock()
            checked = threading.Event()

            def attendee(number: int) -> None:
                while not checked.is_set():
                    answer = log_in(base, number)
                    with lock:
                        answers.append(answer)
                    checked.wait(arguments.pause)

            threads = [threading.Thread(target=attendee, args=(n,)) for n in range(ATTENDEES)]
            for thread in threads:
                thread.start()
            try:
                output = check.communicate()[0].decode()
            finally:
                check_seconds = time.monotonic() - check_started
                checked.set()
                if check.poll() is None:
                    check.terminate()
            for thread in threads:
                thread.join()
        finally:
            server.terminate()
            server.wait()
            log.close()

    statuses = Counter(status for status, _ in answers)
    times = sorted(seconds for _, seconds in answers)
    tail = output.strip().splitlines()[-1] if output.strip() else ""
    report = [
        f"## {datetime.now(UTC):%Y-%m-%d %H:%M} UTC, {project}",
        "",
        f"`{' '.join([Path(sys.executable).name, *sys.argv])}`",
        "",
        f"- check (dry run) of {arguments.rows} CSV rows: {check_seconds:.1f} s, exit "
        f"{check.returncode} ({tail[:120]})",
        f"- {len(answers)} logins by {ATTENDEES} attendees meanwhile"
        f" (each pausing {arguments.pause:g} s between logins): "
        + ", ".join(f"{count} × {status}" for status, count in sorted(statuses.items())),
        f"- login time: median {statistics.median(times):.2f} s, "
        f"95th percentile {times[int(len(times) * 0.95) - 1]:.2f} s, max {times[-1]:.2f} s"
        if times
        else "- no login",
        "",
    ]
    print("\n".join(report))
    results = ROOT / "bench" / "results" / "import_check_logins.md"
    if not results.exists():
        results.write_text("# Logins beside an import's check (bench/import_check_logins.py)\n\n")
    with results.open("a") as file:
        file.write("\n".join(report) + "\n")


if __name__ == "__main__":
    main()

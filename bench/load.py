"""Load test: the schedule page and the my-schedule save endpoint under gunicorn, with wrk.

A bounded run against 127.0.0.1 only. It builds a fresh database (PostgreSQL: the
``confsched_load`` database on the server of DATABASE_URL, or on 127.0.0.1:5432 when unset; saves
from many workers at once are what PostgreSQL is for), loads the demo conference, creates
attendees with logged-in sessions and CSRF cookies, and serves the site with gunicorn (DEBUG off,
two workers per core plus one, as `make serve`). Then wrk

1. reads the anonymous schedule page for --seconds, and
2. POSTs "save" for every (attendee, session) pair of a fixed list, over and over, for --seconds.

Afterwards the database must hold exactly one saved row per pair: none lost, none doubled. The
figures go to bench/results/load.md. Needs wrk (apt-get install wrk).
"""

from __future__ import annotations

import argparse
import datetime
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.servers import free_port, wait_until_serving

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results" / "load.md"
DEFAULT_SERVER = "postgres://postgres@127.0.0.1:5432/postgres"
SAVE_SCRIPT = """
local pairs = {}
for line in io.lines(os.getenv("LOAD_PAIRS")) do table.insert(pairs, line) end
local counter = 0
request = function()
  counter = counter + 1
  local cookie, token, path = pairs[(counter % #pairs) + 1]:match("([^|]+)|([^|]+)|([^|]+)")
  return wrk.format("POST", path, {
    ["Cookie"] = cookie, ["X-CSRFToken"] = token,
    ["Content-Type"] = "application/x-www-form-urlencoded"}, "action=save&next=/")
end
"""


def main() -> None:
    args = parse_args()
    if shutil.which("wrk") is None:
        sys.exit("wrk is not installed: apt-get install wrk")
    server = os.environ.get("DATABASE_URL") or DEFAULT_SERVER
    database_url = re.sub(r"/[^/]*$", "/confsched_load", server)
    with tempfile.TemporaryDirectory(prefix="confsched-load-") as work:
        work = Path(work)
        env = environment(database_url, work)
        recreate_database(server)
        manage(env, "migrate", "--no-input", "-v", "0")
        manage(env, "collectstatic", "--no-input", "-v", "0")
        manage(env, "load_demo")
        pairs_file = work / "pairs.txt"
        pair_count = write_attendee_pairs(env, pairs_file, args.attendees, args.sessions_each)
        port = free_port()
        workers = 2 * (os.cpu_count() or 1) + 1
        server_process = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "conference.site.wsgi", "-w", str(workers),
             "-b", f"127.0.0.1:{port}", "--log-level", "warning"],
            cwd=ROOT, env=env,
        )  # fmt: skip
        try:
            wait_until_serving(port, "/pytorch-eu-2026/schedule/")
            schedule = wrk(port, "/pytorch-eu-2026/schedule/", args.seconds, env)
            script = work / "save.lua"
            script.write_text(SAVE_SCRIPT)
            saves = wrk(port, "/", args.seconds, {**env, "LOAD_PAIRS": str(pairs_file)}, script)
        finally:
            server_process.terminate()
            server_process.wait(timeout=30)
        saved_rows = count_saved(env)
    report(args, workers, schedule, saves, pair_count, saved_rows)


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int, default=10, help="length of each wrk run")
    parser.add_argument("--attendees", type=int, default=40)
    parser.add_argument("--sessions-each", type=int, default=5, help="sessions each attendee saves")
    return parser.parse_args()


def environment(database_url: str, work: Path) -> dict[str, str]:
    return {
        **os.environ,
        "DATABASE_URL": database_url,
        "DJANGO_DEBUG": "0",
        "DJANGO_SECRET_KEY": "load-test-only-" + "x" * 40,
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost",
        "DJANGO_STATIC_ROOT": str(work / "static"),
        "DJANGO_CONN_MAX_AGE": "60",
        "PYTHONPATH": str(ROOT),
    }


def recreate_database(server: str) -> None:
    import psycopg

    with psycopg.connect(server.replace("postgres://", "postgresql://"), autocommit=True) as db:
        db.execute("DROP DATABASE IF EXISTS confsched_load")
        db.execute("CREATE DATABASE confsched_load")


def manage(env: dict[str, str], *arguments: str) -> str:
    result = subprocess.run(
        [sys.executable, "manage.py", *arguments],
        cwd=ROOT, env=env, capture_output=True, text=True, check=True,
    )  # fmt: skip
    return result.stdout


ATTENDEES = """
import sys
from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY, get_user_model
from django.contrib.sessions.backends.db import SessionStore
from django.middleware.csrf import _get_new_csrf_string
from sessions.models import Session

attendees, each = int(sys.argv[1]), int(sys.argv[2])
sessions = list(Session.objects.public().filter(conference__slug="pytorch-eu-2026").order_by("starts_at", "pk"))
for number in range(attendees):
    user = get_user_model().objects.create_user(f"load{number}", password=None)
    store = SessionStore()
    store[SESSION_KEY], store[BACKEND_SESSION_KEY] = str(user.pk), "conference.permissions.AccountBackend"
    store[HASH_SESSION_KEY] = user.get_session_auth_hash()
    store.create()
    token = _get_new_csrf_string()
    cookie = f"{settings.SESSION_COOKIE_NAME}={store.session_key}; {settings.CSRF_COOKIE_NAME}={token}"
    for offset in range(each):
        session = sessions[(number + offset * 7) % len(sessions)]
        print(f"{cookie}|{token}|/pytorch-eu-2026/sessions/{session.slug}/save/")
"""


def write_attendee_pairs(env: dict[str, str], path: Path, attendees: int, each: int) -> int:
    script = path.with_suffix(".py")
    script.write_text(ATTENDEES)
    setup = (
        "import django, os, runpy, sys; os.environ.setdefault('DJANGO_SETTINGS_MODULE', "
        "'conference.site.settings'); django.setup(); sys.argv = sys.argv[1:]; "
        "runpy.run_path(sys.argv[0], run_name='__main__')"
    )
    lines = subprocess.run(
        [sys.executable, "-c", setup, str(script), str(attendees), str(each)],
        cwd=ROOT, env=env, capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    path.write_text(lines)
    return len(lines.splitlines())


def wrk(port: int, path: str, seconds: int, env: dict, script: Path | None = None) -> dict:
    command = ["wrk", "-t2", "-c8", f"-d{seconds}s", "--latency"]
    if script:
        command += ["-s", str(script)]
    output = subprocess.run(
        [*command, f"http://127.0.0.1:{port}{path}"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
    socket_errors = re.search(r"Socket errors: (.*)", output)
    return {
        "requests": int(re.search(r"(\d+) requests in", output).group(1)),
        "per_second": float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1)),
        "median": re.search(r"^\s+50%\s+(\S+)", output, re.MULTILINE).group(1),
        "p99": re.search(r"^\s+99%\s+(\S+)", output, re.MULTILINE).group(1),
        "errors": int(errors.group(1)) if errors else 0,
        "socket_errors": socket_errors.group(1) if socket_errors else "none",
    }


def count_saved(env: dict[str, str]) -> int:
    output = manage(
        env, "shell", "--no-imports", "-c",
        "from sessions.models import SavedSession; print(SavedSession.objects.count())",
    )  # fmt: skip
    return int(output.strip().splitlines()[-1])


def report(args, workers: int, schedule: dict, saves: dict, pairs: int, saved_rows: int) -> None:
    verdict = "every save accounted for" if saved_rows == pairs else "MISMATCH"
    lines = [
        "# Load test: latest run",
        "",
        f"{datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC · {os.cpu_count()} cores · "
        f"gunicorn, {workers} sync workers, DEBUG off · PostgreSQL · wrk 2 threads, 8 connections, "
        f"{args.seconds} s per run · demo conference (29 sessions) · `bench/load.py`",
        "",
        "| run | requests | requests/s | median | p99 | non-2xx/3xx | socket errors |",
        "| --- | ---: | ---: | ---: | ---: | ---: | --- |",
    ]
    for name, run in (("schedule page, anonymous (cached)", schedule), ("save, logged in", saves)):
        lines.append(
            f"| {name} | {run['requests']:,} | {run['per_second']:.1f} | {run['median']} | "
            f"{run['p99']} | {run['errors']} | {run['socket_errors']} |"
        )
    lines += [
        "",
        f"{pairs} distinct (attendee, session) pairs were saved {saves['requests']:,} times in all; "
        f"the database holds {saved_rows} saved rows: {verdict}.",
    ]
    RESULTS.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    if schedule["errors"] or saves["errors"] or saved_rows != pairs:
        sys.exit(1)


if __name__ == "__main__":
    main()

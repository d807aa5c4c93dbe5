"""Benchmark the public pages, exports and API of a generated conference at several sizes.

For each size N (30, 300, 1000, 3000, 10000 by default) a child process gets a fresh database (a SQLite
file under a temporary folder, or the database ``<name>_bench`` recreated on the server of
DATABASE_URL when that is set), migrates it, runs ``generate_conference(N)`` and then requests
every page below in-process with Django's test client, with DEBUG off and the local-memory
cache (REDIS_URL is unset):

- uncached: ``cache.clear()`` before every request, no conditional headers;
- cached: the cache is cleared once and the page requested once to warm it, then repeated.

Each page gets 2 warm-up requests, then 15 timed requests (at every size), one more inside
``CaptureQueriesContext`` to count SQL queries, and one more under ``tracemalloc`` for the peak of
memory allocated during the request. Medians and 95th percentiles (interpolated) are reported.

With ``--throughput`` the N=1000 database is also served by gunicorn (``conference.wsgi``, one
sync worker per core, DEBUG off, static files collected into a temporary folder), with the
local-memory cache and then with Redis (skipped, and said, when none answers), and loaded for 5 s
per URL by ``wrk`` (8 connections) or, without wrk, a Python thread pool of 8 keep-alive clients;
a static file served by whitenoise is loaded right before each URL, and the ratio reported. At
N=10000 one gunicorn worker's memory is read after it served every public page and export.

Results go to bench/results/latest.md and latest.json, latest-postgresql.* on PostgreSQL (only
the latest run of each is kept). Traffic goes to 127.0.0.1 only. See bench/README.md.
"""

from __future__ import annotations

import argparse
import datetime
import http.client
import json
import os
import platform
import re
import secrets
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import tracemalloc
import urllib.parse
import warnings
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
SIZES = (30, 300, 1000, 3000, 10000)
QUICK_SIZES = (30, 300)
THROUGHPUT_SIZE = 1000
# The size whose gunicorn worker's memory is read after serving every public page and export.
MEMORY_SIZE = 10000
SLUG = "bench"
SEED = 0
WARM_UPS = 2
# On DATABASE_URL's server the bench works in "<that database>_bench", dropped and made again:
# two clones benchmarking on one server (each with its own database) never drop each other's.
BENCH_DATABASE = (
    f"{urllib.parse.urlparse(os.environ.get('DATABASE_URL', '')).path.strip('/') or 'confsched'}"
    "_bench"
)
LOAD_SECONDS = 5
LOAD_CONNECTIONS = 8
# Redis for the throughput rows with Redis as the page cache; its database is emptied first.
BENCH_REDIS_URL = os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/13")
ATTENDEE = "bench-attendee"
# One throwaway key for the whole run: the attendee logged in by a child stays logged in under
# gunicorn (a session's auth hash is signed with it).
RUN_SECRET_KEY = secrets.token_urlsafe(40)
PLAIN_STATIC = {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}


@dataclass
class Target:
    name: str
    url: str
    optional: bool = False  # a 404 means "not there yet": reported as n/a


def repetitions(size: int) -> int:
    return 15


# The parent: one child process per size, then gunicorn -------------------------------------


def main() -> None:
    args = parse_args()
    if args.child_size:
        measure_size(args.child_size, Path(args.child_output))
        return
    sizes = QUICK_SIZES if args.quick else args.sizes
    started, load_before = time.perf_counter(), os.getloadavg()[0]
    reference_before = reference_loop_ms()
    work = Path(tempfile.mkdtemp(prefix="confsched-bench-"))
    report: dict[str, Any] = {"sizes": [], "throughput": None, "worker_memory": None}
    try:
        for size in sizes:
            database_url = fresh_database(work, size)
            report["sizes"].append(run_child(size, database_url, work))
            if args.throughput and size == THROUGHPUT_SIZE:
                report["throughput"] = measure_throughput(database_url, work, report["sizes"][-1])
            if size == MEMORY_SIZE:
                report["worker_memory"] = measure_worker_memory(
                    database_url, work, report["sizes"][-1]
                )
        if args.throughput and THROUGHPUT_SIZE not in sizes:
            database_url = fresh_database(work, THROUGHPUT_SIZE)
            generated = run_child(THROUGHPUT_SIZE, database_url, work, generate_only=True)
            report["throughput"] = measure_throughput(database_url, work, generated)
    finally:
        shutil.rmtree(work, ignore_errors=True)
        drop_server_database()
    report["environment"] = environment(report, time.perf_counter() - started, load_before)
    report["environment"]["reference_loop_ms"] = [reference_before, reference_loop_ms()]
    write_report(report)


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--sizes",
        type=lambda text: [int(part) for part in text.split(",")],
        default=list(SIZES),
        help="Comma-separated session counts (default 30,300,1000,3000,10000).",
    )
    parser.add_argument("--quick", action="store_true", help="Sizes 30 and 300 only.")
    parser.add_argument(
        "--throughput",
        action="store_true",
        help=f"Also measure requests/second under gunicorn at N={THROUGHPUT_SIZE}.",
    )
    parser.add_argument("--child-size", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--child-output", help=argparse.SUPPRESS)
    return parser.parse_args()


def bench_environment(database_url: str) -> dict[str, str]:
    """Production settings (debug off), a throwaway key, the bench database, no Redis."""
    env = {key: value for key, value in os.environ.items() if key != "REDIS_URL"}
    env.update(
        DJANGO_DEBUG="0",
        DJANGO_SECRET_KEY=RUN_SECRET_KEY,
        DJANGO_ALLOWED_HOSTS="testserver,127.0.0.1,localhost",
        DATABASE_URL=database_url,
        PYTHONPATH=str(ROOT),
    )
    env.pop("DJANGO_SETTINGS_MODULE", None)
    return env


def fresh_database(work: Path, size: int) -> str:
    """A new SQLite file, or BENCH_DATABASE dropped and created on DATABASE_URL's server."""
    server_url = os.environ.get("DATABASE_URL")
    if not server_url:
        return f"sqlite:///{work / f'bench-{size}.sqlite3'}"
    import psycopg

    with psycopg.connect(maintenance_url(server_url), autocommit=True) as connection:
        connection.execute(f"DROP DATABASE IF EXISTS {BENCH_DATABASE} WITH (FORCE)")
        connection.execute(f"CREATE DATABASE {BENCH_DATABASE}")
    return urllib.parse.urlparse(server_url)._replace(path=f"/{BENCH_DATABASE}").geturl()


def maintenance_url(server_url: str) -> str:
    parts = urllib.parse.urlparse(server_url)
    if not parts.scheme.startswith("postgres"):
        raise SystemExit(
            f"DATABASE_URL must be a PostgreSQL URL for the benchmark, not {parts.scheme}."
        )
    return parts._replace(scheme="postgresql", path="/postgres").geturl()


def drop_server_database() -> None:
    if server_url := os.environ.get("DATABASE_URL"):
        import psycopg

        with psycopg.connect(maintenance_url(server_url), autocommit=True) as connection:
            connection.execute(f"DROP DATABASE IF EXISTS {BENCH_DATABASE} WITH (FORCE)")


def run_child(size: int, database_url: str, work: Path, generate_only: bool = False) -> dict:
    output = work / f"result-{size}.json"
    command = [sys.executable, __file__, "--child-size", str(size), "--child-output", str(output)]
    env = bench_environment(database_url)
    if generate_only:
        env["BENCH_GENERATE_ONLY"] = "1"
    subprocess.run(command, env=env, cwd=ROOT, check=True)
    return json.loads(output.read_text())


# The child: one size, in-process -------------------------------------------------------------


def measure_size(size: int, output: Path) -> None:
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "conference.settings")
    # STATIC_ROOT is empty here: whitenoise says so once; pages use plain static names below.
    warnings.filterwarnings("ignore", message="No directory at", category=UserWarning)
    django.setup()
    from django.core.management import call_command
    from django.test.utils import override_settings

    from bench.generator import generate_conference

    result: dict[str, Any] = {"size": size}
    result["migrate_s"] = timed(lambda: call_command("migrate", verbosity=0))[0]
    seconds, conference = timed(lambda: generate_conference(size, seed=SEED, slug=SLUG))
    result.update(generate_s=seconds, rows=row_counts(conference), database=database_info())
    log(f"N={size}: migrated in {result['migrate_s']:.1f} s, generated in {seconds:.2f} s")
    result["public_paths"] = [target.url for target in targets(conference)]
    # Production storage needs collectstatic's manifest; plain names need nothing.
    with override_settings(STORAGES={**django_storages(), "staticfiles": PLAIN_STATIC}):
        result["attendee_cookie"] = attendee_cookie(conference)
        if not os.environ.get("BENCH_GENERATE_ONLY"):
            result["pages"] = [measure_target(target, size) for target in targets(conference)]
            result["pages"] += measure_planner(conference, size)
            result["pages"] += measure_release(conference, size)
            result["pages"] += measure_exports_after_edit(conference, size)
    output.write_text(json.dumps(result))


def attendee_cookie(conference) -> str:
    """The Cookie header of a logged-in attendee who saved ten talks, for the throughput rows.

    Their session is a row in the bench database, so gunicorn's workers find it; the CSRF
    cookie is the one the schedule gave them, as a browser sends it back.
    """
    from django.contrib.auth import get_user_model
    from django.test import Client

    from sessions.models import SavedSession, Session

    user = get_user_model().objects.create_user(ATTENDEE, f"{ATTENDEE}@example.org", None)
    talks = conference.sessions.public().filter(kind=Session.Kind.TALK).order_by("starts_at")
    SavedSession.objects.bulk_create(SavedSession(user=user, session=talk) for talk in talks[:10])
    client = Client()
    client.force_login(user)
    client.get(f"/{conference.slug}/schedule/")
    return "; ".join(f"{name}={morsel.value}" for name, morsel in client.cookies.items())


def django_storages() -> dict:
    from django.conf import settings

    return settings.STORAGES


def timed(action) -> tuple[float, Any]:
    started = time.perf_counter()
    value = action()
    return time.perf_counter() - started, value


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def row_counts(conference) -> dict[str, int]:
    from sessions.models import Attachment, SessionSpeaker

    return {
        "sessions": conference.sessions.count(),
        "speakers": conference.speakers.count(),
        "rooms": conference.rooms.count(),
        "tracks": conference.tracks.count(),
        "days": len(conference.days),
        "speaker_appearances": SessionSpeaker.objects.filter(
            session__conference=conference
        ).count(),
        "attachments": Attachment.objects.filter(session__conference=conference).count(),
    }


def database_info() -> str:
    from django.db import connection

    if connection.vendor == "sqlite":
        import sqlite3

        return f"SQLite {sqlite3.sqlite_version}"
    with connection.cursor() as cursor:
        cursor.execute("SHOW server_version")
        return f"PostgreSQL {cursor.fetchone()[0]}"


def targets(conference) -> list[Target]:
    """Every public page, export and the API list; a talk in mid-conference and its first speaker.

    Paths are spelled out rather than reversed, so they stay those that visitors use.
    """
    from sessions.models import Session
    from speakers.models import Speaker

    talks = Session.objects.filter(conference=conference, kind=Session.Kind.TALK)
    session = talks.order_by("starts_at", "slug")[talks.count() // 2]
    speaker = (
        Speaker.objects.filter(session_links__session=session)
        .order_by("session_links__position")
        .first()
    )
    base = f"/{conference.slug}/"
    return [
        Target("home", base),
        Target("schedule", f"{base}schedule/"),
        Target("grid (first day)", f"{base}schedule/grid/"),
        Target("speakers", f"{base}speakers/"),
        Target("session", f"{base}sessions/{session.slug}/"),
        Target("speaker", f"{base}speakers/{speaker.slug}/"),
        Target("schedule.ics", f"{base}schedule.ics"),
        Target("schedule.xml", f"{base}schedule.xml"),
        Target("schedule.json", f"{base}schedule.json"),
        Target("API sessions", f"/api/v1/conferences/{conference.slug}/sessions/", optional=True),
    ]


def measure_target(target: Target, size: int) -> dict:
    row: dict[str, Any] = asdict(target)
    for mode in ("uncached", "cached"):
        row[mode] = measure_mode(target, cached=mode == "cached", repeat=repetitions(size))
        if row[mode].get("status") != 200:
            break
    summary = row["uncached"]
    if summary["status"] == 200:
        log(
            f"  {target.name:<18} uncached {summary['median_ms']:8.1f} ms "
            f"{summary['queries']:3d} queries | cached {row['cached']['median_ms']:8.1f} ms"
        )
    else:
        log(f"  {target.name:<18} {summary['status']}")
    return row


def measure_mode(target: Target, cached: bool, repeat: int) -> dict:
    from django.test import Client

    from conference.pages.copies import forget_pages

    client = Client(raise_request_exception=False)

    def send():
        if not cached:
            forget_pages()
        return client.get(target.url)

    if cached:
        forget_pages()
    return measure_requests(send, repeat, optional=target.optional)


def measure_requests(send, repeat: int, optional: bool = False) -> dict:
    """Time ``send()`` (a test-client request) as every page is timed: warm-ups, then medians."""

    def get() -> tuple[float, int, int]:
        started = time.perf_counter()
        response = send()
        body = b"".join(response.streaming_content) if response.streaming else response.content
        return time.perf_counter() - started, response.status_code, len(body)

    _, status, size = get()  # warms the cache (and is the first warm-up)
    if status != 200:
        return {"status": "n/a" if status == 404 and optional else f"HTTP {status}"}
    for _ in range(WARM_UPS - 1):
        get()
    times = [get()[0] for _ in range(repeat)]
    return {
        "status": 200,
        "median_ms": statistics.median(times) * 1000,
        "p95_ms": percentile(times, 95) * 1000,
        "queries": count_queries(get),
        "peak_mib": peak_memory(get),
        "bytes": size,
        "repetitions": repeat,
    }


# The organizers' planner: logged in, never cached (the admin sends no-cache) ---------------


def measure_planner(conference, size: int) -> list[dict]:
    """The planner's busiest day, and one move as drag and drop posts it (htmx, accepted).

    The move alternates a talk between its slot and five minutes later, a slot checked free
    first, so every timed request is a saved move with all its checks (version, room and
    speakers, the conference's days) and the undo it keeps in the organizer's session.
    """
    from django.contrib.auth import get_user_model
    from django.test import Client
    from django.urls import reverse

    user = get_user_model().objects.create_superuser("bench-organizer", "", None)
    client = Client(raise_request_exception=False)
    client.force_login(user)
    repeat = repetitions(size)
    day = busiest_day(conference)
    page_url = reverse("admin:schedule_session_planner", args=[conference.pk]) + f"?day={day}"
    rows = [planner_row("planner (busiest day)", page_url, lambda: client.get(page_url), repeat)]
    session, slots = movable_talk(conference)
    move_url = reverse("admin:schedule_session_planner_move", args=[conference.pk, session.pk])
    state = {"version": session.version, "next": 1}

    def move():
        starts_at = slots[state["next"]]
        data = {"version": state["version"], "action": "place", "room": session.room_id}
        response = client.post(
            move_url, {**data, "starts_at": starts_at.isoformat()}, headers={"HX-Request": "true"}
        )
        if response.headers.get("HX-Trigger") == "planner-moved":
            state["version"] += 1
            state["next"] = 1 - state["next"]
        else:
            raise RuntimeError(f"The bench's move was refused: {response.content[:300]!r}")
        return response

    rows.append(planner_row("planner move (POST)", move_url, move, repeat))
    return rows


# Releasing the schedule: the review the organizer confirms, with a fifth of the sessions moved --


def measure_release(conference, size: int) -> list[dict]:
    """The admin's release review after N/5 sessions moved since the previous release.

    The review computes the public schedule's snapshot, the diff against the previous release
    and every change in words, as confirming does before storing it. The sessions move a week
    later by one UPDATE: no move can clash with another session there, even under PostgreSQL's
    exclusion constraint, and the diff does not care where they went.
    """
    from django.contrib.auth import get_user_model
    from django.db.models import F
    from django.test import Client
    from django.urls import reverse

    from sessions.models import Session
    from sessions.releases import changes_between, public_snapshot, release_schedule

    user = get_user_model().objects.get_or_create(
        username="bench-organizer", defaults={"is_staff": True, "is_superuser": True}
    )[0]
    client = Client(raise_request_exception=False)
    client.force_login(user)
    before = release_schedule(conference, version="v1", comment="", user=user)
    public = conference.sessions.public().filter(status=Session.Status.PUBLISHED)
    moving = list(public.order_by("pk").values_list("pk", flat=True)[: size // 5])
    week = datetime.timedelta(days=7)
    Session.objects.filter(pk__in=moving).update(
        starts_at=F("starts_at") + week, ends_at=F("ends_at") + week
    )
    seconds, changes = timed(lambda: changes_between(before.snapshot, public_snapshot(conference)))
    if [change.kind for change in changes] != ["moved"] * len(moving):
        raise RuntimeError(f"The bench expected {len(moving)} moves, the diff has {len(changes)}.")
    log(f"  release diff alone: {len(changes)} moved in {seconds * 1000:.1f} ms")
    url = reverse("admin:schedule_session_release", args=[conference.pk])
    name = f"release review ({len(moving)} moved)"
    return [planner_row(name, url, lambda: client.get(url), repetitions(size))]


# Exports after one edit: only the edited session's part is written again ----------------------


def measure_exports_after_edit(conference, size: int) -> list[dict]:
    """schedule.ics, .xml and .json requested right after one session's title was edited.

    Before each timed request the export is requested once (so it and every session's part are
    cached, as after any earlier visit), then a talk in mid-conference gets a new title by
    ``save()``, as the admin saves it. That moves the conference's content version, so the whole
    export is rebuilt, from the cached parts of the other sessions. Only the request after the
    edit is timed, counted and traced. Target: 60 ms at N=1000.
    """
    from django.core.cache import cache
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    client = Client(raise_request_exception=False)
    public = conference.sessions.public().order_by("starts_at", "pk")
    session = public[public.count() // 2]
    title, edits = session.title, iter(range(1_000_000))

    def get(url):
        response = client.get(url)
        body = b"".join(response.streaming_content) if response.streaming else response.content
        return response.status_code, len(body)

    def after_edit(url, measure):
        get(url)
        session.refresh_from_db()
        session.title = f"{title} (edit {next(edits)})"
        session.save()
        return measure(lambda: get(url))

    def timed_get(request):
        started = time.perf_counter()
        status, length = request()
        return time.perf_counter() - started, status, length

    def queries(request):
        with CaptureQueriesContext(connection) as captured:
            request()
        return len(captured.captured_queries)

    rows = []
    for name in ("schedule.ics", "schedule.xml", "schedule.json"):
        url = f"/{conference.slug}/{name}"
        cache.clear()
        for _ in range(WARM_UPS):
            after_edit(url, timed_get)
        samples = [after_edit(url, timed_get) for _ in range(repetitions(size))]
        times = [seconds for seconds, _, _ in samples]
        summary = {
            "status": samples[-1][1],
            "median_ms": statistics.median(times) * 1000,
            "p95_ms": percentile(times, 95) * 1000,
            "queries": after_edit(url, queries),
            "peak_mib": after_edit(url, peak_memory),
            "bytes": samples[-1][2],
            "repetitions": len(times),
        }
        row_name = f"{name} after one edit"
        log(f"  {row_name:<18} {summary['median_ms']:8.1f} ms {summary['queries']:3d} queries")
        rows.append(
            {
                "name": row_name,
                "url": url,
                "optional": False,
                "uncached": summary,
                "cached": {"status": "n/a"},
            }
        )
    session.title = title
    session.save()
    return rows


def planner_row(name: str, url: str, send, repeat: int) -> dict:
    row = {"name": name, "url": url, "optional": False, "cached": {"status": "n/a"}}
    row["uncached"] = measure_requests(send, repeat)
    summary = row["uncached"]
    if summary["status"] == 200:
        log(f"  {name:<18} {summary['median_ms']:8.1f} ms {summary['queries']:3d} queries")
    else:
        log(f"  {name:<18} {summary['status']}")
    return row


def busiest_day(conference) -> datetime.date:
    from collections import Counter

    from django.utils import timezone

    starts = conference.sessions.placed().values_list("starts_at", flat=True)
    days = Counter(timezone.localtime(start, conference.tz).date() for start in starts)
    return max(sorted(days), key=days.__getitem__)


def movable_talk(conference):
    """A talk in mid-conference that may move five minutes later, and its two start times."""
    from sessions.forms import SessionMoveForm
    from sessions.models import Session

    talks = conference.sessions.filter(kind=Session.Kind.TALK).select_related("conference")
    rooms = list(conference.rooms.all())
    ordered = list(talks.order_by("starts_at", "slug"))
    for session in ordered[len(ordered) // 2 :]:
        later = session.starts_at + datetime.timedelta(minutes=5)
        data = {"version": session.version, "action": "place", "room": session.room_id}
        form = SessionMoveForm({**data, "starts_at": later}, session=session, rooms=rooms)
        if form.is_valid():
            session.refresh_from_db()
            return session, [session.starts_at, later]
    raise RuntimeError("No talk of the generated conference can move five minutes later.")


def percentile(values: list[float], rank: int) -> float:
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[rank - 1]


def count_queries(request) -> int:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as captured:
        request()
    return len(captured.captured_queries)


def peak_memory(request) -> float:
    tracemalloc.start()
    try:
        request()
        return tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()


# Throughput under gunicorn -------------------------------------------------------------------


def measure_throughput(database_url: str, work: Path, generated: dict) -> dict:
    """Requests per second under gunicorn, each page beside a static file in the same minute.

    Every page is loaded right after the static reference (a stylesheet whitenoise serves
    before Django's middleware), first with the local-memory cache, then with Redis when one
    answers at BENCH_REDIS_URL. The logged-in rows send the attendee's session cookie, so their
    personal parts (Save buttons, account links) are filled per request.
    """
    env = served_environment(database_url, work)
    subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--noinput", "--verbosity", "0"],
        env=env,
        cwd=ROOT,
        check=True,
    )
    static_path = static_reference_path(work / "static")
    # As a browser asks: whitenoise then sends the stylesheet's gzip file, and a cached page
    # its compressed copy. One row asks without, to show what compression buys.
    browser = {"Accept-Encoding": "gzip, deflate, br"}
    logged_in = {**browser, "Cookie": generated["attendee_cookie"]}
    targets = [
        ("schedule, anonymous", f"/{SLUG}/schedule/", browser),
        ("schedule, anonymous, uncompressed", f"/{SLUG}/schedule/", {}),
        ("schedule, logged in", f"/{SLUG}/schedule/", logged_in),
        ("schedule.json", f"/{SLUG}/schedule.json", browser),
        ("tracks.css (smallest view)", f"/{SLUG}/tracks.css", browser),
    ]
    tool = "wrk" if shutil.which("wrk") else "python"
    redis_note = redis_unreachable(BENCH_REDIS_URL)
    caches = [("local memory", None)] + ([] if redis_note else [("Redis", BENCH_REDIS_URL)])
    workers = os.cpu_count() or 1
    rows = []
    for cache_name, redis_url in caches:
        served_env = {**env, **({"REDIS_URL": redis_url} if redis_url else {})}
        with Gunicorn(served_env, workers) as port:
            for name, path, headers in targets:
                reference_headers = browser if "Accept-Encoding" in headers else {}
                before = load(tool, port, static_path, reference_headers, work)
                run = load(tool, port, path, headers, work)
                after = load(tool, port, static_path, reference_headers, work)
                # The machine's speed swings within a minute: the reference is the mean of the
                # static file's runs just before and just after.
                static = [before["requests_per_s"], after["requests_per_s"]]
                reference = {"requests_per_s": statistics.mean(static)}
                rows.append(
                    {
                        "name": name,
                        "cache": cache_name,
                        **run,
                        "static_requests_per_s": reference["requests_per_s"],
                        "static_before_after": static,
                        "ratio": run["requests_per_s"] / reference["requests_per_s"],
                        "load_average": round(os.getloadavg()[0], 2),
                        "reference_loop_ms": reference_loop_ms(),
                    }
                )
                log(
                    f"  {cache_name:<12} {name:<26} {run['requests_per_s']:7.0f}/s, static "
                    f"{reference['requests_per_s']:7.0f}/s: {rows[-1]['ratio']:.2f}x"
                )
    return {
        "size": THROUGHPUT_SIZE,
        "workers": workers,
        "connections": LOAD_CONNECTIONS,
        "seconds": LOAD_SECONDS,
        "tool": tool,
        "static_path": static_path,
        "redis": redis_note or f"Redis at {BENCH_REDIS_URL}",
        "rows": rows,
    }


def static_reference_path(static_root: Path) -> str:
    """The hashed address of site.css, as pages link it: a real file whitenoise serves."""
    manifest = json.loads((static_root / "staticfiles.json").read_text())
    return f"/static/{manifest['paths']['css/site.css']}"


def redis_unreachable(url: str) -> str:
    """Why Redis cannot be used for the bench ("" when it answers); its database is emptied."""
    import redis

    try:
        client = redis.Redis.from_url(url, socket_connect_timeout=2)
        client.flushdb()
    except redis.RedisError as error:
        return f"Redis rows skipped: no Redis at {url} ({error})"
    return ""


class Gunicorn:
    """``gunicorn conference.wsgi`` on a free port of 127.0.0.1, stopped on leaving."""

    def __init__(self, env: dict[str, str], workers: int):
        self.env, self.workers, self.port = env, workers, free_port()

    def __enter__(self) -> int:
        command = [sys.executable, "-m", "gunicorn", "conference.wsgi", "-w", str(self.workers)]
        self.server = subprocess.Popen(
            [*command, "-b", f"127.0.0.1:{self.port}", "--log-level", "warning"],
            env=self.env,
            cwd=ROOT,
        )
        try:
            wait_until_serving(self.port, f"/{SLUG}/tracks.css")
        except BaseException:
            self.__exit__()
            raise
        return self.port

    def worker_pids(self) -> list[int]:
        children = Path(f"/proc/{self.server.pid}/task/{self.server.pid}/children")
        return [int(pid) for pid in children.read_text().split()]

    def __exit__(self, *exc_info) -> None:
        self.server.terminate()
        try:
            self.server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.server.kill()
            self.server.wait()


def measure_worker_memory(database_url: str, work: Path, generated: dict) -> dict:
    """One gunicorn worker's resident memory after it served every public page and export.

    One sync worker with the local-memory cache (no Redis), so the pages it cached count too;
    each path is requested twice (rendered, then from the cache).
    """
    env = served_environment(database_url, work)
    if not (work / "static" / "staticfiles.json").exists():
        subprocess.run(
            [sys.executable, "manage.py", "collectstatic", "--noinput", "--verbosity", "0"],
            env=env,
            cwd=ROOT,
            check=True,
        )
    server = Gunicorn(env, workers=1)
    with server as port:
        statuses = {path: fetch(port, path)[0] for path in generated["public_paths"] * 2}
        status = Path(f"/proc/{server.worker_pids()[0]}/status").read_text()
    memory = {
        name: int(re.search(rf"^{name}:\s+(\d+) kB", status, re.MULTILINE)[1]) / 1024
        for name in ("VmRSS", "VmHWM")
    }
    log(f"  worker after every public page: {memory['VmRSS']:.0f} MiB (peak {memory['VmHWM']:.0f})")
    return {
        "size": generated["size"],
        "paths": generated["public_paths"],
        "statuses": statuses,
        "rss_mib": memory["VmRSS"],
        "peak_rss_mib": memory["VmHWM"],
    }


def served_environment(database_url: str, work: Path) -> dict[str, str]:
    """As deployed, except that STATIC_ROOT points into the temporary folder.

    Hashed static names need collectstatic's manifest to render any page, and the project's own
    STATIC_ROOT is shared with everyone working in this tree, so a settings module written to
    the temporary folder imports conference.settings and changes only STATIC_ROOT.
    """
    static_root = work / "static"
    (work / "bench_settings.py").write_text(
        f"from conference.settings import *  # noqa: F403\n\nSTATIC_ROOT = {str(static_root)!r}\n"
    )
    env = bench_environment(database_url)
    env.update(DJANGO_SETTINGS_MODULE="bench_settings", PYTHONPATH=f"{work}{os.pathsep}{ROOT}")
    env.setdefault("DJANGO_CONN_MAX_AGE", "60")  # as make serve runs it
    return env


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_until_serving(port: int, path: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            status, _ = fetch(port, path)
        except OSError:
            time.sleep(0.2)
            continue
        if status == 200:
            return
        raise RuntimeError(f"gunicorn answered {status} for {path}")
    raise RuntimeError(f"gunicorn did not answer on 127.0.0.1:{port} within {timeout} s")


def fetch(port: int, path: str, headers: dict[str, str] | None = None) -> tuple[int, int]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    try:
        connection.request("GET", path, headers=headers or {})
        response = connection.getresponse()
        return response.status, len(response.read())
    finally:
        connection.close()


def load(tool: str, port: int, path: str, headers: dict[str, str], work: Path) -> dict:
    status, size = fetch(port, path, headers)
    if status != 200:
        raise RuntimeError(f"gunicorn answered {status} for {path}")
    run = load_with_wrk if tool == "wrk" else load_with_threads
    run(port, path, headers, work, seconds=1)  # warm-up: every worker loads its caches
    return {
        "path": path,
        "status": status,
        "bytes": size,
        **run(port, path, headers, work, seconds=LOAD_SECONDS),
    }


# wrk prints the 50th and 99th percentiles; this adds the 95th, in microseconds.
WRK_P95_SCRIPT = """done = function(summary, latency, requests)
  io.write(string.format("p95 %d\\n", latency:percentile(95)))
end
"""


def load_with_wrk(port: int, path: str, headers: dict, work: Path, seconds: int) -> dict:
    script = work / "p95.lua"
    script.write_text(WRK_P95_SCRIPT)
    wrk = ["wrk", "-t2", f"-c{LOAD_CONNECTIONS}", f"-d{seconds}s", "--latency", "-s", str(script)]
    for name, value in headers.items():
        wrk += ["-H", f"{name}: {value}"]
    output = subprocess.run(
        [*wrk, f"http://127.0.0.1:{port}{path}"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return {
        "requests_per_s": float(re.search(r"Requests/sec:\s+([\d.]+)", output)[1]),
        "median_ms": wrk_milliseconds(re.search(r"\s50%\s+([\d.]+\w+)", output)[1]),
        "p95_ms": int(re.search(r"^p95 (\d+)", output, re.MULTILINE)[1]) / 1000,
        "requests": int(re.search(r"(\d+) requests in", output)[1]),
        "errors": int(m[1]) if (m := re.search(r"Non-2xx or 3xx responses: (\d+)", output)) else 0,
    }


def wrk_milliseconds(text: str) -> float:
    number, unit = re.fullmatch(r"([\d.]+)(us|ms|s|m)", text).groups()
    return float(number) * {"us": 0.001, "ms": 1, "s": 1000, "m": 60000}[unit]


def load_with_threads(port: int, path: str, headers: dict, work: Path, seconds: int) -> dict:
    """8 clients in threads, each re-using its connection while the server keeps it open."""
    deadline = time.monotonic() + seconds
    latencies: list[float] = []
    errors = 0
    lock = threading.Lock()

    def client() -> None:
        nonlocal errors
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        while time.monotonic() < deadline:
            started = time.perf_counter()
            try:
                connection.request("GET", path, headers=headers)
                response = connection.getresponse()
                response.read()
                ok = response.status == 200
                if response.will_close:
                    connection.close()
            except (OSError, http.client.HTTPException):
                ok = False
                connection.close()
            with lock:
                latencies.append(time.perf_counter() - started)
                errors += not ok
        connection.close()

    started = time.monotonic()
    with ThreadPoolExecutor(LOAD_CONNECTIONS) as pool:
        for _ in range(LOAD_CONNECTIONS):
            pool.submit(client)
    elapsed = time.monotonic() - started
    return {
        "requests_per_s": len(latencies) / elapsed,
        "median_ms": statistics.median(latencies) * 1000,
        "p95_ms": percentile(latencies, 95) * 1000,
        "requests": len(latencies),
        "errors": errors,
    }


# The report ----------------------------------------------------------------------------------


def environment(report: dict, seconds: float, load_before: float) -> dict:
    first = report["sizes"][0] if report["sizes"] else {}
    return {
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "nproc": os.cpu_count(),
        "cpu": cpu_model(),
        "python": platform.python_version(),
        "django": package_version("django"),
        "gunicorn": package_version("gunicorn"),
        "database": first.get("database", "?"),
        "commit": git_commit(),
        "command": " ".join(["bench/run.py", *sys.argv[1:]]),
        "total_s": round(seconds),
        # Other work on the machine slows every figure down: the 1-minute load, before and after.
        "load_average": [round(load_before, 2), round(os.getloadavg()[0], 2)],
    }


def reference_loop_ms() -> float:
    """A fixed pure-Python workload, best of three. A virtual machine's CPU can be a third slower
    from one hour to the next without any load of its own; this says how fast it was."""
    timings = []
    for _ in range(3):
        started = time.perf_counter()
        total = 0
        for number in range(1_000_000):
            total += number * number
        timings.append((time.perf_counter() - started) * 1000)
    return round(min(timings), 1)


def cpu_model() -> str:
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return platform.processor() or "?"
    match = re.search(r"^model name\s*:\s*(.+)$", text, re.MULTILINE)
    return match[1].strip() if match else "?"


def package_version(name: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(name)
    except PackageNotFoundError:
        return "?"


def git_commit() -> str:
    result = subprocess.run(
        ["git", "describe", "--always", "--dirty"], cwd=ROOT, capture_output=True, text=True
    )
    return result.stdout.strip() or "?"


def write_report(report: dict) -> None:
    """latest.md and .json, or latest-postgresql.* on PostgreSQL: one run of each database kept."""
    RESULTS.mkdir(parents=True, exist_ok=True)
    markdown = render_markdown(report)
    name = "latest-postgresql" if os.environ.get("DATABASE_URL") else "latest"
    (RESULTS / f"{name}.md").write_text(markdown)
    (RESULTS / f"{name}.json").write_text(json.dumps(report, indent=2) + "\n")
    print(markdown)
    print(f"Written to {RESULTS / name}.md and {name}.json.")


def render_markdown(report: dict) -> str:
    env = report["environment"]
    lines = [
        "# Benchmark: latest run",
        "",
        f"{env['date']} · {env['nproc']} cores ({env['cpu']}) · Python {env['python']} · "
        f"Django {env['django']} · {env['database']} · commit {env['commit']} · "
        f"`{env['command']}` · {env['total_s']} s in all · load average "
        f"{env['load_average'][0]} before, {env['load_average'][1]} after · reference loop "
        f"{env['reference_loop_ms'][0]} ms before, {env['reference_loop_ms'][1]} ms after "
        "(bench/README.md)",
        "",
        "Columns are explained in bench/README.md. Times are wall-clock milliseconds in-process "
        "(Django test client, DEBUG off, local-memory cache); peak is tracemalloc's peak during "
        "one request.",
        "",
        "## Generated conferences",
        "",
        "| N | days | rooms | tracks | speakers | speaker appearances | attachments | generate s |",
        "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for size in report["sizes"]:
        rows = size["rows"]
        lines.append(
            f"| {size['size']} | {rows['days']} | {rows['rooms']} | {rows['tracks']} | "
            f"{rows['speakers']} | {rows['speaker_appearances']} | {rows['attachments']} | "
            f"{size['generate_s']:.2f} |"
        )
    lines += ["", "## Pages, exports and API", "", *pages_table(report["sizes"])]
    if report["throughput"]:
        lines += ["", *throughput_table(report["throughput"])]
    if report.get("worker_memory"):
        lines += ["", *worker_memory_lines(report["worker_memory"])]
    return "\n".join(lines) + "\n"


def pages_table(sizes: list[dict]) -> list[str]:
    lines = [
        "| N | page | uncached median ms | uncached p95 ms | uncached queries | uncached peak MiB "
        "| cached median ms | cached p95 ms | cached queries | cached peak MiB | bytes |",
        "| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for size in sizes:
        for page in size.get("pages", []):
            uncached, cached = page["uncached"], page.get("cached", {})
            if uncached["status"] != 200:
                cells = [str(uncached["status"]), *[""] * 8, ""]
            else:
                cells = [*mode_cells(uncached), *mode_cells(cached), f"{uncached['bytes']:,}"]
            lines.append(f"| {size['size']} | {page['name']} | {' | '.join(cells)} |")
    return lines


def mode_cells(mode: dict) -> list[str]:
    if mode.get("status") != 200:
        return [str(mode.get("status", "?")), "", "", ""]
    return [
        f"{mode['median_ms']:.1f}",
        f"{mode['p95_ms']:.1f}",
        str(mode["queries"]),
        f"{mode['peak_mib']:.1f}",
    ]


def throughput_table(throughput: dict) -> list[str]:
    lines = [
        f"## Throughput under gunicorn (N={throughput['size']})",
        "",
        f"`gunicorn conference.wsgi -w {throughput['workers']}` (sync workers, DEBUG off, "
        f"persistent database connections), {throughput['connections']} connections for "
        f"{throughput['seconds']} s each with {throughput['tool']} after a 1 s warm-up, on the "
        f"same machine. Each URL is loaded between two runs of the static reference "
        f"`{throughput['static_path']}` (whitenoise); the ratio divides its requests per second "
        "by their mean. "
        f"{throughput['redis']}.",
        "",
        "| cache | URL | requests/s | static requests/s (before, after) | ratio | median ms "
        "| p95 ms | requests "
        "| non-200 | bytes | load | reference loop ms |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for row in throughput["rows"]:
        lines.append(
            f"| {row['cache']} | {row['name']} | {row['requests_per_s']:.0f} | "
            f"{row['static_requests_per_s']:.0f} ({row['static_before_after'][0]:.0f}, "
            f"{row['static_before_after'][1]:.0f}) | {row['ratio']:.2f} | {row['median_ms']:.1f} | "
            f"{row['p95_ms']:.1f} | {row['requests']} | {row['errors']} | {row['bytes']:,} | "
            f"{row['load_average']} | {row['reference_loop_ms']} |"
        )
    return lines


def worker_memory_lines(memory: dict) -> list[str]:
    failed = {path: status for path, status in memory["statuses"].items() if status != 200}
    return [
        f"## Worker memory (N={memory['size']})",
        "",
        f"One gunicorn sync worker (local-memory cache) after serving each of the "
        f"{len(memory['paths'])} public pages and exports twice: **{memory['rss_mib']:.0f} MiB** "
        f"resident (VmRSS), {memory['peak_rss_mib']:.0f} MiB at its peak (VmHWM). "
        + (f"Not 200: {failed}." if failed else "Every answer was 200."),
    ]


if __name__ == "__main__":
    main()

"""The floor under the page targets: what a page of this design costs before it renders anything.

Every cached page reads its conference, whose version keys the page; a logged-in visitor's page
also reads their session and user (Django's auth) and the sessions they saved (its Save buttons).
Views that make exactly those reads, through the pages' own code, and answer five bytes
(bench/floor_urls.py) are measured as the targets are: in-process with the test client, and over
HTTP under gunicorn as `make serve` runs it, between two runs of whitenoise's static file. The
cached schedule is measured beside them in the same run. A target under its floor cannot be met
by rendering less, only by not making those reads.

    .venv/bin/python bench/floor.py                  # SQLite
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/confsched .venv/bin/python bench/floor.py

The conference is run.py's N=1000 one, in a fresh database as run.py makes it. Results go to
bench/results/floor.md, or floor-postgresql.md on PostgreSQL (bench/README.md, "The floor").
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.parse
import warnings
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import BROWSER, ROOT, SEED, SLUG, log, reference_loop_ms
from bench.speed_targets import write_speed_targets

SIZE = 1000
# Many more than a page row's 15: each request is short, and the floor is read to a tenth of a ms.
ROUNDS, EACH = 5, 100
SETTINGS = "bench.floor_settings"
FLOOR = f"/bench-floor/{SLUG}"
SCHEDULE = f"/{SLUG}/schedule/"


def rows() -> list[dict]:
    """Each row: its address, whether the attendee's cookies go with it, and the target it bounds
    (bench/report.py's limits: in-process median ms, and the share of the static file's
    throughput over HTTP)."""
    return [
        {"name": "request handling, no read", "path": f"{FLOOR}/no-read/", "logged_in": False},
        {
            "name": "floor, anonymous: the version read",
            "path": f"{FLOOR}/version/",
            "logged_in": False,
            "target": {"median_ms": 1.0, "ratio": 0.3},
        },
        {"name": "schedule from the cache, anonymous", "path": SCHEDULE, "logged_in": False},
        {
            "name": "floor, logged in: + session, user, saved sessions",
            "path": f"{FLOOR}/personal/",
            "logged_in": True,
            "target": {"median_ms": 3.0, "ratio": 0.15},
        },
        {"name": "schedule from the cache, logged in", "path": SCHEDULE, "logged_in": True},
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        measure_in_process(Path(args.child))
        return
    from bench.run import drop_server_database, fresh_database
    from bench.served import served_environment

    started, reference_before = time.perf_counter(), reference_loop_ms()
    load_before = os.getloadavg()[0]
    work = Path(tempfile.mkdtemp(prefix="confsched-floor-"))
    try:
        env = served_environment(fresh_database(work, SIZE), work)
        env["DJANGO_SETTINGS_MODULE"] = SETTINGS
        output = work / "in-process.json"
        subprocess.run(
            [sys.executable, __file__, "--child", str(output)], env=env, cwd=ROOT, check=True
        )
        result = json.loads(output.read_text())
        measure_served(env, work, result)
    finally:
        shutil.rmtree(work, ignore_errors=True)
        drop_server_database()
    result["environment"] = environment(
        time.perf_counter() - started, load_before, reference_before
    )
    path = (
        ROOT
        / "bench"
        / "results"
        / ("floor-postgresql.md" if os.environ.get("DATABASE_URL") else "floor.md")
    )
    path.write_text(render(result))
    # Every figure, for bench/speed_targets.py's table, which is written again with them.
    path.with_suffix(".json").write_text(json.dumps(result, indent=2) + "\n")
    write_speed_targets()
    log(f"written to {path.relative_to(ROOT)}, {path.with_suffix('.json').name} and speed-targets")


def measure_in_process(output: Path) -> None:
    """The child, on the fresh database: migrate, generate, then every row with the test client
    (the schedule rows from the cache, filled by their first request).

    The rows take turns, ROUNDS times EACH requests: the machine's speed drifts within a minute,
    and a floor measured in a faster minute than its page would say less than it should.
    """
    import django

    # STATIC_ROOT is empty here: whitenoise says so once; pages use plain static names below.
    warnings.filterwarnings("ignore", message="No directory at", category=UserWarning)
    django.setup()
    from django.conf import settings
    from django.core.management import call_command
    from django.test.utils import override_settings

    from bench.common import summary_ms
    from bench.generator import generate_conference
    from bench.in_process import (
        PLAIN_STATIC,
        Page,
        attendee_cookie,
        count_queries,
        database_info,
        page_client,
    )

    call_command("migrate", verbosity=0)
    conference = generate_conference(SIZE, seed=SEED, slug=SLUG)
    result = {"size": SIZE, "database": database_info(), "rows": rows()}
    with override_settings(STORAGES={**settings.STORAGES, "staticfiles": PLAIN_STATIC}):
        result["cookie"] = cookie = attendee_cookie(conference)
        requests, samples = [], [[] for _ in result["rows"]]
        for row in result["rows"]:
            cookies = cookie if row["logged_in"] else ""
            client = page_client(Page(row["name"], row["path"], cookie=cookies, headers=BROWSER))
            requests.append(partial(ok_response, client, row["path"]))
            requests[-1]()  # fills the cache for the schedule rows
        for _ in range(ROUNDS):
            for request, times in zip(requests, samples, strict=True):
                times.extend(timed(request) for _ in range(EACH))
        for row, request, times in zip(result["rows"], requests, samples, strict=True):
            row["in_process"] = {
                **summary_ms(times),
                "queries": count_queries(request),
                "repetitions": len(times),
            }
            log(f"  {row['name']:<52} {row['in_process']['median_ms']:6.2f} ms in-process")
    output.write_text(json.dumps(result))


def ok_response(client, path: str):
    response = client.get(path)
    if response.status_code != 200:
        raise RuntimeError(f"{path} answered {response.status_code}")
    return response.content


def timed(request) -> float:
    started = time.perf_counter()
    request()
    return time.perf_counter() - started


def measure_served(env: dict[str, str], work: Path, result: dict) -> None:
    """Every row's throughput under gunicorn (`make serve`'s workers, each worker's local memory
    as the page cache), between two runs of the static file."""
    from bench.served import collect_static, static_reference_path, throughput_row
    from bench.servers import Gunicorn, served_workers

    collect_static(env)
    static = static_reference_path(work / "staticfiles")
    logged_in = {**BROWSER, "Cookie": result["cookie"]}
    result["workers"] = served_workers()
    with Gunicorn(env, served_workers()) as app:
        for row in result["rows"]:
            headers = logged_in if row["logged_in"] else BROWSER
            row["served"] = throughput_row(
                "gunicorn", app.port, row["name"], row["path"], headers, BROWSER, static, work,
                "local memory",
            )  # fmt: skip


def environment(seconds: float, load_before: float, reference_before: float) -> dict:
    from bench.run import cpu_model, git_commit, package_version

    command = shlex.join([".venv/bin/python", "bench/floor.py"])
    if url := os.environ.get("DATABASE_URL"):
        parts = urllib.parse.urlparse(url)
        if parts.password:  # left out of the report, as run.py's command_line() does
            parts = parts._replace(netloc=parts.netloc.replace(f":{parts.password}@", ":PASSWORD@"))
        command = f"DATABASE_URL={parts.geturl()} {command}"
    return {
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "cpu": cpu_model(),
        "nproc": os.cpu_count(),
        "django": package_version("django"),
        "commit": git_commit(),
        "command": command,
        "seconds": round(seconds),
        "load_average": [round(load_before, 2), round(os.getloadavg()[0], 2)],
        "reference_loop_ms": [reference_before, reference_loop_ms()],
    }


def render(result: dict) -> str:
    env = result["environment"]
    lines = [
        "# The floor under the page targets",
        "",
        f"`{env['command']}` · {env['date']} · {env['nproc']} cores ({env['cpu']}) · "
        f"Django {env['django']} · {result['database']} · commit {env['commit']} · "
        f"{env['seconds']} s · load average {env['load_average'][0]} before, "
        f"{env['load_average'][1]} after · reference loop {env['reference_loop_ms'][0]} ms "
        f"before, {env['reference_loop_ms'][1]} ms after (bench/README.md)",
        "",
        f"N={result['size']}. In-process: the median of {ROUNDS * EACH} requests with the test "
        f"client, the rows taking turns {ROUNDS} times, each asking as browsers do "
        "(`Accept-Encoding: gzip, deflate, br`). Over HTTP: gunicorn with "
        f"{result['workers']} workers, each worker's local memory as the page cache; requests per "
        "second against the mean of whitenoise's static file (site.css) just before and after. "
        "What each row reads: bench/floor_urls.py; why: bench/README.md, “The floor”.",
        "",
        "| row | in-process median ms | queries | over HTTP | × static file | target | "
        "the floor against it |",
        "| --- | ---: | ---: | ---: | ---: | --- | --- |",
    ]
    for row in result["rows"]:
        local, served = row["in_process"], row["served"]
        target = row.get("target")
        lines.append(
            f"| {row['name']} | {local['median_ms']:.2f} | {local['queries']} | "
            f"{served['requests_per_s']:,.0f}/s | {served['ratio']:.3f}× | "
            f"{target_cell(target)} | {verdict(row)} |"
        )
    return "\n".join(lines) + "\n"


def target_cell(target: dict | None) -> str:
    if not target:
        return ""
    return f"≤ {target['median_ms']:g} ms; ≥ {target['ratio']:g}×"


def verdict(row: dict) -> str:
    """Whether the floor leaves room under each target: a floor over its limit means no page
    making these reads can meet it."""
    target = row.get("target")
    if not target:
        return ""
    time_ok = row["in_process"]["median_ms"] <= target["median_ms"]
    ratio_ok = row["served"]["ratio"] >= target["ratio"]
    return (
        f"time: {'under' if time_ok else '**over**'} the limit; "
        f"throughput: {'within' if ratio_ok else '**below**'} it"
    )


if __name__ == "__main__":
    main()

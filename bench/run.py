"""Benchmark the public pages, exports and API of a generated conference at several sizes.

For each size N (30, 300, 1000, 3000, 10000 by default) a child process gets a fresh database (a
SQLite file under a temporary folder, or the database ``<name>_bench`` recreated on the server of
DATABASE_URL when that is set), migrates it, generates the conference and requests every page
in-process with Django's test client, uncached and from the cache (bench/in_process.py).

With ``--http`` (``make bench``) the N=1000 database is also served as `make serve` serves it,
alone and behind nginx with deploy/nginx.conf, with each worker's local memory and then Redis as
the page cache: pages after an edit, pages from the cache one request at a time, and throughput
beside a static file (bench/served.py). At N=10000 one gunicorn worker's memory is read after it
served every public page and export.

Results go to bench/results/latest.md and latest.json, latest-postgresql.* on PostgreSQL, with
each target marked met or missed (bench/report.py). Traffic goes to 127.0.0.1 only. See
bench/README.md.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.parse
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import ROOT, bench_environment, reference_loop_ms

SIZES = (30, 300, 1000, 3000, 10000)
QUICK_SIZES = (30, 300)
# The size served over HTTP, that of the targets.
SERVED_SIZE = 1000
# The size whose gunicorn worker's memory is read after serving every public page and export.
MEMORY_SIZE = 10000
# On DATABASE_URL's server the bench works in "<that database>_bench", dropped and made again:
# two clones benchmarking on one server (each with its own database) never drop each other's.
BENCH_DATABASE = (
    f"{urllib.parse.urlparse(os.environ.get('DATABASE_URL', '')).path.strip('/') or 'confsched'}"
    "_bench"
)

# The parent: one child process per size, then the served setup ------------------------------


def main() -> None:
    args = parse_args()
    if args.child_size:
        from bench.in_process import measure_size

        measure_size(args.child_size, Path(args.child_output))
        return
    if args.child_served:
        from bench.served import measure_served_child

        measure_served_child(Path(args.child_served))
        return
    from bench.report import write_report
    from bench.served import measure_served, measure_worker_memory

    sizes = QUICK_SIZES if args.quick else args.sizes
    started, load_before = time.perf_counter(), os.getloadavg()[0]
    reference_before = reference_loop_ms()
    work = Path(tempfile.mkdtemp(prefix="confsched-bench-"))
    report: dict[str, Any] = {"sizes": [], "served": None, "worker_memory": None}
    try:
        for size in sizes:
            database_url = fresh_database(work, size)
            report["sizes"].append(run_child(size, database_url, work))
            if args.http and size == SERVED_SIZE:
                report["served"] = measure_served(database_url, work, report["sizes"][-1])
            if size == MEMORY_SIZE:
                report["worker_memory"] = measure_worker_memory(
                    database_url, work, report["sizes"][-1]
                )
        if args.http and SERVED_SIZE not in sizes:
            database_url = fresh_database(work, SERVED_SIZE)
            generated = run_child(SERVED_SIZE, database_url, work, generate_only=True)
            report["served"] = measure_served(database_url, work, generated)
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
        "--http",
        "--throughput",
        action="store_true",
        help=f"Also serve N={SERVED_SIZE} with gunicorn (and nginx) and measure over HTTP.",
    )
    parser.add_argument("--child-size", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--child-output", help=argparse.SUPPRESS)
    parser.add_argument("--child-served", help=argparse.SUPPRESS)
    return parser.parse_args()


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


# What the report says of the run ---------------------------------------------------------------


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
        "command": command_line(),
        "total_s": round(seconds),
        # Other work on the machine slows every figure down: the 1-minute load, before and after.
        "load_average": [round(load_before, 2), round(os.getloadavg()[0], 2)],
    }


def command_line() -> str:
    """The command that made the run, as it can be typed again (a password in DATABASE_URL
    left out); prefixed with `make bench` when make ran it."""
    words = [".venv/bin/python", "bench/run.py", *sys.argv[1:]]
    if url := os.environ.get("DATABASE_URL"):
        parts = urllib.parse.urlparse(url)
        if parts.password:
            parts = parts._replace(netloc=parts.netloc.replace(f":{parts.password}@", ":PASSWORD@"))
        words.insert(0, f"DATABASE_URL={parts.geturl()}")
    command = shlex.join(words)
    return f"make bench → {command}" if os.environ.get("MAKELEVEL") else command


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


if __name__ == "__main__":
    main()

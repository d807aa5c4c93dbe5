"""Benchmark importing a schedule: a generated conference exported as schedule.json, imported.

For each size N (1000 by default) a child process gets a fresh database (a SQLite file in a
temporary folder, or ``confsched_bench`` on DATABASE_URL's server, as bench/run.py does),
migrates it and runs ``generate_conference(N)``; the conference is exported as schedule.json
(``build_frab_data``, what our own export serves) and imported, with ``import_schedule``, into a
new empty conference of the same days and zone: every room, track, speaker and session created
through full_clean(), as the command and the admin's import page do. Then the same file is
imported again over it (a re-import: everything matched, nothing changed).

Reported per import: wall time, SQL queries, and the child process's peak resident memory
(``ru_maxrss``, the whole process: Python, Django, the database driver and the file). Target:
a 1,000-session file in under 5 s and under 300 MB on SQLite.

    .venv/bin/python bench/import_schedule.py                 # N = 1000
    .venv/bin/python bench/import_schedule.py --sizes 186,1000,3000 --profile

Results are printed and written to bench/results/import.md (with the reference loop and the
load average before and after).
"""

import argparse
import io
import json
import os
import resource
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.common import reference_loop_ms  # noqa: E402
from bench.run import drop_server_database, fresh_database  # noqa: E402

RESULTS = ROOT / "bench" / "results" / "import.md"
TARGET_SECONDS, TARGET_MIB = 5.0, 300


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--sizes", type=lambda text: [int(part) for part in text.split(",")], default=[1000]
    )
    parser.add_argument("--profile", action="store_true", help="cProfile the first import.")
    parser.add_argument("--child-size", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--child-output", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child_size:
        measure(args.child_size, args.profile, Path(args.child_output))
        return
    # The VM's speed swings with its neighbours' load: 50 ms in a fast hour (bench/README.md).
    started_at = datetime.now(UTC)
    reference_before, load_before = reference_loop_ms(), os.getloadavg()[0]
    print(f"reference loop {reference_before} ms", flush=True)
    work = Path(tempfile.mkdtemp(prefix="confsched-import-bench-"))
    rows = []
    try:
        for size in args.sizes:
            output = work / f"result-{size}.json"
            env = {key: value for key, value in os.environ.items() if key != "REDIS_URL"}
            env.update(
                DJANGO_DEBUG="0",
                DJANGO_SECRET_KEY=secrets.token_urlsafe(40),
                DATABASE_URL=fresh_database(work, size),
                PYTHONPATH=str(ROOT),
            )
            command = [sys.executable, __file__, "--child-size", str(size)]
            command += ["--child-output", str(output)]
            if args.profile:
                command.append("--profile")
            subprocess.run(command, env=env, cwd=ROOT, check=True)
            rows += json.loads(output.read_text())
    finally:
        shutil.rmtree(work, ignore_errors=True)
        drop_server_database()
    reference_after, load_after = reference_loop_ms(), os.getloadavg()[0]
    print(f"reference loop {reference_after} ms", flush=True)
    environment = {
        "started_at": started_at.strftime("%Y-%m-%d %H:%M UTC"),
        "database": os.environ.get("DATABASE_URL", "sqlite").split(":", 1)[0],
        "reference_loop_ms": [reference_before, reference_after],
        "load_average": [load_before, load_after],
    }
    RESULTS.write_text(render(rows, environment))
    print(f"written to {RESULTS.relative_to(ROOT)}", flush=True)


def render(rows: list[dict], environment: dict) -> str:
    reference = "–".join(str(ms) for ms in environment["reference_loop_ms"])
    load = "–".join(f"{figure:.1f}" for figure in environment["load_average"])
    lines = [
        "# Schedule import",
        "",
        f"{environment['started_at']}, {environment['database']}, reference loop {reference} ms "
        f"(about 50 in a fast hour), load average {load}. Written by `bench/import_schedule.py`: "
        "a generated conference exported as schedule.json, imported into an empty conference, "
        "then imported again over it.",
        "",
        f"| N | run | seconds | ms a session | queries | peak RSS MiB | targets "
        f"({TARGET_SECONDS:g} s, {TARGET_MIB} MiB) | what it did |",
        "| ---: | --- | ---: | ---: | ---: | ---: | --- | --- |",
    ]
    for row in rows:
        within = row["seconds"] <= TARGET_SECONDS and row["peak_rss_mib"] <= TARGET_MIB
        verdict = "within" if within else "over"
        if row["size"] != 1000:
            verdict = "(targets are for N = 1,000)"
        lines.append(
            f"| {row['size']:,} | {row['label']} | {row['seconds']:.2f} | "
            f"{row['ms_per_session']:.1f} | {row['queries']:,} | {row['peak_rss_mib']:.0f} | "
            f"{verdict} | {row['summary']} |"
        )
    return "\n".join(lines) + "\n"


def measure(size: int, profile: bool, output: Path) -> None:
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "conference.site.settings")
    warnings.filterwarnings("ignore", message="No directory at", category=UserWarning)
    django.setup()
    from django.core.management import call_command
    from django.db import connection

    from bench.generator import generate_conference
    from conference.models import Conference
    from sessions.exports.frab_schedule import build_frab_data
    from sessions.importers import import_schedule

    call_command("migrate", verbosity=0)
    source = generate_conference(size, seed=0, slug="bench")
    sessions = list(source.sessions.public().for_listing().in_schedule_order())
    document = json.dumps(build_frab_data(source, sessions, base_url="http://bench")).encode()
    target = Conference.objects.create(
        name="Imported",
        slug="imported",
        starts_on=source.starts_on,
        ends_on=source.ends_on,
        time_zone=source.time_zone,
    )
    rss_before = peak_rss_mib()
    rows = []
    for label in ("import", "re-import"):
        profiler = None
        if profile and label == "import":
            import cProfile

            profiler = cProfile.Profile()
            profiler.enable()
        queries = []  # counted, not kept: CaptureQueriesContext stops at 9,000

        def count(execute, sql, params, many, context, queries=queries):
            queries.append(None)
            return execute(sql, params, many, context)

        with connection.execute_wrapper(count):
            started = time.perf_counter()
            report = import_schedule(target, io.BytesIO(document))
            seconds = time.perf_counter() - started
        if profiler:
            profiler.disable()
            import pstats

            pstats.Stats(profiler).sort_stats("cumulative").print_stats(25)
        sessions_count = report.created["session"] + report.updated["session"]
        sessions_count += report.unchanged["session"]
        print(
            f"N={size} {label}: {seconds:.2f} s ({seconds / sessions_count * 1000:.1f} ms a "
            f"session), {len(queries)} queries, peak RSS {peak_rss_mib():.0f} MiB "
            f"(before the imports {rss_before:.0f}); {', '.join(report.summary())} | "
            f"targets {TARGET_SECONDS} s, {TARGET_MIB} MiB",
            flush=True,
        )
        rows.append(
            {
                "size": size,
                "label": label,
                "seconds": seconds,
                "ms_per_session": seconds / sessions_count * 1000,
                "queries": len(queries),
                "peak_rss_mib": peak_rss_mib(),
                "summary": ", ".join(report.summary()),
            }
        )
    output.write_text(json.dumps(rows))


def peak_rss_mib() -> float:
    # Linux reports ru_maxrss in KiB.
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


if __name__ == "__main__":
    main()

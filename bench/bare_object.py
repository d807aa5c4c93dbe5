"""A/B: the exports' model objects built without ``Model.__init__``, or by Django's ``from_db``.

sessions/exports/fragments.py builds the sessions, speakers and attachments of an export from value rows
(``model_object``). Variant ``from_db``: ``model.from_db(db, columns, row)``, the plain Django
way, with the relations set in ``_state.fields_cache``, as ``model_object`` does. Variant
``__new__``: ``model.__new__`` with the row put into ``__dict__`` (no ``__init__``, no signals),
as the module's former ``bare_object`` did. The script puts each in place of ``model_object`` in
turn.

At N=10,000 (by default) a child process gets a fresh database as bench/run.py does (SQLite, or
``<name>_bench`` on DATABASE_URL's server), generates the conference and requests schedule.ics,
schedule.xml and schedule.json in-process, uncached (``forget_pages()`` before every request,
production settings, local-memory cache: at this size no session's part is cached either).
Each export is requested in pairs, one request with each variant right after the other, REQUESTS
pairs a round; rounds alternate which variant goes first (A then B, then B then A). Reported:
medians over every round, how much longer ``from_db`` took by those medians and by the median of
the pairs' ratios (a pair's two requests ran within seconds, so the machine's swings cancel),
the objects one request builds, and whether every request of both variants sent the same body
(a calendar's DTSTAMP, the moment of the export, aside). Written to bench/results/bare_object.md.

    .venv/bin/python bench/bare_object.py                    # N = 10000, 8 rounds: ~3 min
    .venv/bin/python bench/bare_object.py --size 300 --rounds 2
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import RESULTS, ROOT, SEED, SLUG, bench_environment, log, reference_loop_ms
from bench.run import drop_server_database, fresh_database

EXPORTS = ("schedule.ics", "schedule.xml", "schedule.json")
VARIANTS = ("__new__", "from_db")
# The function of sessions/exports/fragments.py that both variants stand in for.
FUNCTION = "model_object"
REQUESTS = 2


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", type=int, default=10000)
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--child-output", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child_output:
        measure(args.size, args.rounds, Path(args.child_output))
        return
    started = datetime.datetime.now(datetime.UTC)
    reference_before, load_before = reference_loop_ms(), os.getloadavg()[0]
    work = Path(tempfile.mkdtemp(prefix="confsched-bare-object-"))
    try:
        output = work / "result.json"
        env = bench_environment(fresh_database(work, args.size))
        command = [sys.executable, __file__, *sys.argv[1:], "--child-output", str(output)]
        subprocess.run(command, env=env, cwd=ROOT, check=True)
        result = json.loads(output.read_text())
    finally:
        shutil.rmtree(work, ignore_errors=True)
        drop_server_database()
    result["environment"] = {
        "date": started.strftime("%Y-%m-%d %H:%M UTC"),
        "command": command_line(),
        "reference_loop_ms": [reference_before, reference_loop_ms()],
        "load_average": [round(load_before, 2), round(os.getloadavg()[0], 2)],
        "commit": subprocess.run(
            ["git", "describe", "--always", "--dirty"], cwd=ROOT, capture_output=True, text=True
        ).stdout.strip(),
    }
    markdown = render(result)
    (RESULTS / "bare_object.md").write_text(markdown)
    print(markdown)


def command_line() -> str:
    words = [".venv/bin/python", "bench/bare_object.py", *sys.argv[1:]]
    if os.environ.get("DATABASE_URL"):
        words.insert(0, "DATABASE_URL=…")
    return shlex.join(words)


# The two ways of building a model object from a row ------------------------------------------


def with_new(model: type, columns: list[str], row, **relations) -> object:
    """The former ``bare_object`` of sessions/exports/fragments.py: no ``Model.__init__``, no signals."""
    from django.db import router
    from django.db.models.base import ModelState

    instance = model.__new__(model)
    instance._state = ModelState()
    instance._state.adding, instance._state.db = False, router.db_for_read(model)
    instance.__dict__.update(zip(columns, row, strict=True))
    instance._state.fields_cache.update(relations)
    return instance


def with_from_db(model: type, columns: list[str], row, **relations) -> object:
    """Django's way, as ``model_object`` does: ``from_db`` (``__init__`` with every field, the
    two signals)."""
    from django.db import router

    instance = model.from_db(router.db_for_read(model), columns, tuple(row))
    instance._state.fields_cache.update(relations)
    return instance


BUILDERS = {"__new__": with_new, "from_db": with_from_db}


# The child -----------------------------------------------------------------------------------


def measure(size: int, rounds: int, output: Path) -> None:
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "conference.site.settings")
    warnings.filterwarnings("ignore", message="No directory at", category=UserWarning)
    django.setup()
    from django.conf import settings
    from django.core.management import call_command
    from django.test import Client
    from django.test.utils import override_settings

    import sessions.exports.fragments
    from bench.generator import generate_conference
    from bench.in_process import PLAIN_STATIC, database_info
    from conference.pages.copies import forget_pages

    call_command("migrate", verbosity=0)
    generate_conference(size, seed=SEED, slug=SLUG)
    log(f"N={size} generated; {rounds} rounds of {REQUESTS} requests a variant and export")
    client = Client(raise_request_exception=False)
    built = {"count": 0}

    def request(url: str) -> tuple[float, str]:
        forget_pages()
        started = time.perf_counter()
        response = client.get(url)
        body = b"".join(response.streaming_content) if response.streaming else response.content
        seconds = time.perf_counter() - started
        if response.status_code != 200:
            raise RuntimeError(f"{url} answered {response.status_code}")
        # A calendar's DTSTAMP is the moment of the export; all else must be the same.
        return seconds, hashlib.sha256(re.sub(rb"(?m)^DTSTAMP:.*$", b"", body)).hexdigest()

    def use(builder) -> None:
        setattr(sessions.exports.fragments, FUNCTION, builder)

    samples = {(name, variant): [] for name in EXPORTS for variant in VARIANTS}
    digests = {(name, variant): set() for name in EXPORTS for variant in VARIANTS}
    objects = {}
    original = getattr(sessions.exports.fragments, FUNCTION)
    with override_settings(STORAGES={**settings.STORAGES, "staticfiles": PLAIN_STATIC}):
        try:
            for name in EXPORTS:
                url = f"/{SLUG}/{name}"
                built["count"] = 0
                use(counting(with_from_db, built))
                request(url)  # a warm-up, and the objects one request builds
                objects[name] = built["count"]
                for variant in VARIANTS:
                    use(BUILDERS[variant])
                    request(url)  # each variant's warm-up
            for number in range(rounds):
                order = VARIANTS if number % 2 == 0 else VARIANTS[::-1]
                for name in EXPORTS:
                    for _ in range(REQUESTS):
                        for variant in order:  # a pair: the two variants one after the other
                            use(BUILDERS[variant])
                            seconds, digest = request(f"/{SLUG}/{name}")
                            samples[name, variant].append(seconds)
                            digests[name, variant].add(digest)
                log(f"  round {number + 1} of {rounds} done")
        finally:
            use(original)
    rows = []
    for name in EXPORTS:
        medians = {v: statistics.median(samples[name, v]) * 1000 for v in VARIANTS}
        # Each pair ran within a few seconds: its ratio cancels most of the machine's swings.
        pairs = zip(samples[name, "__new__"], samples[name, "from_db"], strict=True)
        ratios = [from_db / new for new, from_db in pairs]
        rows.append(
            {
                "export": name,
                "objects": objects[name],
                "median_ms": medians,
                "samples_ms": {v: [s * 1000 for s in samples[name, v]] for v in VARIANTS},
                "from_db_slower_percent": (medians["from_db"] / medians["__new__"] - 1) * 100,
                "paired_percent": (statistics.median(ratios) - 1) * 100,
                "same_bytes": len(digests[name, "__new__"] | digests[name, "from_db"]) == 1,
            }
        )
    output.write_text(
        json.dumps({"size": size, "rounds": rounds, "database": database_info(), "rows": rows})
    )


def counting(builder, built: dict):
    def counted(*args, **kwargs):
        built["count"] += 1
        return builder(*args, **kwargs)

    return counted


def render(result: dict) -> str:
    env = result["environment"]
    lines = [
        "# Model objects in the exports: `__new__` or `from_db`",
        "",
        f"`{env['command']}` · {env['date']} · {result['database']} · commit {env['commit']} · "
        f"reference loop {env['reference_loop_ms'][0]} ms before, {env['reference_loop_ms'][1]} "
        f"ms after · load average {env['load_average'][0]} before, {env['load_average'][1]} "
        "after",
        "",
        f"N={result['size']}, uncached, in-process; {result['rounds']} rounds of {REQUESTS} pairs "
        "per export (one request with each variant, right after the other; rounds alternate "
        f"which goes first): medians over {result['rounds'] * REQUESTS} requests each, and the "
        "median of the pairs' ratios (bench/bare_object.py says how).",
        "",
        "| export | objects built a request | `__new__` median ms | `from_db` median ms "
        "| `from_db` longer by (medians) | `from_db` longer by (median of pairs) "
        "| same body (DTSTAMP aside) |",
        "| --- | ---: | ---: | ---: | ---: | ---: | --- |",
    ]
    for row in result["rows"]:
        lines.append(
            f"| {row['export']} | {row['objects']:,} | {row['median_ms']['__new__']:.1f} | "
            f"{row['median_ms']['from_db']:.1f} | {row['from_db_slower_percent']:.1f} % | "
            f"{row['paired_percent']:.1f} % | "
            f"{'yes' if row['same_bytes'] else 'NO'} |"
        )
    lines += ["", "Every request, in order (ms; the n-th of each variant form a pair):", ""]
    for row in result["rows"]:
        for variant in VARIANTS:
            samples = ", ".join(f"{ms:.0f}" for ms in row["samples_ms"][variant])
            lines.append(f"- {row['export']}, `{variant}`: {samples}")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()

"""A/B: the schedule list with session cards kept as fragments (sessions/views/cards.py), or not.

Variant ``kept``: the settings' ``CARD_FRAGMENT_MAX_CARDS`` (unbounded here), each card read from
the cache or rendered and stored. Variant ``rendered``: ``CARD_FRAGMENT_MAX_CARDS = 0``, every
card rendered in place, as before card fragments. Two cases, in-process with the test client,
production settings and the local-memory cache:

- ``cold``: ``forget_pages()`` before each request: nothing cached, every card rendered (and,
  kept, stored);
- ``after one edit``: the page requested once, then a talk in mid-conference retitled through
  ``save()``, then the timed request: the first request after an edit.

The requests go in pairs, one per variant, alternating which goes first, so the machine's swings
fall on both alike; the first two pairs warm up. Reported: each variant's median, and the median
of the pairs' ratios. Run it on the bench conference of a database of its own:

    DJANGO_DEBUG=0 DJANGO_SECRET_KEY=x DJANGO_ENV_FILE=/dev/null DATABASE_URL=sqlite:///ab.sqlite3 \\
        sh -c '.venv/bin/python manage.py migrate && \\
        .venv/bin/python bench/generate_conference.py --sessions 1000 --slug bench && \\
        .venv/bin/python bench/card_fragments.py'

Written to bench/results/card_fragments.md (card_fragments-postgresql.md on PostgreSQL).
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import RESULTS, SLUG, reference_loop_ms

PAIRS = 14
WARM_UP_PAIRS = 2


def main() -> None:
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "conference.site.settings")
    django.setup()
    from django.conf import settings
    from django.db import connection
    from django.test import Client
    from django.test.utils import override_settings

    from conference.pages.copies import forget_pages
    from sessions.models import Session

    plain_static = {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}
    override_settings(STORAGES={**settings.STORAGES, "staticfiles": plain_static}).enable()
    client = Client()
    url = f"/{SLUG}/schedule/"
    talks = Session.objects.filter(conference__slug=SLUG, kind=Session.Kind.TALK)
    talk = talks.order_by("starts_at", "slug")[talks.count() // 2]
    title = talk.title

    def timed() -> float:
        started = time.perf_counter()
        response = client.get(url)
        assert response.status_code == 200, response.status_code
        return (time.perf_counter() - started) * 1000

    def retitle(number: int) -> None:
        session = Session.objects.get(pk=talk.pk)
        session.title = f"{title} ({number})"
        session.save()

    loop_before = reference_loop_ms()
    results = {}
    edits = iter(range(10**6))
    for case in ("cold", "after one edit"):
        times = {"kept": [], "rendered": []}
        ratios = []
        for pair in range(PAIRS):
            order = (("kept", None), ("rendered", 0))
            measured = {}
            for variant, limit in order if pair % 2 else reversed(order):
                with override_settings(CARD_FRAGMENT_MAX_CARDS=limit):
                    if case == "cold":
                        forget_pages()
                    else:
                        client.get(url)
                        retitle(next(edits))
                    measured[variant] = timed()
            if pair >= WARM_UP_PAIRS:
                for variant, value in measured.items():
                    times[variant].append(value)
                ratios.append(measured["kept"] / measured["rendered"])
        results[case] = (
            statistics.median(times["kept"]),
            statistics.median(times["rendered"]),
            statistics.median(ratios),
        )
    session = Session.objects.get(pk=talk.pk)
    session.title = title
    session.save()
    write(results, connection, [loop_before, reference_loop_ms()])


def write(results: dict, connection, loop: list[float]) -> None:
    import datetime
    import subprocess

    database = "PostgreSQL" if connection.vendor == "postgresql" else "SQLite"
    commit = subprocess.run(
        ["git", "describe", "--always", "--dirty"], capture_output=True, text=True, check=False
    ).stdout.strip()
    lines = [
        "# Session cards kept as fragments, or rendered: the schedule list (N as generated)",
        "",
        f"`.venv/bin/python bench/card_fragments.py` · "
        f"{datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC · {database} · commit {commit} "
        f"· reference loop {loop[0]} ms before, {loop[1]} ms after · load average "
        f"{os.getloadavg()[0]:.1f} after",
        "",
        f"In-process, {PAIRS - WARM_UP_PAIRS} pairs a case after {WARM_UP_PAIRS} to warm up "
        "(bench/card_fragments.py says how).",
        "",
        "| case | kept: median ms | rendered: median ms | kept / rendered, median of pairs |",
        "| --- | ---: | ---: | ---: |",
    ]
    for case, (kept, rendered, ratio) in results.items():
        lines.append(f"| {case} | {kept:.1f} | {rendered:.1f} | {ratio:.2f}× |")
    name = "card_fragments-postgresql.md" if database == "PostgreSQL" else "card_fragments.md"
    (RESULTS / name).write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()

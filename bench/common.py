"""What the bench's scripts share: where things are, the bench conference, and small helpers."""

from __future__ import annotations

import os
import secrets
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
SLUG = "bench"
SEED = 0
# As browsers ask: whitenoise then sends a static file's gzip copy, the app a page's compressed one.
BROWSER = {"Accept-Encoding": "gzip, deflate, br"}
# One throwaway key for a whole run: an attendee logged in by one child process stays logged in
# in the next and under gunicorn (a session's auth hash is signed with it).
RUN_SECRET_KEY = secrets.token_urlsafe(40)


def bench_environment(database_url: str) -> dict[str, str]:
    """Production settings (debug off), a throwaway key, the bench database, no Redis, and no
    checkout's .env.local (it may turn debug on or name a Redis)."""
    env = {key: value for key, value in os.environ.items() if key != "REDIS_URL"}
    env.update(
        DJANGO_DEBUG="0",
        DJANGO_SECRET_KEY=RUN_SECRET_KEY,
        DJANGO_ALLOWED_HOSTS="testserver,127.0.0.1,localhost",
        DJANGO_ENV_FILE=os.devnull,
        DATABASE_URL=database_url,
        PYTHONPATH=str(ROOT),
    )
    env.pop("DJANGO_SETTINGS_MODULE", None)
    return env


def timed(action) -> tuple[float, Any]:
    started = time.perf_counter()
    value = action()
    return time.perf_counter() - started, value


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def percentile(values: list[float], rank: int) -> float:
    """Interpolated between the two nearest samples: with 15 samples the 95th sits near the
    slowest."""
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[rank - 1]


def summary_ms(seconds: list[float]) -> dict[str, float]:
    return {
        "median_ms": statistics.median(seconds) * 1000,
        "p95_ms": percentile(seconds, 95) * 1000,
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

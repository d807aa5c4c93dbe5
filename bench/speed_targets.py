"""One table of the speed targets of issue #50 (“Speed, round three”), from the latest run of
bench/run.py and of bench/floor.py on the same database: bench/results/speed-targets.md
(speed-targets-postgresql.md on PostgreSQL).

Both scripts write it when they finish, each reading the other's latest JSON, so after
`make bench` (run.py, then floor.py) every row is of that run. A row whose figures are not
there (no `--http`, no floor run yet, a row another change adds) reads “not measured”. Each row
names the reference loop of the run it comes from (bench/README.md, “Noise”): compare figures
of two runs only when their loops are close.

Rows are declared in CHECKS: a row of bench/run.py's report (``page``: in-process, one size;
``served``: over HTTP, every page cache) or of bench/floor.py's (``floor_row``), and a limit
that may differ by database.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run as a script

from bench.common import RESULTS

# The cold schedule's figure before card fragments (bench/results/latest*.md of 2026-12-06,
# commit 39672eb: N=1000, uncached median), and that run's reference loop, the mean of its
# before and after on each database: the limit is scaled by this run's loop.
TODAY_COLD_SCHEDULE_MS = {"sqlite": 177.5, "postgresql": 192.4}
TODAY_REFERENCE_LOOP_MS = {"sqlite": 41.0, "postgresql": 39.0}
# The reference loop of the machine when nothing else ran on it (the runs of 2026-12-06).
QUIET_REFERENCE_LOOP_MS = TODAY_REFERENCE_LOOP_MS
FLOOR_FACTOR = 1.3  # a cached page may cost this much more than the reads it cannot avoid


@dataclass
class Runs:
    """The latest JSON of bench/run.py (``latest``) and of bench/floor.py (``floor``), if any."""

    database: str  # "sqlite" or "postgresql"
    latest: dict | None
    floor: dict | None


# What a row reads: {label: value} (label "" in-process, else the page cache's name), empty
# when not measured.
Figures = dict[str, float]


@dataclass(frozen=True)
class Check:
    name: str
    unit: str  # "ms", "kB" or "×"
    limit: Callable[[Runs], float | None]
    figures: Callable[[Runs], Figures]
    source: str  # "run" or "floor": whose reference loop the row carries
    floor: Callable[[Runs], float | None] | None = None
    at_least: bool = False  # a throughput that must reach the limit, not a cost under it
    # A time against a fixed limit: also given as estimated at a quiet machine's reference loop
    # (QUIET_REFERENCE_LOOP_MS), for runs on a loaded machine. Ratios, sizes and figures
    # against a floor of the same run need no such estimate.
    scales: bool = False


def fixed(sqlite: float, postgresql: float | None = None) -> Callable[[Runs], float]:
    return lambda runs: postgresql if runs.database == "postgresql" and postgresql else sqlite


def page(size: int, name: str, mode: str, statistic: str, scale: float = 1) -> Callable:
    """An in-process figure of bench/run.py at ``size`` (``scale`` turns bytes into kB)."""

    def figures(runs: Runs) -> Figures:
        for measured in (runs.latest or {}).get("sizes", []):
            if measured["size"] != size:
                continue
            for row in measured.get("pages", []):
                figures = row.get(mode, {})
                if row["name"] == name and figures.get("status") == 200:
                    return {"": figures[statistic] * scale}
        return {}

    return figures


def served(section: str, name: str, statistic: str) -> Callable:
    """An over-HTTP figure of bench/run.py, with each page cache."""

    def figures(runs: Runs) -> Figures:
        found = {}
        for server in ((runs.latest or {}).get("served") or {}).get("servers", []):
            for row in server.get(section, []):
                if row["name"] == name and row.get("status", 200) == 200:
                    found[server["cache"]] = row[statistic]
        return found

    return figures


def compressed_ratio(runs: Runs) -> Figures:
    """Bytes the logged-in schedule sends, compressed, over the anonymous one's, per cache."""
    logged_in = served("one_at_a_time", "schedule, logged in", "bytes")(runs)
    anonymous = served("one_at_a_time", "schedule, anonymous", "bytes")(runs)
    return {cache: logged_in[cache] / anonymous[cache] for cache in logged_in if cache in anonymous}


def floor_row(name: str, where: str, statistic: str) -> Callable:
    """A figure of bench/floor.py: ``where`` "in_process" or "served"."""

    def figures(runs: Runs) -> Figures:
        for row in (runs.floor or {}).get("rows", []):
            if row["name"] == name and statistic in row.get(where, {}):
                return {"": row[where][statistic]}
        return {}

    return figures


def single(figures: Callable[[Runs], Figures]) -> Callable[[Runs], float | None]:
    return lambda runs: figures(runs).get("")


def scaled_cold_limit(runs: Runs) -> float | None:
    """Today's cold schedule, scaled by how fast this run's machine ran its reference loop."""
    loop = ((runs.latest or {}).get("environment") or {}).get("reference_loop_ms")
    if not loop:
        return None
    today = TODAY_COLD_SCHEDULE_MS[runs.database]
    return today * (sum(loop) / len(loop)) / TODAY_REFERENCE_LOOP_MS[runs.database]


FLOOR_ANONYMOUS = "floor, anonymous: the version read"
FLOOR_LOGGED_IN = "floor, logged in: + session, user, saved sessions"
CACHED_ANONYMOUS = "schedule from the cache, anonymous"
CACHED_LOGGED_IN = "schedule from the cache, logged in"

CHECKS = (
    Check(
        "schedule, first request after one edit (N=1000): median, in-process",
        "ms",
        fixed(120),
        page(1000, "schedule after one edit", "uncached", "median_ms"),
        "run",
        scales=True,
    ),
    Check(
        "schedule, first request after one edit (N=1000): median, over HTTP (`make serve`)",
        "ms",
        fixed(200),
        served("after_edit", "schedule after one edit", "median_ms"),
        "run",
        scales=True,
    ),
    Check(
        "schedule, first request after one edit (N=10000, one day shown): median, in-process",
        "ms",
        fixed(400),
        page(10000, "schedule after one edit", "uncached", "median_ms"),
        "run",
        scales=True,
    ),
    Check(
        "schedule, cold: nothing cached (N=1000): median, in-process; limit: today's figure "
        "scaled by the reference loop",
        "ms",
        scaled_cold_limit,
        page(1000, "schedule", "uncached", "median_ms"),
        "run",
    ),
    *(
        Check(
            f"{cached} (N=1000): median, in-process, against its floor",
            "ms",
            lambda runs, floor=floor: (value := single(floor)(runs)) and value * FLOOR_FACTOR,
            floor_row(cached, "in_process", "median_ms"),
            "floor",
            floor=single(floor),
        )
        for cached, floor in (
            (CACHED_ANONYMOUS, floor_row(FLOOR_ANONYMOUS, "in_process", "median_ms")),
            (CACHED_LOGGED_IN, floor_row(FLOOR_LOGGED_IN, "in_process", "median_ms")),
        )
    ),
    *(
        Check(
            f"{cached} (N=1000): requests/s over HTTP, against its floor's",
            "/s",
            lambda runs, floor=floor: (value := single(floor)(runs)) and value / FLOOR_FACTOR,
            floor_row(cached, "served", "requests_per_s"),
            "floor",
            floor=single(floor),
            at_least=True,
        )
        for cached, floor in (
            (CACHED_ANONYMOUS, floor_row(FLOOR_ANONYMOUS, "served", "requests_per_s")),
            (CACHED_LOGGED_IN, floor_row(FLOOR_LOGGED_IN, "served", "requests_per_s")),
        )
    ),
    Check(
        "behind nginx, anonymous schedule (N=1000): requests/s against nginx's static copy of "
        "the page",
        "×",
        fixed(0.9),
        served("front", "schedule, anonymous", "ratio"),
        "run",
        at_least=True,
    ),
    Check(
        "session page, uncached (N=1000): median, in-process",
        "ms",
        fixed(6, 9),
        page(1000, "session", "uncached", "median_ms"),
        "run",
        scales=True,
    ),
    Check(
        "speaker page, uncached (N=1000): median, in-process",
        "ms",
        fixed(6, 9),
        page(1000, "speaker", "uncached", "median_ms"),
        "run",
        scales=True,
    ),
    Check(
        "session page HTML (N=1000)",
        "kB",
        fixed(12),
        page(1000, "session", "uncached", "bytes", scale=1 / 1000),
        "run",
    ),
    Check(
        "logged-in schedule compressed, against the anonymous one's (N=1000): bytes sent over HTTP",
        "×",
        fixed(1.5),
        compressed_ratio,
        "run",
    ),
)


def evaluate(runs: Runs) -> list[dict]:
    rows = []
    for check in CHECKS:
        limit, figures = check.limit(runs), check.figures(runs)
        met = None
        if limit is not None and figures:
            met = all(
                value >= limit if check.at_least else value <= limit for value in figures.values()
            )
        run = runs.latest if check.source == "run" else runs.floor
        environment = (run or {}).get("environment") or {}
        loop = environment.get("reference_loop_ms")
        quiet = {}
        if check.scales and loop:
            factor = QUIET_REFERENCE_LOOP_MS[runs.database] / (sum(loop) / len(loop))
            quiet = {label: value * factor for label, value in figures.items()}
        rows.append(
            {
                "name": check.name,
                "unit": check.unit,
                "limit": limit,
                "at_least": check.at_least,
                "figures": figures,
                "floor": check.floor(runs) if check.floor else None,
                "reference_loop_ms": loop,
                "load_average": environment.get("load_average"),
                "quiet": quiet,
                "quiet_met": (
                    all(value <= limit for value in quiet.values())
                    if quiet and limit is not None
                    else None
                ),
                "met": met,
            }
        )
    return rows


def number(value: float, unit: str) -> str:
    if unit == "×":
        return f"{value:.2f}×"
    if unit == "/s":
        return f"{value:,.0f}/s"
    return f"{value:.1f} {unit}"


def render(rows: list[dict], runs: Runs) -> str:
    quiet_loop = QUIET_REFERENCE_LOOP_MS[runs.database]
    lines = [
        "# Speed targets (issue #50)",
        "",
        f"Database: {runs.database}. From the latest `bench/run.py` "
        f"({describe((runs.latest or {}).get('environment'))}) and `bench/floor.py` "
        f"({describe((runs.floor or {}).get('environment'))}); written by whichever finished "
        "last (bench/speed_targets.py). Over HTTP, every page cache's figure must meet the "
        "limit. The reference loop (ms, before and after its run, with the load average) says "
        "how fast the machine was: compare runs whose loops are close. The verdict is the "
        "measured figure's. On a loaded machine, times against a fixed limit are also given "
        f"as they would be at a quiet machine's loop ({quiet_loop} ms): an estimate, which "
        "assumes the page slows down as the loop does.",
        "",
        f"| target | limit | measured | at a {quiet_loop} ms loop (estimate) | floor "
        "| reference loop ms (load) | |",
        "| --- | ---: | ---: | ---: | ---: | ---: | --- |",
    ]
    for row in rows:
        unit = row["unit"]
        limit = "—"
        if row["limit"] is not None:
            limit = f"{'≥' if row['at_least'] else '≤'} {number(row['limit'], unit)}"
        measured = figures_cell(row["figures"], unit) or "—"
        quiet = figures_cell(row["quiet"], unit)
        if quiet and row["quiet_met"] is not None:
            quiet += " ✓" if row["quiet_met"] else " ✗"
        floor = number(row["floor"], unit) if row["floor"] is not None else ""
        loop, load = row["reference_loop_ms"], row["load_average"]
        loop_cell = f"{loop[0]}, {loop[1]}" if loop else ""
        if loop and load:
            loop_cell += f" ({load[0]:.1f}, {load[1]:.1f})"
        verdict = {True: "**met**", False: "**missed**", None: "not measured"}[row["met"]]
        lines.append(
            f"| {row['name']} | {limit} | {measured} | {quiet} | {floor} | {loop_cell} "
            f"| {verdict} |"
        )
    return "\n".join(lines) + "\n"


def figures_cell(figures: Figures, unit: str) -> str:
    return "; ".join(
        f"{number(value, unit)}{f' ({label})' if label else ''}" for label, value in figures.items()
    )


def describe(environment: dict | None) -> str:
    if not environment:
        return "no run yet"
    return f"{environment.get('date', '?')}, commit {environment.get('commit', '?')}"


def write_speed_targets() -> None:
    """Writes bench/results/speed-targets(-postgresql).md from the latest JSON of both runs."""
    suffix = "-postgresql" if os.environ.get("DATABASE_URL") else ""
    runs = Runs(
        database="postgresql" if suffix else "sqlite",
        latest=read_json(RESULTS / f"latest{suffix}.json"),
        floor=read_json(RESULTS / f"floor{suffix}.json"),
    )
    (RESULTS / f"speed-targets{suffix}.md").write_text(render(evaluate(runs), runs))


def read_json(path) -> dict | None:
    return json.loads(path.read_text()) if path.exists() else None


if __name__ == "__main__":
    write_speed_targets()

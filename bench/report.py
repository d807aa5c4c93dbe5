"""The report of a run: the targets it is judged against, bench/results/latest.md and .json
(latest-postgresql.* on PostgreSQL; each run replaces those of its database)."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass

from bench.common import RESULTS
from bench.in_process import LOGGED_IN_SCHEDULE
from bench.speed_targets import write_speed_targets

# The size the targets are set for.
TARGET_SIZE = 1000
WORKER_MEMORY_TARGET_MIB = 250


@dataclass(frozen=True)
class Goal:
    """A target. ``in_process``: (row, mode, statistic) of a Pages row at TARGET_SIZE (a row
    name ending in "(" names every row it begins). ``over_http``: (section, row, statistic) of
    each served setup. The verdict is the in-process figure's when there is one; the over-HTTP
    figures beside it are for comparison. A goal in × is a ratio that must reach ``limit``; one
    in ms a time that must not pass it."""

    name: str
    limit: float
    unit: str
    in_process: tuple[str, str, str] | None = None
    over_http: tuple[str, str, str] | None = None

    @property
    def judged(self) -> str:
        return "in-process" if self.in_process else "over HTTP"

    def meets(self, value: float) -> bool:
        return meets(value, self.limit, self.unit)


def meets(value: float, limit: float, unit: str) -> bool:
    return value >= limit if unit == "×" else value <= limit


GOALS = (
    Goal(
        "schedule, uncached: p95",
        250,
        "ms",
        ("schedule", "uncached", "p95_ms"),
        ("after_edit", "schedule after one edit", "p95_ms"),
    ),
    Goal("session page, uncached: median", 8, "ms", ("session", "uncached", "median_ms")),
    Goal("speaker page, uncached: median", 8, "ms", ("speaker", "uncached", "median_ms")),
    *(
        Goal(
            f"{name} after one edit: median",
            60,
            "ms",
            (f"{name} after one edit", "uncached", "median_ms"),
            ("after_edit", f"{name} after one edit", "median_ms"),
        )
        for name in ("schedule.ics", "schedule.xml", "schedule.json")
    ),
    Goal("API sessions list: p95", 50, "ms", ("API sessions", "uncached", "p95_ms")),
    Goal(
        "anonymous schedule from the cache: median",
        1,
        "ms",
        ("schedule", "cached", "median_ms"),
        ("one_at_a_time", "schedule, anonymous", "median_ms"),
    ),
    Goal(
        "logged-in schedule from the cache: median",
        3,
        "ms",
        (LOGGED_IN_SCHEDULE, "cached", "median_ms"),
        ("one_at_a_time", "schedule, logged in", "median_ms"),
    ),
    Goal(
        "behind nginx: anonymous schedule / nginx's static file of the page's size",
        0.8,
        "×",
        over_http=("front", "schedule, anonymous", "ratio"),
    ),
    Goal(
        "app alone: anonymous schedule / whitenoise's static file",
        0.3,
        "×",
        over_http=("app", "schedule, anonymous", "ratio"),
    ),
    Goal(
        "app alone: logged-in schedule / whitenoise's static file",
        0.15,
        "×",
        over_http=("app", "schedule, logged in", "ratio"),
    ),
    Goal(
        "planner, busiest day: median",
        300,
        "ms",
        ("planner (busiest day)", "uncached", "median_ms"),
    ),
    Goal("planner move (POST): median", 60, "ms", ("planner move (POST)", "uncached", "median_ms")),
    Goal("release review: median", 1000, "ms", ("release review (", "uncached", "median_ms")),
)


def evaluate(report: dict) -> list[dict]:
    """Each goal with its figures (None where not measured) and whether it is met (None when
    the figures it is judged on were not measured)."""
    sizes = [size for size in report["sizes"] if size["size"] == TARGET_SIZE]
    pages = sizes[0].get("pages", []) if sizes else []
    servers = (report.get("served") or {}).get("servers", [])
    results = []
    for goal in GOALS:
        in_process = in_process_figure(pages, goal.in_process) if goal.in_process else None
        over_http = {
            server["cache"]: over_http_row(server, goal.over_http)
            for server in servers
            if goal.over_http
        }
        if goal.in_process:
            judged = [in_process] if in_process is not None else []
        else:
            judged = [row[goal.over_http[2]] for row in over_http.values() if row]
        results.append(
            {
                "name": goal.name,
                "limit": goal.limit,
                "unit": goal.unit,
                "judged": goal.judged,
                "in_process": in_process,
                "over_http": over_http,
                "statistic": goal.over_http[2] if goal.over_http else None,
                "met": all(goal.meets(value) for value in judged) if judged else None,
            }
        )
    return results


def in_process_figure(pages: list[dict], where: tuple[str, str, str]) -> float | None:
    name, mode, statistic = where
    for page in pages:
        if page["name"] == name or (name.endswith("(") and page["name"].startswith(name)):
            figures = page.get(mode, {})
            return figures[statistic] if figures.get("status") == 200 else None
    return None


def over_http_row(server: dict, where: tuple[str, str, str]) -> dict | None:
    section, name, _ = where
    return next((row for row in server.get(section, []) if row["name"] == name), None)


# Writing ---------------------------------------------------------------------------------------


def write_report(report: dict) -> None:
    RESULTS.mkdir(parents=True, exist_ok=True)
    report["targets"] = evaluate(report)
    markdown = render_markdown(report)
    name = "latest-postgresql" if os.environ.get("DATABASE_URL") else "latest"
    (RESULTS / f"{name}.md").write_text(markdown)
    (RESULTS / f"{name}.json").write_text(json.dumps(report, indent=2) + "\n")
    write_speed_targets()
    print(markdown)
    print(
        f"Written to {RESULTS / name}.md and {name}.json, and speed-targets (bench/speed_targets.py)."
    )


def render_markdown(report: dict) -> str:
    env = report["environment"]
    lines = [
        "# Benchmark: latest run",
        "",
        f"`{env['command']}` · {env['date']} · {env['nproc']} cores ({env['cpu']}) · "
        f"Python {env['python']} · Django {env['django']} · {env['database']} · commit "
        f"{env['commit']} · {env['total_s']} s in all · load average "
        f"{env['load_average'][0]} before, {env['load_average'][1]} after · reference loop "
        f"{env['reference_loop_ms'][0]} ms before, {env['reference_loop_ms'][1]} ms after "
        "(bench/README.md)",
        "",
        "Rows and columns are explained in bench/README.md. In-process times are wall-clock "
        "milliseconds with Django's test client (DEBUG off, local-memory cache); over HTTP, "
        "gunicorn as `make serve` runs it.",
        "",
        *targets_table(report),
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
    lines += ["", "## Pages, exports and API, in-process", "", *pages_table(report["sizes"])]
    if report.get("served"):
        lines += ["", *served_tables(report["served"], report["sizes"])]
    if report.get("worker_memory"):
        lines += ["", *worker_memory_lines(report["worker_memory"])]
    return "\n".join(lines) + "\n"


def targets_table(report: dict) -> list[str]:
    caches = [server["cache"] for server in (report.get("served") or {}).get("servers", [])]
    lines = [
        f"## Targets (N={TARGET_SIZE})",
        "",
        "The verdict is the in-process figure's where there is one; the over-HTTP figures beside "
        "it are for comparison (schedule: the first request after an edit; exports: after one "
        "edit; from the cache: one request at a time). Ratios are requests per second against "
        "the mean of the static file's runs just before and after, on the same server.",
        "",
        "| "
        + " | ".join(["target", "limit", "in-process", *(f"over HTTP, {c}" for c in caches), ""])
        + " |",
        "| " + " | ".join(["---", "---:", "---:", *("---:" for _ in caches), "---"]) + " |",
    ]
    for target in report["targets"]:
        unit = target["unit"]
        limit = f"≥ {target['limit']}×" if unit == "×" else f"≤ {target['limit']:g} ms"
        cells = [target["name"], limit, figure_cell(target["in_process"], target, judged=True)]
        for cache in caches:
            row = target["over_http"].get(cache)
            value = row[target["statistic"]] if row else None
            text = figure_cell(value, target, judged=target["judged"] == "over HTTP")
            if row and unit == "×":
                before, after = row["static_before_after"]
                text += (
                    f" ({row['requests_per_s']:,.0f}/s; static {before:,.0f} and {after:,.0f}/s)"
                )
            cells.append(text)
        verdict = {True: "**met**", False: "**missed**", None: "not measured"}[target["met"]]
        lines.append(f"| {' | '.join([*cells, verdict])} |")
    return lines


def figure_cell(value: float | None, target: dict, judged: bool) -> str:
    if value is None:
        return "—"
    text = f"{value:.2f}×" if target["unit"] == "×" else f"{value:.1f} ms"
    if not judged:
        return text
    return f"{text} {'✓' if meets(value, target['limit'], target['unit']) else '✗'}"


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


def served_tables(served: dict, sizes: list[dict]) -> list[str]:
    pages = next((s.get("pages", []) for s in sizes if s["size"] == served["size"]), [])
    by_name = {page["name"]: page for page in pages}

    def in_process(name: str, mode: str, statistic: str) -> str:
        figures = by_name.get(name, {}).get(mode, {})
        return f"{figures[statistic]:.1f}" if figures.get("status") == 200 else "—"

    lines = [
        f"## Over HTTP (N={served['size']})",
        "",
        f"`gunicorn conference.site.wsgi --workers {served['workers']}` with `make serve`'s options "
        "(sync workers, DEBUG off, persistent database connections, access log), on the same "
        f"machine as the client; every request asks as browsers do (`Accept-Encoding: gzip, "
        f"deflate, br`) unless its row says otherwise. {served['redis']}. nginx: "
        f"{served['nginx']}.",
        "",
        "### After one edit",
        "",
        "Each page requested once, a session's title saved, the page requested and timed; the "
        "timed request lands on whichever worker takes it. In-process: the same, with the test "
        "client.",
        "",
        "| cache | URL | in-process median ms | in-process p95 ms | over HTTP median ms "
        "| over HTTP p95 ms | workers that answered | bytes sent |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for server in served["servers"]:
        for row in server["after_edit"]:
            lines.append(
                f"| {server['cache']} | {row['name']} | "
                f"{in_process(row['name'], 'uncached', 'median_ms')} | "
                f"{in_process(row['name'], 'uncached', 'p95_ms')} | {row['median_ms']:.1f} | "
                f"{row['p95_ms']:.1f} | {row['workers']} of {row['of_workers']} | "
                f"{row['bytes']:,} |"
            )
    counterparts = {
        "schedule, anonymous": "schedule",
        "schedule, logged in": LOGGED_IN_SCHEDULE,
    }
    lines += [
        "",
        "### From the cache, one request at a time",
        "",
        "Each request on a connection of its own, after every worker served the page.",
        "",
        "| cache | page | in-process median ms | over HTTP median ms | over HTTP p95 ms "
        "| requests | bytes sent |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for server in served["servers"]:
        for row in server["one_at_a_time"]:
            lines.append(
                f"| {server['cache']} | {row['name']} | "
                f"{in_process(counterparts[row['name']], 'cached', 'median_ms')} | "
                f"{row['median_ms']:.2f} | {row['p95_ms']:.2f} | {row['repetitions']} | "
                f"{row['bytes']:,} |"
            )
    lines += [
        "",
        "### Throughput",
        "",
        f"{served['connections']} connections for {served['seconds']} s each with "
        f"{served['tool']} after a 1 s warm-up. Each URL is loaded between two runs of the "
        f"static reference `{served['static_path']}` on the same server: whitenoise's for "
        "gunicorn alone, nginx's own behind nginx. The ratio divides the URL's requests per "
        "second by the mean of those two runs.",
        "",
        "| cache | server | URL | requests/s | static reference | static requests/s (before, "
        "after) | ratio | median ms | p95 ms | requests | non-200 | bytes sent | load "
        "| reference loop ms |",
        "| --- | --- | --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: "
        "| ---: |",
    ]
    for server in served["servers"]:
        for row in [*server["app"], *server.get("front", [])]:
            name = "nginx → gunicorn" if row["server"] == "nginx" else "gunicorn"
            lines.append(
                f"| {server['cache']} | {name} | {row['name']} | {row['requests_per_s']:.0f} | "
                f"`{row.get('static_path', served['static_path'])}` | "
                f"{row['static_requests_per_s']:.0f} ({row['static_before_after'][0]:.0f}, "
                f"{row['static_before_after'][1]:.0f}) | {row['ratio']:.2f} | "
                f"{row['median_ms']:.1f} | {row['p95_ms']:.1f} | {row['requests']} | "
                f"{row['errors']} | {row['bytes']:,} | {row['load_average']} | "
                f"{row['reference_loop_ms']} |"
            )
    return lines


def worker_memory_lines(memory: dict) -> list[str]:
    failed = {path: status for path, status in memory["statuses"].items() if status != 200}
    met = "met" if memory["rss_mib"] < WORKER_MEMORY_TARGET_MIB else "missed"
    return [
        f"## Worker memory (N={memory['size']})",
        "",
        f"One gunicorn sync worker (local-memory cache) after serving each of the "
        f"{len(memory['paths'])} public pages and exports twice: **{memory['rss_mib']:.0f} MiB** "
        f"resident (VmRSS), {memory['peak_rss_mib']:.0f} MiB at its peak (VmHWM); target under "
        f"{WORKER_MEMORY_TARGET_MIB} MiB: **{met}**. "
        + (f"Not 200: {failed}." if failed else "Every answer was 200."),
    ]

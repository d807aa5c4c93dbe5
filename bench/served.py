"""Over HTTP: the N=1000 bench database served as `make serve` serves it, alone and behind nginx.

For each page cache (each worker's local memory, then Redis when one answers at BENCH_REDIS_URL)
the parent starts a child process (``run.py --child-served``) with Django set up on the bench
database and the served settings; the child starts gunicorn with `make serve`'s worker count and
options and measures, in this order:

- after one edit: the schedule and each export requested right after a session's title was
  saved, the request landing on whichever worker takes it (as in_process.measure_after_edit);
- from the cache, one request at a time: the schedule, anonymous and logged in;
- throughput of the app alone (whitenoise serving the static reference), then behind nginx
  (deploy/nginx.conf, serving the static reference itself), each URL between two runs of the
  static file on the same server.

Every request asks as browsers do (``Accept-Encoding: gzip, deflate, br``) unless its row says
otherwise. See bench/README.md.
"""

from __future__ import annotations

import json
import os
import re
import statistics
import subprocess
import sys
from pathlib import Path

from bench.common import BROWSER, ROOT, SLUG, log, reference_loop_ms, summary_ms
from bench.in_process import AFTER_EDIT, REPETITIONS, WARM_UPS, TitleEditor, after_edit_row
from bench.servers import (
    LOAD_CONNECTIONS,
    LOAD_SECONDS,
    MARK_HEADER,
    Gunicorn,
    Nginx,
    answering_workers,
    fetch,
    installed_nginx,
    load,
    load_tool,
    served_workers,
    timed_fetch,
)

RUN_SCRIPT = ROOT / "bench" / "run.py"
# Redis for the rows with Redis as the page cache; its database is emptied first.
BENCH_REDIS_URL = os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/13")
ONE_AT_A_TIME = 50
# Before a page's requests after edits, every worker serves it for this long, as a server that
# has been up a while has: the exports' per-session parts are then in every worker's cache.
WORKERS_WARM_SECONDS = 2


# The parent --------------------------------------------------------------------------------


def measure_served(database_url: str, work: Path, generated: dict) -> dict:
    env = served_environment(database_url, work)
    collect_static(env)
    redis_note = redis_unreachable(BENCH_REDIS_URL)
    caches = [("local memory", None)] + ([] if redis_note else [("Redis", BENCH_REDIS_URL)])
    servers = []
    for number, (cache_name, redis_url) in enumerate(caches):
        child_env = {
            **env,
            "BENCH_CACHE": cache_name,
            "BENCH_WORK": str(work),
            "BENCH_ATTENDEE_COOKIE": generated["attendee_cookie"],
        }
        if redis_url:
            redis_unreachable(redis_url)  # empties its database
            child_env["REDIS_URL"] = redis_url
        output = work / f"served-{number}.json"
        command = [sys.executable, str(RUN_SCRIPT), "--child-served", str(output)]
        subprocess.run(command, env=child_env, cwd=ROOT, check=True)
        servers.append(json.loads(output.read_text()))
    return {
        "size": generated["size"],
        "workers": served_workers(),
        "connections": LOAD_CONNECTIONS,
        "seconds": LOAD_SECONDS,
        "tool": load_tool(),
        "redis": redis_note or f"Redis at {BENCH_REDIS_URL}",
        "nginx": installed_nginx() or "not installed: the rows behind nginx are left out",
        "static_path": static_reference_path(work / "staticfiles"),
        "servers": servers,
    }


def served_environment(database_url: str, work: Path) -> dict[str, str]:
    """As `make serve` runs the app (debug off, persistent connections), with collectstatic's
    STATIC_ROOT in the temporary folder: hashed static names need its manifest, and the
    checkout's own staticfiles/ is shared with everyone working in the tree."""
    from bench.common import bench_environment

    env = bench_environment(database_url)
    env.update(DJANGO_STATIC_ROOT=str(work / "staticfiles"))
    env.setdefault("DJANGO_CONN_MAX_AGE", "60")
    return env


def collect_static(env: dict[str, str]) -> None:
    if (Path(env["DJANGO_STATIC_ROOT"]) / "staticfiles.json").exists():
        return
    subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--noinput", "--verbosity", "0"],
        env=env,
        cwd=ROOT,
        check=True,
    )


def static_reference_path(static_root: Path) -> str:
    """The hashed address of site.css, as pages link it: a real file (24 kB, 6 kB gzipped)."""
    manifest = json.loads((static_root / "staticfiles.json").read_text())
    return f"/static/{manifest['paths']['css/site.css']}"


def static_page_copy(port: int, path: str, static_root: Path) -> str:
    """The address of a static file holding the page at ``path`` as the app sends it to
    browsers: the same gzipped bytes, which nginx sends as they are (gzip_static).

    Behind nginx a request costs little more than the bytes it carries: against a small file
    the ratio would measure the page's size, not whether nginx answers it from its cache as it
    sends a file, which is what the target asks (bench/README.md).
    """
    import gzip
    import http.client

    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    try:
        connection.request("GET", path, headers=BROWSER)
        response = connection.getresponse()
        body, coding = response.read(), response.getheader("Content-Encoding")
    finally:
        connection.close()
    if response.status != 200 or coding != "gzip":
        raise RuntimeError(f"{path} answered {response.status} with Content-Encoding {coding}")
    folder = static_root / "bench"
    folder.mkdir(exist_ok=True)
    (folder / "page-copy.html").write_bytes(gzip.decompress(body))
    (folder / "page-copy.html.gz").write_bytes(body)
    return "/static/bench/page-copy.html"


def redis_unreachable(url: str) -> str:
    """Why Redis cannot be used for the bench ("" when it answers); its database is emptied."""
    import redis

    try:
        client = redis.Redis.from_url(url, socket_connect_timeout=2)
        client.flushdb()
    except redis.RedisError as error:
        return f"Redis rows skipped: no Redis at {url} ({error})"
    return ""


# The child ---------------------------------------------------------------------------------


def measure_served_child(output: Path) -> None:
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "conference.site.settings")
    django.setup()
    from django.conf import settings

    from conference.models import Conference

    work, cache_name = Path(os.environ["BENCH_WORK"]), os.environ["BENCH_CACHE"]
    conference = Conference.objects.get(slug=SLUG)
    logged_in = {**BROWSER, "Cookie": os.environ["BENCH_ATTENDEE_COOKIE"]}
    static = static_reference_path(Path(settings.STATIC_ROOT))
    schedule = f"/{SLUG}/schedule/"
    access_log = work / f"access-{cache_name.replace(' ', '-')}.log"
    log(f"  over HTTP, {cache_name}: gunicorn with {served_workers()} workers")
    result: dict = {"cache": cache_name}
    with Gunicorn(dict(os.environ), served_workers(), access_log) as app:
        result["after_edit"] = measure_after_edit(app.port, conference, work)
        result["one_at_a_time"] = [
            one_at_a_time(app.port, "schedule, anonymous", schedule, BROWSER, work),
            one_at_a_time(app.port, "schedule, logged in", schedule, logged_in, work),
        ]
        rows = [
            ("schedule, anonymous", schedule, BROWSER, BROWSER),
            ("schedule, anonymous, uncompressed", schedule, {}, {}),
            ("schedule, logged in", schedule, logged_in, BROWSER),
            ("schedule.json", f"/{SLUG}/schedule.json", BROWSER, BROWSER),
            ("tracks.css (smallest view)", f"/{SLUG}/tracks.css", BROWSER, BROWSER),
        ]
        result["app"] = [
            throughput_row("gunicorn", app.port, *row, static, work, cache_name) for row in rows
        ]
        if installed_nginx():
            page_copy = static_page_copy(app.port, schedule, Path(settings.STATIC_ROOT))
            with Nginx(work, app.port, static) as front:
                result["front"] = [
                    throughput_row("nginx", front.port, *rows[0], page_copy, work, cache_name),
                    throughput_row(
                        "nginx",
                        front.port,
                        "schedule, anonymous, against site.css",
                        *rows[0][1:],
                        static,
                        work,
                        cache_name,
                    ),
                    throughput_row("nginx", front.port, *rows[2], static, work, cache_name),
                ]
    marks = answering_workers(access_log, "edit:")
    for row in result["after_edit"]:
        row["workers"] = len({marks[mark] for mark in row.pop("marks") if mark in marks})
        row["of_workers"] = served_workers()
    output.write_text(json.dumps(result))


def measure_after_edit(port: int, conference, work: Path) -> list[dict]:
    """As in-process (each page requested once, a title saved, the page requested and timed),
    over HTTP: the request after the edit lands on whichever worker takes it, which made the
    page for the previous version or not (with the local-memory cache, each worker its own)."""
    editor = TitleEditor(conference)
    rows = []
    for name in AFTER_EDIT:
        path = f"/{SLUG}/{name}"
        load(port, path, BROWSER, work, seconds=WORKERS_WARM_SECONDS)
        samples, marks = [], []
        for number in range(WARM_UPS + REPETITIONS):
            fetch(port, path, BROWSER)
            editor.edit()
            mark = f"edit:{name}:{number}"
            samples.append(timed_fetch(port, path, {**BROWSER, MARK_HEADER: mark}))
            marks.append(mark)
        samples, marks = samples[WARM_UPS:], marks[WARM_UPS:]
        row = {
            "name": after_edit_row(name),
            "path": path,
            "status": samples[-1][1],
            **summary_ms([seconds for seconds, _, _ in samples]),
            "bytes": samples[-1][2],
            "repetitions": len(samples),
            "marks": marks,
        }
        log(f"    {row['name']:<28} {row['median_ms']:7.1f} ms, p95 {row['p95_ms']:7.1f} ms")
        rows.append(row)
    editor.restore()
    return rows


def one_at_a_time(port: int, name: str, path: str, headers: dict, work: Path) -> dict:
    """``path`` from the cache, one request at a time, each on a connection of its own (gunicorn's
    sync workers close every connection), after every worker served it."""
    load(port, path, headers, work, seconds=WORKERS_WARM_SECONDS)
    samples = [timed_fetch(port, path, headers) for _ in range(ONE_AT_A_TIME)]
    row = {
        "name": name,
        "path": path,
        "status": samples[-1][1],
        **summary_ms([seconds for seconds, _, _ in samples]),
        "bytes": samples[-1][2],
        "repetitions": len(samples),
    }
    log(f"    {name:<28} one at a time {row['median_ms']:7.2f} ms")
    return row


def throughput_row(
    server: str,
    port: int,
    name: str,
    path: str,
    headers: dict,
    static_headers: dict,
    static_path: str,
    work: Path,
    cache_name: str,
) -> dict:
    """``path`` loaded right between two loads of the static reference on the same server.

    The machine's speed swings within a minute: the reference is the mean of the static file's
    runs just before and just after, asked for with the same encodings.
    """
    before = load(port, static_path, static_headers, work)
    run = load(port, path, headers, work)
    after = load(port, static_path, static_headers, work)
    static = [before["requests_per_s"], after["requests_per_s"]]
    row = {
        "name": name,
        "server": server,
        **run,
        "static_path": static_path,
        "static_requests_per_s": statistics.mean(static),
        "static_before_after": static,
        "ratio": run["requests_per_s"] / statistics.mean(static),
        "load_average": round(os.getloadavg()[0], 2),
        "reference_loop_ms": reference_loop_ms(),
    }
    log(
        f"    {server:<8} {name:<34} {run['requests_per_s']:7.0f}/s, static "
        f"{row['static_requests_per_s']:7.0f}/s: {row['ratio']:.2f}x ({cache_name})"
    )
    return row


# Worker memory (N=10,000) --------------------------------------------------------------------


def measure_worker_memory(database_url: str, work: Path, generated: dict) -> dict:
    """One gunicorn worker's resident memory after it served every public page and export.

    One sync worker with the local-memory cache (no Redis), so the pages it cached count too;
    each path is requested twice (rendered, then from the cache).
    """
    env = served_environment(database_url, work)
    collect_static(env)
    with Gunicorn(env, workers=1) as server:
        statuses = {path: fetch(server.port, path)[0] for path in generated["public_paths"] * 2}
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

"""Servers on 127.0.0.1 for the bench, and the load sent to them: gunicorn as `make serve` runs it,
nginx with deploy/nginx.conf in front of it, and wrk (or Python threads without it)."""

from __future__ import annotations

import http.client
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from bench.common import ROOT, SLUG, percentile

# Seconds of each load (BENCH_LOAD_SECONDS: shorter while developing the bench itself).
LOAD_SECONDS = int(os.environ.get("BENCH_LOAD_SECONDS", "5"))
LOAD_CONNECTIONS = 8
WARM_UP_SECONDS = 1
NGINX_CONFIG = ROOT / "deploy" / "nginx.conf"
# The two lines of deploy/nginx.conf that `make front` rewrites too (Makefile): its own port and
# gunicorn's.
NGINX_LISTEN = "listen 127.0.0.1:8080;"
NGINX_UPSTREAM = "server 127.0.0.1:8000;"
# The request header the bench marks a request with, and gunicorn's access log line: the
# worker's pid, that mark, the request line, the status.
MARK_HEADER = "X-Bench-Request"
ACCESS_LOG_FORMAT = '%(p)s %({x-bench-request}i)s "%(r)s" %(s)s'


def served_workers() -> int:
    """`make serve`'s worker count: two per core, plus one."""
    return 2 * len(os.sched_getaffinity(0)) + 1


def load_tool() -> str:
    return "wrk" if shutil.which("wrk") else "python"


class Gunicorn:
    """``gunicorn conference.site.wsgi`` on a free port of 127.0.0.1 with `make serve`'s options (its
    access log into ``access_log``), stopped on leaving."""

    def __init__(self, env: dict[str, str], workers: int, access_log: Path | None = None):
        self.env, self.workers, self.port = env, workers, free_port()
        self.access_log = access_log

    def __enter__(self) -> Gunicorn:
        command = [sys.executable, "-m", "gunicorn", "conference.site.wsgi"]
        command += ["--workers", str(self.workers), "--bind", f"127.0.0.1:{self.port}"]
        command += ["--graceful-timeout", "20", "--limit-request-line", "8190"]
        command += ["--log-level", "warning"]
        if self.access_log:
            command += ["--access-logfile", str(self.access_log)]
            command += ["--access-logformat", ACCESS_LOG_FORMAT]
        self.server = subprocess.Popen(command, env=self.env, cwd=ROOT)
        try:
            wait_until_serving(self.port, f"/{SLUG}/tracks.css")
        except BaseException:
            self.__exit__()
            raise
        return self

    def worker_pids(self) -> list[int]:
        children = Path(f"/proc/{self.server.pid}/task/{self.server.pid}/children")
        return [int(pid) for pid in children.read_text().split()]

    def __exit__(self, *exc_info) -> None:
        stop(self.server)


def answering_workers(access_log: Path, mark_prefix: str) -> dict[str, int]:
    """The pid of the worker that answered each marked request whose mark starts with
    ``mark_prefix``, from gunicorn's access log (ACCESS_LOG_FORMAT)."""
    workers = {}
    for line in access_log.read_text().splitlines():
        pid, mark, *_ = line.split(" ", 2)
        if mark.startswith(mark_prefix):
            workers[mark] = int(pid.strip("<>"))
    return workers


def installed_nginx() -> str | None:
    """Its path: Debian installs it in /usr/sbin, which is not on every user's PATH."""
    return shutil.which("nginx") or shutil.which("nginx", path="/usr/sbin")


def front_config(listen_port: int, app_port: int) -> str:
    """deploy/nginx.conf listening on ``listen_port`` in front of gunicorn on ``app_port``,
    rewritten as `make front` does."""
    text = NGINX_CONFIG.read_text()
    for line in (NGINX_LISTEN, NGINX_UPSTREAM):
        if text.count(line) != 1:
            raise RuntimeError(
                f"deploy/nginx.conf must hold `{line}` once (make front rewrites it too)."
            )
    return text.replace(NGINX_LISTEN, f"listen 127.0.0.1:{listen_port};").replace(
        NGINX_UPSTREAM, f"server 127.0.0.1:{app_port};"
    )


class Nginx:
    """nginx running deploy/nginx.conf (ports rewritten) in front of gunicorn on ``app_port``.

    Its prefix is ``prefix``: the config's relative paths name ``prefix/.nginx/`` (pid file,
    temporary files, cache, access log) and ``prefix/staticfiles/`` (collectstatic's STATIC_ROOT),
    as they name the checkout's for `make front`. Its cache starts empty.
    """

    def __init__(self, prefix: Path, app_port: int, ready_path: str):
        self.prefix, self.app_port, self.ready_path = prefix, app_port, ready_path
        self.port = free_port()

    def __enter__(self) -> Nginx:
        state = self.prefix / ".nginx"
        shutil.rmtree(state, ignore_errors=True)
        state.mkdir()
        config = state / "nginx.conf"
        config.write_text(front_config(self.port, self.app_port))
        command = [installed_nginx(), "-p", str(self.prefix), "-c", str(config), "-e", "stderr"]
        if os.geteuid() == 0:  # else its workers run as nobody, who may not enter the folder
            command += ["-g", "user root;"]
        self.server = subprocess.Popen(command)
        try:
            wait_until_serving(self.port, self.ready_path)
        except BaseException:
            self.__exit__()
            raise
        return self

    def __exit__(self, *exc_info) -> None:
        stop(self.server)


def stop(server: subprocess.Popen) -> None:
    server.terminate()
    try:
        server.wait(timeout=15)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()


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
        raise RuntimeError(f"127.0.0.1:{port} answered {status} for {path}")
    raise RuntimeError(f"nothing answered on 127.0.0.1:{port} within {timeout} s")


def fetch(port: int, path: str, headers: dict[str, str] | None = None) -> tuple[int, int]:
    """One request on a connection of its own: the status and the length of the body as sent."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    try:
        connection.request("GET", path, headers=headers or {})
        response = connection.getresponse()
        return response.status, len(response.read())
    finally:
        connection.close()


def timed_fetch(port: int, path: str, headers: dict[str, str]) -> tuple[float, int, int]:
    started = time.perf_counter()
    status, length = fetch(port, path, headers)
    return time.perf_counter() - started, status, length


def load(port: int, path: str, headers: dict[str, str], work: Path, seconds=LOAD_SECONDS) -> dict:
    """``path`` loaded for ``seconds`` by LOAD_CONNECTIONS connections after a warm-up (every
    worker fills its caches)."""
    status, size = fetch(port, path, headers)
    if status != 200:
        raise RuntimeError(f"127.0.0.1:{port} answered {status} for {path}")
    run = load_with_wrk if load_tool() == "wrk" else load_with_threads
    run(port, path, headers, work, seconds=WARM_UP_SECONDS)
    return {
        "path": path,
        "status": status,
        "bytes": size,
        **run(port, path, headers, work, seconds),
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

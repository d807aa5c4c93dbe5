"""The bench's own parts that decide what its figures mean (bench/in_process.py, bench/served.py,
bench/servers.py, bench/report.py)."""

import gzip
import zlib
from urllib.parse import urlsplit

import pytest

from bench import report, servers
from bench.generator import generate_conference
from bench.in_process import (
    LOGGED_IN_SCHEDULE,
    TitleEditor,
    attendee_cookie,
    logged_in_schedule,
    page_client,
)
from bench.run import command_line
from bench.served import static_page_copy
from tests.builders import SAVED


@pytest.mark.django_db
def test_the_logged_in_rows_cookie_is_an_attendee_with_saved_talks():
    """The logged-in rows must really fill personal parts: a session cookie of an attendee whose
    saved talks show as Saved, and the CSRF cookie a browser sends back."""
    conference = generate_conference(30, slug="bench")
    cookie = attendee_cookie(conference)
    names = {pair.split("=", 1)[0] for pair in cookie.split("; ")}
    assert names == {"sessionid", "csrftoken"}
    page = logged_in_schedule(conference, cookie)
    assert page.name == LOGGED_IN_SCHEDULE
    response = page_client(page).get(page.url)
    # As a browser gets it: compressed (deflate, as offered), private, with the attendee's parts.
    assert response["Content-Encoding"] == "deflate"
    assert "private" in response["Cache-Control"]
    html = zlib.decompress(response.content).decode()
    assert '<span class="muted-on-dark">bench-attendee</span>' in html
    assert html.count(SAVED) == 10


@pytest.mark.django_db
def test_an_edit_moves_the_conference_version_and_restore_puts_the_title_back():
    """The after-edit rows time a page of a version nobody asked for yet."""
    conference = generate_conference(30, slug="bench")
    editor = TitleEditor(conference)
    title, changed_at = editor.session.title, conference.changed_at
    editor.edit()
    conference.refresh_from_db()
    assert conference.changed_at > changed_at
    assert editor.session.title != title
    editor.restore()
    editor.session.refresh_from_db()
    assert editor.session.title == title


@pytest.mark.django_db(transaction=True)
def test_the_static_copy_nginx_is_measured_against_holds_the_bytes_a_browser_gets(
    live_server, tmp_path
):
    """Behind nginx the page is compared with a static file of its own size: that file must be
    the page as the app sends it, gzipped, with its uncompressed text beside it."""
    generate_conference(30, slug="bench")
    port = urlsplit(live_server.url).port
    address = static_page_copy(port, "/bench/schedule/", tmp_path)
    assert address == "/static/bench/page-copy.html"
    sent = servers.fetch(port, "/bench/schedule/", {"Accept-Encoding": "gzip"})
    compressed = (tmp_path / "bench" / "page-copy.html.gz").read_bytes()
    assert (200, len(compressed)) == sent
    html = (tmp_path / "bench" / "page-copy.html").read_bytes()
    assert gzip.decompress(compressed) == html
    assert b"</html>" in html


def test_nginx_runs_deploy_nginx_conf_with_only_its_two_ports_changed():
    config = servers.NGINX_CONFIG.read_text()
    rewritten = servers.front_config(18080, 18000)
    assert "listen 127.0.0.1:18080;" in rewritten
    assert "server 127.0.0.1:18000;" in rewritten
    assert rewritten.replace("18080", "8080").replace("18000", "8000") == config


def test_a_config_without_the_lines_make_front_rewrites_is_refused(tmp_path, monkeypatch):
    changed = tmp_path / "nginx.conf"
    changed.write_text(servers.NGINX_CONFIG.read_text().replace(servers.NGINX_LISTEN, "listen 80;"))
    monkeypatch.setattr(servers, "NGINX_CONFIG", changed)
    with pytest.raises(RuntimeError, match="make front"):
        servers.front_config(18080, 18000)


def test_the_worker_of_each_marked_request_is_read_from_gunicorns_access_log(tmp_path):
    access_log = tmp_path / "access.log"
    access_log.write_text(
        '<101> - "GET /bench/tracks.css HTTP/1.1" 200\n'
        '<102> edit:schedule/:0 "GET /bench/schedule/ HTTP/1.1" 200\n'
        '<103> edit:schedule/:1 "GET /bench/schedule/ HTTP/1.1" 200\n'
    )
    assert servers.answering_workers(access_log, "edit:") == {
        "edit:schedule/:0": 102,
        "edit:schedule/:1": 103,
    }


def page(name, uncached=None, cached=None):
    return {"name": name, "uncached": uncached or {"status": 200}, "cached": cached or {}}


def figures(median_ms, p95_ms):
    return {"status": 200, "median_ms": median_ms, "p95_ms": p95_ms}


def served_row(name, ratio):
    return {
        "name": name,
        "ratio": ratio,
        "requests_per_s": 1000 * ratio,
        "static_before_after": [1000, 1000],
    }


def test_each_target_is_met_or_missed_by_the_figures_it_is_judged_on():
    run = {
        "sizes": [
            {
                "size": 1000,
                "pages": [
                    page("schedule", figures(120, 260), figures(0.5, 0.6)),
                    page("session", figures(5, 6)),
                    page("release review (200 moved)", figures(40, 50)),
                ],
            }
        ],
        "served": {
            "servers": [
                {
                    "cache": "local memory",
                    "after_edit": [{"name": "schedule after one edit", "p95_ms": 100}],
                    "app": [served_row("schedule, anonymous", 0.35)],
                    "front": [
                        served_row("schedule, anonymous", 0.9),
                        served_row("schedule, anonymous, against site.css", 0.5),
                    ],
                },
                {
                    "cache": "Redis",
                    "app": [served_row("schedule, anonymous", 0.25)],
                    "front": [served_row("schedule, anonymous", 0.85)],
                },
            ]
        },
    }
    targets = {target["name"]: target for target in report.evaluate(run)}
    # Judged in-process: a p95 over the limit misses, whatever the over-HTTP figure.
    assert targets["schedule, uncached: p95"]["met"] is False
    assert targets["schedule, uncached: p95"]["over_http"]["local memory"]["p95_ms"] == 100
    assert targets["session page, uncached: median"]["met"] is True
    assert targets["anonymous schedule from the cache: median"]["met"] is True
    assert targets["release review: median"]["met"] is True
    # Judged over HTTP: met only when met with every cache.
    # Behind nginx, against the static copy of the page; the row against site.css is shown only.
    nginx = "behind nginx: anonymous schedule / nginx's static file of the page's size"
    assert targets[nginx]["met"] is True
    assert targets["app alone: anonymous schedule / whitenoise's static file"]["met"] is False
    # Rows the run did not measure.
    assert targets["speaker page, uncached: median"]["met"] is None
    assert targets["app alone: logged-in schedule / whitenoise's static file"]["met"] is None


def test_targets_of_a_run_without_n_1000_are_not_measured():
    run = {"sizes": [{"size": 30, "pages": [page("session", figures(5, 6))]}], "served": None}
    assert {target["met"] for target in report.evaluate(run)} == {None}


def test_the_table_marks_each_target():
    run = {
        "sizes": [{"size": 1000, "pages": [page("session", figures(9, 10))]}],
        "served": None,
    }
    run["targets"] = report.evaluate(run)
    table = "\n".join(report.targets_table(run))
    assert "| session page, uncached: median | ≤ 8 ms | 9.0 ms ✗ | **missed** |" in table
    assert "| speaker page, uncached: median | ≤ 8 ms | — | not measured |" in table


def test_the_recorded_command_can_be_typed_again_without_a_password(monkeypatch):
    monkeypatch.setattr("sys.argv", ["bench/run.py", "--http"])
    monkeypatch.setenv("DATABASE_URL", "postgres://postgres:secret@127.0.0.1:5432/confsched")
    monkeypatch.delenv("MAKELEVEL", raising=False)
    assert command_line() == (
        "DATABASE_URL=postgres://postgres:PASSWORD@127.0.0.1:5432/confsched "
        ".venv/bin/python bench/run.py --http"
    )
    monkeypatch.setenv("MAKELEVEL", "1")
    assert command_line().startswith("make bench → DATABASE_URL=")

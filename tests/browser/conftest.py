"""Real-browser tests: Playwright driving Debian's chromium against live_server.

Without Chromium they skip on a laptop; under CI=true a missing browser is a failure.

Tests wait for what they check, never for a fixed time: Playwright's actions and ``expect``
retry until their condition holds, for up to TIMEOUT_MS. That bound only matters when a test
fails, so it is generous: on a loaded machine a page can take many seconds to load.
"""

import os
import shutil
import threading
import time

import pytest
from django.core.management import call_command
from django.core.signals import request_finished, request_started
from pytest_django.live_server_helper import LiveServer

from tests.browser.axe import AXE

TIMEOUT_MS = 60_000

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    # The machine has no outside network: stop Chromium's background calls home.
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    # One origin under test: a renderer process per site, and the features below, only cost
    # CPU, which the browser tests are short of on two cores (about a tenth of their time).
    "--disable-site-isolation-trials",
    "--disable-features=site-per-process,IsolateOrigins,Translate,OptimizationHints,MediaRouter",
    # A test with two tabs waits on the one in the background too: no throttling of its timers.
    "--disable-renderer-backgrounding",
]


# Every context a test opened, closed by ``server_idle_before_the_data_goes``.
open_contexts = []


def new_context(browser, *, module_wide=False, **options):
    """A browser context whose pages wait up to TIMEOUT_MS for each action and navigation.

    It is closed after the test that opened it, unless ``module_wide`` (then the fixture that
    opened it closes it). The service worker is blocked unless a test asks for it
    (``service_workers="allow"``): once a page loads, the worker fetches the whole conference
    to keep it offline, requests that a test about something else neither needs nor waits for.
    """
    options.setdefault("service_workers", "block")
    context = browser.new_context(**options)
    context.set_default_timeout(TIMEOUT_MS)
    if not module_wide:
        open_contexts.append(context)
    return context


def chromium_path() -> str | None:
    return (
        os.environ.get("CHROMIUM_PATH")
        or shutil.which("chromium")
        or shutil.which("chromium-browser")
    )


@pytest.fixture(scope="session")
def browser():
    path = chromium_path()
    if path is None:
        message = "Chromium is not installed (apt-get install chromium)"
        if os.environ.get("CI") == "true":
            pytest.fail(f"{message}: browser tests must run in CI.")
        pytest.skip(f"{message}; browser tests skipped.")
    # live_server runs Django in this process's thread while Playwright's sync API runs an event loop.
    os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=TIMEOUT_MS)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=path, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture(scope="session")
def axe_source():
    if not AXE.is_file():
        message = "node_modules/axe-core is missing (make test runs npm ci)"
        if os.environ.get("CI") == "true":
            pytest.fail(f"{message}: the accessibility tests must run in CI.")
        pytest.skip(f"{message}; accessibility tests skipped.")
    return AXE.read_text()


@pytest.fixture
def demo_conference(transactional_db):
    call_command("loaddata", "pytorch-eu-2026", verbosity=0)


@pytest.fixture(scope="module")
def shared_demo(django_db_setup, django_db_blocker):
    """The demo conference, committed once and served by a live server of its own, for a module
    whose tests only read it; emptied after the module's last test.

    Its tests take ``db`` (a transaction rolled back after each), not ``live_server``, which
    empties the database after every test. A test that writes, through the browser or not,
    takes ``live_server`` and ``demo_conference``: on PostgreSQL the server's writes are
    committed and would outlive it."""
    with django_db_blocker.unblock():
        call_command("loaddata", "pytorch-eu-2026", verbosity=0)
        server = LiveServer("localhost")
        server._live_server_modified_settings.enable()
        try:
            yield server
        finally:
            server._live_server_modified_settings.disable()
            server.stop()
            call_command("flush", interactive=False, verbosity=0)


class RequestsInProgress:
    """The live server's threads answering a request, from Django's request_started and
    request_finished signals (the latter sent once the answer is written and closed, or its
    writing failed).

    Connection threads would be the wrong count: Chromium keeps each connection open between
    requests, and the server's thread for it lives as long as it does, so another tab still
    open would hold up every wait for its whole timeout. Requests of the test client, answered
    in the test's own thread before it goes on, are not counted."""

    def __init__(self):
        self.answering: dict[int, threading.Thread] = {}
        self.changed = threading.Condition()
        request_started.connect(self.started, dispatch_uid="browser-requests-started")
        request_finished.connect(self.finished, dispatch_uid="browser-requests-finished")

    def started(self, **kwargs):
        thread = threading.current_thread()
        if thread is not threading.main_thread():
            with self.changed:
                self.answering[thread.ident] = thread

    def finished(self, **kwargs):
        with self.changed:
            self.answering.pop(threading.get_ident(), None)
            self.changed.notify_all()

    def none_left(self) -> bool:
        # A thread that died mid-answer never says it finished.
        return not any(thread.is_alive() for thread in self.answering.values())

    def wait_until_none(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        with self.changed:
            while not self.none_left() and (left := deadline - time.monotonic()) > 0:
                self.changed.wait(min(left, 0.1))  # woken by each answer; looks again for deaths


requests_in_progress = RequestsInProgress()


def wait_for_answers() -> None:
    """Wait until the live server has answered every request it is still working on."""
    requests_in_progress.wait_until_none(TIMEOUT_MS / 1000)


def close_page(page) -> None:
    """Close the page's browser and wait until the server has answered what it had asked."""
    page.context.close()
    wait_for_answers()


@pytest.fixture(autouse=True)
def server_idle_before_the_data_goes():
    """After each test, close every browser context it opened and wait for the live server's
    answers: an answer still reading the database while the test's data is emptied deadlocks
    PostgreSQL's TRUNCATE. pytest-django sets ``transactional_db`` up before any fixture of
    ours (its autouse ``_live_server_helper``), so this runs before the data goes."""
    yield
    if not open_contexts:
        return  # nothing asked; a module-wide context keeps its connections open on purpose
    while open_contexts:
        open_contexts.pop().close()
    wait_for_answers()


def page_of(browser, live_server, **options):
    context = new_context(
        browser, viewport={"width": 1280, "height": 900}, timezone_id="Europe/Paris", **options
    )
    page = context.new_page()
    page.base_url = live_server.url
    return page


@pytest.fixture
def page(browser, live_server, demo_conference):
    """A tab without the service worker (test_offline.py has its own ``page`` with it)."""
    page = page_of(browser, live_server)
    yield page
    close_page(page)


@pytest.fixture
def shared_page(browser, shared_demo, db):
    """A tab on ``shared_demo``'s server, for tests that only read the demo conference."""
    page = page_of(browser, shared_demo)
    yield page
    close_page(page)

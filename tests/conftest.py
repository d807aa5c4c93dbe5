import datetime
from pathlib import Path

import pytest
from django.conf import settings
from django.core.cache import caches
from django.db import transaction
from django.template.backends import jinja2 as jinja2_backend
from django.test.signals import template_rendered
from django.test.utils import override_settings
from django.utils import translation

from conference.i18n.catalogues import compile_stale
from conference.pages.copies import forget_pages
from tests.builders import make_conference, make_speaker, make_team

TESTS = Path(__file__).parent
# What CI runs once, in its SQLite leg (docs/testing.md): tests that drive a browser, and modules
# that start servers on a SQLite database of their own, so the suite's database changes nothing.
BROWSER_TESTS = TESTS / "browser"
SERVER_MODULES = [
    TESTS / "test_readme.py",
    TESTS / "conference" / "test_sqlite_server.py",
    TESTS / "conference" / "pages" / "test_front_cache.py",
]


def pytest_configure(config):
    # `make test` compiles the catalogue first; a bare `pytest` after editing a .po does it here.
    compile_stale()


def pytest_collection_modifyitems(items):
    if moved := [str(path) for path in SERVER_MODULES if not path.is_file()]:
        raise pytest.UsageError(f"tests/conftest.py names server modules that moved: {moved}")
    for item in items:
        if item.path.is_relative_to(BROWSER_TESTS):
            item.add_marker(pytest.mark.browser)
        elif item.path in SERVER_MODULES:
            item.add_marker(pytest.mark.server)


@pytest.fixture(autouse=True, scope="session")
def jinja2_templates_report_their_context():
    """Let tests read ``response.context`` of Jinja2 pages, as they can of Django templates.

    Django's test runner instruments only its own template engine; this sends the same signal
    the test client listens to when a Jinja2 template renders.
    """
    render = jinja2_backend.Template.render

    def render_and_report(self, context=None, request=None):
        context = {} if context is None else context
        template_rendered.send(sender=self, template=self, context=context)
        return render(self, context, request)

    jinja2_backend.Template.render = render_and_report
    yield
    jinja2_backend.Template.render = render


@pytest.fixture(scope="session", autouse=True)
def session_settings(django_test_environment, tmp_path_factory):
    """What every test runs with, set once for the session (on top of pytest-django's).

    Django's default hasher takes about 0.6 s per password here, by design; tests hash hundreds.
    Production settings use hashed static files, which need collectstatic; tests use plain names.
    The site's address differs from the test client's host, so a link built from the request
    instead of ``SITE_URL`` fails a test. On SQLite the limits are counted in a folder beside the
    database file, db.sqlite3.limits/ for the checkout's: the suite counts in one of its own.
    """
    cache_settings = settings.CACHES
    if cache_settings["limits"]["BACKEND"].endswith("FileBasedCache"):
        limits = {**cache_settings["limits"], "LOCATION": str(tmp_path_factory.mktemp("limits"))}
        cache_settings = {**cache_settings, "limits": limits}
    with override_settings(
        SITE_URL="https://schedule.example.org",
        PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"],
        STORAGES={
            **settings.STORAGES,
            "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
        },
        CACHES=cache_settings,
    ):
        yield


@pytest.fixture(autouse=True)
def empty_cache():
    """Shared pages live in the cache and each worker's copies; each test starts without them,
    and without the counts of the "limits" cache (in a database table, each test's transaction
    rolls them back; in files, they are deleted here)."""
    forget_pages()
    if settings.CACHES["limits"]["BACKEND"].endswith("FileBasedCache"):
        caches["limits"].clear()
    yield
    forget_pages()


@pytest.fixture(autouse=True)
def default_language():
    """A page answered in French leaves French active in the thread (a conference's language is
    activated for its pages): each test starts in the site's default language."""
    yield
    translation.activate(settings.LANGUAGE_CODE)


@pytest.fixture(scope="module")
def module_db(django_db_setup, django_db_blocker):
    """One transaction around a module's tests, rolled back after its last one.

    Module-scoped fixtures that depend on this write their data once for all the module's tests.
    Each test still runs in a savepoint of its own (pytest-django's ``django_db``), so nothing a
    test writes outlives it. Only for modules without transactional tests: those need commits.
    """
    with django_db_blocker.unblock():
        atomic = transaction.atomic()
        atomic.__enter__()
    yield
    with django_db_blocker.unblock():
        transaction.set_rollback(True)
        atomic.__exit__(None, None, None)


@pytest.fixture
def clock(monkeypatch):
    """Set the site's clock, for pages about the present: ``clock(paris(8, 10, 20))``.

    Patches ``django.utils.timezone.now``, which the site always reads through its module, in
    this process: the test client's requests and ``live_server``'s thread alike.
    """
    from django.utils import timezone

    def set_clock(moment):
        utc = moment.astimezone(datetime.UTC)
        monkeypatch.setattr(timezone, "now", lambda: utc)

    return set_clock


@pytest.fixture
def immediate_tasks(settings):
    """Background tasks run as soon as they are enqueued, in the test's own transaction."""
    settings.TASKS = {
        "default": {
            "BACKEND": "django_tasks.backends.immediate.ImmediateBackend",
            "QUEUES": settings.TASK_QUEUES,
        }
    }


@pytest.fixture
def dummy_tasks(settings):
    """Background tasks are kept, never run: ``dummy_tasks.results`` lists what was enqueued."""
    from django_tasks import default_task_backend

    settings.TASKS = {
        "default": {
            "BACKEND": "django_tasks.backends.dummy.DummyBackend",
            "QUEUES": settings.TASK_QUEUES,
        }
    }
    return default_task_backend


# --- The people and the conference most tests are about ----------------------------------------
# A module that needs other data (an unpublished conference, another time zone, rooms and sessions
# built once on ``module_db``...) defines its own fixture of the same name, and says what differs.


@pytest.fixture
def conference():
    """PyCon, "pycon": published, 7–8 April 2026 in Paris (``make_conference``'s defaults), with
    no rooms, tracks, sessions or speakers yet: each test adds what it is about."""
    return make_conference(slug="pycon", name="PyCon")


@pytest.fixture
def speaker(conference):
    """Ada Lovelace ("ada-lovelace"), a speaker of ``conference`` without an account or a session."""
    return make_speaker(conference, name="Ada Lovelace")


@pytest.fixture
def attendee(django_user_model):
    """Ada, "ada": an account with an address (not confirmed) and a password, not staff."""
    return django_user_model.objects.create_user("ada", "ada@example.org", "correct horse battery")


@pytest.fixture
def attendee_client(client, attendee):
    """The test client, logged in as ``attendee``."""
    client.force_login(attendee)
    return client


@pytest.fixture
def organizer(django_user_model):
    """ "organizer": a member of an organizer team of every conference, so it may do everything
    in each one (conference/permissions.py), without being a superuser."""
    user = django_user_model.objects.create_user(
        "organizer", "organizer@example.org", "organizer-password", is_staff=True
    )
    make_team(user, all_conferences=True, is_organizer=True)
    return user


@pytest.fixture
def organizer_client(client, organizer):
    """The test client, logged in as ``organizer``."""
    client.force_login(organizer)
    return client

"""Start-up settings, checked in fresh processes as a server or a manage.py command starts them."""

import os
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

import pytest

PROJECT = Path(__file__).resolve().parents[2]
# The settings module alone: it is what reads the environment and the local file.
SHOW_SETTINGS = "from conference.site import settings; print(settings.DEBUG, settings.SECRET_KEY)"


def start(command: list[str], env_file: Path, **env: str):
    """Runs ``command`` in the project as a fresh process would, with only ``env`` set of ours."""
    environment = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith("DJANGO_") and name != "PYTEST_VERSION"
    }
    environment.update(
        DJANGO_SETTINGS_MODULE="conference.site.settings", DJANGO_ENV_FILE=str(env_file)
    )
    return subprocess.run(
        [sys.executable, *command],
        cwd=PROJECT,
        env={**environment, **env},
        capture_output=True,
        text=True,
        check=False,
    )


def settings_seen(env_file: Path, **env: str) -> str:
    result = start(["-c", SHOW_SETTINGS], env_file, **env)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


@pytest.fixture
def local_env_file(tmp_path):
    """A .env.local as `make run` writes it."""
    path = tmp_path / ".env.local"
    path.write_text(
        "# Written by make run for local development; not for production (see README.md).\n"
        "DJANGO_DEBUG=1\n"
        "DJANGO_SECRET_KEY=local-key-from-the-file\n"
    )
    return path


def test_commands_take_debug_and_the_secret_key_from_the_local_env_file(local_env_file):
    assert settings_seen(local_env_file) == "True local-key-from-the-file"


def test_the_environment_wins_over_the_local_env_file(local_env_file):
    seen = settings_seen(local_env_file, DJANGO_DEBUG="0", DJANGO_SECRET_KEY="real-secret")
    assert seen == "False real-secret"


def test_pytest_runs_ignore_the_local_env_file(local_env_file, tmp_path):
    """The suite tests production settings even on a machine where `make run` wrote the file."""
    test_file = tmp_path / "test_seen.py"
    test_file.write_text(
        "from django.conf import settings\n"
        "def test_seen():\n"
        "    print('seen:', settings.SECRET_KEY, settings.STORAGES['staticfiles']['BACKEND'])\n"
    )
    result = start(
        ["-m", "pytest", "-c", "pyproject.toml", "-p", "no:cacheprovider", "-s", str(test_file)],
        local_env_file,
        DJANGO_SECRET_KEY="test-key",
    )
    assert result.returncode == 0, result.stdout + result.stderr
    # Debug on at start-up would have chosen plain static files storage.
    assert "seen: test-key whitenoise.storage.CompressedManifestStaticFilesStorage" in result.stdout


def test_start_up_without_a_secret_key_fails_clearly_when_debug_is_off(tmp_path):
    result = start(["manage.py", "check"], env_file=tmp_path / "no-such-file")
    assert result.returncode != 0
    assert "DJANGO_SECRET_KEY must be set when DJANGO_DEBUG is off" in result.stderr


def test_a_site_url_that_is_not_an_http_address_stops_start_up_clearly(tmp_path):
    result = start(
        ["manage.py", "check"],
        env_file=tmp_path / "no-such-file",
        DJANGO_SECRET_KEY="key",
        DJANGO_SITE_URL="schedule.example.org",
    )
    assert result.returncode != 0
    assert "DJANGO_SITE_URL must be an http(s) address" in result.stderr


def test_a_malformed_local_env_file_names_its_line(tmp_path):
    path = tmp_path / ".env.local"
    path.write_text("DJANGO_DEBUG=1\nnot a setting\n")
    result = start(["manage.py", "check"], env_file=path)
    assert result.returncode != 0
    assert f"{path}, line 2: expected NAME=value." in result.stderr


def test_production_counts_limits_where_every_process_and_server_sees_them(tmp_path):
    show = (
        "from conference.site import settings as s; "
        "print(s.CACHES['limits']['BACKEND'], s.CACHES['limits']['LOCATION'], s.AXES_HANDLER)"
    )
    no_env_file = tmp_path / "no-such-file"
    database = tmp_path / "site.sqlite3"
    environments = {
        "sqlite": {"DATABASE_URL": f"sqlite:///{database}", "REDIS_URL": ""},
        "postgresql": {"DATABASE_URL": "postgres://u@db.internal/confsched", "REDIS_URL": ""},
        "redis": {"REDIS_URL": "redis://cache.internal:6379/0"},
    }
    seen = {
        name: start(["-c", show], no_env_file, DJANGO_SECRET_KEY="k", **env).stdout.split()
        for name, env in environments.items()
    }
    database_failures = "axes.handlers.database.AxesDatabaseHandler"
    assert seen == {
        # The processes of one machine, which a SQLite file implies, share its limits folder.
        "sqlite": [
            "django.core.cache.backends.filebased.FileBasedCache",
            f"{database}.limits",
            database_failures,
        ],
        "postgresql": [
            "django.core.cache.backends.db.DatabaseCache",
            "limits_cache",
            database_failures,
        ],
        "redis": [
            "django.core.cache.backends.redis.RedisCache",
            "redis://cache.internal:6379/0",
            database_failures,
        ],
    }


def test_sqlite_runs_in_wal_mode_and_writers_wait_for_each_other(tmp_path):
    show = "from conference.site import settings as s; print(s.DATABASES['default']['OPTIONS'])"
    seen = start(
        ["-c", show],
        tmp_path / "no-such-file",
        DJANGO_SECRET_KEY="k",
        DATABASE_URL=f"sqlite:///{tmp_path / 'site.sqlite3'}",
    ).stdout.strip()
    assert seen == repr(
        {
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL",
            "transaction_mode": "IMMEDIATE",
            "timeout": 20,
        }
    )


def test_migrate_puts_a_sqlite_database_in_wal_mode(tmp_path):
    database = tmp_path / "fresh.sqlite3"
    result = start(
        ["manage.py", "migrate", "--no-input", "--verbosity", "0"],
        tmp_path / "no-such-file",
        DJANGO_SECRET_KEY="k",
        DATABASE_URL=f"sqlite:///{database}",
        REDIS_URL="",
    )
    assert result.returncode == 0, result.stderr
    with closing(sqlite3.connect(database)) as connection:
        tables = connection.execute("SELECT name FROM sqlite_master").fetchall()
        mode = connection.execute("PRAGMA journal_mode").fetchone()
    assert mode == ("wal",)
    assert ("limits_cache",) not in tables  # the limits live in files beside it


@pytest.mark.django_db
def test_migrate_creates_the_limits_table_where_limits_live_in_the_database():
    from django.conf import settings
    from django.db import connection

    in_database = settings.CACHES["limits"]["BACKEND"].endswith("DatabaseCache")
    assert ("limits_cache" in connection.introspection.table_names()) is in_database


def test_an_unreadable_number_of_trusted_proxies_stops_start_up(tmp_path):
    result = start(
        ["manage.py", "check"],
        tmp_path / "no-such-file",
        DJANGO_SECRET_KEY="k",
        DJANGO_TRUSTED_PROXIES="two",
    )
    assert result.returncode != 0
    assert "DJANGO_TRUSTED_PROXIES must be a whole number of proxies, not 'two'." in result.stderr


SHOW_MAIL = (
    "from conference.site import settings as s; "
    "print(s.EMAIL_BACKEND, s.EMAIL_HOST, s.EMAIL_PORT, s.EMAIL_HOST_USER, "
    "s.EMAIL_HOST_PASSWORD, s.EMAIL_USE_TLS, s.EMAIL_USE_SSL)"
)


def mail_settings(env_file: Path, **env: str) -> str:
    result = start(["-c", SHOW_MAIL], env_file, DJANGO_SECRET_KEY="k", **env)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_mail_goes_to_the_console_without_a_mail_server(tmp_path):
    seen = mail_settings(tmp_path / "none", EMAIL_HOST="")
    assert seen.startswith("django.core.mail.backends.console.EmailBackend ")


def test_a_mail_server_from_the_environment_is_used_over_smtp(tmp_path):
    seen = mail_settings(
        tmp_path / "none",
        EMAIL_HOST="smtp.example.org",
        EMAIL_PORT="465",
        EMAIL_HOST_USER="schedule",
        EMAIL_HOST_PASSWORD="s3cret",
    )
    assert seen == (
        "django.core.mail.backends.smtp.EmailBackend smtp.example.org 465 schedule s3cret "
        "False True"
    )


def test_a_mail_port_that_is_not_a_number_stops_start_up_with_a_message(tmp_path):
    result = start(["-c", SHOW_MAIL], tmp_path / "none", DJANGO_SECRET_KEY="k", EMAIL_PORT="25a")
    assert result.returncode != 0
    assert "EMAIL_PORT must be a whole number, not '25a'." in result.stderr

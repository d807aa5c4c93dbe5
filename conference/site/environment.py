"""Reading settings from the environment (conference/site/settings.py): a local settings file, and
typed variables that name themselves when they are wrong."""

import os
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured


def read_env_file(path: Path) -> dict[str, str]:
    """The ``NAME=value`` lines of a local settings file; blank lines and ``#`` comments skipped."""
    values = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        name, equals, value = line.partition("=")
        if not equals or not name.strip():
            raise ImproperlyConfigured(f"{path}, line {number}: expected NAME=value.")
        values[name.strip()] = value.strip()
    return values


def env_bool(name: str, default: bool = False) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_int(name: str, default: int) -> int:
    value = os.environ.get(name, "").strip()
    if not value:
        return default
    if not (value.isascii() and value.isdigit()):
        raise ImproperlyConfigured(f"{name} must be a whole number, not {value!r}.")
    return int(value)


def env_list(name: str, default: str = "") -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]

from pathlib import Path

import pytest

# The frab schemas and real published schedules the export and import tests read (README.md there).
DATA = Path(__file__).resolve().parents[1] / "data"
FORMATS = DATA / "formats"
SCHEDULES = DATA / "schedules"


@pytest.fixture
def reference_formats() -> Path:
    return FORMATS


@pytest.fixture
def reference_schedules() -> Path:
    return SCHEDULES

import os
from pathlib import Path

import pytest

# The reference schemas and real schedules live in ../shared next to the repository, not in it.
REFERENCE = Path(__file__).resolve().parents[2].parent / "shared" / "reference"


def reference_folder(name: str) -> Path:
    folder = REFERENCE / name
    if not folder.is_dir():
        message = f"Reference folder {folder} is missing."
        if os.environ.get("CI") == "true":
            pytest.fail(f"{message} CI must run these tests.")
        pytest.skip(message)
    return folder


@pytest.fixture
def reference_formats() -> Path:
    return reference_folder("formats")


@pytest.fixture
def reference_schedules() -> Path:
    return reference_folder("schedules")

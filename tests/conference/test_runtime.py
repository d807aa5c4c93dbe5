import os
import subprocess
import sys

import pytest

# Prints the collector's thresholds once Django has started, as every server process does.
SHOW_THRESHOLDS = "import gc, django; django.setup(); print(','.join(map(str, gc.get_threshold())))"


def thresholds_after_setup(**env: str) -> str:
    result = subprocess.run(
        [sys.executable, "-c", SHOW_THRESHOLDS],
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "conference.settings", **env},
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


@pytest.mark.parametrize(
    ("setting", "expected"),
    [({}, "50000,10,10"), ({"DJANGO_GC_GEN0_THRESHOLD": "20000"}, "20000,10,10")],
)
def test_server_processes_collect_young_objects_less_often(setting, expected):
    assert thresholds_after_setup(**setting) == expected


def test_gc_threshold_zero_keeps_pythons_default():
    assert thresholds_after_setup(DJANGO_GC_GEN0_THRESHOLD="0") == "700,10,10"

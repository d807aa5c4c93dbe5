"""The schedule's layout against reference screenshots of the demo (tests/data/screenshots/).

The geometry tests (test_schedule_look.py) say what must hold; these catch what nobody thought to
say: any change to how the list or the grid looks shows as a difference from its reference.
After a change meant to alter the look, look at the new pictures (the failure names where they
were written) and, when they are right, make them the references:

    UPDATE_SCREENSHOTS=1 make test PYTEST_ARGS=tests/browser/test_screenshots.py

The references come from Debian's Chromium with Debian's fonts, as CI runs them; another browser
build or font set may differ by a few pixels, hence the small tolerance.
"""

import os
from pathlib import Path

import pytest
from PIL import Image, ImageChops

from tests.browser.conftest import new_context

REFERENCES = Path(__file__).resolve().parent.parent / "data" / "screenshots"
SCHEDULE = "/pytorch-eu-2026/schedule/"
GRID = "/pytorch-eu-2026/schedule/grid/?day=2026-04-08"
DESKTOP = {"width": 1366, "height": 900}
PHONE = {"width": 390, "height": 844}
# A pixel differs when a colour channel moves by more than this; a picture when more than this
# share of its pixels differ (anti-aliasing at an edge moves a few, a moved card thousands).
CHANNEL_TOLERANCE = 24
DIFFERING_SHARE = 0.002

SHOTS = {
    "schedule-desktop-light": (SCHEDULE, DESKTOP, "light"),
    "schedule-desktop-dark": (SCHEDULE, DESKTOP, "dark"),
    "schedule-phone-light": (SCHEDULE, PHONE, "light"),
    "grid-desktop-light": (GRID, DESKTOP, "light"),
    "grid-desktop-dark": (GRID, DESKTOP, "dark"),
    "grid-phone-light": (GRID, PHONE, "light"),
}


def differing_share(reference: Image.Image, actual: Image.Image) -> float:
    if reference.size != actual.size:
        return 1.0
    difference = ImageChops.difference(reference.convert("RGB"), actual.convert("RGB"))
    channels = difference.split()
    differs = channels[0].point(lambda value: 255 if value > CHANNEL_TOLERANCE else 0)
    for channel in channels[1:]:
        moved = channel.point(lambda value: 255 if value > CHANNEL_TOLERANCE else 0)
        differs = ImageChops.lighter(differs, moved)
    return differs.histogram()[255] / (reference.width * reference.height)


@pytest.mark.parametrize("name", SHOTS)
def test_the_schedule_looks_as_its_reference(browser, shared_demo, db, tmp_path, name):
    path, viewport, scheme = SHOTS[name]
    context = new_context(
        browser, viewport=viewport, color_scheme=scheme, timezone_id="Europe/Paris"
    )
    try:
        page = context.new_page()
        page.goto(shared_demo.url + path)
        page.evaluate("document.fonts.ready.then(() => true)")
        actual_path = tmp_path / f"{name}.png"
        page.screenshot(path=actual_path, animations="disabled", caret="hide")
    finally:
        context.close()
    reference_path = REFERENCES / f"{name}.png"
    if os.environ.get("UPDATE_SCREENSHOTS") or not reference_path.exists():
        if os.environ.get("CI") and not os.environ.get("UPDATE_SCREENSHOTS"):
            pytest.fail(
                f"No reference screenshot {reference_path}: make it with UPDATE_SCREENSHOTS=1."
            )
        reference_path.write_bytes(actual_path.read_bytes())
        return
    with Image.open(reference_path) as reference, Image.open(actual_path) as actual:
        share = differing_share(reference, actual)
    assert share <= DIFFERING_SHARE, (
        f"{name} differs from its reference in {share:.2%} of its pixels: compare "
        f"{actual_path} with {reference_path}"
    )

"""A session's own page in Chromium: speakers and slides beside the description on a wide
screen, after it on a phone."""

import pytest

from tests.browser.conftest import new_context

SESSION = (
    "/pytorch-eu-2026/sessions/"
    "seamless-integration-custom-kernels-in-the-torchcompile-stack-without-graphbreaks/"
)


@pytest.fixture
def open_page(browser, live_server, demo_conference):
    contexts = []

    def open_page(path, viewport):
        context = new_context(browser, viewport=viewport, timezone_id="Europe/Paris")
        contexts.append(context)
        page = context.new_page()
        page.goto(live_server.url + path)
        return page

    yield open_page
    for context in contexts:
        context.close()


def boxes(page):
    return {
        name: page.locator(selector).bounding_box()
        for name, selector in {
            "description": ".session-main .prose",
            "speakers": "#speakers-heading",
            "parallel": "#parallel-heading",
        }.items()
    }


def test_a_desktop_session_page_shows_its_speakers_beside_the_description(open_page):
    found = boxes(open_page(SESSION, {"width": 1440, "height": 900}))
    description, speakers = found["description"], found["speakers"]
    assert speakers["x"] >= description["x"] + description["width"]
    # Level with the top of the page's facts, in the first screen.
    assert speakers["y"] < description["y"]
    assert speakers["y"] + speakers["height"] < 900
    # What runs at the same time stays under the description, on the left.
    assert found["parallel"]["x"] == description["x"]
    assert found["parallel"]["y"] > description["y"] + description["height"]


def test_a_phone_session_page_is_one_column_with_the_speakers_after_the_description(open_page):
    found = boxes(open_page(SESSION, {"width": 390, "height": 844}))
    description, speakers = found["description"], found["speakers"]
    assert speakers["x"] == description["x"]
    assert description["y"] + description["height"] <= speakers["y"] < found["parallel"]["y"]

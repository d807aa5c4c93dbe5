import pytest
from playwright.sync_api import expect

from tests.builders import paris

NOW_PAGE = "/pytorch-eu-2026/now/"


@pytest.fixture
def page(shared_page):
    """The tests here only read: one demo conference and one server for the module."""
    return shared_page


def test_now_page_shows_every_room_at_a_frozen_time(page, clock):
    clock(paris(8, 14, 5))
    page.goto(page.base_url + NOW_PAGE)
    junior_stage = page.get_by_role("region", name="Junior Stage")
    expect(junior_stage).to_contain_text("Pluggable PyTorch LLM Inference Architecture")
    expect(junior_stage).to_contain_text("until 14:10 CEST")
    expect(page.get_by_role("region", name="Master Stage")).to_contain_text(
        "Seamless Integration: Custom Kernels"
    )


def test_now_page_updates_its_board_every_minute_without_reloading(page, clock):
    clock(paris(8, 14, 5))
    page.clock.install()
    page.goto(page.base_url + NOW_PAGE)
    expect(page.locator(".now-clock")).to_contain_text("At 14:05 CEST")
    page.evaluate("window.stillTheSamePage = true")
    clock(paris(8, 14, 16))
    page.clock.run_for(61_000)
    expect(page.locator(".now-clock")).to_contain_text("At 14:16 CEST")
    expect(page.get_by_role("region", name="Junior Stage")).to_contain_text(
        "Distributed AI Without the Infrastructure Tax"
    )
    assert page.evaluate("window.stillTheSamePage") is True

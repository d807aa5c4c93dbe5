"""An organizer tries now and next at a moment of the conference (conference/views/preview_time.py),
in a real browser: chosen from the page, shown under a banner, ended by a button."""

import pytest
from playwright.sync_api import expect

from conference.models import Conference
from tests.browser.conftest import close_page, page_of
from tests.builders import make_team, paris

PASSWORD = "a long passphrase 42"
NOW = "/pytorch-eu-2026/now/"
BANNER = "You are seeing this as at Wednesday 8 April, 14:35"


@pytest.fixture
def organizer(demo_conference, django_user_model):
    user = django_user_model.objects.create_user("orga", password=PASSWORD, is_staff=True)
    make_team(user, conferences=[Conference.objects.get(slug="pytorch-eu-2026")], is_organizer=True)
    return user


def log_in(page, username):
    page.goto(page.base_url + "/accounts/login/?next=" + NOW)
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("button", name="Log out")).to_be_visible()


def test_an_organizer_sees_now_and_next_during_the_conference_then_the_real_time(
    page, clock, organizer, browser, live_server
):
    clock(paris(1, 12, month=5))  # the demo (8 April 2026) is over
    log_in(page, "orga")
    expect(page.locator(".now-page")).to_contain_text("is over")

    page.get_by_role("link", name="See this page at another time").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("See the site at another time")
    # The form offers the busiest moment: 14:35 on 8 April.
    page.get_by_role("button", name="See the site at this time").click()

    assert page.url == page.base_url + NOW
    expect(page.get_by_role("status").filter(has_text=BANNER)).to_be_visible()
    expect(page.locator(".now-clock")).to_contain_text("At 14:35 CEST, Wednesday 8 April")
    expect(page.locator(".now-page")).not_to_contain_text("is over")

    # Another visitor, at the same moment, sees the real time.
    other = page_of(browser, live_server)
    try:
        other.goto(live_server.url + NOW)
        expect(other.locator(".now-page")).to_contain_text("is over")
        expect(other.get_by_text("You are seeing this as at")).to_have_count(0)
    finally:
        close_page(other)

    page.get_by_role("button", name="Back to the real time").click()
    expect(page.locator(".now-page")).to_contain_text("is over")
    expect(page.get_by_text("You are seeing this as at")).to_have_count(0)

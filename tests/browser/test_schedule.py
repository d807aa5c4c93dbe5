import re

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import new_context

SCHEDULE = "/pytorch-eu-2026/schedule/"
LIVE_MIGRATION = "Lightning Talk: Live Migration of PyTorch GPU Nodes From Azure To European Clouds"
LIVE_MIGRATION_SLUG = "live-migration-of-pytorch-gpu-nodes-from-azure-to-european-clouds"


@pytest.fixture
def page(shared_page):
    """The tests here only read: one demo conference and one server for the module."""
    return shared_page


def session_titles(page):
    return page.locator("article.session h3 a").all_inner_texts()


def test_schedule_opens_with_the_demo_sessions(page):
    page.goto(page.base_url + SCHEDULE)
    expect(page.get_by_role("heading", name="Wednesday 8 April 2026")).to_be_visible()
    expect(page.get_by_role("link", name=LIVE_MIGRATION)).to_be_visible()
    assert len(session_titles(page)) == 29


def test_filtering_by_a_track_keeps_only_its_sessions(page):
    page.goto(page.base_url + SCHEDULE)
    page.get_by_text("Filters", exact=True).click()
    page.get_by_label("Security & Privacy").check()
    page.get_by_role("button", name="Apply filters").click()
    expect(page).to_have_url(re.compile(r"track=security-privacy"))
    expect(page.get_by_role("link", name="Remove filter Track: Security & Privacy")).to_be_visible()
    page.wait_for_load_state()  # the filtered page whole, not the part parsed so far
    tracks = page.locator("article.session .track").all_inner_texts()
    assert tracks
    assert set(tracks) == {"Security & Privacy"}


def test_search_finds_a_session_by_its_words(page):
    page.goto(page.base_url + SCHEDULE)
    page.get_by_label("Search", exact=True).fill("gRPC")
    page.get_by_role("button", name="Search", exact=True).click()
    expect(page.locator("article.session h3 a")).to_have_text(
        ["Beyond JSON-RPC: Scaling Model Context Protocols With gRPC in the PyTorch Ecosystem"]
    )


def test_switching_to_new_york_shows_new_york_times(page):
    page.goto(page.base_url + SCHEDULE)
    expect(page.locator(".slot-time").first).to_have_text("10:35 CEST")
    page.get_by_text("Time zone", exact=True).click()
    page.get_by_label("Times shown in").select_option("America/New_York")
    page.get_by_role("button", name="Show times").click()
    expect(page.locator(".slot-time").first).to_have_text("04:35 EDT")
    page.goto(page.base_url + SCHEDULE)  # the choice is remembered
    expect(page.locator(".slot-time").first).to_have_text("04:35 EDT")


def test_opening_a_session_shows_its_description_and_speakers(page):
    page.goto(page.base_url + SCHEDULE)
    page.get_by_role("link", name=LIVE_MIGRATION).click()
    expect(page.get_by_role("heading", level=1)).to_have_text(
        "Live Migration of PyTorch GPU Nodes From Azure To European Clouds"
    )
    expect(
        page.get_by_text("Why PyTorch workloads on hyperscalers raise sovereignty concerns")
    ).to_be_visible()
    expect(page.get_by_role("heading", name="Mike Krom")).to_be_visible()


def test_opening_a_speaker_shows_their_bio_and_sessions(page):
    page.goto(page.base_url + "/pytorch-eu-2026/speakers/")
    page.get_by_role("link", name="Bin Bao").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Bin Bao")
    expect(
        page.get_by_text("Bin Bao is a software engineer working with the PyTorch Compiler team")
    ).to_be_visible()
    expect(
        page.get_by_role("link", name=re.compile("^Lightning Talk: .*C\\+\\+ Wrapper Mode"))
    ).to_be_visible()


def test_grid_on_a_phone_needs_no_sideways_scrolling(browser, shared_demo, db):
    context = new_context(browser, viewport={"width": 375, "height": 800})
    page = context.new_page()
    page.goto(shared_demo.url + "/pytorch-eu-2026/schedule/grid/?day=2026-04-08")
    expect(page.get_by_role("link", name=LIVE_MIGRATION)).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    context.close()


def test_schedule_works_without_javascript(browser, shared_demo, db):
    context = new_context(browser, java_script_enabled=False)
    page = context.new_page()
    page.goto(shared_demo.url + SCHEDULE)
    page.get_by_text("Time zone", exact=True).click()  # a <details>: no script needed
    page.get_by_label("Times shown in").select_option("Asia/Tokyo")
    page.get_by_role("button", name="Show times").click()
    expect(page.locator(".slot-time").first).to_have_text("17:35 JST")
    context.close()


def test_day_tabs_and_filters_work_together_without_javascript(browser, shared_demo, db):
    context = new_context(browser, java_script_enabled=False)
    page = context.new_page()
    page.goto(shared_demo.url + SCHEDULE)
    days = page.get_by_role("navigation", name="Days")
    days.get_by_role("link", name="Wednesday 8 April").click()
    expect(page).to_have_url(re.compile(r"\?day=2026-04-08$"))
    page.get_by_text("Filters", exact=True).click()
    page.get_by_label("Security & Privacy").check()
    page.get_by_role("button", name="Apply filters").click()
    expect(page).to_have_url(re.compile(r"track=security-privacy"))
    expect(page.locator(".match-count")).to_have_text("1 session matches on this day")
    page.get_by_role("link", name="Clear all filters").click()
    expect(page).to_have_url(re.compile(r"\?day=2026-04-08$"))  # the filters go, the day stays
    expect(days.get_by_role("link", name="Wednesday 8 April")).to_have_attribute(
        "aria-current", "page"
    )
    assert len(session_titles(page)) == 29
    days.get_by_role("link", name="All days").click()
    expect(page).to_have_url(re.compile(r"/schedule/\?$"))
    context.close()


def test_a_session_page_leads_to_the_folded_zone_picker(page):
    page.goto(page.base_url + "/pytorch-eu-2026/sessions/" + LIVE_MIGRATION_SLUG + "/")
    page.get_by_role("link", name="Change the time zone").click()
    picker = page.get_by_label("Times shown in")
    expect(picker).to_be_visible()
    picker.select_option("Asia/Tokyo")
    page.get_by_role("button", name="Show times").click()
    expect(page.locator(".slot-time").first).to_have_text("17:35 JST")


def test_attendee_pages_break_no_content_security_policy_rule(page):
    refusals = []
    page.on(
        "console",
        lambda message: (
            refusals.append(message.text) if "Content Security Policy" in message.text else None
        ),
    )
    for path in [
        "/pytorch-eu-2026/",
        SCHEDULE,
        "/pytorch-eu-2026/schedule/grid/",
        "/pytorch-eu-2026/speakers/",
        "/pytorch-eu-2026/speakers/bin-bao/",
        "/pytorch-eu-2026/now/",
        "/pytorch-eu-2026/now/master-stage/",
        "/accounts/login/",
    ]:
        page.goto(page.base_url + path)
    assert refusals == []

"""Releasing the schedule in a browser: the organizer sees what will be announced, then confirms."""

import re

from playwright.sync_api import expect

from sessions.models import Release, Session
from sessions.releases import release_schedule
from tests.browser.conftest import new_context
from tests.browser.test_admin import LIVE_MIGRATION, admin_page, organizer  # noqa: F401

SHOTS = "/tmp/shots-releases"


def test_the_release_page_shows_the_changes_and_stores_nothing_until_confirmed(
    browser,
    live_server,
    organizer,  # noqa: F811
):
    conference = Session.objects.get(title=LIVE_MIGRATION).conference
    release_schedule(conference, version="v1", comment="", user=None)
    retitled = Session.objects.get(title=LIVE_MIGRATION)
    retitled.title = "Moving GPU Nodes to European Clouds"
    retitled.save()
    published = conference.sessions.filter(status=Session.Status.PUBLISHED, kind="talk")
    cancelled = published.exclude(pk=retitled.pk).order_by("pk").first()
    Session.objects.filter(pk=cancelled.pk).cancel()

    with admin_page(browser, live_server) as page:
        page.goto(f"{live_server.url}/admin/schedule/session/")
        page.get_by_role("link", name="Release", exact=True).click()

        expect(
            page.get_by_role("heading", name=f"Release the schedule of {conference}")
        ).to_be_visible()
        expect(page.locator(".release-summary")).to_have_text("1 retitled, 1 cancelled")
        rows = page.locator("table.release-changes tbody tr")
        expect(rows).to_have_count(2)
        expect(page.locator(".release-change-retitled")).to_contain_text(
            f"retitled from “{LIVE_MIGRATION}” to “Moving GPU Nodes to European Clouds”"
        )
        expect(page.locator(".release-change-cancelled")).to_contain_text(cancelled.title)
        expect(page.locator(".release-change-cancelled")).to_contain_text("cancelled (was ")
        expect(page.get_by_label("Version name")).to_have_value("v2")
        page.screenshot(path=f"{SHOTS}/release-review-desktop.png", full_page=True)
        page.set_viewport_size({"width": 390, "height": 844})
        page.screenshot(path=f"{SHOTS}/release-review-phone.png", full_page=True)
        page.set_viewport_size({"width": 1366, "height": 900})
        assert list(Release.objects.values_list("version", flat=True)) == ["v1"]

        page.get_by_label("Public comment").fill("One talk renamed, one cancelled.")
        page.get_by_role("button", name="Release these changes").click()

        expect(page.locator(".messagelist")).to_contain_text(
            f"Released v2 of {conference}: 1 retitled, 1 cancelled."
        )
        expect(page).to_have_url(re.compile(r"/admin/schedule/release/\d+/change/$"))
        expect(page.locator(".field-announced li")).to_have_count(2)
        page.screenshot(path=f"{SHOTS}/release-done-desktop.png", full_page=True)
    release = Release.objects.first()
    assert (release.version, release.comment) == ("v2", "One talk renamed, one cancelled.")
    assert sorted(change.kind for change in release.changes()) == ["cancelled", "retitled"]


def test_visitors_find_the_change_log_from_the_home_page_in_their_zone(
    browser, live_server, demo_conference
):
    conference = Session.objects.get(title=LIVE_MIGRATION).conference
    release_schedule(conference, version="v1", comment="The first schedule.", user=None)
    moved = Session.objects.get(title=LIVE_MIGRATION)
    Session.objects.filter(pk=moved.pk).cancel()
    release_schedule(conference, version="v2", comment="A talk is cancelled.", user=None)

    for name, viewport in (("desktop", (1366, 900)), ("phone", (390, 844))):
        context = new_context(
            browser,
            viewport={"width": viewport[0], "height": viewport[1]},
            timezone_id="America/New_York",
        )
        page = context.new_page()
        page.goto(f"{live_server.url}/{conference.slug}/?tz=America/New_York")
        page.get_by_role("link", name="schedule changes").click()

        expect(page.get_by_role("heading", name="Schedule changes")).to_be_visible()
        expect(page.locator(".release h2")).to_have_text(
            [re.compile(r"^v2 · \w+ \d+ \w+ 2026, \d\d:\d\d ES?T$"), re.compile(r"^v1 · ")]
        )
        newest = page.locator(".release").first
        expect(newest.locator(".release-comment")).to_have_text("A talk is cancelled.")
        expect(newest.locator(".release-change-cancelled")).to_contain_text(
            "cancelled (was Wed 04:35–04:45 EDT, Central Room)"
        )
        page.screenshot(path=f"{SHOTS}/change-log-{name}.png", full_page=name == "desktop")
        context.close()

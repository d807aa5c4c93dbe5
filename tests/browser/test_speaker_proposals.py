"""A speaker's availability for several days in one save, and a new title proposed from their
pages that an organizer accepts in the admin (#48); the two pages on a desktop and a phone, light
and dark, with axe and pictures in SHOTS to look at."""

import datetime
import re

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import expect

from sessions.models import Session
from speakers.models import Availability, SessionChangeProposal
from tests.browser import test_speaker_pages
from tests.browser.axe import axe_violations
from tests.browser.conftest import new_context
from tests.browser.test_admin import PASSWORD, admin_page
from tests.browser.test_planner import JSON_RPC
from tests.browser.test_speaker_pages import log_in

SHOTS = "/tmp/shots-speakers"
NEW_TITLE = "gRPC for Model Context Protocols in PyTorch"

# The speaker with an account, and their logged-out page (fixtures of test_speaker_pages.py).
speaker = test_speaker_pages.speaker
speaker_page = test_speaker_pages.speaker_page


def test_a_speaker_gives_two_days_at_once_and_an_accepted_title_reaches_the_session(
    speaker_page, browser, live_server, speaker
):
    page = speaker_page
    session = Session.objects.get(title__startswith=JSON_RPC)
    log_in(page, "/pytorch-eu-2026/speaker/availability/")
    tuesday = page.get_by_role("group", name="New window, Tuesday 7 April")
    tuesday.get_by_label("From, time").fill("09:00")
    tuesday.get_by_label("Until, time").fill("12:00")
    wednesday = page.get_by_role("group", name="New window, Wednesday 8 April")
    wednesday.get_by_label("From, time").fill("14:00")
    wednesday.get_by_label("Until, time").fill("18:00")
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_text("Your availability is saved.")).to_be_visible()
    expect(page.get_by_role("group", name=re.compile(r"^Window \d$"))).to_have_count(2)
    assert Availability.objects.filter(speaker=speaker).count() == 2

    page.get_by_role("link", name="My talks").click()
    page.get_by_role("link", name=re.compile(r"^Propose a new title or abstract")).click()
    expect(page.get_by_label("Title")).to_have_value(session.title)
    page.get_by_label("Title").fill(NEW_TITLE)
    page.get_by_role("button", name="Send to the organizers").click()
    expect(page.get_by_text("Your proposal is sent to the organizers.")).to_be_visible()
    expect(page.locator(".change-proposal")).to_contain_text("waiting for the organizers")

    get_user_model().objects.create_superuser("organizer", "o@example.org", PASSWORD)
    with admin_page(browser, live_server) as admin:
        admin.goto(f"{live_server.url}/admin/schedule/session/release/{session.conference_id}/")
        admin.get_by_role("link", name=f"{speaker.name} on “{session.title}”").click()
        expect(admin.locator(".change-proposal")).to_contain_text(NEW_TITLE)
        admin.screenshot(path=f"{SHOTS}/proposal-admin-desktop.png", full_page=True)
        admin.get_by_label("Accept: the session takes the proposed texts").check()
        admin.get_by_role("button", name="Save", exact=True).click()
        expect(admin.locator(".messagelist")).to_contain_text("was changed successfully")

    session.refresh_from_db()
    assert session.title == NEW_TITLE
    page.reload()
    expect(page.locator(".change-proposal")).to_contain_text("accepted")
    expect(page.get_by_label("Title")).to_have_value(NEW_TITLE)  # the next starts from it


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("screen", [(1440, 900), (390, 844)], ids=["desktop", "phone"])
def test_the_availability_and_proposal_pages_pass_axe(
    browser, live_server, speaker, axe_source, screen, scheme
):
    session = Session.objects.get(title__startswith=JSON_RPC)
    # Two hours before the talk: the page marks it outside them.
    Availability.objects.create(
        speaker=speaker,
        starts_at=session.starts_at - datetime.timedelta(hours=2),
        ends_at=session.starts_at,
    )
    context = new_context(
        browser,
        viewport={"width": screen[0], "height": screen[1]},
        color_scheme=scheme,
        timezone_id="Europe/Paris",
    )
    page = context.new_page()
    page.base_url = live_server.url
    name = f"{'desktop' if screen[0] > 800 else 'phone'}-{scheme}"
    log_in(page, f"/pytorch-eu-2026/speaker/sessions/{session.slug}/propose-change/")
    page.screenshot(path=f"{SHOTS}/proposal-form-{name}.png", full_page=True)
    page.get_by_label("Title").fill("")
    page.get_by_role("button", name="Send to the organizers").click()
    expect(page.get_by_text("This field is required.")).to_be_visible()
    assert axe_violations(page, axe_source) == ""
    page.get_by_label("Title").fill(NEW_TITLE)
    page.get_by_role("button", name="Send to the organizers").click()
    expect(page.get_by_text("Your proposal is sent to the organizers.")).to_be_visible()
    assert axe_violations(page, axe_source) == ""
    page.screenshot(path=f"{SHOTS}/proposal-{name}.png", full_page=True)
    assert SessionChangeProposal.objects.get().title == NEW_TITLE
    page.goto(f"{live_server.url}/pytorch-eu-2026/speaker/availability/")
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_text("Your availability is saved.")).to_be_visible()
    assert axe_violations(page, axe_source) == ""
    page.screenshot(path=f"{SHOTS}/availability-{name}.png", full_page=True)

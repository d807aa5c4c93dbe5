"""A speaker's own pages in Chromium: slides for their session, availability, and what the
organizers' planner then says."""

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import expect

from sessions.models import Attachment, Session
from tests.browser.axe import axe_violations
from tests.browser.conftest import new_context
from tests.browser.test_planner import JSON_RPC, block, open_planner

PDF = b"%PDF-1.7\n" + b"0" * 4000


@pytest.fixture
def speaker(demo_conference, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    session = Session.objects.get(title__startswith=JSON_RPC)
    speaker = session.speakers.order_by("pk").first()
    speaker.user = get_user_model().objects.create_user(
        "speaker", "speaker@example.org", "speak-up-2026"
    )
    speaker.save()
    return speaker


@pytest.fixture
def speaker_page(browser, live_server, speaker):
    context = new_context(
        browser,
        viewport={"width": 1366, "height": 900},
        timezone_id="Europe/Paris",
    )
    page = context.new_page()
    page.base_url = live_server.url
    yield page
    context.close()


def log_in(page, next_path):
    page.goto(f"{page.base_url}/accounts/login/?next={next_path}")
    page.get_by_label("Username").fill("speaker")
    page.get_by_label("Password").fill("speak-up-2026")
    page.get_by_role("button", name="Log in").click()


def test_a_speaker_uploads_slides_and_narrows_availability_and_the_planner_warns(
    speaker_page, browser, speaker
):
    page = speaker_page
    session = Session.objects.get(title__startswith=JSON_RPC)
    log_in(page, "/pytorch-eu-2026/speaker/availability/")
    expect(page.get_by_role("heading", name="Your availability")).to_be_visible()

    page.get_by_role("link", name="Slides and links").click()
    page.get_by_label("Title", exact=True).fill("Slides")
    page.get_by_label("Type", exact=True).select_option("slides")
    page.get_by_label("File", exact=True).set_input_files(
        {"name": "deck.pdf", "mimeType": "application/pdf", "buffer": PDF}
    )
    page.get_by_role("button", name="Add").click()
    expect(page.get_by_text("Added “Slides”.")).to_be_visible()
    added = page.locator(".materials li", has_text="added by you")
    expect(added.get_by_role("link", name="Slides")).to_be_visible()
    expect(added).to_contain_text("slides.pdf, PDF")
    assert Attachment.objects.get(session=session, title="Slides").added_by == speaker.user

    page.get_by_role("link", name="Your availability").click()
    wednesday = page.get_by_role("group", name="New window, Wednesday 8 April")  # its day set
    wednesday.get_by_label("From, time").fill("14:00")
    wednesday.get_by_label("Until, time").fill("18:00")
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_text("Your availability is saved.")).to_be_visible()
    expect(page.get_by_text("Outside your availability")).to_be_visible()

    get_user_model().objects.create_superuser("organizer", "organizer@example.org", "plan-it-2026")
    context = new_context(
        browser, viewport={"width": 1366, "height": 900}, timezone_id="Europe/Paris"
    )
    planner = context.new_page()
    planner.base_url = page.base_url
    open_planner(planner, "organizer")
    expect(block(planner, JSON_RPC)).to_contain_text(
        f"{speaker.name} is not available then (available Wed 14:00–18:00 CEST)"
    )
    context.close()


@pytest.mark.parametrize("screen", [(1366, 900), (390, 844)], ids=["desktop", "phone"])
def test_the_speaker_pages_pass_axe_with_errors_shown(speaker_page, speaker, axe_source, screen):
    page = speaker_page
    page.set_viewport_size({"width": screen[0], "height": screen[1]})
    session = Session.objects.get(title__startswith=JSON_RPC)
    log_in(page, f"/pytorch-eu-2026/speaker/sessions/{session.slug}/materials/")
    page.get_by_role("button", name="Add").click()  # nothing given: an error to show
    expect(page.get_by_text("Choose a file to upload, or give a link.")).to_be_visible()
    assert axe_violations(page, axe_source) == ""
    page.get_by_role("link", name="Your availability").click()
    tuesday = page.get_by_role("group", name="New window, Tuesday 7 April")
    tuesday.get_by_label("From", exact=True).select_option("")
    tuesday.get_by_label("From, time").fill("14:00")  # no day: an error to show
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_text("Nothing was saved")).to_be_visible()
    assert axe_violations(page, axe_source) == ""

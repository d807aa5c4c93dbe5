"""A speaker invited from the admin signs up from the mail's link, edits their own profile, adds
slides and availability, and the organizers' planner warns from it: #32 end to end."""

import io
import os
import re

import pytest
from django.contrib.auth import get_user_model
from PIL import Image
from playwright.sync_api import expect

from sessions.models import SavedSession, Session
from sessions.releases import release_schedule
from speakers.models import Speaker
from tests.browser.conftest import new_context
from tests.browser.test_admin import admin_page, organizer  # noqa: F401
from tests.browser.test_planner import block

SHOTS = "/tmp/shots-speakers"
# Set to write the README's picture of My talks (docs/images/speaker-my-talks.png).
README_SHOT = os.environ.get("SPEAKER_MY_TALKS_SHOT", "")
PDF = b"%PDF-1.7\n" + b"0" * 4000
TALK = "Beyond JSON-RPC: Scaling Model Context Protocols With gRPC in the PyTorch Ecosystem"


@pytest.fixture
def media_root(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    return tmp_path


def photo_file(tmp_path) -> str:
    path = tmp_path / "portrait.png"
    buffer = io.BytesIO()
    Image.new("RGB", (240, 240), (40, 110, 160)).save(buffer, format="PNG")
    path.write_bytes(buffer.getvalue())
    return str(path)


def site_path(link: str) -> str:
    return re.sub(r"^https?://[^/]+", "", link)


@pytest.mark.usefixtures("immediate_tasks")
def test_an_invited_speaker_signs_up_from_the_mail_and_edits_their_public_profile(
    browser,
    live_server,
    organizer,  # noqa: F811
    mailoutbox,
    media_root,
    tmp_path,
):
    talk = Session.objects.get(title=TALK)
    speaker = talk.ordered_speakers[0]
    conference = talk.conference
    release_schedule(conference, version="v1", comment="", user=None)

    with admin_page(browser, live_server) as admin:
        admin.goto(f"{live_server.url}/admin/speakers/speaker/{speaker.pk}/change/")
        admin.get_by_role("link", name="Invite to edit their profile").click()
        admin.get_by_label("Email address").fill("speaker@example.org")
        admin.get_by_role("button", name="Send the invitation").click()
        expect(admin.locator(".messagelist")).to_contain_text(
            f"Invited {speaker.name} at speaker@example.org."
        )

    [message] = mailoutbox
    assert message.to == ["speaker@example.org"]
    link = re.search(r"https?://\S+/speaker/invitation/\S+", message.body).group(0)

    # No service worker: its fetches of the conference's pages in the background would meet
    # this test's own writes below in SQLite's one-writer database.
    context = new_context(
        browser,
        viewport={"width": 1366, "height": 900},
        timezone_id="Europe/Paris",
    )
    page = context.new_page()
    try:
        page.goto(live_server.url + site_path(link))
        expect(page.get_by_role("heading", name="Your speaker profile")).to_be_visible()
        page.get_by_role("link", name="Create an account").click()
        page.get_by_label("Username").fill("speaker")
        page.get_by_label("Email").fill("speaker@example.org")
        page.get_by_label("Password", exact=True).fill("a long passphrase 42")
        page.get_by_label("Password confirmation").fill("a long passphrase 42")
        page.get_by_role("button", name="Create account").click()
        # Only an account that confirmed the invited address accepts: the sign-up mailed a link.
        # Back on the invitation, once the sign-up (and its mail) is done.
        expect(page.get_by_role("heading", name="Your speaker profile")).to_be_visible()
        verification = mailoutbox[-1]
        assert verification.to == ["speaker@example.org"]
        confirm = re.search(r"https?://\S+/accounts/verify/\S+", verification.body).group(0)
        page.goto(live_server.url + site_path(confirm))
        page.goto(live_server.url + site_path(link))
        page.get_by_role("button", name="Accept and link my account").click()

        expect(page.get_by_role("heading", name="My profile")).to_be_visible()
        page.get_by_label("Bio").fill("I build **gRPC** bridges for PyTorch serving.")
        page.get_by_label("Pronouns").fill("they/them")
        page.get_by_label("Photo").set_input_files(photo_file(tmp_path))
        page.get_by_role("button", name="Save my profile").click()
        expect(page.get_by_text("Saved. Your public speaker page shows it now.")).to_be_visible()
        page.screenshot(path=f"{SHOTS}/profile-desktop.png", full_page=True)

        page.get_by_role("link", name="My public page").click()
        expect(page.get_by_role("heading", level=1)).to_have_text(speaker.name)
        expect(page.locator(".prose strong")).to_have_text("gRPC")
        expect(page.get_by_text("they/them")).to_be_visible()
        photo = page.locator(".speaker-heading img.avatar-photo")
        expect(photo).to_be_visible()
        # decode() waits until the picture is loaded and decoded, which being visible does not.
        assert photo.evaluate("image => image.decode().then(() => image.naturalWidth)") == 240

        page.get_by_role("link", name="Account").click()
        page.get_by_role("link", name="My talks").click()
        expect(page.locator(".release-changes")).to_contain_text("new: Wed 10:35")

        # What My talks shows after a release changed the talk, with two attendees' saves.
        for name in ("first", "second"):
            user = get_user_model().objects.create_user(name, f"{name}@example.org", "x")
            SavedSession.objects.create(user=user, session=talk)
        talk.title = "Beyond JSON-RPC: Scaling MCP With gRPC"
        talk.save()
        release_schedule(conference, version="v2", comment="One talk renamed.", user=None)
        page.get_by_role("link", name="Account").click()
        page.get_by_role("link", name="My talks").click()
        expect(
            page.get_by_role("heading", name=re.compile("since your last visit"))
        ).to_be_visible()
        expect(page.locator(".release-changes li")).to_have_count(1)
        expect(page.locator(".my-talk")).to_contain_text("2 attendees saved it")
        expect(page.locator(".release-changes")).to_contain_text(
            "retitled from “Beyond JSON-RPC: Scaling Model Context Protocols"
        )
        page.screenshot(path=f"{SHOTS}/my-talks-desktop.png", full_page=True)
        if README_SHOT:
            page.screenshot(path=README_SHOT)

        # From My talks: slides for the talk, then the hours the speaker can give it.
        page.get_by_role("link", name=re.compile("^Slides and links")).click()
        page.get_by_label("Title", exact=True).fill("Slides")
        page.get_by_label("Type", exact=True).select_option("slides")
        page.get_by_label("File", exact=True).set_input_files(
            {"name": "deck.pdf", "mimeType": "application/pdf", "buffer": PDF}
        )
        page.get_by_role("button", name="Add").click()
        expect(page.get_by_text("Added “Slides”.")).to_be_visible()
        page.get_by_role("link", name="My availability").click()
        wednesday = page.get_by_role("group", name="New window, Wednesday 8 April")
        wednesday.get_by_label("From, time").fill("14:00")
        wednesday.get_by_label("Until, time").fill("18:00")
        page.get_by_role("button", name="Save").click()
        expect(page.get_by_text("Your availability is saved.")).to_be_visible()
    finally:
        context.close()
    assert Speaker.objects.get(pk=speaker.pk).user.username == "speaker"

    with admin_page(browser, live_server) as admin:
        admin.goto(
            f"{live_server.url}/admin/schedule/session/planner/{conference.pk}/?day=2026-04-08"
        )
        expect(admin.locator("#planner-keys")).to_be_visible()  # planner.js is running
        expect(block(admin, "Beyond JSON-RPC")).to_contain_text(
            f"{speaker.name} is not available then (available Wed 14:00–18:00 CEST)"
        )
        talk.refresh_from_db()
        admin.goto(live_server.url + talk.get_absolute_url())
        expect(admin.get_by_role("link", name="Slides")).to_be_visible()

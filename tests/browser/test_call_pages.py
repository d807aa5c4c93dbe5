"""A call for proposals in a browser (#49): a speaker reads the call, logs in, drafts a proposal,
is told which required question is unanswered, answers it and submits; on a desktop and a
phone, with axe, and pictures in SHOTS to look at."""

import datetime

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone
from playwright.sync_api import expect

from conference.models import Conference
from sessions.models import CallQuestion, Proposal
from tests.browser.axe import axe_violations
from tests.browser.conftest import new_context
from tests.builders import make_call

SHOTS = "/tmp/shots-cfp-speaker"
CALL = "/pytorch-eu-2026/call/"
TEXT = """PyTorch Conference Europe looks for **talks from practitioners**: what you built, what
broke, what you measured.

- Training and inference at scale
- Compilers and kernels
- Tools that made your team faster
"""


@pytest.fixture
def call(demo_conference):
    conference = Conference.objects.get(slug="pytorch-eu-2026")
    now = timezone.now()
    call = make_call(
        conference,
        kinds={"talk": 30, "lightning-talk": 5, "workshop": 90},
        opens_at=now - datetime.timedelta(days=10),
        closes_at=now + datetime.timedelta(days=20),
        text=TEXT,
    )
    call.tracks.set(conference.tracks.all()[:3])
    CallQuestion.objects.create(
        call=call, text="Have you given this talk before?", answer_type="yes-no", required=True
    )
    CallQuestion.objects.create(
        call=call,
        text="Which day suits you?",
        answer_type="choice",
        choices="Tuesday\nWednesday\nEither",
    )
    CallQuestion.objects.create(
        call=call, text="Anything the reviewers should know?", help_text="Never published."
    )
    get_user_model().objects.create_user(
        "proposer", "proposer@example.org", "propose-2026", first_name="Ada", last_name="Byron"
    )
    return call


@pytest.mark.parametrize("screen", [(1440, 900), (390, 844)], ids=["desktop", "phone"])
def test_a_speaker_reads_the_call_drafts_and_submits(
    browser, live_server, call, axe_source, screen
):
    name = "desktop" if screen[0] > 800 else "phone"
    context = new_context(
        browser, viewport={"width": screen[0], "height": screen[1]}, timezone_id="Europe/Paris"
    )
    page = context.new_page()
    page.goto(f"{live_server.url}{CALL}")
    expect(page.get_by_role("heading", name="Call for proposals")).to_be_visible()
    expect(page.get_by_text("Open.")).to_be_visible()
    assert axe_violations(page, axe_source) == ""
    assert no_sideways_scrolling(page)
    page.screenshot(path=f"{SHOTS}/call-{name}.png", full_page=True)

    page.get_by_role("link", name="Log in to propose a session").click()
    page.get_by_label("Username").fill("proposer")
    page.get_by_label("Password").fill("propose-2026")
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("heading", name="Propose a session")).to_be_visible()
    expect(page.get_by_label("Your name")).to_have_value("Ada Byron")
    assert axe_violations(page, axe_source) == ""
    assert no_sideways_scrolling(page)
    page.screenshot(path=f"{SHOTS}/proposal-form-{name}.png", full_page=True)

    page.get_by_label("Title").fill("Compiling PyTorch models for small devices")
    page.get_by_label("Abstract").fill("What **torch.compile** does on a phone.")
    page.get_by_role("button", name="Submit").click()
    expect(page.get_by_text("Saved, but not submitted")).to_be_visible()
    expect(page.get_by_text("Have you given this talk before?").first).to_be_visible()
    assert Proposal.objects.get().state == Proposal.State.DRAFT

    page.get_by_role("group", name="Have you given this talk before?").get_by_label("No").check()
    page.get_by_role("button", name="Submit").click()
    expect(page.get_by_text("Your proposal is submitted")).to_be_visible()
    assert Proposal.objects.get().state == Proposal.State.SUBMITTED
    assert axe_violations(page, axe_source) == ""
    page.screenshot(path=f"{SHOTS}/proposal-submitted-{name}.png", full_page=True)

    page.get_by_role("link", name="My proposals").first.click()
    expect(page.get_by_text("You can still edit it until")).to_be_visible()
    assert axe_violations(page, axe_source) == ""
    page.screenshot(path=f"{SHOTS}/my-proposals-{name}.png", full_page=True)
    context.close()


def no_sideways_scrolling(page) -> bool:
    return page.evaluate(
        "document.scrollingElement.scrollWidth <= document.scrollingElement.clientWidth"
    )

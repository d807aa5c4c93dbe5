"""Reviewing proposals in a browser: scoring from the keyboard, and how the list and the review
page look on a desktop and a phone (pictures written to $REVIEW_SHOTS when it names a folder)."""

import contextlib
import os
from pathlib import Path

import pytest
from playwright.sync_api import expect

from sessions.models import CallQuestion, Proposal, ProposalAnswer, Review
from tests.browser.conftest import new_context
from tests.builders import make_call, make_proposal, make_team, make_track

PASSWORD = "reviewer passphrase 42"
DESKTOP = {"width": 1440, "height": 900}
PHONE = {"width": 390, "height": 844}
ABSTRACT = (
    "How we made **kernels** fast on small GPUs:\n\n- fusing operators\n- caching plans\n"
    "- measuring what matters"
)


@pytest.fixture
def reviewing(django_user_model, demo_conference):
    """The demo conference's call with four proposals; Rita reviews, Alice has scored two."""
    from conference.models import Conference

    conference = Conference.objects.get(slug="pytorch-eu-2026")
    call = make_call(conference)
    tracks = [make_track(conference, name=name) for name in ("Compilers", "Training")]
    call.tracks.set(tracks)
    question = CallQuestion.objects.create(
        call=call, text="Have you given this talk before?", answer_type="yes-no"
    )
    rita = django_user_model.objects.create_user(
        "rita", "rita@example.org", PASSWORD, is_staff=True, first_name="Rita", last_name="Levi"
    )
    alice = django_user_model.objects.create_user(
        "alice", "alice@example.org", "pw", is_staff=True, first_name="Alice", last_name="Ball"
    )
    make_team(rita, alice, conferences=[conference], is_reviewer=True)
    grace = django_user_model.objects.create_user(
        "grace", "grace@example.org", "pw", first_name="Grace", last_name="Hopper"
    )
    proposals = []
    for number, title in enumerate(
        [
            "Fast kernels on small GPUs",
            "Training at the edge without tears",
            "A compiler for everyone",
            "What we learnt from a year of FSDP",
        ]
    ):
        proposal = make_proposal(
            conference,
            grace,
            state=Proposal.State.SUBMITTED,
            title=title,
            abstract=ABSTRACT,
            description="A longer description with a [link](https://example.org).",
            track=tracks[number % 2],
            notes="Needs a projector with HDMI.",
        )
        ProposalAnswer.objects.create(proposal=proposal, question=question, value="no")
        proposals.append(proposal)
    Review.objects.create(proposal=proposals[0], reviewer=alice, score=3, comment="Very clear.")
    Review.objects.create(proposal=proposals[1], reviewer=alice, score=1, comment="Too broad.")
    return proposals


@contextlib.contextmanager
def reviewer_page(browser, live_server, viewport):
    context = new_context(browser, viewport=viewport, timezone_id="Europe/Paris")
    page = context.new_page()
    page.goto(live_server.url + "/admin/login/")
    page.get_by_label("Username").fill("rita")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("button", name="Log out")).to_be_visible()
    try:
        yield page
    finally:
        context.close()


def review_url(live_server, proposal) -> str:
    return f"{live_server.url}/admin/schedule/proposal/{proposal.pk}/change/"


def test_a_digit_and_enter_score_a_proposal_and_open_the_next(browser, live_server, reviewing):
    first, second = reviewing[0], reviewing[1]
    with reviewer_page(browser, live_server, DESKTOP) as page:
        page.goto(review_url(live_server, first))
        expect(page.get_by_text("Very clear.")).to_have_count(0)  # hidden until scored
        page.locator("body").press("2")
        expect(page.get_by_role("radio", name="2")).to_be_checked()
        page.keyboard.press("Enter")
        expect(page).to_have_url(review_url(live_server, second))
    assert Review.objects.get(reviewer__username="rita").score == 2


def test_digits_typed_in_the_comment_stay_in_the_comment(browser, live_server, reviewing):
    with reviewer_page(browser, live_server, DESKTOP) as page:
        page.goto(review_url(live_server, reviewing[0]))
        page.get_by_label("Your comment").fill("")
        page.get_by_label("Your comment").press_sequentially("3 ideas")
        expect(page.get_by_label("Your comment")).to_have_value("3 ideas")
        expect(page.get_by_role("radio", name="3")).not_to_be_checked()


@pytest.mark.parametrize(("device", "viewport"), [("desktop", DESKTOP), ("phone", PHONE)])
def test_the_review_list_and_page_fit_the_screen(browser, live_server, reviewing, device, viewport):
    shots = Path(os.environ["REVIEW_SHOTS"]) if os.environ.get("REVIEW_SHOTS") else None
    with reviewer_page(browser, live_server, viewport) as page:
        page.goto(live_server.url + "/admin/schedule/proposal/")
        expect(page.get_by_text("reviewed 0 of 4")).to_be_visible()
        if shots:
            page.screenshot(path=shots / f"review-list-{device}.png", full_page=True)
        page.goto(review_url(live_server, reviewing[0]))
        expect(page.get_by_role("radio", name="0")).to_be_visible()
        if shots:
            page.screenshot(path=shots / f"review-page-{device}.png", full_page=True)
        # Nothing is wider than the screen: no sideways scrolling.
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= viewport["width"]

"""The call for proposals from end to end in Chromium (#49, "Done when"): a new speaker drafts a
proposal and invites a co-speaker, who joins from the mailed link; the speaker submits; two
reviewers score it from the keyboard without seeing who speaks; an organizer accepts it, rejects
one proposal and wait-lists another from the review list sorted by score; every speaker gets the
mail of their decision; the accepted speaker confirms from theirs; the session waits in the
planner's unscheduled list, is placed, published and released, and the release mails its
speakers. Every step goes through the pages; only the people, the conference and the two other
proposals are set up as data. Pictures in SHOTS to look at."""

import datetime
import re

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone
from playwright.sync_api import expect

from conference.models import AccountEmail
from sessions.models import CallQuestion, Proposal, Session
from tests.browser.conftest import new_context
from tests.builders import make_call, make_conference, make_proposal, make_room, make_team

SHOTS = "/tmp/shots-journey"
PASSWORD = "call for proposals 2026"
DESKTOP = {"width": 1440, "height": 900}
PHONE = {"width": 390, "height": 844}
TITLE = "Compiling PyTorch models for small devices"
WAITLISTED = "Sparse attention in practice"
REJECTED = "Yet another data loader"
QUESTION = "Have you given this talk before?"


def account(username: str, first_name: str, last_name: str, **fields):
    """An account whose address is confirmed: the only addresses the site mails."""
    user = get_user_model().objects.create_user(
        username,
        f"{username}@example.org",
        PASSWORD,
        first_name=first_name,
        last_name=last_name,
        **fields,
    )
    AccountEmail.objects.create(user=user, verified_address=user.email)
    return user


@pytest.fixture
def conference(transactional_db, immediate_tasks):
    """A published conference in two months, with two rooms and nothing scheduled yet; its call
    is open now, anonymises the review and hides scores until one has scored. Two reviewers, an
    organizer of the programme, two proposals already submitted by other speakers."""
    today = timezone.localdate()
    conference = make_conference(
        name="PyData Lyon 2027",
        slug="pydata-lyon",
        starts_on=today + datetime.timedelta(days=60),
        ends_on=today + datetime.timedelta(days=61),
        city="Lyon",
    )
    make_room(conference, name="Amphitheatre", position=1)
    make_room(conference, name="Workshop Room", position=2)
    now = timezone.now()
    call = make_call(
        conference,
        kinds={"talk": 30, "lightning-talk": 5},
        opens_at=now - datetime.timedelta(days=7),
        closes_at=now + datetime.timedelta(days=21),
        text="We look for **talks from practitioners**.",
        anonymised_review=True,
        scores_hidden_until_reviewed=True,
    )
    CallQuestion.objects.create(call=call, text=QUESTION, answer_type="yes-no", required=True)
    account("ada", "Ada", "Byron")
    account("grace", "Grace", "Hopper")
    rita = account("rita", "Rita", "Levi", is_staff=True)
    alan = account("alan", "Alan", "Kay", is_staff=True)
    make_team(rita, alan, conferences=[conference], is_reviewer=True, name="Reviewers")
    olga = account("olga", "Olga", "Ladyzhenskaya", is_staff=True)
    make_team(olga, conferences=[conference], is_programme=True, name="Programme")
    for days_ago, title, proposer in (
        (2, WAITLISTED, account("barbara", "Barbara", "Liskov")),
        (1, REJECTED, account("edsger", "Edsger", "Dijkstra")),
    ):
        make_proposal(
            conference,
            proposer,
            title=title,
            state=Proposal.State.SUBMITTED,
            submitted_at=now - datetime.timedelta(days=days_ago),
        )
    return conference


def browser_page(browser, live_server, viewport=DESKTOP):
    context = new_context(browser, viewport=viewport, timezone_id="Europe/Paris")
    page = context.new_page()
    page.base_url = live_server.url
    return page


def log_in(page, username: str) -> None:
    """Log in on the login page the browser was sent to; it comes back where it was going."""
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()


def admin_page(browser, live_server, username: str):
    page = browser_page(browser, live_server)
    page.goto(live_server.url + "/admin/login/")
    log_in(page, username)
    expect(page.get_by_role("button", name="Log out")).to_be_visible()
    return page


def site_path(link: str) -> str:
    return re.sub(r"^https?://[^/]+", "", link)


def link_in(message, pattern: str) -> str:
    return site_path(re.search(rf"https?://\S+{pattern}", message.body).group(0))


def shoot(page, name: str, *, phone: bool = False) -> None:
    """A picture of the page on the desktop and, for a speaker's page, on a phone."""
    page.screenshot(path=f"{SHOTS}/{name}-desktop.png", full_page=True)
    if phone:
        page.set_viewport_size(PHONE)
        page.screenshot(path=f"{SHOTS}/{name}-phone.png", full_page=True)
        page.set_viewport_size(DESKTOP)


def score_with_keys(page, digit: str) -> None:
    """A digit chooses the score, Enter saves it and opens the next proposal not yet reviewed.
    The page on screen is the one to score: review.js (deferred) listens once it is parsed."""
    page.wait_for_load_state("domcontentloaded")
    page.locator("body").press(digit)
    expect(page.get_by_role("radio", name=digit, exact=True)).to_be_checked()
    page.keyboard.press("Enter")


def mails_to(outbox, address: str) -> list:
    return [message for message in outbox if address in message.to]


def test_a_proposal_goes_from_a_draft_to_a_released_session(
    browser, live_server, conference, mailoutbox
):
    slug = conference.slug

    # 1. Ada reads the call, logs in from it, drafts her proposal and invites Grace.
    ada = browser_page(browser, live_server)
    ada.goto(f"{live_server.url}/{slug}/call/")
    expect(ada.get_by_role("heading", name="Call for proposals")).to_be_visible()
    expect(ada.get_by_text("Open.")).to_be_visible()
    shoot(ada, "call", phone=True)
    ada.get_by_role("link", name="Log in to propose a session").click()
    log_in(ada, "ada")
    expect(ada.get_by_role("heading", name="Propose a session")).to_be_visible()
    ada.get_by_label("Title").fill(TITLE)
    ada.get_by_label("Kind").select_option(label="Talk, 30 min")
    ada.get_by_label("Abstract").fill("What **torch.compile** does on a phone.")
    ada.get_by_role("group", name=QUESTION).get_by_label("No").check()
    expect(ada.get_by_label("Your name")).to_have_value("Ada Byron")
    ada.get_by_label("Your biography").fill("Ada ports models to *very* small machines.")
    ada.get_by_role("button", name="Save the draft").click()
    expect(ada.get_by_text("Your proposal is saved.")).to_be_visible()
    expect(ada.get_by_role("heading", name=TITLE)).to_be_visible()
    ada.get_by_label("Invite a co-speaker by email").fill("grace@example.org")
    ada.get_by_role("button", name="Send the invitation").click()
    expect(ada.get_by_text("Invitation sent to grace@example.org")).to_be_visible()
    expect(ada.locator(".co-speakers")).to_contain_text("grace@example.org")
    proposal = Proposal.objects.get(title=TITLE)
    assert proposal.state == Proposal.State.DRAFT

    # 2. Grace opens the mailed link in her own browser, logs in, and joins.
    [invitation] = mails_to(mailoutbox, "grace@example.org")
    grace = browser_page(browser, live_server)
    grace.goto(live_server.url + link_in(invitation, "/call/invitation/\\S+"))
    log_in(grace, "grace")
    expect(grace.get_by_role("heading", name="Speak in a proposal")).to_be_visible()
    expect(grace.get_by_label("Your name, as the proposal shows it")).to_have_value("Grace Hopper")
    grace.get_by_label("Your bio for this proposal").fill("Grace wrote the first compiler.")
    grace.get_by_role("button", name="Accept and join the proposal").click()
    expect(grace.get_by_role("heading", name="You joined the proposal")).to_be_visible()

    ada.reload()
    speakers = ada.locator(".co-speakers .co-speaker-list").first
    expect(speakers).to_contain_text("Ada Byron (proposed it) (you)")
    expect(speakers).to_contain_text("Grace Hopper")
    shoot(ada, "proposal-with-co-speaker", phone=True)

    # 3. Ada submits.
    ada.get_by_role("button", name="Submit").click()
    expect(ada.get_by_text("Your proposal is submitted")).to_be_visible()
    proposal.refresh_from_db()
    assert proposal.state == Proposal.State.SUBMITTED

    # 4. Two reviewers score every proposal from the keyboard, never seeing who speaks.
    scores = {"rita": {TITLE: "3", WAITLISTED: "2", REJECTED: "0"}}
    scores["alan"] = {TITLE: "2", WAITLISTED: "1", REJECTED: "1"}
    for number, (reviewer, theirs) in enumerate(scores.items()):
        page = admin_page(browser, live_server, reviewer)
        page.goto(f"{live_server.url}/admin/schedule/proposal/")
        mine = page.locator(".review-progress li.me")
        expect(mine).to_contain_text("reviewed 0 of 3")
        for name in ("Ada", "Grace", "Byron", "Hopper", "Barbara", "Edsger"):
            expect(page.locator("#content")).not_to_contain_text(name)
        page.get_by_role("link", name=TITLE).click()
        expect(page.get_by_text("2 speakers, hidden: the review is anonymised.")).to_be_visible()
        for name in ("Ada", "Grace", "Byron", "Hopper"):
            expect(page.locator("#content")).not_to_contain_text(name)
        if number == 1:  # Rita's score, hidden until Alan has scored
            expect(page.locator(".other-reviews")).to_contain_text(
                "One other review, shown once you have scored this proposal."
            )
            expect(page.locator(".other-reviews")).not_to_contain_text("Rita")
        else:
            expect(page.locator(".other-reviews")).to_contain_text("No other review yet.")
            shoot(page, "review-page")
        # Scored in the order Enter opens them: the journey's, then the oldest, then the next.
        for title in (TITLE, WAITLISTED, REJECTED):
            expect(page.locator(".proposal-facts")).to_be_visible()
            expect(page.locator("h1")).to_contain_text(title)
            score_with_keys(page, theirs[title])
        expect(
            page.get_by_text("You have reviewed every proposal of this conference.")
        ).to_be_visible()
        expect(mine).to_contain_text("reviewed 3 of 3")
        if number == 1:
            page.get_by_role("link", name=TITLE).click()
            expect(page.locator(".other-reviews")).to_contain_text("3 · Rita Levi")
        page.context.close()

    # 5. The organizer decides from the list sorted by score, each through its confirmation.
    olga = admin_page(browser, live_server, "olga")
    olga.goto(f"{live_server.url}/admin/schedule/proposal/")
    titles = olga.locator("#result_list tbody th a")
    expect(titles).to_have_text([TITLE, WAITLISTED, REJECTED])
    expect(olga.locator("#result_list tbody tr").first).to_contain_text("2.50")
    for title, decision, decided in (
        (TITLE, "accept", "accepted"),
        (REJECTED, "reject", "rejected"),
        (WAITLISTED, "wait-list", "wait-listed"),
    ):
        action = f"{decision.capitalize()} selected proposals"
        button = f"Yes, {decision} 1 proposal"
        olga.locator("#result_list tbody tr", has_text=title).locator(".action-select").check()
        olga.locator("select[name=action]").select_option(label=action)
        olga.get_by_role("button", name="Go").click()
        expect(olga.locator("table.decision-plan")).to_contain_text(title)
        if title == TITLE:
            shoot(olga, "bulk-confirmation")
        olga.get_by_role("button", name=button).click()
        expect(olga.locator(".messagelist")).to_have_text(f"1 proposal {decided}.")
    states = dict(Proposal.objects.values_list("title", "state"))
    assert states == {TITLE: "accepted", WAITLISTED: "waitlisted", REJECTED: "rejected"}

    # 6. Each speaker is mailed their decision.
    for address in ("ada@example.org", "grace@example.org"):
        [accepted] = [m for m in mails_to(mailoutbox, address) if "accepted" in m.subject]
        assert accepted.subject == "PyData Lyon 2027: your proposal is accepted"
        assert TITLE in accepted.body
    [waitlisted] = mails_to(mailoutbox, "barbara@example.org")
    assert waitlisted.subject == "PyData Lyon 2027: your proposal is on the waiting list"
    assert WAITLISTED in waitlisted.body
    [rejected] = mails_to(mailoutbox, "edsger@example.org")
    assert rejected.subject == "PyData Lyon 2027: your proposal was not accepted"
    assert REJECTED in rejected.body

    # 7. Ada confirms from the link of her mail.
    [accepted] = [m for m in mails_to(mailoutbox, "ada@example.org") if "accepted" in m.subject]
    answer = link_in(accepted, "/answer/")
    assert answer == f"/{slug}/call/{proposal.code}/answer/"
    ada.goto(live_server.url + answer)
    expect(ada.get_by_role("heading", name="Accepted: will you give it?")).to_be_visible()
    shoot(ada, "answer", phone=True)
    ada.get_by_role("button", name="Confirm").click()
    expect(ada.get_by_text(f"Thank you: you confirmed “{TITLE}”.")).to_be_visible()
    proposal.refresh_from_db()
    assert proposal.state == Proposal.State.CONFIRMED

    # 8. The session waits in the planner; placed, published and released, it is mailed.
    olga.goto(f"{live_server.url}/admin/schedule/session/")
    olga.get_by_role("link", name="Planner", exact=True).click()
    expect(olga.locator("#planner-keys")).to_be_visible()  # planner.js is running
    waiting = olga.locator("#planner-unscheduled .planner-block", has_text=TITLE)
    expect(waiting).to_be_visible()
    shoot(olga, "planner")
    waiting.focus()
    announce = olga.locator("#planner-announce")
    for key in ["Enter", *"1000"]:
        olga.keyboard.press(key)
    expect(announce).to_have_text("Amphitheatre, 10:00")
    for key in ["w", "Enter"]:
        olga.keyboard.press(key)
    expect(announce).to_contain_text("to Workshop Room,")
    placed = olga.locator('.planner-column[data-room-name="Workshop Room"] .planner-block')
    expect(placed.filter(has_text=TITLE)).to_be_visible()
    shoot(olga, "planner-placed")
    session = Session.objects.get(title=TITLE)
    assert session.room.name == "Workshop Room"

    olga.goto(f"{live_server.url}/admin/schedule/session/")
    olga.locator("#result_list tbody tr", has_text=TITLE).locator(".action-select").check()
    olga.locator("select[name=action]").select_option(label="Publish selected drafts")
    olga.get_by_role("button", name="Go").click()
    expect(olga.locator(".messagelist")).to_contain_text("1 session published.")
    olga.get_by_role("link", name="Release", exact=True).click()
    expect(olga.locator(".release-change-new")).to_contain_text(TITLE)
    shoot(olga, "release")
    olga.get_by_role("button", name="Release these changes").click()
    expect(olga.locator(".messagelist")).to_contain_text("Released v1 of PyData Lyon 2027")
    for address in ("ada@example.org", "grace@example.org"):
        [release_mail] = [m for m in mails_to(mailoutbox, address) if "schedule" in m.subject]
        assert TITLE in release_mail.body
        assert "Workshop Room" in release_mail.body

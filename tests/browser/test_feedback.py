"""Feedback in a browser: an attendee rates a session once it started, the organizer reads it in
the admin, the speaker on their feedback page without the attendee's name."""

from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.browser.axe import axe_violations
from tests.browser.conftest import close_page, new_context
from tests.builders import make_conference, make_session, make_speaker, paris

PASSWORD = "a long passphrase 42"
SHOTS = Path("/tmp/shots-feedback")  # docs/images/feedback-form.png is the desktop one
COMMENT = "The live demo made the scheduler click."


@pytest.fixture
def feedback_conference(transactional_db, django_user_model, clock):
    users = django_user_model.objects
    users.create_user("ada", "ada@example.org", PASSWORD)
    users.create_superuser("organizer", "o@example.org", PASSWORD)
    grace = users.create_user("grace", "grace@example.org", PASSWORD)
    conference = make_conference(slug="pycon", name="PyCon Paris")
    speaker = make_speaker(conference, name="Grace Hopper", user=grace)
    make_session(
        conference,
        title="Scheduling GPUs fairly",
        slug="scheduling-gpus-fairly",
        starts_at=paris(8, 10),
        speakers=[speaker],
    )
    clock(paris(8, 10, 25))  # the session started 25 minutes ago
    return conference


def log_in(page, username):
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()


def test_attendee_rates_a_session_the_organizer_and_the_speaker_read_it(
    browser, live_server, feedback_conference, axe_source
):
    SHOTS.mkdir(exist_ok=True)
    session_url = f"{live_server.url}/pycon/sessions/scheduling-gpus-fairly/"
    # With the offline worker, as attendees have it: the form's log-in prompt is there for it.
    context = new_context(
        browser,
        viewport={"width": 1366, "height": 900},
        timezone_id="Europe/Paris",
        service_workers="allow",
    )
    page = context.new_page()
    page.goto(session_url)
    page.get_by_role("link", name="Rate this session").click()
    assert axe_violations(page, axe_source) == ""
    page.get_by_role("main").get_by_role("link", name="Log in").click()
    log_in(page, "ada")

    expect(page.get_by_role("heading", name="Rate this session")).to_be_visible()
    stars = page.get_by_role("group", name="Your rating")
    stars.get_by_label("4 of 5").check()
    page.get_by_label("Comment (optional)").fill(COMMENT)
    assert axe_violations(page, axe_source) == ""
    page.screenshot(path=SHOTS / "feedback-form.png", full_page=False, animations="disabled")
    page.get_by_role("button", name="Send my feedback").click()

    expect(page.get_by_text("Thank you: your feedback is saved.")).to_be_visible()
    expect(page.get_by_text("You rated this session 4 of 5.")).to_be_visible()
    expect(stars.get_by_label("4 of 5")).to_be_checked()
    page.set_viewport_size({"width": 390, "height": 844})
    page.screenshot(path=SHOTS / "feedback-form-phone.png", full_page=True, animations="disabled")
    close_page(page)

    context = new_context(browser, viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.goto(f"{live_server.url}/admin/schedule/feedback/")
    log_in(page, "organizer")
    row = page.locator("#result_list tbody tr")
    expect(row).to_have_count(1)
    expect(row).to_contain_text("Scheduling GPUs fairly")
    expect(row).to_contain_text(COMMENT)
    page.get_by_role("link", name="Averages and counts").click()
    expect(page.get_by_role("heading", name="PyCon Paris: 4.00 of 5 from 1 rating")).to_be_visible()
    close_page(page)

    context = new_context(browser, viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.goto(f"{live_server.url}/pycon/speaker/feedback/")
    page.get_by_role("main").get_by_role("link", name="Log in").click()
    log_in(page, "grace")
    expect(page.get_by_role("heading", name="Feedback on my sessions")).to_be_visible()
    expect(page.get_by_text("Average rating 4.0 of 5, from 1 rating.")).to_be_visible()
    expect(page.get_by_text(COMMENT)).to_be_visible()
    expect(page.locator("main")).not_to_contain_text("ada")
    assert axe_violations(page, axe_source) == ""
    close_page(page)

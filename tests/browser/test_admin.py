"""The session admin in a browser: what organizers see and pick."""

import contextlib
import datetime
import re

import pytest
from playwright.sync_api import expect

from sessions.models import Session
from tests.browser.conftest import new_context
from tests.builders import PARIS, make_conference, make_session, make_speaker

PASSWORD = "organizer passphrase 42"
LIVE_MIGRATION = "Live Migration of PyTorch GPU Nodes From Azure To European Clouds"


@pytest.fixture
def organizer(django_user_model, demo_conference):
    return django_user_model.objects.create_superuser("organizer", "o@example.org", PASSWORD)


@contextlib.contextmanager
def admin_page(browser, live_server, timezone_id="Europe/Paris", **options):
    """A page logged in to the admin, 1280 px wide, in a browser whose clock is in ``timezone_id``."""
    context = new_context(
        browser, viewport={"width": 1280, "height": 800}, timezone_id=timezone_id, **options
    )
    page = context.new_page()
    page.goto(live_server.url + "/admin/login/")
    page.get_by_label("Username").fill("organizer")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("button", name="Log out")).to_be_visible()
    try:
        yield page
    finally:
        context.close()


def session_change_url(live_server, title: str) -> str:
    session = Session.objects.get(title__endswith=title)
    return f"{live_server.url}/admin/schedule/session/{session.pk}/change/"


def test_speaker_autocomplete_offers_only_the_sessions_conference_speakers(
    browser, live_server, organizer
):
    make_speaker(make_conference(name="Other Conference"), name="Mike Other")
    with admin_page(browser, live_server) as page:
        page.goto(session_change_url(live_server, LIVE_MIGRATION))
        page.locator("#session_speakers-1 .select2-selection").click()
        page.locator(".select2-search__field").fill("Mike")
        expect(page.locator(".select2-results__option")).to_have_text(["Mike Krom"])


def test_session_form_in_another_zone_gives_no_server_time_note_and_now_is_the_conferences(
    browser, live_server, organizer
):
    with admin_page(browser, live_server, timezone_id="America/New_York") as page:
        page.goto(session_change_url(live_server, LIVE_MIGRATION))
        expect(
            page.get_by_text("In Europe/Paris, the conference's time zone.").first
        ).to_be_visible()
        expect(page.get_by_text("server time").locator("visible=true")).to_have_count(0)
        page.locator("#id_starts_at_1").fill("")
        page.locator("#id_starts_at_1 ~ .datetimeshortcuts").get_by_text("Now").click()
        typed = page.locator("#id_starts_at_1").input_value()
        paris_now = datetime.datetime.now(PARIS)
        assert typed[:5] in {
            f"{moment:%H:%M}" for moment in (paris_now, paris_now - datetime.timedelta(minutes=1))
        }


def test_forms_with_server_times_keep_the_server_time_note(browser, live_server, organizer):
    with admin_page(browser, live_server, timezone_id="America/New_York") as page:
        page.goto(f"{live_server.url}/admin/auth/user/{organizer.pk}/change/")
        note = re.compile(r"You are \d+ hours? behind server time\.")
        expect(page.get_by_text(note).first).to_be_visible()


PAGE_WIDTHS = """() => {
    const results = document.querySelector("#changelist-form .results");
    return {
        page: document.documentElement.scrollWidth,
        columns: results && results.scrollWidth - results.clientWidth,
    };
}"""


def test_session_changelist_shows_every_column_on_a_1280_px_screen(browser, live_server, organizer):
    with admin_page(browser, live_server) as page:
        page.goto(live_server.url + "/admin/schedule/session/")
        expect(page.get_by_text("29 sessions")).to_be_visible()
        # Nothing scrolls sideways: neither the page nor the table in its own scrolling box.
        assert page.evaluate(PAGE_WIDTHS) == {"page": 1280, "columns": 0}


def test_session_form_with_attachments_fits_a_1280_px_screen(browser, live_server, organizer):
    session = Session.objects.get(title__endswith=LIVE_MIGRATION)
    session.attachments.create(
        title="Slides: live migration of GPU nodes, the full deck",
        file=f"attachments/{'0123456789abcdef' * 2}.pdf",
        position=1,
    )
    session.attachments.create(
        title="Recording",
        url="https://www.youtube.com/watch?v=abcdefghijk&list=PL" + "x" * 40,
        position=2,
    )
    with admin_page(browser, live_server) as page:
        page.goto(session_change_url(live_server, LIVE_MIGRATION))
        expect(page.get_by_text("Currently:")).to_have_count(2)
        assert page.evaluate(PAGE_WIDTHS)["page"] <= 1280


# --- Start, duration and end ------------------------------------------------------------------


# The browser's own zone does not matter: the form speaks the conference's.
@pytest.mark.parametrize("timezone_id", ["Europe/Paris", "America/New_York"])
def test_session_form_moves_the_end_with_a_new_start_and_saves(
    browser, live_server, organizer, timezone_id
):
    session = Session.objects.get(title__endswith=LIVE_MIGRATION)
    length = session.duration
    with admin_page(browser, live_server, timezone_id=timezone_id) as page:
        page.goto(session_change_url(live_server, LIVE_MIGRATION))
        page.locator("#id_starts_at_1").fill("12:05")
        expect(page.locator("#id_ends_at_1")).to_have_value(
            re.compile("^" + f"{datetime.datetime(2000, 1, 1, 12, 5, tzinfo=PARIS) + length:%H:%M}")
        )
        page.get_by_role("button", name="Save", exact=True).click()
        expect(page.get_by_text("was changed successfully")).to_be_visible()
    session.refresh_from_db()
    assert (session.local_starts_at.strftime("%H:%M"), session.duration) == ("12:05", length)


def test_session_form_changes_the_duration_with_a_new_end_and_the_end_with_a_new_duration(
    browser, live_server, organizer
):
    session = Session.objects.get(title__endswith=LIVE_MIGRATION)
    starts = session.local_starts_at
    with admin_page(browser, live_server) as page:
        page.goto(session_change_url(live_server, LIVE_MIGRATION))
        page.locator("#id_ends_at_1").fill(f"{starts + datetime.timedelta(minutes=50):%H:%M}")
        expect(page.locator("#id_duration")).to_have_value("50")
        page.locator("#id_duration").fill("20")
        expect(page.locator("#id_ends_at_1")).to_have_value(
            re.compile("^" + f"{starts + datetime.timedelta(minutes=20):%H:%M}")
        )


def test_session_form_without_javascript_keeps_the_duration_of_a_new_start(
    browser, live_server, organizer
):
    session = Session.objects.get(title__endswith=LIVE_MIGRATION)
    length = session.duration
    with admin_page(browser, live_server, java_script_enabled=False) as page:
        page.goto(session_change_url(live_server, LIVE_MIGRATION))
        page.locator("#id_starts_at_1").fill("12:05")
        page.get_by_role("button", name="Save", exact=True).click()
        expect(page.get_by_text("was changed successfully")).to_be_visible()
    session.refresh_from_db()
    assert (session.local_starts_at.strftime("%H:%M"), session.duration) == ("12:05", length)


# --- Layout ---------------------------------------------------------------------------------


def test_session_form_gives_a_long_title_the_width_and_the_speakers_come_before_the_text(
    browser, live_server, organizer
):
    with admin_page(browser, live_server) as page:
        page.set_viewport_size({"width": 1366, "height": 900})
        page.goto(session_change_url(live_server, LIVE_MIGRATION))
        title = page.locator("#id_title")
        assert title.evaluate("input => input.scrollWidth <= input.clientWidth")
        assert title.bounding_box()["width"] >= 600
        speakers = page.locator("#session_speakers-group").bounding_box()
        text = page.get_by_role("heading", name="Text", exact=True).bounding_box()
        assert speakers["y"] < text["y"] < 1500


def overlaps(one: dict, other: dict) -> bool:
    return not (
        one["x"] + one["width"] <= other["x"]
        or other["x"] + other["width"] <= one["x"]
        or one["y"] + one["height"] <= other["y"]
        or other["y"] + other["height"] <= one["y"]
    )


def test_session_changelist_with_two_conferences_keeps_the_heading_clear_and_every_column(
    browser, live_server, organizer
):
    make_conference(name="Other Conference 2027", slug="other-2027")
    with admin_page(browser, live_server) as page:
        page.set_viewport_size({"width": 1366, "height": 900})
        page.goto(live_server.url + "/admin/schedule/session/")
        expect(page.locator("#result_list thead")).to_contain_text("Conference")
        heading = page.locator("#content h1").bounding_box()
        tools = page.locator(".object-tools li").all()
        assert len(tools) == 7
        assert not any(overlaps(heading, tool.bounding_box()) for tool in tools)
        assert page.evaluate(PAGE_WIDTHS) == {"page": 1366, "columns": 0}


def test_session_form_moves_the_end_into_the_hour_the_clocks_repeat_and_saves(
    browser, live_server, organizer
):
    conference = make_conference(
        starts_on=datetime.date(2026, 10, 24), ends_on=datetime.date(2026, 10, 25)
    )
    session = make_session(
        conference,
        title="Night owls",
        starts_at=datetime.datetime(2026, 10, 24, 21, 0, tzinfo=datetime.UTC),  # 23:00 CEST
        ends_at=datetime.datetime(2026, 10, 24, 22, 0, tzinfo=datetime.UTC),
    )
    with admin_page(browser, live_server) as page:
        page.goto(f"{live_server.url}/admin/schedule/session/{session.pk}/change/")
        page.locator("#id_starts_at_0").fill("25/10/2026")
        page.locator("#id_starts_at_1").fill("01:45")  # for 60 minutes: to 02:45 CEST
        page.get_by_role("button", name="Save", exact=True).click()
        expect(page.get_by_text("was changed successfully")).to_be_visible()
    session.refresh_from_db()
    assert (session.starts_at, session.ends_at) == (
        datetime.datetime(2026, 10, 24, 23, 45, tzinfo=datetime.UTC),
        datetime.datetime(2026, 10, 25, 0, 45, tzinfo=datetime.UTC),
    )

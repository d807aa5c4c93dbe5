import datetime
import re

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from conference.models import Conference
from sessions.models import SavedSession, Session
from tests.browser.axe import axe_violations
from tests.browser.conftest import close_page, page_of
from tests.builders import SAVE_BUTTON, SAVED, SAVED_BUTTON

PASSWORD = "a long passphrase 42"
SCHEDULE = "/pytorch-eu-2026/schedule/"
MY_SCHEDULE = "/pytorch-eu-2026/my-schedule/"
OFFLINE_NOTICE = re.compile(r"^Offline: showing the copy of this page kept at \d\d:\d\d\.$")
NOW_OFFLINE_NOTICE = re.compile(
    r"^Offline: this shows what was on at \d\d:\d\d, when this page was kept\. It moves on"
)
# A page no manifest lists, so kept only once opened: a room's door sign.
NEVER_KEPT = "/pytorch-eu-2026/now/central-room/"


@pytest.fixture
def page(browser, live_server, demo_conference):
    """A tab with the service worker, whose offline copies these tests are about."""
    page = page_of(browser, live_server, service_workers="allow")
    yield page
    close_page(page)


@pytest.fixture
def attendee(demo_conference, django_user_model):
    user = django_user_model.objects.create_user("attendee", password=PASSWORD)
    conference = Conference.objects.get(slug="pytorch-eu-2026")
    session = Session.objects.public().filter(conference=conference).order_by("starts_at")[3]
    SavedSession.objects.add(user, session)
    return user, session


def log_in(page):
    page.goto(page.base_url + "/accounts/login/?next=" + SCHEDULE)
    page.get_by_label("Username").fill("attendee")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("button", name="Log out")).to_be_visible()


def visit(page, path):
    """Open a page and wait until the service worker has kept it (static/js/offline.js)."""
    page.goto(page.base_url + path)
    expect(page.locator("html[data-offline-ready=true]")).to_be_attached()


def is_kept(page, path):
    return page.evaluate(
        """async (address) => {
            for (const name of await caches.keys()) {
                if (await (await caches.open(name)).match(address)) return true;
            }
            return false;
        }""",
        page.base_url + path,
    )


def kept_text(page, path):
    """The kept copy of a page, "" if none."""
    return page.evaluate(
        """async (address) => {
            const copy = await caches.match(address);
            return copy ? copy.text() : "";
        }""",
        page.base_url + path,
    )


def test_schedule_and_my_schedule_open_offline_with_the_time_they_were_fetched(page, attendee):
    _, session = attendee
    log_in(page)
    visit(page, SCHEDULE)
    expect(page.locator("#offline-notice")).to_be_hidden()
    visit(page, MY_SCHEDULE)

    page.context.set_offline(True)
    page.goto(page.base_url + SCHEDULE)
    expect(page.get_by_role("status").filter(has_text="Offline")).to_have_text(OFFLINE_NOTICE)
    expect(page.get_by_role("heading", name="Schedule", exact=True)).to_be_visible()
    # Styled: the stylesheet came from the worker's cache too.
    assert page.evaluate("getComputedStyle(document.querySelector('.site-header')).color") != (
        "rgb(0, 0, 0)"
    )

    page.goto(page.base_url + MY_SCHEDULE)
    expect(page.get_by_role("status").filter(has_text="Offline")).to_have_text(OFFLINE_NOTICE)
    expect(page.locator("article.session")).to_have_count(1)
    expect(page.locator("article.session")).to_contain_text(session.title)


def test_the_grid_a_session_and_the_speakers_open_offline_once_visited(page, attendee):
    _, session = attendee
    # Unchanged for a month: the browser's own cache would take the pages as fresh for days
    # (heuristic freshness), and answer offline without the notice.
    Conference.objects.filter(pk=session.conference_id).update(
        changed_at=timezone.now() - datetime.timedelta(days=30)
    )
    pages = {
        "/pytorch-eu-2026/schedule/grid/": "Schedule grid",
        session.get_absolute_url(): session.title,
        "/pytorch-eu-2026/speakers/": "Speakers",
    }
    for path in pages:
        visit(page, path)

    page.context.set_offline(True)
    for path, heading in pages.items():
        page.goto(page.base_url + path)
        expect(page.locator("#offline-notice")).to_have_text(OFFLINE_NOTICE)
        expect(page.locator("h1")).to_contain_text(heading)
    page.goto(page.base_url + NEVER_KEPT)
    expect(page.get_by_role("heading", level=1)).to_have_text("You are offline")


def test_a_page_never_kept_shows_offline_in_the_conference_frame_still_logged_in(page, attendee):
    log_in(page)
    visit(page, SCHEDULE)

    page.context.set_offline(True)
    page.goto(page.base_url + NEVER_KEPT)
    expect(page.get_by_role("heading", level=1)).to_have_text("You are offline")
    expect(page.locator(".brand")).to_have_text("PyTorch Conference Europe 2026")
    expect(page.get_by_role("link", name="Back to the schedule")).to_have_attribute(
        "href", SCHEDULE
    )
    expect(page.get_by_role("button", name="Log out")).to_be_visible()
    expect(page.get_by_role("link", name="Log in")).to_have_count(0)


def test_saving_offline_says_it_needs_a_connection_and_keeps_the_focus(page, attendee, axe_source):
    log_in(page)
    visit(page, SCHEDULE)
    button = page.locator(".save-toggle").get_by_role("button", name=SAVE_BUTTON).first
    button.focus()

    page.context.set_offline(True)
    page.keyboard.press("Enter")
    form = page.locator(".save-toggle").filter(has=page.locator(":focus"))
    expect(form.get_by_role("alert")).to_have_text(
        "Saving needs a connection: you seem to be offline. Try again once you are back online."
    )
    expect(button).to_be_focused()
    expect(button).to_have_attribute("value", "save")

    page.context.set_offline(False)
    page.keyboard.press("Enter")
    expect(form.get_by_role("button", name=SAVED_BUTTON)).to_be_focused()
    expect(form.get_by_role("alert")).to_have_count(0)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_offline_notice_and_message_pass_axe(page, attendee, axe_source, scheme):
    page.emulate_media(color_scheme=scheme)
    log_in(page)
    visit(page, SCHEDULE)
    page.context.set_offline(True)
    page.goto(page.base_url + SCHEDULE)
    expect(page.locator("#offline-notice")).to_be_visible()
    page.locator(".save-toggle").get_by_role("button", name=SAVE_BUTTON).first.click()
    expect(page.locator(".save-error")).to_be_visible()
    assert axe_violations(page, axe_source) == ""


def test_a_refused_save_says_why_beside_the_button(page, attendee):
    log_in(page)
    # The whole conference kept first: the worker's fetches ahead, reading the sessions while
    # this test writes one, would lock SQLite's table ("database table is locked").
    visit_and_store_the_conference(page, SCHEDULE)
    toggle = page.locator(".save-toggle").filter(has=page.locator("[value=save]")).first
    slug = toggle.get_by_role("button").get_attribute("formaction").split("/")[-3]
    Session.objects.filter(slug=slug).update(status=Session.Status.CANCELLED)

    toggle.get_by_role("button").click()
    expect(toggle.get_by_role("alert")).to_have_text("Only published sessions can be saved.")
    expect(toggle.get_by_role("button")).to_be_focused()


def test_logging_out_forgets_the_kept_personal_pages(page, attendee):
    log_in(page)
    visit(page, MY_SCHEDULE)
    # The worker done fetching the conference ahead: the test's in-memory SQLite database refuses
    # the log-out's delete ("table is locked") while another thread reads the session table.
    visit_and_store_the_conference(page, SCHEDULE)
    assert is_kept(page, MY_SCHEDULE)

    page.get_by_role("button", name="Log out").click()
    expect(page.get_by_role("link", name="Log in")).to_be_visible()
    assert not is_kept(page, MY_SCHEDULE)
    # It showed the visitor's Saved buttons; the page the log-out led to may keep it again,
    # as a logged-out visitor sees it (the whole conference is fetched ahead).
    kept = kept_text(page, SCHEDULE)
    assert ">Log out<" not in kept
    assert SAVED not in kept

    # The log-out cleared the worker too (Clear-Site-Data); the page it led to brings it back.
    expect(page.locator("html[data-offline-ready=true]")).to_be_attached()
    page.context.set_offline(True)
    page.goto(page.base_url + MY_SCHEDULE)
    expect(page.get_by_role("heading", level=1)).to_have_text("You are offline")
    expect(page.get_by_role("link", name="Log in")).to_be_visible()  # it names nobody


def test_the_app_opens_offline_at_its_start_address(page):
    visit(page, "/")  # the only conference: / leads to its home page
    assert page.url == page.base_url + "/pytorch-eu-2026/"
    visit(page, "/")  # now through the worker, which learns where / leads

    page.context.set_offline(True)
    page.goto(page.base_url + "/")
    assert page.url == page.base_url + "/pytorch-eu-2026/"
    expect(page.locator("#offline-notice")).to_have_text(OFFLINE_NOTICE)


def test_the_worker_controls_the_whole_site_and_the_manifest_is_linked(page):
    visit(page, "/pytorch-eu-2026/")
    scope = page.evaluate("navigator.serviceWorker.ready.then((r) => r.scope)")
    assert scope == page.base_url + "/"
    manifest = page.evaluate(
        """async () => {
            const link = document.querySelector('link[rel=manifest]');
            return (await fetch(link.href)).json();
        }"""
    )
    assert manifest["display"] == "standalone"
    assert [icon["sizes"] for icon in manifest["icons"]] == ["192x192", "512x512", "512x512"]


@pytest.mark.parametrize("path", ["/%61ccounts/settings/", "/accounts%2Fsettings/"])
def test_the_account_settings_are_never_kept_however_their_address_is_spelt(page, attendee, path):
    log_in(page)
    visit(page, path)
    expect(page.get_by_role("heading", name="Account settings")).to_be_visible()
    assert not is_kept(page, path)


@pytest.mark.parametrize("door", ["/%61ccounts/login/", "/accounts%2Flogin/"])
def test_logging_in_through_a_door_spelt_otherwise_forgets_the_kept_pages(page, attendee, door):
    log_in(page)
    visit(page, MY_SCHEDULE)
    assert is_kept(page, MY_SCHEDULE)

    # Someone else logs in on this device (the answer does not matter: the worker acts first).
    page.evaluate("(door) => fetch(door, { method: 'POST', body: new FormData() })", door)

    assert not is_kept(page, MY_SCHEDULE)


@pytest.fixture
def organizer(django_user_model):
    return django_user_model.objects.create_superuser("organizer", "o@example.org", PASSWORD)


def test_logging_out_at_the_admins_door_forgets_the_kept_pages(page, attendee):
    user, _ = attendee
    user.is_staff = True
    user.save()
    log_in(page)
    visit(page, MY_SCHEDULE)
    visit_and_store_the_conference(page, SCHEDULE)  # as above: no fetch ahead left running

    page.goto(page.base_url + "/admin/")
    page.get_by_role("button", name="Log out").click()
    expect(page.get_by_role("link", name="Log in", exact=True)).to_be_visible()

    assert not is_kept(page, MY_SCHEDULE)
    assert not is_kept(page, SCHEDULE)


def test_logging_in_at_the_admins_door_as_someone_else_forgets_the_kept_pages(
    page, attendee, organizer
):
    log_in(page)
    visit(page, MY_SCHEDULE)
    assert is_kept(page, MY_SCHEDULE)

    page.goto(page.base_url + "/admin/login/")
    page.get_by_label("Username").fill("organizer")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("button", name="Log out")).to_be_visible()

    assert not is_kept(page, MY_SCHEDULE)


def visit_and_store_the_conference(page, path):
    """Open a page and wait until the worker has kept every page of its conference."""
    page.goto(page.base_url + path)
    expect(page.locator("html[data-offline-conference=stored]")).to_be_attached(timeout=60_000)


def test_after_the_schedule_the_whole_conference_opens_offline_and_stays_current(page, attendee):
    _, session = attendee
    speaker = session.speakers.order_by("pk").first()
    visit_and_store_the_conference(page, SCHEDULE)

    page.context.set_offline(True)
    page.goto(page.base_url + session.get_absolute_url())  # never visited
    expect(page.locator("#offline-notice")).to_have_text(OFFLINE_NOTICE)
    expect(page.locator("h1")).to_contain_text(session.title)
    page.goto(page.base_url + speaker.get_absolute_url())  # never visited
    expect(page.locator("#offline-notice")).to_have_text(OFFLINE_NOTICE)
    expect(page.locator("h1")).to_have_text(speaker.name)

    session.title = "Renamed while you were away"
    session.save()
    page.context.set_offline(False)
    visit_and_store_the_conference(page, SCHEDULE)

    page.context.set_offline(True)
    page.goto(page.base_url + session.get_absolute_url())
    expect(page.locator("#offline-notice")).to_have_text(OFFLINE_NOTICE)
    expect(page.locator("h1")).to_contain_text("Renamed while you were away")


def test_a_logged_in_visitors_pages_kept_ahead_go_when_they_log_out(page, attendee):
    _, session = attendee
    log_in(page)
    visit_and_store_the_conference(page, SCHEDULE)
    assert SAVED in kept_text(page, session.get_absolute_url())  # never visited

    page.get_by_role("button", name="Log out").click()
    expect(page.get_by_role("link", name="Log in")).to_be_visible()
    kept = kept_text(page, session.get_absolute_url())
    assert SAVED not in kept
    assert ">Log out<" not in kept


def test_a_page_that_sends_to_log_in_leaves_a_log_in_form_that_works(page, attendee):
    """The worker learns where a redirect leads by asking again; that second answer must not
    set another CSRF cookie than the log-in form the visitor sees, or logging in fails (403)."""
    visit(page, SCHEDULE)  # the worker now answers this tab
    page.context.clear_cookies()

    visit(page, MY_SCHEDULE)  # sent to the log-in page, the worker having learnt the redirect
    assert "/accounts/login/" in page.url
    page.get_by_label("Username").fill("attendee")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()

    expect(page.get_by_role("button", name="Log out")).to_be_visible()
    assert page.url == page.base_url + MY_SCHEDULE


def test_a_kept_conference_opens_now_the_change_log_and_filtered_lists_offline(page):
    """At the venue these are what people open: kept with the conference, though never opened."""
    conference = Conference.objects.get(slug="pytorch-eu-2026")
    track = conference.tracks.get(slug="security-privacy")
    in_track = Session.objects.public().filter(track=track).values_list("title", flat=True)
    visit_and_store_the_conference(page, "/pytorch-eu-2026/")

    page.context.set_offline(True)
    page.goto(page.base_url + "/pytorch-eu-2026/now/")
    expect(page.locator("#offline-notice")).to_have_text(NOW_OFFLINE_NOTICE)
    expect(page.get_by_role("heading", level=1)).to_have_text("Now and next")
    expect(page.locator(".now-clock")).to_be_visible()

    page.goto(page.base_url + "/pytorch-eu-2026/changes/")
    expect(page.locator("#offline-notice")).to_have_text(OFFLINE_NOTICE)
    expect(page.locator("h1")).to_have_text("Schedule changes")

    page.goto(page.base_url + SCHEDULE + "?day=2026-04-08")
    expect(page.locator("#offline-notice")).to_have_text(OFFLINE_NOTICE)
    expect(page.locator("article.session")).to_have_count(
        Session.objects.public().filter(conference=conference).count()
    )

    # As the filter form submits it, empty fields and all.
    page.goto(page.base_url + SCHEDULE + "?day=&track=security-privacy&q=")
    expect(page.locator("#offline-notice")).to_have_text(OFFLINE_NOTICE)
    expect(page.locator("article.session")).to_have_count(len(in_track))
    for title in in_track:
        expect(page.locator("article.session").filter(has_text=title)).to_have_count(1)

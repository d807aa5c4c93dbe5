"""Two organizers, each in their own browser, editing one session in the admin."""

import pytest
from playwright.sync_api import expect

from sessions.models import Session
from tests.browser.test_admin import LIVE_MIGRATION, PASSWORD, admin_page, session_change_url


@pytest.fixture
def organizer(django_user_model, demo_conference):
    return django_user_model.objects.create_superuser("organizer", "o@example.org", PASSWORD)


def save(page):
    page.get_by_role("button", name="Save", exact=True).click()


def test_two_organizers_changing_different_fields_both_keep_their_change(
    browser, live_server, organizer
):
    url = session_change_url(live_server, LIVE_MIGRATION)
    with admin_page(browser, live_server) as alice, admin_page(browser, live_server) as bob:
        alice.goto(url)
        bob.goto(url)
        alice.locator("#id_title").fill("Live Migration, Revisited")
        save(alice)
        expect(alice.get_by_text("was changed successfully")).to_be_visible()

        bob.locator("#id_audience_level").select_option(label="Advanced")
        save(bob)

        expect(bob.get_by_text("Kept what someone else saved meanwhile: Title:")).to_be_visible()
    session = Session.objects.get(title__endswith="Live Migration, Revisited")
    assert session.audience_level == Session.AudienceLevel.ADVANCED


def test_two_organizers_changing_one_field_see_both_values_and_choose(
    browser, live_server, organizer
):
    url = session_change_url(live_server, LIVE_MIGRATION)
    with admin_page(browser, live_server) as alice, admin_page(browser, live_server) as bob:
        alice.goto(url)
        bob.goto(url)
        alice.locator("#id_title").fill("Alice's title")
        save(alice)
        expect(alice.get_by_text("was changed successfully")).to_be_visible()

        bob.locator("#id_title").fill("Bob's title")
        bob.locator("#id_audience_level").select_option(label="Advanced")
        save(bob)

        conflict = bob.locator("#edit-conflict")
        expect(conflict.get_by_role("row", name="Title")).to_contain_text("Alice's title")
        expect(conflict.get_by_role("row", name="Title")).to_contain_text("Bob's title")
        assert Session.objects.filter(title="Alice's title").exists()
        conflict.get_by_label("Keep mine:").check()
        save(bob)
        expect(bob.get_by_text("was changed successfully")).to_be_visible()
    session = Session.objects.get(title="Bob's title")
    assert session.audience_level == Session.AudienceLevel.ADVANCED

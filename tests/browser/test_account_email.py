import re

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import expect

from conference.accounts.mail import unsubscribe_url, verification_url
from conference.models import AccountEmail

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def ada(transactional_db):
    return get_user_model().objects.create_user("ada", "ada@example.org", "correct horse 42")


def log_in(page, username, password):
    page.goto(f"{page.base_url}/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("button", name="Log out")).to_be_visible()


def site_path(link: str) -> str:
    return re.sub(r"^https?://[^/]+", "", link)


def test_an_attendee_confirms_the_address_and_turns_mails_off_in_account_settings(page, ada):
    refused = []
    page.on(
        "console",
        lambda message: (
            refused.append(message.text) if "Content Security" in message.text else None
        ),
    )
    log_in(page, "ada", "correct horse 42")
    page.get_by_role("link", name="Account").click()
    page.get_by_role("link", name="Email address and notifications").click()
    expect(page.get_by_text("ada@example.org is not confirmed yet")).to_be_visible()

    page.goto(page.base_url + site_path(verification_url(ada)))
    expect(page.get_by_role("heading", name="Address confirmed")).to_be_visible()

    page.goto(f"{page.base_url}/accounts/settings/")
    expect(page.get_by_text("ada@example.org is confirmed.")).to_be_visible()
    page.get_by_label(re.compile("Email me when a schedule release")).uncheck()
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_text("Saved.")).to_be_visible()
    assert AccountEmail.objects.get(user=ada).schedule_changes is False
    assert refused == []


def test_the_unsubscribe_link_of_a_mail_works_with_one_button_without_logging_in(page, ada):
    page.goto(page.base_url + site_path(unsubscribe_url("account", ada.pk)))
    page.get_by_role("button", name="Unsubscribe").click()
    expect(page.get_by_role("heading", name="You are unsubscribed")).to_be_visible()
    assert AccountEmail.objects.get(user=ada).schedule_changes is False

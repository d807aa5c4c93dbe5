"""Account pages keep the conference's navigation and footer; sign-up ends with a welcome."""

import re

import pytest
from django.urls import reverse

from conference.accounts import urls as accounts
from tests.builders import make_conference, make_session

pytestmark = pytest.mark.django_db

SIGNUP = {
    "username": "grace",
    "email": "grace@example.org",
    "password1": "a long passphrase 42",
    "password2": "a long passphrase 42",
}


def schedule_link(conference):
    url = reverse("sessions:schedule", kwargs={"conference_slug": conference.slug})
    return f'<a href="{url}">Schedule</a>'


@pytest.mark.parametrize(
    "path", ["/accounts/login/", "/accounts/signup/", "/accounts/password/reset/"]
)
def test_account_pages_wear_the_only_conferences_navigation_and_footer(client, path):
    conference = make_conference(name="PyCon Paris")
    html = client.get(path).content.decode()
    assert schedule_link(conference) in html
    assert '<select id="tz-select" name="tz">' in html
    assert f'<a class="brand" href="{conference.get_absolute_url()}">PyCon Paris</a>' in html


def test_account_pages_wear_the_conference_the_visitor_came_from(client):
    make_conference(name="First")
    second = make_conference(name="Second")
    url = reverse("sessions:schedule", kwargs={"conference_slug": second.slug})
    html = client.get("/accounts/login/", {"next": url}).content.decode()
    assert schedule_link(second) in html
    assert ">First</a>" not in html


def test_account_pages_among_several_conferences_without_next_keep_the_plain_frame(client):
    first, second = make_conference(), make_conference()
    html = client.get("/accounts/login/").content.decode()
    assert schedule_link(first) not in html
    assert schedule_link(second) not in html
    assert '<a class="brand" href="/">Conferences</a>' in html


def test_account_pages_ignore_an_unpublished_conference_in_next(client):
    make_conference()
    hidden = make_conference(is_published=False)
    url = reverse("sessions:schedule", kwargs={"conference_slug": hidden.slug})
    html = client.get("/accounts/login/", {"next": url}).content.decode()
    assert hidden.name not in html


def test_signup_returns_to_the_page_it_came_from_with_a_welcome(client):
    conference = make_conference()
    make_session(conference, title="Opening")
    url = reverse("sessions:schedule", kwargs={"conference_slug": conference.slug})
    response = client.post(f"/accounts/signup/?next={url}", {**SIGNUP, "next": url}, follow=True)
    assert response.redirect_chain == [(url, 302)]
    html = response.content.decode()
    assert (
        '<p class="notice" role="status">Welcome, grace! Your account is ready: '
        "press Save on any session to add it to your schedule.</p>"
    ) in html
    assert "Opening" in html


def test_the_welcome_shows_once(client):
    conference = make_conference()
    url = reverse("sessions:schedule", kwargs={"conference_slug": conference.slug})
    client.post("/accounts/signup/", {**SIGNUP, "next": url}, follow=True)
    assert "Welcome, grace!" not in client.get(url).content.decode()


def test_the_header_links_a_logged_in_visitor_to_their_account(client, attendee):
    conference = make_conference()
    client.force_login(attendee)
    url = reverse("sessions:schedule", kwargs={"conference_slug": conference.slug})
    html = client.get(url).content.decode()
    assert f'<a href="/accounts/?next={url}">Account</a>' in html
    assert ">Password</a>" not in html


def test_account_page_needs_a_login(client):
    response = client.get("/accounts/")
    assert (response.status_code, response.url) == (302, "/accounts/login/?next=/accounts/")


def test_account_page_shows_the_account_and_leads_to_the_password_change(client, attendee):
    conference = make_conference(name="PyCon Paris")
    client.force_login(attendee)
    url = reverse("sessions:schedule", kwargs={"conference_slug": conference.slug})
    html = client.get("/accounts/", {"next": url}).content.decode()
    assert "<dt>Username</dt><dd>ada</dd>" in html
    assert "<dt>Email</dt><dd>ada@example.org</dd>" in html
    assert f'<a href="/accounts/password/change/?next={url}">' in html
    my_schedule = reverse("sessions:my-schedule", kwargs={"conference_slug": conference.slug})
    assert f'<a href="{my_schedule}">Your sessions at PyCon Paris</a>' in html
    assert schedule_link(conference) in html


def test_password_change_page_keeps_the_conference_navigation(client, attendee):
    conference = make_conference()
    client.force_login(attendee)
    html = client.get("/accounts/password/change/").content.decode()
    assert schedule_link(conference) in html
    assert "Change your password" in html


def test_password_change_done_leads_back_to_the_account(client, attendee):
    make_conference()
    client.force_login(attendee)
    response = client.post(
        "/accounts/password/change/",
        {
            "old_password": "correct horse battery",
            "new_password1": "another long passphrase 7",
            "new_password2": "another long passphrase 7",
        },
        follow=True,
    )
    assert '<a href="/accounts/">Back to your account</a>' in response.content.decode()


def test_the_headers_account_link_marks_the_account_page_as_current(client, attendee):
    make_conference()
    client.force_login(attendee)
    html = client.get("/accounts/").content.decode()
    assert re.search(r'<a href="/accounts/\?next=[^"]*" aria-current="page">Account</a>', html)


# --- No account page is ever stored ----------------------------------------------------------


def account_paths() -> list[str]:
    """Every address under /accounts/, with made-up values for its parameters."""
    made_up = {"token": "made-up-token", "uidb64": "MQ"}
    return [
        reverse(
            pattern.name,
            kwargs={name: made_up[name] for name in pattern.pattern.converters},
        )
        for pattern in accounts.urlpatterns
    ]


@pytest.mark.parametrize("path", account_paths())
@pytest.mark.parametrize("logged_in", [False, True], ids=["anonymous", "logged in"])
@pytest.mark.parametrize("method", ["get", "post"])
def test_no_account_answer_may_be_stored(client, attendee, path, logged_in, method):
    if logged_in:
        client.force_login(attendee)
    response = getattr(client, method)(path)
    assert "no-store" in response["Cache-Control"]


@pytest.mark.parametrize("path", ["/%61ccounts/settings/", "/accounts%2Fsettings/"])
def test_the_settings_page_spelt_otherwise_is_not_stored_either(client, attendee, path):
    client.force_login(attendee)
    response = client.get(path)
    assert response.status_code == 200
    assert "no-store" in response["Cache-Control"]

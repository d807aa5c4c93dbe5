import re

import pytest
from django.core import mail
from django.db import connection

from conference.models import AccountEmail

pytestmark = pytest.mark.django_db


@pytest.fixture
def attendee(django_user_model):
    """An account whose address is confirmed."""
    user = django_user_model.objects.create_user("ada", "ada@example.org", "correct horse battery")
    AccountEmail.objects.for_user(user).mark_verified("ada@example.org")
    return user


def test_login_with_the_right_password_logs_in(client, attendee):
    response = client.post(
        "/accounts/login/", {"username": "ada", "password": "correct horse battery"}
    )
    assert response.status_code == 302
    assert client.session["_auth_user_id"] == str(attendee.pk)


def test_the_test_clients_login_still_works_beside_the_login_limit(client, attendee):
    assert client.login(username="ada", password="correct horse battery")
    assert client.session["_auth_user_id"] == str(attendee.pk)


def test_login_limit_counts_a_typed_username_with_spaces_and_quotes(client, settings):
    for _ in range(settings.AXES_FAILURE_LIMIT):
        client.post("/accounts/login/", {"username": "' OR 1=1 --", "password": "wrong"})
    response = client.post("/accounts/login/", {"username": "' OR 1=1 --", "password": "wrong"})
    assert "Too many failed logins for this account." in response.content.decode()


def test_signup_creates_the_account_and_logs_in(client, django_user_model):
    response = client.post(
        "/accounts/signup/",
        {
            "username": "grace",
            "email": "grace@example.org",
            "password1": "a long passphrase 42",
            "password2": "a long passphrase 42",
        },
    )
    assert response.status_code == 302
    assert django_user_model.objects.get(username="grace").email == "grace@example.org"
    assert "_auth_user_id" in client.session


def test_signup_shows_field_errors_and_creates_nothing(client, django_user_model):
    response = client.post(
        "/accounts/signup/",
        {"username": "grace", "email": "nope", "password1": "abc", "password2": "abd"},
    )
    assert response.status_code == 200
    assert set(response.context["form"].errors) == {"email", "password2"}
    assert not django_user_model.objects.filter(username="grace").exists()


def test_signup_ignores_a_next_link_to_another_site(client):
    response = client.post(
        "/accounts/signup/",
        {
            "username": "grace",
            "email": "grace@example.org",
            "password1": "a long passphrase 42",
            "password2": "a long passphrase 42",
            "next": "https://evil.example/",
        },
    )
    assert response.url == "/"


def test_logout_is_a_post_that_ends_the_session(client, attendee):
    client.force_login(attendee)
    client.post("/accounts/logout/")
    assert "_auth_user_id" not in client.session


def test_password_reset_mails_a_link_that_sets_a_new_password(client, attendee):
    client.post("/accounts/password/reset/", {"email": "ada@example.org"})
    assert len(mail.outbox) == 1
    link = re.search(
        r"http://testserver(/accounts/password/reset/\S+/)", mail.outbox[0].body
    ).group(1)
    form_url = client.get(link).url  # Django swaps the token for a session key first
    client.post(
        form_url,
        {"new_password1": "brand new passphrase 7", "new_password2": "brand new passphrase 7"},
    )
    attendee.refresh_from_db()
    assert attendee.check_password("brand new passphrase 7")


def test_password_reset_mails_nothing_to_an_unconfirmed_address(client, django_user_model):
    django_user_model.objects.create_user("grace", "grace@example.org", "a long passphrase 42")

    response = client.post("/accounts/password/reset/", {"email": "grace@example.org"}, follow=True)

    assert mail.outbox == []
    assert "Only confirmed addresses get the link" in response.content.decode()


def test_password_reset_mails_nothing_to_an_address_changed_since_it_was_confirmed(
    client, attendee
):
    attendee.email = "ada@new.example"
    attendee.save()

    for address in ("ada@new.example", "ada@example.org"):
        client.post("/accounts/password/reset/", {"email": address})

    assert mail.outbox == []


def test_password_reset_mails_the_address_it_found_confirmed_not_one_changed_meanwhile(
    client, attendee, django_user_model
):
    """The account's address changes (to one never confirmed) between the reset's reads: the
    link goes to the address the read that found it confirmed saw, or nowhere."""
    changed = []

    def address_changed_after_the_first_read(execute, sql, params, many, context):
        result = execute(sql, params, many, context)
        if not changed and sql.lstrip().upper().startswith("SELECT") and "auth_user" in sql:
            changed.append(sql)
            django_user_model.objects.filter(pk=attendee.pk).update(email="ADA@example.org")
        return result

    with connection.execute_wrapper(address_changed_after_the_first_read):
        client.post("/accounts/password/reset/", {"email": "ada@example.org"})

    assert changed
    assert [message.to for message in mail.outbox] in ([], [["ada@example.org"]])


def test_password_reset_answers_alike_for_a_confirmed_an_unconfirmed_and_no_account(
    client, attendee, django_user_model
):
    django_user_model.objects.create_user("grace", "grace@example.org", "a long passphrase 42")
    pages = [
        client.post("/accounts/password/reset/", {"email": address}, follow=True)
        for address in ("ada@example.org", "grace@example.org", "nobody@example.org")
    ]
    assert len({(page.status_code, page.redirect_chain[-1][0]) for page in pages}) == 1
    assert len({page.content.decode() for page in pages}) == 1
    assert [message.to for message in mail.outbox] == [["ada@example.org"]]


def test_the_reset_pages_say_links_go_to_confirmed_addresses_only(client):
    page = client.get("/accounts/password/reset/").content.decode()
    assert "The link goes only to an address you confirmed" in page


def test_password_change_keeps_me_logged_in_here(client, attendee):
    client.force_login(attendee)
    response = client.post(
        "/accounts/password/change/",
        {
            "old_password": "correct horse battery",
            "new_password1": "brand new passphrase 7",
            "new_password2": "brand new passphrase 7",
        },
    )
    assert response.url == "/accounts/password/change/done/"
    assert client.get("/accounts/password/change/").status_code == 200


def test_password_change_logs_out_my_other_sessions(client, attendee):
    from django.test import Client

    elsewhere = Client()
    elsewhere.force_login(attendee)
    client.force_login(attendee)
    client.post(
        "/accounts/password/change/",
        {
            "old_password": "correct horse battery",
            "new_password1": "brand new passphrase 7",
            "new_password2": "brand new passphrase 7",
        },
    )
    assert elsewhere.get("/accounts/password/change/").status_code == 302  # sent to log in


def test_password_change_revokes_api_tokens(client, attendee):
    from conference.models import ApiToken

    ApiToken.objects.create(user=attendee)
    client.force_login(attendee)
    client.post(
        "/accounts/password/change/",
        {
            "old_password": "correct horse battery",
            "new_password1": "brand new passphrase 7",
            "new_password2": "brand new passphrase 7",
        },
    )
    assert not ApiToken.objects.filter(user=attendee).exists()


def test_saving_a_profile_without_a_new_password_keeps_api_tokens(attendee):
    from conference.models import ApiToken

    ApiToken.objects.create(user=attendee)
    attendee.first_name = "Ada"
    attendee.save()
    assert ApiToken.objects.filter(user=attendee).exists()


@pytest.mark.parametrize("path", ["/accounts/login/", "/admin/login/"])
def test_an_overlong_username_is_a_form_error_not_a_failed_login(client, path):
    """On PostgreSQL it used to reach the login limit's table, which refused it: a 500."""
    response = client.post(path, {"username": "x" * 300, "password": "wrong"})
    assert response.status_code == 200
    assert "at most 150 characters" in response.content.decode()

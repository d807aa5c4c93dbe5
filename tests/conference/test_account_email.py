import re
from types import SimpleNamespace

import pytest
from django.conf import settings
from django.core import signing
from django.test import Client

from conference.accounts import limits
from conference.accounts.mail import unsubscribe_url, verification_url
from conference.models import AccountEmail
from tests.builders import make_speaker

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("immediate_tasks")]


def link_in(message) -> str:
    return re.search(r"https://schedule\.example\.org/\S+", message.body).group(0)


def path_of(link: str) -> str:
    return link.removeprefix("https://schedule.example.org")


def sign_up(client):
    return client.post(
        "/accounts/signup/",
        {
            "username": "grace",
            "email": "grace@example.org",
            "password1": "a long passphrase 42",
            "password2": "a long passphrase 42",
        },
    )


def test_signup_mails_a_link_that_verifies_the_address(
    client, mailoutbox, django_user_model, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        sign_up(client)
    user = django_user_model.objects.get(username="grace")
    assert not AccountEmail.objects.for_user(user).is_verified
    [message] = mailoutbox
    assert message.to == ["grace@example.org"]
    assert message.subject == "Confirm your email address"
    response = client.get(path_of(link_in(message)))
    assert response.status_code == 200
    assert "grace@example.org is confirmed" in response.content.decode()
    assert AccountEmail.objects.for_user(user).is_verified


def test_the_verification_mail_is_in_the_language_the_visitor_signed_up_in(
    client, mailoutbox, django_capture_on_commit_callbacks
):
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "fr"
    with django_capture_on_commit_callbacks(execute=True):
        sign_up(client)
    [message] = mailoutbox
    assert message.subject == "Confirmez votre adresse e-mail"
    assert message.body.startswith("Bonjour grace,\n")


def test_the_verification_mail_has_text_and_html_parts(
    client, mailoutbox, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        sign_up(client)
    [message] = mailoutbox
    [(html, mime_type)] = message.alternatives
    assert mime_type == "text/html"
    assert link_in(message) in html.replace("&amp;", "&")


def test_the_verification_link_works_without_logging_in(client, attendee):
    response = client.get(path_of(verification_url(attendee)))
    assert response.status_code == 200
    assert AccountEmail.objects.for_user(attendee).is_verified


def test_a_tampered_verification_link_is_refused_with_a_page(client, attendee):
    link = verification_url(attendee)
    response = client.get(path_of(link[:-3] + "abc/"))
    assert response.status_code == 400
    assert "This link does not work" in response.content.decode()
    assert not AccountEmail.objects.for_user(attendee).is_verified


def test_a_verification_link_for_a_former_address_does_not_verify_the_new_one(client, attendee):
    link = verification_url(attendee)
    attendee.email = "ada@elsewhere.example"
    attendee.save()
    assert client.get(path_of(link)).status_code == 400
    assert not AccountEmail.objects.for_user(attendee).is_verified


def test_an_expired_verification_link_is_refused(client, attendee, monkeypatch):
    link = verification_url(attendee)
    monkeypatch.setattr("conference.accounts.mail.VERIFY_MAX_AGE", -1)
    assert client.get(path_of(link)).status_code == 400


def test_changing_the_address_unverifies_it_and_mails_a_new_link(
    attendee_client, attendee, mailoutbox, django_capture_on_commit_callbacks
):
    AccountEmail.objects.for_user(attendee).mark_verified("ada@example.org")
    with django_capture_on_commit_callbacks(execute=True):
        response = attendee_client.post(
            "/accounts/settings/", {"email": "ada@new.example", "schedule_changes": "on"}
        )
    assert response.status_code == 302
    attendee.refresh_from_db()
    assert attendee.email == "ada@new.example"
    assert not AccountEmail.objects.for_user(attendee).is_verified
    [message] = mailoutbox
    assert message.to == ["ada@new.example"]
    attendee_client.get(path_of(link_in(message)))
    assert AccountEmail.objects.for_user(attendee).is_verified


def test_an_address_changed_in_the_admin_is_unverified_too(attendee):
    AccountEmail.objects.for_user(attendee).mark_verified("ada@example.org")
    attendee.email = "ada@new.example"
    attendee.save()
    assert not AccountEmail.objects.for_user(attendee).is_verified


def test_settings_can_send_the_link_again(
    attendee_client, mailoutbox, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        response = attendee_client.post("/accounts/settings/verify/")
    assert response.status_code == 302
    assert [message.to for message in mailoutbox] == [["ada@example.org"]]


def test_settings_turn_schedule_change_mails_off(attendee_client, attendee, mailoutbox):
    response = attendee_client.post("/accounts/settings/", {"email": "ada@example.org"})
    assert response.status_code == 302
    assert AccountEmail.objects.for_user(attendee).schedule_changes is False
    assert mailoutbox == []  # the address did not change: nothing to confirm


def test_settings_show_whether_the_address_is_confirmed(attendee_client, attendee):
    assert "is not confirmed yet" in attendee_client.get("/accounts/settings/").content.decode()
    AccountEmail.objects.for_user(attendee).mark_verified("ada@example.org")
    assert (
        "ada@example.org is confirmed."
        in attendee_client.get("/accounts/settings/").content.decode()
    )


def test_settings_refuse_a_bad_address_with_a_field_error(attendee_client, attendee):
    response = attendee_client.post("/accounts/settings/", {"email": "not an address"})
    assert response.status_code == 200
    assert set(response.context["form"].errors) == {"email"}
    attendee.refresh_from_db()
    assert attendee.email == "ada@example.org"


def test_settings_need_a_login(client):
    response = client.get("/accounts/settings/")
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/")


def test_verification_tokens_are_not_unsubscribe_tokens(client, attendee):
    token = signing.dumps({"user": attendee.pk, "email": attendee.email}, salt="other")
    assert client.get(f"/accounts/verify/{token}/").status_code == 400


def test_following_an_unsubscribe_link_asks_before_changing_anything(client, attendee):
    response = client.get(path_of(unsubscribe_url("account", attendee.pk)))
    assert response.status_code == 200
    assert "Stop schedule-change emails?" in response.content.decode()
    assert AccountEmail.objects.for_user(attendee).schedule_changes is True


def test_one_click_unsubscribe_needs_no_login_and_no_csrf_token(attendee):
    client = Client(enforce_csrf_checks=True)
    response = client.post(
        path_of(unsubscribe_url("account", attendee.pk)),
        {"List-Unsubscribe": "One-Click"},
    )
    assert response.status_code == 200
    assert "You are unsubscribed" in response.content.decode()
    assert AccountEmail.objects.for_user(attendee).schedule_changes is False


def test_an_unsubscribe_link_for_a_speaker_turns_their_mails_off(client):
    speaker = make_speaker(email="grace@example.org")
    client.post(path_of(unsubscribe_url("speaker", speaker.pk)))
    speaker.refresh_from_db()
    assert speaker.schedule_change_mails is False


@pytest.mark.parametrize("method", ["get", "post"])
def test_a_tampered_unsubscribe_link_is_refused_with_a_page(client, attendee, method):
    tampered = path_of(unsubscribe_url("account", attendee.pk)).replace(":", ":x", 1)
    response = getattr(client, method)(tampered)
    assert response.status_code == 400
    assert "This unsubscribe link does not work" in response.content.decode()
    assert AccountEmail.objects.for_user(attendee).schedule_changes is True


def test_an_unsubscribe_link_signed_for_another_account_changes_only_that_one(
    client, attendee, django_user_model
):
    other = django_user_model.objects.create_user("bob", "bob@example.org", "x")
    client.post(path_of(unsubscribe_url("account", other.pk)))
    assert AccountEmail.objects.for_user(attendee).schedule_changes is True
    assert AccountEmail.objects.for_user(other).schedule_changes is False


def test_settings_open_with_the_current_address_and_choice(attendee_client, attendee):
    AccountEmail.objects.create(user=attendee, schedule_changes=False)
    form = attendee_client.get("/accounts/settings/").context["form"]
    assert (form["email"].value(), form["schedule_changes"].value()) == ("ada@example.org", False)


# --- How many links, and to which address ----------------------------------------------------


@pytest.fixture
def limits_clock(monkeypatch):
    """The limits' clock stands 25 minutes into an hour, so that no test straddles two."""
    monkeypatch.setattr(limits, "time", SimpleNamespace(time=lambda: 1_800_000_000 + 25 * 60))


def run(enqueued) -> None:
    """The task worker runs what was queued, later."""
    for result in enqueued:
        result.task.call(*result.args, **result.kwargs)


@pytest.mark.usefixtures("limits_clock")
def test_asking_twenty_times_for_the_link_sends_three(
    attendee_client, mailoutbox, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        responses = [
            attendee_client.post("/accounts/settings/verify/", follow=True) for _ in range(20)
        ]

    assert [message.to for message in mailoutbox] == [["ada@example.org"]] * 3
    assert (
        "We sent too many confirmation links for this account or address lately. "
        "Try “Send the link again” in 35 minutes."
    ) in responses[3].content.decode()


@pytest.mark.usefixtures("limits_clock")
def test_ten_changes_of_address_send_five_links_each_to_its_own_address(
    attendee_client, attendee, mailoutbox, django_capture_on_commit_callbacks
):
    addresses = [f"ada{n}@example.org" for n in range(10)]
    for address in addresses:
        with django_capture_on_commit_callbacks(execute=True):  # each request commits
            attendee_client.post("/accounts/settings/", {"email": address})

    assert [message.to for message in mailoutbox] == [[address] for address in addresses[:5]]
    attendee.refresh_from_db()
    assert attendee.email == "ada9@example.org"  # saved all the same, without a link


@pytest.mark.usefixtures("limits_clock")
def test_the_limit_per_address_holds_across_accounts(
    client, django_user_model, mailoutbox, django_capture_on_commit_callbacks
):
    for name in ("eve", "mallory"):
        client.force_login(django_user_model.objects.create_user(name, "ada@example.org"))
        with django_capture_on_commit_callbacks(execute=True):
            for _ in range(2):
                client.post("/accounts/settings/verify/")

    assert len(mailoutbox) == 3


def test_a_link_queued_before_a_change_of_address_never_goes_to_the_new_one(
    attendee_client, attendee, mailoutbox, dummy_tasks, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        attendee_client.post("/accounts/settings/verify/")  # for ada@example.org
        attendee_client.post("/accounts/settings/", {"email": "ada@new.example"})

    run(dummy_tasks.results)

    [message] = mailoutbox  # the first link is dropped: its address is no longer the account's
    assert message.to == ["ada@new.example"]
    attendee_client.get(path_of(link_in(message)))
    assert AccountEmail.objects.for_user(attendee).verified_address == "ada@new.example"


def test_each_queued_link_names_the_address_it_was_queued_for(
    attendee_client, attendee, mailoutbox, dummy_tasks, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        attendee_client.post("/accounts/settings/", {"email": "ada@new.example"})
        attendee_client.post("/accounts/settings/", {"email": "ada@example.org"})

    run(dummy_tasks.results)

    [message] = mailoutbox
    assert message.to == ["ada@example.org"]
    attendee_client.get(path_of(link_in(message)))
    assert AccountEmail.objects.for_user(attendee).verified_address == "ada@example.org"

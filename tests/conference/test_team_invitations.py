"""Inviting members to a team, and accepting (conference/teams.py, the admin's TeamAdmin.invite_view,
the page conference/accounts/views.py TeamInvitationView)."""

import datetime
import re

import pytest
from django.urls import reverse
from django.utils import timezone

from conference.models import AccountEmail, TeamInvitation
from conference.teams import invitation_url, invite_member
from tests.builders import make_conference, make_team

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("immediate_tasks")]


@pytest.fixture
def conference_a():
    return make_conference(name="Conference A", slug="a")


@pytest.fixture
def team(conference_a):
    return make_team(name="Programme A", conferences=[conference_a], is_programme=True)


@pytest.fixture
def organizer_a(django_user_model, conference_a):
    user = django_user_model.objects.create_user("org-a", "org-a@example.org", "pw", is_staff=True)
    make_team(user, conferences=[conference_a], is_organizer=True)
    return user


def account(django_user_model, name, email, *, confirmed):
    user = django_user_model.objects.create_user(name, email, "pw")
    if confirmed:
        AccountEmail.objects.create(user=user, verified_address=email)
    return user


@pytest.fixture
def grace(django_user_model):
    """The invited person: grace@example.org, confirmed."""
    return account(django_user_model, "grace", "grace@example.org", confirmed=True)


def invite_url(team):
    return reverse("admin:conference_team_invite", args=[team.pk])


def path_of(link: str) -> str:
    return link.removeprefix("https://schedule.example.org")


def link_in(message) -> str:
    return re.search(r"https://schedule\.example\.org/\S+", message.body).group(0)


def invite(client, team, email, capture):
    with capture(execute=True):
        return client.post(invite_url(team), {"email": email})


def test_the_team_change_page_offers_the_invitation(client, organizer_a, team):
    client.force_login(organizer_a)
    response = client.get(reverse("admin:conference_team_change", args=[team.pk]))
    assert invite_url(team) in response.content.decode()


def test_an_invitation_is_mailed_accepted_by_the_invited_address_only_and_works_once(
    client, organizer_a, team, grace, django_user_model, mailoutbox,
    django_capture_on_commit_callbacks,
):  # fmt: skip
    client.force_login(organizer_a)
    response = invite(client, team, "Grace@example.org", django_capture_on_commit_callbacks)
    assert response.status_code == 302

    [message] = mailoutbox
    assert message.to == ["Grace@example.org"]
    assert message.subject == "You are invited to join the team “Programme A”"
    link = path_of(link_in(message))
    assert link.startswith("/accounts/team-invitation/")
    [invitation] = TeamInvitation.objects.all()
    assert (invitation.team, invitation.email, invitation.invited_by) == (
        team,
        "Grace@example.org",
        organizer_a,
    )
    assert link.split("/")[-2] not in invitation.token_digest  # only the digest is stored

    intruder = account(django_user_model, "eve", "eve@example.org", confirmed=True)
    client.force_login(intruder)
    refused = client.post(link)
    assert refused.status_code == 403
    assert "This invitation is for another address" in refused.content.decode()
    assert list(team.members.all()) == []

    client.force_login(grace)
    assert "Accept and join the team" in client.get(link).content.decode()
    accepted = client.post(link)
    assert accepted.status_code == 302
    assert accepted.url == reverse("admin:index")
    grace.refresh_from_db()
    invitation.refresh_from_db()
    assert list(team.members.all()) == [grace]
    assert grace.is_staff is True
    assert (invitation.accepted_by, invitation.accepted_at is not None) == (grace, True)
    assert grace.has_perm("schedule.change_session", team.conferences.get()) is True

    again = client.post(link)
    assert again.status_code == 410
    assert "This invitation has already been used" in again.content.decode()


def test_an_account_with_the_invited_address_not_yet_confirmed_is_asked_to_confirm_it(
    client, team, organizer_a, django_user_model
):
    unconfirmed = account(django_user_model, "grace", "grace@example.org", confirmed=False)
    link = path_of(invitation_url(invite_member(team, "grace@example.org", organizer_a)))
    client.force_login(unconfirmed)
    response = client.post(link)
    assert response.status_code == 403
    assert "Confirm your address first" in response.content.decode()
    assert list(team.members.all()) == []


def test_an_expired_link_says_so_and_changes_nothing(client, team, organizer_a, grace):
    invitation = invite_member(team, "grace@example.org", organizer_a)
    TeamInvitation.objects.filter(pk=invitation.pk).update(
        expires_at=timezone.now() - datetime.timedelta(seconds=1)
    )
    client.force_login(grace)
    response = client.post(path_of(invitation_url(invitation)))
    assert response.status_code == 410
    assert "This invitation has expired" in response.content.decode()
    assert list(team.members.all()) == []


def test_an_altered_link_says_it_is_not_valid(client, grace):
    client.force_login(grace)
    response = client.get(reverse("team-invitation", kwargs={"token": "not-a-token"}))
    assert response.status_code == 404
    assert "This invitation link is not valid" in response.content.decode()


def test_a_logged_out_visitor_is_sent_to_log_in_and_back(client, team, organizer_a):
    link = path_of(invitation_url(invite_member(team, "grace@example.org", organizer_a)))
    for response in (client.get(link), client.post(link)):
        assert response.status_code == 302
        assert response.url == f"{reverse('login')}?next={link}"
    assert TeamInvitation.objects.get().accepted_at is None


def test_the_accept_page_is_never_stored(client, team, organizer_a, grace):
    link = path_of(invitation_url(invite_member(team, "grace@example.org", organizer_a)))
    client.force_login(grace)
    response = client.get(link)
    assert "no-store" in response["Cache-Control"]


def test_an_organizer_of_another_conference_cannot_invite_to_the_team(
    client, team, django_user_model, mailoutbox
):
    other = django_user_model.objects.create_user("org-b", "b@example.org", "pw", is_staff=True)
    make_team(other, conferences=[make_conference(slug="b")], is_organizer=True)
    client.force_login(other)
    assert client.get(invite_url(team)).status_code == 404
    assert client.post(invite_url(team), {"email": "eve@example.org"}).status_code == 404
    assert TeamInvitation.objects.count() == 0
    assert mailoutbox == []


def test_a_programme_member_cannot_invite_to_their_own_team(
    client, team, django_user_model, conference_a
):
    member = django_user_model.objects.create_user("prog", "p@example.org", "pw", is_staff=True)
    team.members.add(member)
    client.force_login(member)
    assert client.get(invite_url(team)).status_code == 404
    assert TeamInvitation.objects.count() == 0


def test_invitations_per_inviter_are_limited_each_hour(
    client, organizer_a, team, mailoutbox, django_capture_on_commit_callbacks
):
    client.force_login(organizer_a)
    for n in range(10):
        invite(client, team, f"person{n}@example.org", django_capture_on_commit_callbacks)
    response = invite(client, team, "one-more@example.org", django_capture_on_commit_callbacks)

    assert response.status_code == 200  # the form again, with the reason
    assert len(mailoutbox) == 10
    assert TeamInvitation.objects.count() == 10
    *_, message = response.context["messages"]
    assert "you sent too many invitations lately" in str(message)


def test_the_mail_is_in_the_inviters_language(
    client, organizer_a, team, mailoutbox, django_capture_on_commit_callbacks
):
    client.force_login(organizer_a)
    client.cookies["django_language"] = "fr"
    with django_capture_on_commit_callbacks(execute=True):
        client.post(invite_url(team), {"email": "grace@example.org"}, HTTP_ACCEPT_LANGUAGE="fr")
    [message] = mailoutbox
    assert message.subject == "Vous êtes invité·e à rejoindre l’équipe « Programme A »"

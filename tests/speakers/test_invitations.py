import datetime
import re
from urllib.parse import quote

import pytest
from django.contrib.admin.models import LogEntry
from django.urls import reverse

from conference.models import AccountEmail
from speakers.invitations import invitation_url, send_invitation_mail
from speakers.models import Speaker, SpeakerInvitation
from tests.builders import make_conference, make_speaker, make_team

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("immediate_tasks")]


@pytest.fixture
def speaker():
    """Ada Lovelace of a conference of her own, with an address to invite."""
    return make_speaker(name="Ada Lovelace", email="ada@example.org")


def confirmed(user):
    AccountEmail.objects.create(user=user, verified_address=user.email)
    return user


@pytest.fixture
def ada(django_user_model):
    """The invited speaker's own account: ada@example.org, confirmed."""
    return confirmed(
        django_user_model.objects.create_user("ada", "ada@example.org", "correct horse 42")
    )


def path_of(link: str) -> str:
    return link.removeprefix("https://schedule.example.org")


def link_in(message) -> str:
    return re.search(r"https://schedule\.example\.org/\S+", message.body).group(0)


def invite_url(speaker):
    return reverse("admin:speakers_speaker_invite", args=[speaker.pk])


def invite(admin_client, speaker, email, capture):
    with capture(execute=True):
        return admin_client.post(invite_url(speaker), {"email": email})


def make_invitation(speaker, email="ada@example.org") -> SpeakerInvitation:
    return SpeakerInvitation.objects.create(speaker=speaker, email=email)


def test_the_speaker_change_page_offers_the_invitation(admin_client, speaker):
    response = admin_client.get(reverse("admin:speakers_speaker_change", args=[speaker.pk]))
    assert invite_url(speaker) in response.content.decode()


def test_the_invitation_page_proposes_the_speakers_address(admin_client, speaker):
    response = admin_client.get(invite_url(speaker))
    assert response.context["form"]["email"].value() == "ada@example.org"


def test_inviting_mails_a_link_and_records_who_invited_whom(
    admin_client, admin_user, speaker, mailoutbox, django_capture_on_commit_callbacks
):
    response = invite(
        admin_client, speaker, "ada@elsewhere.example", django_capture_on_commit_callbacks
    )

    assert response.status_code == 302
    [message] = mailoutbox
    assert message.to == ["ada@elsewhere.example"]
    assert message.subject == f"{speaker.conference.name}: your speaker profile"
    [invitation] = SpeakerInvitation.objects.all()
    assert (invitation.speaker, invitation.email, invitation.created_by) == (
        speaker,
        "ada@elsewhere.example",
        admin_user,
    )
    assert invitation.accepted_at is None
    assert link_in(message).startswith(
        f"https://schedule.example.org/{speaker.conference.slug}/speaker/invitation/"
    )
    entry = LogEntry.objects.get(object_id=str(speaker.pk))
    assert entry.change_message == "Invited to edit their profile at ada@elsewhere.example."


def test_the_bulk_action_invites_each_speaker_with_an_address(
    admin_client, mailoutbox, django_capture_on_commit_callbacks
):
    conference = make_conference()
    with_address = make_speaker(conference, name="Ada", email="ada@example.org")
    without = make_speaker(conference, name="Grace")
    with django_capture_on_commit_callbacks(execute=True):
        response = admin_client.post(
            reverse("admin:speakers_speaker_changelist"),
            {"action": "invite", "_selected_action": [with_address.pk, without.pk]},
            follow=True,
        )

    assert [message.to for message in mailoutbox] == [["ada@example.org"]]
    assert list(SpeakerInvitation.objects.values_list("speaker", flat=True)) == [with_address.pk]
    shown = [str(message) for message in response.context["messages"]]
    assert shown == ["Invited Ada at ada@example.org.", "Not invited: Grace has no email address."]


def test_inviting_a_speaker_who_has_an_account_is_refused(admin_client, speaker, ada, mailoutbox):
    speaker.user = ada
    speaker.save()
    response = admin_client.post(invite_url(speaker), {"email": "ada@example.org"}, follow=True)
    assert SpeakerInvitation.objects.count() == 0
    assert mailoutbox == []
    assert [str(m) for m in response.context["messages"]] == [
        "Not invited: Ada Lovelace is already linked to an account."
    ]


def test_invitations_to_one_address_are_limited(
    admin_client, speaker, mailoutbox, django_capture_on_commit_callbacks
):
    for _ in range(3):
        invite(admin_client, speaker, "ada@example.org", django_capture_on_commit_callbacks)
    response = admin_client.post(invite_url(speaker), {"email": "ADA@example.org"})

    assert response.status_code == 200  # the form again, with the reason
    assert len(mailoutbox) == 3
    assert SpeakerInvitation.objects.count() == 3
    *_, message = response.context["messages"]  # after the three “Invited …”
    assert "too many invitations went to ADA@example.org lately" in str(message)


def test_a_logged_out_visitor_is_offered_to_sign_up_or_log_in_and_nothing_changes(client, speaker):
    url = path_of(invitation_url(make_invitation(speaker)))
    response = client.get(url)
    page = response.content.decode()
    assert response.status_code == 200
    quoted = quote(url)
    assert f'href="/accounts/signup/?next={quoted}"' in page
    assert f'href="/accounts/login/?next={quoted}"' in page
    speaker.refresh_from_db()
    assert speaker.user is None


def test_a_get_with_a_login_only_asks_to_accept(client, speaker, ada):
    client.force_login(ada)
    response = client.get(path_of(invitation_url(make_invitation(speaker))))
    assert "Accept and link my account" in response.content.decode()
    speaker.refresh_from_db()
    assert speaker.user is None


def test_accepting_links_the_account_and_uses_the_invitation_up(client, speaker, ada):
    invitation = make_invitation(speaker)
    client.force_login(ada)
    response = client.post(path_of(invitation_url(invitation)))

    assert response.status_code == 302
    assert response.url == reverse(
        "speakers:profile", kwargs={"conference_slug": speaker.conference.slug}
    )
    speaker.refresh_from_db()
    invitation.refresh_from_db()
    assert speaker.user == ada
    assert invitation.accepted_by == ada
    assert invitation.accepted_at is not None


def test_a_new_account_signs_up_from_the_link_confirms_its_address_and_accepts(
    client, speaker, django_user_model, mailoutbox, django_capture_on_commit_callbacks
):
    url = path_of(invitation_url(make_invitation(speaker)))
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            f"/accounts/signup/?next={url}",
            {
                "username": "ada",
                "email": "ada@example.org",
                "password1": "a long passphrase 42",
                "password2": "a long passphrase 42",
                "next": url,
            },
        )
    assert response.url == url
    assert client.post(url).status_code == 403  # not before the address is confirmed
    [verification] = mailoutbox
    client.get(path_of(link_in(verification)))
    assert client.post(url).status_code == 302
    speaker.refresh_from_db()
    assert speaker.user == django_user_model.objects.get(username="ada")


def test_posting_logged_out_asks_to_log_in(client, speaker):
    url = path_of(invitation_url(make_invitation(speaker)))
    response = client.post(url)
    assert response.status_code == 302
    assert response.url.startswith("/accounts/login/?next=")
    speaker.refresh_from_db()
    assert speaker.user is None


def test_a_used_link_is_refused_with_a_410_page(client, speaker, ada):
    url = path_of(invitation_url(make_invitation(speaker)))
    client.force_login(ada)
    client.post(url)
    response = client.get(url)
    assert response.status_code == 410
    assert "This invitation has already been used" in response.content.decode()
    assert client.post(url).status_code == 410


def test_an_expired_link_is_refused_with_a_410_page(client, speaker, settings):
    url = path_of(invitation_url(make_invitation(speaker)))
    settings.SPEAKER_INVITATION_MAX_AGE = datetime.timedelta(seconds=-1)
    response = client.get(url)
    assert response.status_code == 410
    assert "This invitation has expired" in response.content.decode()


def test_a_tampered_link_is_refused_with_a_400_page(client, speaker):
    url = path_of(invitation_url(make_invitation(speaker)))
    response = client.get(url[:-4] + "abc/")
    assert response.status_code == 400
    assert "This invitation link is not valid" in response.content.decode()


def test_a_link_under_another_conference_is_refused(client, speaker):
    other = make_conference()
    url = path_of(invitation_url(make_invitation(speaker)))
    response = client.get(url.replace(speaker.conference.slug, other.slug))
    assert response.status_code == 410


def test_a_speaker_linked_to_another_account_is_refused_clearly(
    client, speaker, ada, django_user_model
):
    grace = django_user_model.objects.create_user("grace", "grace@example.org", "x")
    invitation = make_invitation(speaker)
    speaker.user = grace
    speaker.save()
    client.force_login(ada)
    response = client.post(path_of(invitation_url(invitation)))

    assert response.status_code == 409
    assert "Ada Lovelace is already linked to another account." in response.content.decode()
    speaker.refresh_from_db()
    invitation.refresh_from_db()
    assert (speaker.user, invitation.accepted_at) == (grace, None)


def test_an_account_that_already_speaks_as_someone_else_there_is_refused(client, speaker, ada):
    make_speaker(speaker.conference, name="Ada L.", user=ada)
    client.force_login(ada)
    response = client.post(path_of(invitation_url(make_invitation(speaker))))
    assert response.status_code == 409
    assert "already linked to another speaker of this conference" in response.content.decode()
    speaker.refresh_from_db()
    assert speaker.user is None


def test_one_account_may_be_the_speaker_of_several_conferences(client, ada):
    first = make_speaker(name="Ada at one", user=ada)
    second = make_speaker(name="Ada at two")
    client.force_login(ada)
    client.post(path_of(invitation_url(make_invitation(second))))
    assert list(Speaker.objects.filter(user=ada).order_by("pk")) == [first, second]


def test_a_withdrawn_invitation_sends_no_mail(speaker, mailoutbox):
    invitation = make_invitation(speaker)
    pk = invitation.pk
    invitation.delete()
    assert send_invitation_mail.call(pk) is False
    assert mailoutbox == []


def test_the_speaker_page_lists_who_invited_whom(admin_client, admin_user, speaker):
    SpeakerInvitation.objects.create(
        speaker=speaker, email="ada@example.org", created_by=admin_user
    )
    response = admin_client.get(reverse("admin:speakers_speaker_change", args=[speaker.pk]))
    [formset] = [
        formset
        for formset in response.context["inline_admin_formsets"]
        if formset.opts.model is SpeakerInvitation
    ]
    [form] = list(formset)
    assert (form.original.email, form.original.created_by) == ("ada@example.org", admin_user)


def test_a_withdrawn_invitations_link_says_so(client, speaker):
    invitation = make_invitation(speaker)
    url = path_of(invitation_url(invitation))
    invitation.delete()
    response = client.get(url)
    assert response.status_code == 410
    assert "This invitation no longer exists" in response.content.decode()


# --- Who may accept: the invited address's account, unless the link may be forwarded ----------


@pytest.fixture
def programme_member(django_user_model, speaker):
    """Staff whose only team is the programme of the speaker's conference: may change speakers."""
    user = confirmed(
        django_user_model.objects.create_user("prog", "prog@example.org", "pw", is_staff=True)
    )
    make_team(user, conferences=[speaker.conference], is_programme=True)
    return user


def test_a_programme_member_holding_a_speakers_link_cannot_accept_it_and_the_speaker_can(
    client, speaker, ada, programme_member, mailoutbox, django_capture_on_commit_callbacks
):
    """Regression: staff who may change speakers invited a speaker, followed the link themselves
    and became the speaker (reading their feedback); the speaker could then not accept."""
    client.force_login(programme_member)
    invite(client, speaker, "ada@example.org", django_capture_on_commit_callbacks)
    link = path_of(link_in(mailoutbox[0]))

    shown = client.get(link)
    refused = client.post(link)

    assert shown.status_code == 403
    assert "Accept and link my account" not in shown.content.decode()
    assert refused.status_code == 403
    assert (
        "only an account whose confirmed address is ada@example.org can accept it"
        in refused.content.decode()
    )
    speaker.refresh_from_db()
    assert speaker.user is None
    feedback = reverse(
        "feedback:speaker-feedback", kwargs={"conference_slug": speaker.conference.slug}
    )
    assert client.get(feedback).status_code == 404

    client.force_login(ada)
    assert client.post(link).status_code == 302
    speaker.refresh_from_db()
    assert speaker.user == ada


def test_a_programme_member_cannot_invite_themselves(client, speaker, programme_member):
    client.force_login(programme_member)
    response = client.post(invite_url(speaker), {"email": "PROG@example.org"})
    assert SpeakerInvitation.objects.count() == 0
    assert [str(m) for m in response.context["messages"]] == [
        "Not invited: You cannot invite yourself; ask another organizer to."
    ]


def test_the_invited_address_not_yet_confirmed_is_asked_to_confirm_it(
    client, speaker, django_user_model
):
    unconfirmed = django_user_model.objects.create_user("ada", "ada@example.org", "pw")
    client.force_login(unconfirmed)
    response = client.post(path_of(invitation_url(make_invitation(speaker))))
    assert response.status_code == 403
    assert "which you have not confirmed yet" in response.content.decode()
    speaker.refresh_from_db()
    assert speaker.user is None


def test_the_mail_says_only_the_invited_address_can_accept(
    admin_client, speaker, mailoutbox, django_capture_on_commit_callbacks
):
    invite(admin_client, speaker, "ada@example.org", django_capture_on_commit_callbacks)
    [message] = mailoutbox
    assert "Only an account whose confirmed address is ada@example.org can accept it" in (
        message.body
    )


def test_a_forwardable_invitation_is_accepted_by_whoever_holds_the_link_and_the_mail_says_so(
    admin_client, client, speaker, django_user_model, mailoutbox, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        admin_client.post(invite_url(speaker), {"email": "ada@example.org", "forwardable": "on"})
    [message] = mailoutbox
    assert "allowed this invitation to be forwarded: whoever holds this link can accept it" in (
        message.body
    )
    assert SpeakerInvitation.objects.get().forwardable is True
    assistant = django_user_model.objects.create_user("assistant", "pa@example.net", "pw")
    client.force_login(assistant)

    response = client.post(path_of(link_in(message)))

    assert response.status_code == 302
    speaker.refresh_from_db()
    assert speaker.user == assistant


def test_the_invite_page_is_a_404_to_staff_of_other_conferences(client, speaker, django_user_model):
    other = django_user_model.objects.create_user("b", "b@example.org", "pw", is_staff=True)
    make_team(other, conferences=[make_conference()], is_organizer=True)
    client.force_login(other)
    assert client.get(invite_url(speaker)).status_code == 404
    assert client.post(invite_url(speaker), {"email": "b@example.org"}).status_code == 404
    assert SpeakerInvitation.objects.count() == 0


def test_the_invite_page_is_refused_to_a_reviewer_of_the_conference(
    client, speaker, django_user_model
):
    reviewer = django_user_model.objects.create_user("r", "r@example.org", "pw", is_staff=True)
    make_team(reviewer, conferences=[speaker.conference], is_reviewer=True)
    client.force_login(reviewer)
    assert client.get(invite_url(speaker)).status_code == 403
    assert client.post(invite_url(speaker), {"email": "r2@example.org"}).status_code == 403
    assert SpeakerInvitation.objects.count() == 0


def test_the_bulk_action_skips_speakers_of_conferences_where_one_may_only_view(
    client, speaker, django_user_model, mailoutbox
):
    user = django_user_model.objects.create_user("p", "p@example.org", "pw", is_staff=True)
    own = make_conference()
    make_team(user, conferences=[own], is_programme=True)
    make_team(user, conferences=[speaker.conference], is_venue=True)
    client.force_login(user)
    response = client.post(
        reverse("admin:speakers_speaker_changelist"),
        {"action": "invite", "_selected_action": [speaker.pk]},
        follow=True,
    )
    assert SpeakerInvitation.objects.count() == 0
    assert [str(m) for m in response.context["messages"]] == [
        "Not invited: you may not change Ada Lovelace."
    ]

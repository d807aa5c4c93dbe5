"""Co-speakers: inviting by mail, accepting with the invited address's account, removing and
leaving (sessions/cfp/co_speakers.py, the pages sessions/cfp/co_speaker_views.py and the
include templates/cfp/includes/co_speakers.html)."""

import datetime
import re

import pytest
from django.template.loader import render_to_string
from django.test import RequestFactory
from django.urls import reverse

from conference.accounts.limits import CO_SPEAKER_INVITATIONS_PER_INVITER
from conference.models import AccountEmail
from sessions.cfp.co_speakers import (
    invitation_url,
    invite_co_speaker,
    send_co_speaker_invitation_mail,
)
from sessions.models import CoSpeakerInvitation, Proposal, ProposalSpeaker
from tests.builders import make_call, make_proposal, paris

pytestmark = pytest.mark.django_db

State = Proposal.State
DURING_CALL = paris(15, 12, month=1)
AFTER_CALL = paris(1, 0, month=2)
LONG = "x" * 10_000


@pytest.fixture(autouse=True)
def during_the_call(clock):
    clock(DURING_CALL)


@pytest.fixture
def call(conference):
    return make_call(conference)


def account(django_user_model, name, email=None, *, confirmed=True):
    email = email or f"{name}@example.org"
    user = django_user_model.objects.create_user(name, email, f"pw-{name}-1")
    if confirmed:
        AccountEmail.objects.create(user=user, verified_address=email)
    return user


@pytest.fixture
def ada(django_user_model):
    """The proposer."""
    return account(django_user_model, "ada")


@pytest.fixture
def grace(django_user_model):
    """The invited co-speaker: grace@example.org, confirmed."""
    return account(django_user_model, "grace")


@pytest.fixture
def proposal(call, ada):
    return make_proposal(call.conference, ada, title="Sparse graphs")


def path_of(link: str) -> str:
    return link.removeprefix("https://schedule.example.org")


def link_in(message) -> str:
    return path_of(re.search(r"https://schedule\.example\.org/\S+", message.body).group(0))


def invite_url(proposal):
    return reverse(
        "cfp-co-speaker-invite",
        kwargs={"conference_slug": proposal.conference.slug, "code": proposal.code},
    )


def remove_url(proposal, speaker):
    return reverse(
        "cfp-co-speaker-remove",
        kwargs={
            "conference_slug": proposal.conference.slug,
            "code": proposal.code,
            "pk": speaker.pk,
        },
    )


def withdraw_url(invitation):
    proposal = invitation.proposal
    return reverse(
        "cfp-co-speaker-invitation-withdraw",
        kwargs={
            "conference_slug": proposal.conference.slug,
            "code": proposal.code,
            "pk": invitation.pk,
        },
    )


def invited(proposal, email, by):
    return path_of(invitation_url(invite_co_speaker(proposal, email, by)))


def speakers_of(proposal):
    return [(s.user.username, s.name, s.position) for s in proposal.proposal_speakers.all()]


# --- Inviting and accepting ---------------------------------------------------------------------


@pytest.mark.usefixtures("immediate_tasks")
def test_an_invitation_is_mailed_and_the_confirmed_account_joins_last_with_its_name_and_bio(
    client, proposal, ada, grace, mailoutbox, django_capture_on_commit_callbacks
):
    client.force_login(ada)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(invite_url(proposal), {"email": "Grace@example.org", "next": "/x/"})
    assert (response.status_code, response.url) == (302, "/x/")

    [message] = mailoutbox
    assert message.to == ["Grace@example.org"]
    assert message.subject == "ada invites you to speak with them at PyCon"
    assert "“Sparse graphs”" in message.body
    link = link_in(message)
    assert link.startswith("/pycon/call/invitation/")
    [invitation] = CoSpeakerInvitation.objects.all()
    assert link.split("/")[-2] not in invitation.token_digest  # only the digest is stored

    client.force_login(grace)
    page = client.get(link).content.decode()
    assert "ada invites you to speak with them in “Sparse graphs”" in page
    response = client.post(link, {"name": "Grace Hopper", "bio": "Compilers."})
    assert response.status_code == 200
    assert "You joined the proposal" in response.content.decode()
    assert speakers_of(proposal) == [("ada", "ada", 0), ("grace", "Grace Hopper", 1)]
    invitation.refresh_from_db()
    assert (invitation.accepted_by, invitation.accepted_at) == (grace, DURING_CALL)


def test_the_mail_goes_in_the_background_once_the_invitation_is_committed(
    proposal, ada, dummy_tasks, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        invitation = invite_co_speaker(proposal, "grace@example.org", ada, language="fr")
    [result] = dummy_tasks.results
    assert result.task.func is send_co_speaker_invitation_mail.func
    assert result.args == [invitation.pk, "fr"]


def test_the_mail_is_in_the_inviters_language(proposal, ada, mailoutbox):
    invitation = invite_co_speaker(proposal, "grace@example.org", ada)
    send_co_speaker_invitation_mail.call(invitation.pk, "fr")
    [message] = mailoutbox
    assert message.subject == "ada vous invite à intervenir à ses côtés à PyCon"
    assert "Bonjour," in message.body
    assert invitation_url(invitation) in message.alternatives[0][0]


def test_no_mail_for_an_invitation_withdrawn_before_the_task_ran(proposal, ada, mailoutbox):
    invitation = invite_co_speaker(proposal, "grace@example.org", ada)
    invitation.delete()
    assert send_co_speaker_invitation_mail.call(invitation.pk, "en") is False
    assert mailoutbox == []


def test_another_account_is_refused_and_told_which_address_to_confirm(
    client, proposal, ada, django_user_model
):
    link = invited(proposal, "grace@example.org", ada)
    client.force_login(account(django_user_model, "eve"))
    for response in (client.get(link), client.post(link, {"name": "Eve"})):
        assert response.status_code == 403
        page = response.content.decode()
        assert "This invitation is for another address" in page
        assert "only an account whose confirmed address is grace@example.org" in page
    assert speakers_of(proposal) == [("ada", "ada", 0)]


def test_the_invited_address_not_yet_confirmed_is_asked_to_confirm_it(
    client, proposal, ada, django_user_model
):
    link = invited(proposal, "grace@example.org", ada)
    client.force_login(account(django_user_model, "grace", confirmed=False))
    response = client.post(link, {"name": "Grace"})
    assert response.status_code == 403
    assert "Confirm your address first" in response.content.decode()
    assert speakers_of(proposal) == [("ada", "ada", 0)]


def test_an_anonymous_visitor_logs_in_and_comes_back(client, proposal, ada):
    link = invited(proposal, "grace@example.org", ada)
    response = client.get(link)
    assert response.status_code == 302
    assert response.url == f"{reverse('login')}?next={link}"


def test_a_used_link_is_refused(client, proposal, ada, grace):
    link = invited(proposal, "grace@example.org", ada)
    client.force_login(grace)
    client.post(link, {"name": "Grace"})
    again = client.post(link, {"name": "Grace"})
    assert again.status_code == 410
    assert "This invitation has already been used" in again.content.decode()
    assert ProposalSpeaker.objects.filter(user=grace).count() == 1


def test_an_expired_link_is_refused(client, clock, proposal, ada, grace):
    link = invited(proposal, "grace@example.org", ada)
    clock(DURING_CALL + datetime.timedelta(days=14, seconds=1))
    client.force_login(grace)
    response = client.post(link, {"name": "Grace"})
    assert response.status_code == 410
    assert "This invitation has expired" in response.content.decode()
    assert speakers_of(proposal) == [("ada", "ada", 0)]


def test_a_link_of_another_conference_is_not_valid(client, proposal, ada, grace):
    link = invited(proposal, "grace@example.org", ada)
    client.force_login(grace)
    other = make_call().conference
    response = client.get(link.replace("/pycon/", f"/{other.slug}/"))
    assert response.status_code == 404


@pytest.mark.parametrize("state", [State.WITHDRAWN, State.DECLINED, State.CONFIRMED])
def test_a_proposal_withdrawn_declined_or_confirmed_takes_no_one_more(
    client, proposal, ada, grace, state
):
    link = invited(proposal, "grace@example.org", ada)
    Proposal.objects.filter(pk=proposal.pk).update(state=state)
    client.force_login(grace)
    response = client.post(link, {"name": "Grace"})
    assert response.status_code == 409
    assert speakers_of(proposal) == [("ada", "ada", 0)]


def test_an_invitation_accepted_after_the_proposal_filled_up_is_refused(
    client, call, proposal, ada, grace, django_user_model
):
    link = invited(proposal, "grace@example.org", ada)
    call.max_speakers = 2
    call.save()
    ProposalSpeaker.objects.create(
        proposal=proposal, user=account(django_user_model, "bob"), name="Bob", position=1
    )
    client.force_login(grace)
    response = client.post(link, {"name": "Grace"})
    assert response.status_code == 409
    assert "This proposal has its 2 speakers already." in response.content.decode()


def test_a_speaker_already_in_the_proposal_is_told_so(client, proposal, ada, grace):
    link = invited(proposal, "grace@example.org", ada)
    ProposalSpeaker.objects.create(proposal=proposal, user=grace, name="Grace", position=1)
    client.force_login(grace)
    response = client.get(link)
    assert response.status_code == 409
    assert "You speak in this proposal already." in response.content.decode()


def test_an_invitation_sent_before_the_deadline_is_accepted_after_it(
    client, clock, proposal, ada, grace
):
    clock(paris(30, 12, month=1))
    link = invited(proposal, "grace@example.org", ada)
    clock(AFTER_CALL)
    client.force_login(grace)
    assert client.post(link, {"name": "Grace"}).status_code == 200
    assert speakers_of(proposal) == [("ada", "ada", 0), ("grace", "Grace", 1)]


# --- The rules of inviting -------------------------------------------------------------------------


def test_invitations_open_count_toward_the_calls_limit_of_speakers(client, call, proposal, ada):
    call.max_speakers = 2
    call.save()
    invite_co_speaker(proposal, "grace@example.org", ada)
    client.force_login(ada)
    response = client.post(invite_url(proposal), {"email": "bob@example.org"})
    assert response.status_code == 400
    assert "A proposal has at most 2 speakers" in response.content.decode()
    assert CoSpeakerInvitation.objects.count() == 1


def test_an_address_invited_already_or_a_speakers_is_refused(client, proposal, ada):
    invite_co_speaker(proposal, "grace@example.org", ada)
    client.force_login(ada)
    twice = client.post(invite_url(proposal), {"email": "GRACE@example.org"})
    own = client.post(invite_url(proposal), {"email": "ada@example.org"})
    assert "This address is invited already." in twice.content.decode()
    assert "A speaker of the proposal has this address." in own.content.decode()
    assert (twice.status_code, own.status_code, CoSpeakerInvitation.objects.count()) == (
        400,
        400,
        1,
    )


def test_no_invitation_after_the_deadline(client, clock, proposal, ada):
    clock(AFTER_CALL)
    client.force_login(ada)
    response = client.post(invite_url(proposal), {"email": "grace@example.org"})
    assert response.status_code == 400
    assert "The call for proposals is closed." in response.content.decode()
    assert CoSpeakerInvitation.objects.count() == 0


def test_each_inviter_sends_a_few_invitations_an_hour(client, call, proposal, ada):
    call.max_speakers = 10
    call.save()
    allowed = CO_SPEAKER_INVITATIONS_PER_INVITER.allowed
    for number in range(allowed):
        invite_co_speaker(proposal, f"p{number}@example.org", ada)
        CoSpeakerInvitation.objects.all().delete()  # room for the next within the call's limit
    client.force_login(ada)
    response = client.post(invite_url(proposal), {"email": "late@example.org"})
    assert response.status_code == 429
    assert "You sent many invitations this hour." in response.content.decode()
    assert CoSpeakerInvitation.objects.count() == 0


def test_only_the_proposals_speakers_invite(client, proposal, grace):
    client.force_login(grace)
    response = client.post(invite_url(proposal), {"email": "eve@example.org"})
    assert response.status_code == 404
    assert CoSpeakerInvitation.objects.count() == 0


# --- Removing, leaving, withdrawing --------------------------------------------------------------


@pytest.fixture
def with_grace(proposal, grace):
    return ProposalSpeaker.objects.create(proposal=proposal, user=grace, name="Grace", position=1)


def test_the_proposer_removes_a_co_speaker(client, proposal, ada, with_grace):
    client.force_login(ada)
    response = client.post(remove_url(proposal, with_grace), {"next": "/back/"})
    assert (response.status_code, response.url) == (302, "/back/")
    assert speakers_of(proposal) == [("ada", "ada", 0)]


def test_a_co_speaker_leaves_but_removes_no_one_else(
    client, proposal, ada, grace, with_grace, django_user_model
):
    bob = ProposalSpeaker.objects.create(
        proposal=proposal, user=account(django_user_model, "bob"), name="Bob", position=2
    )
    client.force_login(grace)
    client.post(remove_url(proposal, bob))
    client.post(remove_url(proposal, proposal.proposal_speakers.get(user=ada)))
    assert speakers_of(proposal) == [("ada", "ada", 0), ("grace", "Grace", 1), ("bob", "Bob", 2)]
    client.post(remove_url(proposal, with_grace))
    assert speakers_of(proposal) == [("ada", "ada", 0), ("bob", "Bob", 2)]


def test_the_proposer_stays(client, proposal, ada):
    client.force_login(ada)
    response = client.post(remove_url(proposal, proposal.proposal_speakers.get()), follow=True)
    assert "The speaker who proposed stays" in response.content.decode()
    assert speakers_of(proposal) == [("ada", "ada", 0)]


def test_after_the_deadline_the_proposer_removes_no_one_but_a_co_speaker_may_leave(
    client, clock, proposal, ada, grace, with_grace
):
    clock(AFTER_CALL)
    client.force_login(ada)
    client.post(remove_url(proposal, with_grace))
    assert len(speakers_of(proposal)) == 2
    client.force_login(grace)
    client.post(remove_url(proposal, with_grace))
    assert speakers_of(proposal) == [("ada", "ada", 0)]


def test_an_open_invitation_is_withdrawn_and_its_link_stops_working(client, proposal, ada, grace):
    link = invited(proposal, "grace@example.org", ada)
    client.force_login(ada)
    response = client.post(withdraw_url(CoSpeakerInvitation.objects.get()))
    assert response.status_code == 302
    assert CoSpeakerInvitation.objects.count() == 0
    client.force_login(grace)
    assert client.get(link).status_code == 404


def test_a_co_speaker_withdraws_only_the_invitations_they_sent(
    client, proposal, ada, grace, with_grace
):
    invite_co_speaker(proposal, "bob@example.org", ada)
    client.force_login(grace)
    client.post(withdraw_url(CoSpeakerInvitation.objects.get()))
    assert CoSpeakerInvitation.objects.count() == 1


# --- The include on the proposal's page ----------------------------------------------------------


def render_panel(proposal, user):
    request = RequestFactory().get("/pycon/call/mine/")
    request.user = user
    request.session = {}
    return render_to_string("cfp/includes/co_speakers.html", {"proposal": proposal}, request)


def test_the_proposer_sees_speakers_invitations_and_every_button(call, proposal, ada, with_grace):
    call.max_speakers = 4
    call.save()
    invite_co_speaker(proposal, "bob@example.org", ada)
    html = render_panel(proposal, ada)
    assert "Grace" in html
    assert "bob@example.org" in html
    assert remove_url(proposal, with_grace) in html
    assert withdraw_url(CoSpeakerInvitation.objects.get()) in html
    assert invite_url(proposal) in html


def test_the_proposer_reads_who_proposed_it_and_who_they_are_apart(proposal, ada):
    html = " ".join(render_panel(proposal, ada).split())
    assert "(proposed it)</span> <span" in html


def test_a_co_speaker_may_leave_and_invite_but_not_remove(proposal, ada, grace, with_grace):
    html = render_panel(proposal, grace)
    assert "Leave this proposal" in html
    assert remove_url(proposal, proposal.proposal_speakers.get(user=ada)) not in html
    assert invite_url(proposal) in html


def test_after_the_deadline_the_page_says_why_no_one_is_invited(clock, proposal, ada):
    clock(AFTER_CALL)
    html = render_panel(proposal, ada)
    assert invite_url(proposal) not in html
    assert "The call for proposals is closed." in html


def test_someone_not_speaking_sees_the_names_only(proposal, ada, django_user_model):
    invite_co_speaker(proposal, "bob@example.org", ada)
    html = render_panel(proposal, account(django_user_model, "eve"))
    assert "ada" in html
    assert "bob@example.org" not in html
    assert "<form" not in html


@pytest.mark.parametrize("n", [1, 8])
def test_the_include_reads_a_fixed_number_of_rows(
    proposal, ada, call, django_user_model, django_assert_max_num_queries, n
):
    call.max_speakers = 10
    call.save()
    for number in range(n):
        other = account(django_user_model, f"s{number}")
        ProposalSpeaker.objects.create(proposal=proposal, user=other, name=f"S{number}")
    fresh = Proposal.objects.get(pk=proposal.pk)
    with django_assert_max_num_queries(6):
        render_panel(fresh, ada)


# --- Hostile input -----------------------------------------------------------------------------------

HOSTILE = ["", "not an address", "a@b", "\x00", "a\x00@example.org", LONG, f"{LONG}@example.org",
           "<script>@example.org", "🦄@example.org", "[" * 2000]  # fmt: skip


@pytest.mark.parametrize("value", HOSTILE, ids=lambda v: repr(v)[:20])
def test_a_bad_address_is_a_form_error(client, proposal, ada, value):
    client.force_login(ada)
    response = client.post(invite_url(proposal), {"email": value, "next": value})
    assert response.status_code == 400
    assert CoSpeakerInvitation.objects.count() == 0


@pytest.mark.parametrize("value", HOSTILE, ids=lambda v: repr(v)[:20])
def test_a_bad_name_or_bio_is_a_form_error(client, proposal, ada, grace, value):
    link = invited(proposal, "grace@example.org", ada)
    client.force_login(grace)
    response = client.post(link, {"name": value, "bio": value * 2})
    assert response.status_code in {200, 400}
    joined = ProposalSpeaker.objects.filter(user=grace).exists()
    assert joined == (response.status_code == 200)


@pytest.mark.parametrize(
    "token", ["x", "%00", "..%2F..", "z" * 5000, "🦄", "a" * 64, "%F0%9F%A6%84%00"]
)
@pytest.mark.parametrize("method", ["get", "post"])
def test_a_bogus_token_is_a_clean_404(client, call, grace, token, method):
    client.force_login(grace)
    response = getattr(client, method)(f"/pycon/call/invitation/{token}/")
    # A NUL is refused before any view, as in every request (conference/views/errors.py).
    assert response.status_code == (400 if "%00" in token else 404)


@pytest.mark.parametrize("code", ["ZZZZZZ", "x" * 5000, "%00", "..", "-1"])
def test_a_bogus_proposal_code_or_id_is_a_404(client, proposal, ada, code):
    client.force_login(ada)
    for path in (
        f"/pycon/call/{code}/co-speakers/invite/",
        f"/pycon/call/{code}/co-speakers/1/remove/",
        f"/pycon/call/{code}/invitations/1/withdraw/",
        f"/pycon/call/{proposal.code}/co-speakers/99999999999999999999/remove/",
        f"/pycon/call/{proposal.code}/invitations/99999999999999999999/withdraw/",
    ):
        response = client.post(path, {"email": "a@example.org"})
        assert response.status_code == (400 if "%00" in path else 404)


SCRIPT = '<script>alert("owned")</script>'


@pytest.mark.usefixtures("immediate_tasks")
def test_markup_in_a_title_or_name_stays_text_in_the_mail_the_page_and_the_include(
    client, call, ada, grace, mailoutbox, django_capture_on_commit_callbacks
):
    proposal = make_proposal(call.conference, ada, title=SCRIPT)
    proposal.proposal_speakers.update(name=SCRIPT)
    with django_capture_on_commit_callbacks(execute=True):
        invite_co_speaker(proposal, "grace@example.org", ada)
    [message] = mailoutbox
    client.force_login(grace)
    page = client.get(link_in(message)).content.decode()
    for html in (message.alternatives[0][0], page, render_panel(proposal, ada)):
        assert SCRIPT not in html
        assert "&lt;script&gt;" in html

"""The mails a decision sends a proposal's speakers: in the conference's language, the
organizers' text when they wrote one for it, once per step (sessions/cfp/mails.py)."""

import pytest
from django.core.exceptions import ValidationError
from django.core.mail import EmailMultiAlternatives

from conference.models import AccountEmail
from sessions.cfp import decisions
from sessions.cfp.mails import fill, send_decision_mails
from sessions.models import DecisionMailTemplate, Proposal, ProposalStateChange
from tests.builders import make_call, make_conference, make_proposal

pytestmark = pytest.mark.django_db

State = Proposal.State
SITE = "https://schedule.example.org"


def make_account(django_user_model, username, *, confirmed=True):
    user = django_user_model.objects.create_user(username, f"{username}@example.org", "pw-1-x")
    AccountEmail.objects.create(user=user, verified_address=user.email if confirmed else "")
    return user


@pytest.fixture
def grace(django_user_model):
    return make_account(django_user_model, "grace")


def conference_in(language):
    conference = make_conference(name="PyCon Paris", slug="pycon-paris", language=language)
    make_call(conference)
    return conference


@pytest.fixture
def decide(organizer, django_capture_on_commit_callbacks, immediate_tasks):
    """Decide as an organizer does: the mails are enqueued, and sent, once the step commits."""

    def decide(proposal, state):
        with django_capture_on_commit_callbacks(execute=True):
            outcome = decisions.decide([proposal], state, by=organizer)
        assert outcome.moved == [proposal]

    return decide


def answer_url(proposal):
    return f"{SITE}/pycon-paris/call/{proposal.code}/answer/"


def page_url(proposal):
    """The proposal's own page, where its speakers read it and its state."""
    return f"{SITE}/pycon-paris/call/{proposal.code}/"


# (subject, a sentence of the text) of each decision in each language.
SITE_MAILS = {
    ("en", State.ACCEPTED): (
        "PyCon Paris: your proposal is accepted",
        "Good news: the organizers of PyCon Paris accept your proposal “Fast kernels”.",
    ),
    ("en", State.WAITLISTED): (
        "PyCon Paris: your proposal is on the waiting list",
        "The organizers of PyCon Paris put your proposal “Fast kernels” on their waiting list",
    ),
    ("en", State.REJECTED): (
        "PyCon Paris: your proposal was not accepted",
        "We are sorry: the organizers of PyCon Paris could not accept your proposal "
        "“Fast kernels” this time.",
    ),
    ("fr", State.ACCEPTED): (
        "PyCon Paris : votre proposition est acceptée",
        "Bonne nouvelle : les organisateurs de PyCon Paris acceptent votre proposition "
        "« Fast kernels ».",
    ),
    ("fr", State.WAITLISTED): (
        "PyCon Paris : votre proposition est sur la liste d’attente",
        "Les organisateurs de PyCon Paris ont mis votre proposition « Fast kernels » sur leur "
        "liste d’attente",
    ),
    ("fr", State.REJECTED): (
        "PyCon Paris : votre proposition n’a pas été retenue",
        "Nous sommes désolés : les organisateurs de PyCon Paris n’ont pas pu retenir votre "
        "proposition « Fast kernels » cette fois-ci.",
    ),
}


@pytest.mark.parametrize(("language", "state"), list(SITE_MAILS))
def test_a_decision_mails_the_speaker_the_sites_text_in_the_conferences_language(
    language, state, grace, decide, mailoutbox
):
    proposal = make_proposal(
        conference_in(language), grace, state=State.SUBMITTED, title="Fast kernels"
    )
    decide(proposal, state)

    [message] = mailoutbox
    subject, sentence = SITE_MAILS[language, state]
    assert message.to == ["grace@example.org"]
    assert message.subject == subject
    assert message.body.startswith(("Hello grace,\n\n", "Bonjour grace,\n\n"))
    assert sentence in " ".join(message.body.split())
    link = answer_url(proposal) if state == State.ACCEPTED else page_url(proposal)
    assert link in message.body
    html = message.alternatives[0].content
    assert link in html


def test_only_the_acceptance_asks_to_confirm(grace, decide, mailoutbox):
    accepted = make_proposal(conference_in("en"), grace, state=State.SUBMITTED)
    rejected = make_proposal(accepted.conference, grace, state=State.SUBMITTED)
    decide(accepted, State.ACCEPTED)
    decide(rejected, State.REJECTED)

    assert f"Please tell them whether you will give it:\n{answer_url(accepted)}\n" in (
        mailoutbox[0].body
    )
    assert "whether you will give it" not in mailoutbox[1].body
    assert f"Your proposal: {page_url(rejected)}\n" in mailoutbox[1].body


def test_each_speaker_with_a_confirmed_address_gets_their_own_mail(
    django_user_model, grace, decide, mailoutbox
):
    alan = make_account(django_user_model, "alan")
    unconfirmed = make_account(django_user_model, "ann", confirmed=False)
    proposal = make_proposal(conference_in("en"), grace, alan, unconfirmed, state=State.SUBMITTED)
    decide(proposal, State.WAITLISTED)

    assert [(message.to, message.body.split("\n")[0]) for message in mailoutbox] == [
        (["grace@example.org"], "Hello grace,"),
        (["alan@example.org"], "Hello alan,"),
    ]


def organizers_text(conference, language, **fields):
    return DecisionMailTemplate.objects.create(
        call=conference.call,
        decision=fields.pop("decision", DecisionMailTemplate.Decision.ACCEPTED),
        language=language,
        subject=fields.pop("subject", "{conference} : « {title} » est retenu"),
        body=fields.pop(
            "body",
            "Chère {speaker},\n\n« {title} » est retenu à {conference}.\n"
            "Confirmez ici : {confirm_url}\n\nVotre proposition : {proposal_url}",
        ),
    )


def test_the_organizers_text_in_the_speakers_language_wins(grace, decide, mailoutbox):
    conference = conference_in("fr")
    organizers_text(conference, "fr")
    proposal = make_proposal(conference, grace, state=State.SUBMITTED, title="Fast kernels")
    decide(proposal, State.ACCEPTED)

    [message] = mailoutbox
    assert message.subject == "PyCon Paris : « Fast kernels » est retenu"
    assert message.body == (
        "Chère grace,\n\n« Fast kernels » est retenu à PyCon Paris.\n"
        f"Confirmez ici : {answer_url(proposal)}\n\nVotre proposition : {page_url(proposal)}"
    )


def test_an_organizers_text_in_another_language_is_not_sent(grace, decide, mailoutbox):
    conference = conference_in("en")
    organizers_text(conference, "fr")
    organizers_text(conference, "en", decision=DecisionMailTemplate.Decision.REJECTED)
    decide(make_proposal(conference, grace, state=State.SUBMITTED), State.ACCEPTED)

    [message] = mailoutbox
    assert message.subject == "PyCon Paris: your proposal is accepted"


def test_the_organizers_text_is_escaped_in_the_html_part_and_its_links_kept(
    grace, decide, mailoutbox
):
    conference = conference_in("en")
    organizers_text(
        conference,
        "en",
        subject="Accepted",
        body="Dear {speaker} <b>&</b>,\nconfirm: {confirm_url}\n\nSee you!",
    )
    proposal = make_proposal(conference, grace, state=State.SUBMITTED, title="<script>x</script>")
    decide(proposal, State.ACCEPTED)

    html = mailoutbox[0].alternatives[0].content
    assert "<p>Dear grace &lt;b&gt;&amp;&lt;/b&gt;,<br>confirm: <a href=" in html
    assert f'"{answer_url(proposal)}"' in html
    assert "<p>See you!</p>" in html
    assert "<b>" not in html


@pytest.mark.parametrize(
    ("decision", "body", "problem"),
    [
        ("accepted", "Hello {name}", "Unknown placeholder {name}"),
        ("accepted", "Hello {speaker.__class__}", "Unknown placeholder {speaker.__class__}"),
        ("accepted", "Hello {0}", "Unknown placeholder {0}"),
        ("rejected", "Answer: {confirm_url}", "Unknown placeholder {confirm_url}"),
        ("accepted", "Hello {speaker", "A brace is not closed"),
    ],
)
def test_a_text_with_a_placeholder_not_filled_in_is_refused(decision, body, problem):
    conference = conference_in("en")
    template = DecisionMailTemplate(
        call=conference.call, decision=decision, language="en", subject="Hi", body=body
    )
    with pytest.raises(ValidationError) as refused:
        template.full_clean()
    assert list(refused.value.message_dict) == ["body"]
    assert refused.value.message_dict["body"][0].startswith(problem)


def test_a_stored_text_that_does_not_fill_in_gives_way_to_the_sites(grace, decide, mailoutbox):
    """A row written around clean() (a shell, an import) never breaks the mail."""
    conference = conference_in("en")
    organizers_text(conference, "en", subject="Hi", body="Hello {speaker.__class__}")
    decide(make_proposal(conference, grace, state=State.SUBMITTED), State.ACCEPTED)

    assert mailoutbox[0].subject == "PyCon Paris: your proposal is accepted"


def test_a_format_spec_cannot_pad_the_mail(grace, decide, mailoutbox):
    conference = conference_in("en")
    organizers_text(
        conference, "en", subject="{title!s:>99999999}", body="{speaker:*^50}{speaker!r}!"
    )
    decide(make_proposal(conference, grace, state=State.SUBMITTED, title="Kernels"), State.ACCEPTED)

    assert (mailoutbox[0].subject, mailoutbox[0].body) == ("Kernels", "gracegrace!")


@pytest.mark.parametrize(
    ("text", "filled"),
    [
        ("{speaker} {{speaker}}", "grace {speaker}"),
        ("{name}", "{name}"),
        ("{speaker.__class__}", "{speaker.__class__}"),
        ("{speaker[0]}", "{speaker[0]}"),
        ("{title:{speaker}}", "Kernels"),
    ],
)
def test_only_known_placeholders_are_filled_in(text, filled):
    assert fill(text, {"speaker": "grace", "title": "Kernels"}) == filled


def test_the_task_run_twice_for_one_step_mails_once(grace, organizer, dummy_tasks, mailoutbox):
    proposal = make_proposal(conference_in("en"), grace, state=State.SUBMITTED)
    decisions.decide([proposal], State.ACCEPTED, by=organizer)

    assert send_decision_mails.call(proposal.pk, State.ACCEPTED) == 1
    assert send_decision_mails.call(proposal.pk, State.ACCEPTED) == 0
    assert len(mailoutbox) == 1
    assert ProposalStateChange.objects.get(to_state=State.ACCEPTED).mailed_at is not None


def test_a_step_overtaken_by_another_mails_nothing(grace, organizer, dummy_tasks, mailoutbox):
    proposal = make_proposal(conference_in("en"), grace, state=State.SUBMITTED)
    decisions.decide([proposal], State.ACCEPTED, by=organizer)
    decisions.decide([proposal], State.REJECTED, by=organizer)

    assert send_decision_mails.call(proposal.pk, State.ACCEPTED) == 0
    assert send_decision_mails.call(proposal.pk, State.REJECTED) == 1
    assert [message.subject for message in mailoutbox] == [
        "PyCon Paris: your proposal was not accepted"
    ]


def test_deciding_again_after_a_change_of_mind_mails_the_new_decision(grace, decide, mailoutbox):
    proposal = make_proposal(conference_in("en"), grace, state=State.SUBMITTED)
    decide(proposal, State.WAITLISTED)
    decide(proposal, State.ACCEPTED)

    assert [message.subject for message in mailoutbox] == [
        "PyCon Paris: your proposal is on the waiting list",
        "PyCon Paris: your proposal is accepted",
    ]


def test_a_failed_sending_gives_the_step_back_for_the_next_run(
    grace, organizer, dummy_tasks, mailoutbox, monkeypatch
):
    proposal = make_proposal(conference_in("en"), grace, state=State.SUBMITTED)
    decisions.decide([proposal], State.ACCEPTED, by=organizer)

    def refuse(message, fail_silently=False):
        raise ConnectionRefusedError("mail server down")

    with monkeypatch.context() as patched:
        patched.setattr(EmailMultiAlternatives, "send", refuse)
        with pytest.raises(ConnectionRefusedError):
            send_decision_mails.call(proposal.pk, State.ACCEPTED)
    assert ProposalStateChange.objects.get(to_state=State.ACCEPTED).mailed_at is None

    assert send_decision_mails.call(proposal.pk, State.ACCEPTED) == 1
    assert len(mailoutbox) == 1


def test_a_speakers_own_step_mails_nothing(grace, dummy_tasks, mailoutbox):
    proposal = make_proposal(conference_in("en"), grace, state=State.ACCEPTED)
    decisions.confirm(proposal, by=grace)

    assert send_decision_mails.call(proposal.pk, State.CONFIRMED) == 0
    assert mailoutbox == []


def test_each_speaker_is_mailed_in_the_language_they_proposed_in(
    grace, django_user_model, decide, mailoutbox
):
    """The site keeps no language per account: a speaker's is the one the site was in when they
    joined the proposal (``ProposalSpeaker.language``); without one, the conference's."""
    bo = make_account(django_user_model, "bo")
    proposal = make_proposal(conference_in("en"), grace, bo, state=State.SUBMITTED)
    proposal.proposal_speakers.filter(user=bo).update(language="fr")
    decide(proposal, State.WAITLISTED)
    subjects = {message.to[0]: message.subject for message in mailoutbox}
    assert subjects["grace@example.org"] == "PyCon Paris: your proposal is on the waiting list"
    assert subjects["bo@example.org"].startswith("PyCon Paris : ")


def test_a_speaker_drafting_in_french_is_remembered_as_french(grace, client):
    from django.urls import reverse

    conference = conference_in("en")
    conference.call.opens_at = conference.call.opens_at.replace(year=2020)
    conference.call.closes_at = conference.call.closes_at.replace(year=2099)
    conference.call.save()
    client.force_login(grace)
    client.post(
        reverse("proposal-new", kwargs={"conference_slug": conference.slug}),
        {"title": "Noyaux", "kind": "talk", "audience_level": "any", "speaker_name": "Grace"},
        headers={"Accept-Language": "fr"},
    )
    assert Proposal.objects.get().proposal_speakers.get().language == "fr"

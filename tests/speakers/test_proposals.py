"""A speaker proposes a new title, abstract or description for their session; organizers accept
or refuse it in the admin (SessionChangeProposal, speakers/proposals.py)."""

import datetime

import pytest
from django.contrib.admin.models import LogEntry
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.test import Client
from django.urls import reverse

from conference.models import AccountEmail
from sessions.models import Session
from speakers.models import SessionChangeProposal
from tests.builders import make_conference, make_session, make_speaker, make_team

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("immediate_tasks")]


@pytest.fixture
def ada(django_user_model):
    """Ada's account, its address confirmed: the mails reach it."""
    user = django_user_model.objects.create_user("ada", "ada@example.org", "speak-2026")
    AccountEmail.objects.create(user=user, verified_address=user.email)
    return user


@pytest.fixture
def speaker(conference, ada):
    return make_speaker(conference, name="Ada Lovelace", user=ada)


@pytest.fixture
def talk(conference, speaker):
    return make_session(
        conference, title="Engines", abstract="On engines.", description="", speakers=[speaker]
    )


@pytest.fixture
def ada_client(ada):
    """Ada's own client, beside ``organizer_client`` (the shared ``client``)."""
    client = Client()
    client.force_login(ada)
    return client


def propose_url(session):
    return reverse(
        "speaker-pages:propose-change",
        kwargs={"conference_slug": session.conference.slug, "slug": session.slug},
    )


def change_url(proposal):
    return reverse("admin:speakers_sessionchangeproposal_change", args=[proposal.pk])


def proposal_data(session, **changes):
    return {
        "title": session.title,
        "abstract": session.abstract,
        "description": session.description,
        **changes,
    }


def propose(session, speaker, **changes) -> SessionChangeProposal:
    proposal = SessionChangeProposal.of(session, speaker)
    for name, value in changes.items():
        setattr(proposal, name, value)
    proposal.full_clean()
    proposal.save()
    return proposal


# --- The speaker's page -------------------------------------------------------------------------


def test_a_speaker_proposes_a_new_title_and_abstract(ada_client, talk, speaker):
    page = ada_client.get(propose_url(talk))
    assert page.context["form"]["title"].value() == "Engines"  # opens with the session's texts
    data = proposal_data(talk, title="Analytical Engines", abstract="On **engines**.")
    response = ada_client.post(propose_url(talk), data)
    assert response.status_code == 302
    (proposal,) = SessionChangeProposal.objects.all()
    assert (proposal.speaker, proposal.session, proposal.state) == (speaker, talk, "pending")
    assert proposal.changed_fields == ["title", "abstract"]
    talk.refresh_from_db()
    assert talk.title == "Engines"  # nothing changes before the organizers accept
    html = ada_client.get(propose_url(talk)).content.decode()
    assert "waiting for the organizers" in html
    assert "<strong>engines</strong>" in html  # the proposed abstract, as Markdown


def test_a_proposal_that_changes_nothing_is_refused(ada_client, talk):
    response = ada_client.post(propose_url(talk), proposal_data(talk))
    assert response.status_code == 200
    assert response.context["form"].non_field_errors() == [
        "Nothing is changed: change the title, abstract or description first."
    ]
    assert not SessionChangeProposal.objects.exists()


def test_line_endings_alone_change_nothing(ada_client, talk, speaker):
    talk.description = "First line.\nSecond line."
    talk.save()
    # What a browser sends back from a textarea: the same lines, with CRLF.
    unchanged = proposal_data(talk, description="First line.\r\nSecond line.")
    response = ada_client.post(propose_url(talk), unchanged)
    assert response.context["form"].non_field_errors() == [
        "Nothing is changed: change the title, abstract or description first."
    ]
    ada_client.post(propose_url(talk), {**unchanged, "title": "Analytical Engines"})
    proposal = SessionChangeProposal.objects.get()
    assert (proposal.changed_fields, proposal.description) == (
        ["title"],
        "First line.\nSecond line.",
    )


def test_a_second_proposal_waits_for_the_answer_to_the_first(ada_client, talk, speaker):
    propose(talk, speaker, title="Analytical Engines")
    page = ada_client.get(propose_url(talk)).content.decode()
    assert "you can propose another once they have given it" in page
    response = ada_client.post(propose_url(talk), proposal_data(talk, title="Difference Engines"))
    assert response.status_code == 200
    assert response.context["form"].non_field_errors() == [
        "You already proposed a change to this session: wait for the organizers' answer "
        "before proposing another."
    ]
    assert SessionChangeProposal.objects.count() == 1


def test_once_answered_the_speaker_may_propose_again(talk, speaker, organizer):
    propose(talk, speaker, title="Analytical Engines").refuse(organizer)
    assert propose(talk, speaker, title="Difference Engines").is_pending


def test_a_co_speaker_has_a_pending_proposal_of_their_own(talk, speaker, conference):
    grace = make_speaker(conference, name="Grace Hopper")
    talk.session_speakers.create(speaker=grace, position=1)
    propose(talk, speaker, title="Analytical Engines")
    assert propose(talk, grace, title="Compilers").is_pending


def test_only_a_speaker_of_the_session_may_propose(talk, conference):
    other = make_speaker(conference, name="Grace Hopper")
    with pytest.raises(ValidationError) as error:
        propose(talk, other, title="Compilers")
    assert error.value.messages == ["Only a speaker of a session may propose changes to it."]


def test_the_database_keeps_one_pending_proposal_per_session_and_speaker(talk, speaker):
    first = propose(talk, speaker, title="Analytical Engines")
    second = SessionChangeProposal.of(talk, speaker)
    second.title = "Difference Engines"
    with pytest.raises(IntegrityError), transaction.atomic():
        second.save()  # past clean(), as a second request at the same instant would be
    assert list(SessionChangeProposal.objects.all()) == [first]


def test_another_speakers_session_is_not_found(ada_client, conference):
    theirs = make_session(conference, title="Compilers", speakers=[make_speaker(conference)])
    assert ada_client.get(propose_url(theirs)).status_code == 404
    assert ada_client.post(propose_url(theirs), proposal_data(theirs, title="X")).status_code == 404
    assert not SessionChangeProposal.objects.exists()


def test_the_proposal_page_is_personal(ada_client, talk):
    response = ada_client.get(propose_url(talk))
    assert {"private", "no-store"} <= set(response["Cache-Control"].replace(",", " ").split())


def test_my_talks_links_to_the_proposal_page(ada_client, talk):
    url = reverse("speakers:my_talks", kwargs={"conference_slug": talk.conference.slug})
    assert f'href="{propose_url(talk)}"' in ada_client.get(url).content.decode()


def test_markdown_of_a_proposal_is_cleaned_where_shown(ada_client, talk, speaker, organizer_client):
    proposal = propose(talk, speaker, abstract='<script>alert("x")</script> *fine*')
    for html in (
        ada_client.get(propose_url(talk)).content.decode(),
        organizer_client.get(change_url(proposal)).content.decode(),
    ):
        assert "<em>fine</em>" in html
        assert '<script>alert("x")' not in html


# --- Organizers' decision -----------------------------------------------------------------------


def test_an_organizer_accepts_and_the_session_takes_the_texts(
    organizer_client, organizer, talk, speaker, mailoutbox, django_capture_on_commit_callbacks
):
    proposal = propose(talk, speaker, title="Analytical Engines")
    version = talk.version
    talk.abstract = "Edited by the organizers meanwhile."
    talk.save()
    with django_capture_on_commit_callbacks(execute=True):
        response = organizer_client.post(
            change_url(proposal), {"decision": "accept", "message": "Better, thanks."}
        )
    assert response.status_code == 302
    talk.refresh_from_db()
    assert talk.title == "Analytical Engines"
    assert talk.abstract == "Edited by the organizers meanwhile."  # only what was proposed
    assert talk.version > version + 1  # saved as any edit: pages, release, webhooks follow
    proposal.refresh_from_db()
    assert (proposal.state, proposal.decided_by, proposal.message) == (
        "accepted",
        organizer,
        "Better, thanks.",
    )
    (mail,) = mailoutbox
    assert mail.to == ["ada@example.org"]
    assert mail.subject == "PyCon: your proposed change to “Engines” is accepted"
    assert "Better, thanks." in mail.body
    assert propose_url(talk) in mail.body
    entry = LogEntry.objects.get(object_id=str(talk.pk), content_type__model="session")
    assert entry.change_message == ("Changed title (accepted the change proposed by Ada Lovelace).")


def test_an_organizer_refuses_and_the_session_stays(
    organizer_client, talk, speaker, mailoutbox, django_capture_on_commit_callbacks, ada_client
):
    proposal = propose(talk, speaker, title="Analytical Engines")
    with django_capture_on_commit_callbacks(execute=True):
        organizer_client.post(change_url(proposal), {"decision": "refuse", "message": "Too long."})
    talk.refresh_from_db()
    assert talk.title == "Engines"
    proposal.refresh_from_db()
    assert proposal.state == "refused"
    (mail,) = mailoutbox
    assert mail.subject == "PyCon: your proposed change to “Engines” is refused"
    html = ada_client.get(propose_url(talk)).content.decode()
    assert "<strong>refused</strong>" in html
    assert "Too long." in html


def test_a_speaker_without_a_known_address_reads_the_answer_on_their_page(
    organizer_client, talk, speaker, ada, mailoutbox, django_capture_on_commit_callbacks, ada_client
):
    AccountEmail.objects.filter(user=ada).update(verified_address="")  # unconfirmed: not mailed
    proposal = propose(talk, speaker, title="Analytical Engines")
    with django_capture_on_commit_callbacks(execute=True):
        organizer_client.post(change_url(proposal), {"decision": "refuse", "message": "Too long."})
    assert mailoutbox == []
    assert "Too long." in ada_client.get(propose_url(talk)).content.decode()


def test_a_decision_is_required_and_final(organizer_client, organizer, talk, speaker):
    proposal = propose(talk, speaker, title="Analytical Engines")
    response = organizer_client.post(change_url(proposal), {"message": ""})
    assert response.status_code == 200
    assert "decision" in response.context["adminform"].form.errors
    proposal.refuse(organizer)
    with pytest.raises(ValidationError) as error:
        proposal.accept(organizer)
    assert error.value.messages == ["This proposal was already refused."]
    talk.refresh_from_db()
    assert talk.title == "Engines"
    # The admin shows a decided proposal, and changes nothing of it.
    assert organizer_client.get(change_url(proposal)).status_code == 200
    organizer_client.post(change_url(proposal), {"decision": "accept"})
    talk.refresh_from_db()
    assert talk.title == "Engines"


def test_accepting_texts_the_session_refuses_writes_nothing(organizer_client, talk, speaker):
    proposal = propose(talk, speaker, abstract="New abstract.")
    Session.objects.filter(pk=talk.pk).update(title="")  # a session its own rules now refuse
    response = organizer_client.post(change_url(proposal), {"decision": "accept"})
    assert response.status_code == 200
    (error,) = response.context["adminform"].form.non_field_errors()
    assert error.startswith("The session refuses the proposed texts:")
    proposal.refresh_from_db()
    assert proposal.is_pending
    talk.refresh_from_db()
    assert talk.abstract == "On engines."


def test_a_team_sees_only_its_conferences_proposals(client, django_user_model, talk, speaker):
    proposal = propose(talk, speaker, title="Analytical Engines")
    elsewhere = make_conference(slug="djangocon")
    theirs = django_user_model.objects.create_user("b", is_staff=True)
    make_team(theirs, conferences=[elsewhere], is_programme=True)
    client.force_login(theirs)
    changelist = reverse("admin:speakers_sessionchangeproposal_changelist")
    assert client.get(changelist).context["cl"].result_count == 0
    assert client.get(change_url(proposal)).status_code == 404


def test_a_reviewer_reads_proposals_but_cannot_decide(client, django_user_model, talk, speaker):
    proposal = propose(talk, speaker, title="Analytical Engines")
    reviewer = django_user_model.objects.create_user("r", is_staff=True)
    make_team(reviewer, conferences=[talk.conference], is_reviewer=True)
    client.force_login(reviewer)
    assert client.get(change_url(proposal)).status_code == 200
    assert client.post(change_url(proposal), {"decision": "accept"}).status_code == 403
    proposal.refresh_from_db()
    assert proposal.is_pending


def test_the_release_page_lists_waiting_proposals(organizer_client, talk, speaker):
    release_url = reverse("admin:schedule_session_release", args=[talk.conference.pk])
    assert "Speakers' proposals waiting" not in organizer_client.get(release_url).content.decode()
    proposal = propose(talk, speaker, title="Analytical Engines")
    html = organizer_client.get(release_url).content.decode()
    assert "Speakers' proposals waiting for an answer" in html
    assert f'href="{change_url(proposal)}"' in html
    assert "Ada Lovelace on “Engines”" in html


# --- Query counts -------------------------------------------------------------------------------


def decided_proposals(talk, speaker, organizer, count) -> None:
    for number in range(count):
        propose(talk, speaker, title=f"Engines {number}").refuse(organizer, "Not yet.")


@pytest.mark.parametrize("count", [1, 12])
def test_the_proposal_page_query_count_does_not_grow(
    ada_client, django_assert_max_num_queries, talk, speaker, organizer, count
):
    decided_proposals(talk, speaker, organizer, count)
    with django_assert_max_num_queries(8):
        response = ada_client.get(propose_url(talk))
    assert len(response.context["proposals"]) == count


@pytest.mark.parametrize("count", [1, 12])
def test_the_proposals_changelist_query_count_does_not_grow(
    organizer_client, django_assert_max_num_queries, talk, speaker, organizer, count
):
    decided_proposals(talk, speaker, organizer, count)
    with django_assert_max_num_queries(7):
        response = organizer_client.get(reverse("admin:speakers_sessionchangeproposal_changelist"))
    assert response.context["cl"].result_count == count


@pytest.mark.parametrize("count", [1, 12])
def test_the_release_page_query_count_does_not_grow_with_waiting_proposals(
    organizer_client, django_assert_max_num_queries, conference, speaker, count
):
    for number in range(count):
        session = make_session(conference, title=f"Talk {number}", speakers=[speaker])
        propose(session, speaker, title=f"Better talk {number}")
    release_url = reverse("admin:schedule_session_release", args=[conference.pk])
    with django_assert_max_num_queries(10):
        response = organizer_client.get(release_url)
    assert len(response.context["pending_proposals"]) == count


def test_the_admin_gives_proposal_times_in_the_conference_zone(organizer_client, talk, speaker):
    """Not the server's UTC: “7 Dec 2026, 14:11 UTC” was 15:11 in Paris."""
    proposal = propose(talk, speaker, title="Analytical Engines")
    proposed_at = datetime.datetime(2026, 12, 7, 14, 11, tzinfo=datetime.UTC)
    SessionChangeProposal.objects.filter(pk=proposal.pk).update(created_at=proposed_at)
    changelist = reverse("admin:speakers_sessionchangeproposal_changelist")
    for url in (changelist, change_url(proposal)):
        html = organizer_client.get(url).content.decode()
        assert "7 Dec 2026, 15:11 CET" in html
        assert "14:11" not in html

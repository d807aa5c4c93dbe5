"""Malformed and hostile input to a speaker's own forms (availability, change proposals) and to
the organizers' decision on a proposal: a page with errors or a saved value, never a 500, and
nothing half-saved."""

import pytest
from django.test import Client

from speakers.models import Availability, SessionChangeProposal
from tests.builders import make_session, make_speaker, paris
from tests.speakers.test_availability_page import availability_url, formset_data, window_data
from tests.speakers.test_proposals import change_url, proposal_data, propose, propose_url

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("immediate_tasks")]

SCRIPT = "<script>alert(1)</script>"
VALUES = [
    "\x00",
    "",
    " ",
    "not-a-date",
    "-1",
    "99999999999999999999999",
    "25:61",
    "9999-12-31",
    "0001-01-01",
    SCRIPT,
    "🦄' OR 1=1 --" + "x" * 30_000,
]


def value_id(value) -> str:
    return repr(value)[:20]


@pytest.fixture
def ada(django_user_model):
    return django_user_model.objects.create_user("ada", "ada@example.org", "speak-2026")


@pytest.fixture
def speaker(conference, ada):
    return make_speaker(conference, name="Ada Lovelace", user=ada)


@pytest.fixture
def talk(conference, speaker):
    return make_session(conference, title="Engines", abstract="On engines.", speakers=[speaker])


@pytest.fixture
def ada_client(ada):
    client = Client()
    client.force_login(ada)
    return client


@pytest.fixture
def window(speaker):
    return Availability.objects.create(speaker=speaker, starts_at=paris(8, 9), ends_at=paris(8, 12))


def windows(speaker):
    return list(speaker.availability.values_list("starts_at", "ends_at"))


@pytest.mark.parametrize("value", VALUES, ids=value_id)
def test_a_bad_value_in_every_window_field_saves_nothing(
    ada_client, conference, speaker, window, value
):
    data = formset_data(
        window_data(0, value, value, value, ends_day=value, pk=window.pk),
        window_data(1, "2026-04-07", "09:00", "12:00"),  # a good row: not saved alone
        window_data(2, value, value, value, ends_day=value),
        initial=1,
    )
    response = ada_client.post(availability_url(conference), data)
    assert response.status_code in (200, 400)  # 400: the NUL, refused before any form
    if response.status_code == 200:
        assert "Nothing was saved" in response.content.decode()
    assert windows(speaker) == [(paris(8, 9), paris(8, 12))]


@pytest.mark.parametrize("value", [*VALUES, "1001", "-5"], ids=value_id)
def test_a_tampered_window_count_saves_nothing(ada_client, conference, speaker, window, value):
    data = formset_data(window_data(0, "2026-04-07", "09:00", "12:00"))
    data |= {"availability-TOTAL_FORMS": value, "availability-INITIAL_FORMS": value}
    response = ada_client.post(availability_url(conference), data)
    assert response.status_code in (200, 302, 400)  # 302: a negative count is no rows at all
    assert windows(speaker) == [(paris(8, 9), paris(8, 12))]


def test_another_speakers_window_cannot_be_changed_from_the_page(
    ada_client, conference, speaker, window
):
    other = make_speaker(conference, name="Grace Hopper")
    theirs = Availability.objects.create(speaker=other, starts_at=paris(7, 9), ends_at=paris(7, 10))
    data = formset_data(window_data(0, "2026-04-07", "14:00", "15:00", pk=theirs.pk), initial=1)
    ada_client.post(availability_url(conference), data)
    assert list(other.availability.values_list("starts_at", "ends_at")) == [
        (paris(7, 9), paris(7, 10))
    ]
    assert windows(speaker) == [(paris(8, 9), paris(8, 12))]


@pytest.mark.parametrize("field", ["title", "abstract", "description"])
@pytest.mark.parametrize("value", VALUES, ids=value_id)
def test_a_bad_value_in_a_proposal_is_refused_or_kept_as_typed(
    ada_client, talk, speaker, field, value
):
    response = ada_client.post(propose_url(talk), proposal_data(talk, **{field: value}))
    assert response.status_code in (200, 302, 400)
    proposals = list(SessionChangeProposal.objects.all())
    if response.status_code != 302:
        assert proposals == []
    else:
        (proposal,) = proposals
        assert getattr(proposal, field).strip() == value.strip()
    assert SCRIPT not in ada_client.get(propose_url(talk)).content.decode()


@pytest.mark.parametrize("value", VALUES, ids=value_id)
def test_a_bad_decision_leaves_the_proposal_waiting(organizer_client, talk, speaker, value):
    proposal = propose(talk, speaker, title="Analytical Engines")
    response = organizer_client.post(change_url(proposal), {"decision": value, "message": value})
    assert response.status_code in (200, 400)
    proposal.refresh_from_db()
    assert proposal.is_pending
    talk.refresh_from_db()
    assert talk.title == "Engines"


@pytest.mark.parametrize("value", VALUES, ids=value_id)
def test_a_bad_message_with_a_refusal_is_refused_or_kept(organizer_client, talk, speaker, value):
    proposal = propose(talk, speaker, title="Analytical Engines")
    response = organizer_client.post(change_url(proposal), {"decision": "refuse", "message": value})
    assert response.status_code in (200, 302, 400)
    proposal.refresh_from_db()
    assert proposal.is_pending == (response.status_code != 302)

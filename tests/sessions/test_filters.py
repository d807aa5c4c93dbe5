"""SessionFilter takes only values the visitor may see: an unseen one is answered as an unknown one.

The same FilterSet serves the schedule pages, schedule.ics and the API, so each is checked here.
"""

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from sessions.models import Session
from tests.builders import make_conference, make_session, make_speaker, paris

pytestmark = pytest.mark.django_db

# Same length, so that pages echoing the address differ in nothing else.
HIDDEN_SLUG = "grace-hidden"
UNKNOWN_SLUG = "nobody-there"


@pytest.fixture
def conference():
    """A public talk, and a speaker whose only session is a draft."""
    conference = make_conference(slug="pycon")
    make_session(conference, title="Public talk", speakers=[make_speaker(conference)])
    hidden = make_speaker(conference, name="Grace Hidden", slug=HIDDEN_SLUG)
    make_session(
        conference,
        title="Draft talk",
        status=Session.Status.DRAFT,
        starts_at=paris(8, 11),
        speakers=[hidden],
    )
    return conference


def page(client, name, slug):
    return client.get(reverse(name, kwargs={"conference_slug": "pycon"}), {"speaker": slug})


@pytest.mark.parametrize("name", ["sessions:schedule", "sessions:schedule-grid"])
def test_a_speaker_with_only_drafts_is_an_unknown_speaker_on_the_schedule_pages(
    client, conference, name
):
    hidden = page(client, name, HIDDEN_SLUG).content.decode()
    unknown = page(client, name, UNKNOWN_SLUG).content.decode()
    assert "Grace Hidden" not in hidden
    assert hidden.replace(HIDDEN_SLUG, UNKNOWN_SLUG) == unknown


def test_a_speaker_with_only_drafts_is_an_unknown_speaker_in_schedule_ics(client, conference):
    hidden = page(client, "sessions:schedule-ics", HIDDEN_SLUG)
    unknown = page(client, "sessions:schedule-ics", UNKNOWN_SLUG)
    assert (hidden.status_code, hidden.content) == (400, unknown.content)


def test_a_speaker_with_only_drafts_is_an_unknown_speaker_in_the_api(conference):
    url = reverse("api:session-list", kwargs={"conference_slug": "pycon"})
    hidden = APIClient().get(url, {"speaker": HIDDEN_SLUG})
    unknown = APIClient().get(url, {"speaker": UNKNOWN_SLUG})
    assert (hidden.status_code, hidden.json()) == (400, unknown.json())


def test_staff_previewing_drafts_can_filter_by_their_speakers(admin_client, conference):
    response = page(admin_client, "sessions:schedule", HIDDEN_SLUG)
    assert [session.title for session in response.context["sessions"]] == ["Draft talk"]
    assert response.context["filter_chips"] == [("Speaker: Grace Hidden", "?")]


def test_staff_previewing_drafts_can_filter_by_their_speakers_in_the_api(admin_user, conference):
    client = APIClient()
    client.force_authenticate(admin_user)
    url = reverse("api:session-list", kwargs={"conference_slug": "pycon"})
    response = client.get(url, {"speaker": HIDDEN_SLUG})
    assert [session["title"] for session in response.json()["results"]] == ["Draft talk"]


def test_schedule_ics_holds_public_sessions_only_so_even_staff_get_the_unknown_answer(
    admin_client, conference
):
    response = page(admin_client, "sessions:schedule-ics", HIDDEN_SLUG)
    assert response.status_code == 400

"""A speaker's address is for staff: no page, API answer or export shows it."""

import pytest
from django.urls import reverse

from tests.api_fixtures import *  # noqa: F403 -- pytest fixtures, the autouse one included
from tests.builders import make_conference, make_room, make_session, make_speaker

pytestmark = pytest.mark.django_db

ADDRESS = "ann.private@speakers.example"


@pytest.fixture
def speaker():
    """Ann Lee of PyCon, with the address ``ADDRESS`` and a talk: someone pages could leak it on."""
    conference = make_conference(name="PyCon", slug="pycon")
    ann = make_speaker(conference, name="Ann Lee", slug="ann-lee", email=ADDRESS)
    make_session(conference, title="Graphs", room=make_room(conference), speakers=[ann])
    return ann


@pytest.mark.parametrize(
    "path",
    [
        "/pycon/speakers/",
        "/pycon/speakers/ann-lee/",
        "/pycon/schedule/",
        "/pycon/sessions/graphs/",
        "/pycon/sessions/graphs.ics",
        "/pycon/schedule.ics",
        "/pycon/schedule.xml",
        "/pycon/schedule.json",
        "/api/v1/conferences/pycon/speakers/",
        "/api/v1/conferences/pycon/speakers/ann-lee/",
        "/api/v1/conferences/pycon/sessions/",
        "/api/v1/conferences/pycon/sessions/graphs/",
    ],
)
def test_no_public_page_api_answer_or_export_shows_a_speakers_address(client, speaker, path):
    response = client.get(path)
    assert response.status_code == 200
    assert ADDRESS not in response.getvalue().decode()  # exports are streamed


def test_the_api_shows_staff_no_speaker_address_either(organizer_client, speaker):
    response = organizer_client.get("/api/v1/conferences/pycon/speakers/ann-lee/")
    assert response.status_code == 200
    assert "email" not in response.json()
    assert ADDRESS not in response.content.decode()


def test_staff_edit_the_address_in_the_admin(admin_client, speaker):
    response = admin_client.get(reverse("admin:speakers_speaker_change", args=[speaker.pk]))
    assert ADDRESS in response.content.decode()

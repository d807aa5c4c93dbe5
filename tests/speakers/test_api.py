import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from sessions.models import Session, SessionSpeaker
from speakers.models import Speaker, SpeakerLink
from tests.api_fixtures import *  # noqa: F403 -- pytest fixtures, the autouse one included
from tests.api_fixtures import client_with_permissions, stamps_read
from tests.builders import make_conference, make_session, make_speaker, paris

pytestmark = pytest.mark.django_db


@pytest.fixture
def conference():
    return make_conference(slug="pycon")


def list_url(conference):
    return reverse("api:speaker-list", kwargs={"conference_slug": conference.slug})


def detail_url(speaker):
    return reverse(
        "api:speaker-detail",
        kwargs={"conference_slug": speaker.conference.slug, "slug": speaker.slug},
    )


def names(response):
    assert response.status_code == 200, response.json()
    return [speaker["name"] for speaker in response.json()["results"]]


def test_speaker_list_shows_the_public_speakers_of_public_sessions_alphabetically(
    anonymous, conference
):
    make_session(conference, speakers=[make_speaker(conference, name="bob")])
    make_session(
        conference, speakers=[make_speaker(conference, name="Ada")], starts_at=paris(8, 11)
    )
    make_session(
        conference,
        status=Session.Status.DRAFT,
        speakers=[make_speaker(conference, name="Drafted")],
        starts_at=paris(8, 12),
    )
    make_speaker(conference, name="Unscheduled")
    make_session(make_conference(), speakers=[make_speaker(name="Elsewhere")])
    assert names(anonymous.get(list_url(conference))) == ["Ada", "bob"]


def test_speaker_list_shows_staff_every_speaker_of_the_conference(organizer_client, conference):
    make_session(conference, speakers=[make_speaker(conference, name="Scheduled")])
    make_speaker(conference, name="Unscheduled")
    assert names(organizer_client.get(list_url(conference))) == ["Scheduled", "Unscheduled"]


def test_speaker_giving_two_sessions_is_listed_once(anonymous, conference):
    ada = make_speaker(conference, name="Ada")
    make_session(conference, speakers=[ada])
    make_session(conference, speakers=[ada], starts_at=paris(8, 11))
    assert names(anonymous.get(list_url(conference))) == ["Ada"]


def test_speaker_detail_shows_the_whole_speaker(anonymous, conference):
    ada = make_speaker(
        conference, name="Ada", slug="ada", role="Analyst", company="AE", bio="Wrote programs."
    )
    SpeakerLink.objects.create(
        speaker=ada, title="GitHub", url="https://github.com/ada", position=1
    )
    SpeakerLink.objects.create(speaker=ada, title="Website", url="https://ada.example", position=0)
    make_session(conference, speakers=[ada])
    data = anonymous.get(detail_url(ada)).json()
    assert {
        key: value for key, value in data.items() if key not in ("created_at", "updated_at")
    } == {
        "id": ada.pk,
        "guid": ada.guid,
        "slug": "ada",
        "name": "Ada",
        "role": "Analyst",
        "company": "AE",
        "bio": "Wrote programs.",
        "photo": None,
        "links": [
            {"title": "Website", "url": "https://ada.example"},
            {"title": "GitHub", "url": "https://github.com/ada"},
        ],
        "url": "https://schedule.example.org/pycon/speakers/ada/",
    }


def test_speaker_photo_links_absolutely_to_the_photo_view(
    anonymous, conference, settings, tmp_path
):
    settings.MEDIA_ROOT = tmp_path
    ada = make_speaker(conference, slug="ada", photo=SimpleUploadedFile("ada.png", b"\x89PNG"))
    make_session(conference, speakers=[ada])
    response = anonymous.get(detail_url(ada))
    assert response.json()["photo"] == "https://schedule.example.org/pycon/speakers/ada/photo/"


def test_speaker_of_draft_sessions_only_is_a_404_for_the_public(anonymous, conference):
    speaker = make_speaker(conference)
    make_session(conference, status=Session.Status.DRAFT, speakers=[speaker])
    response = anonymous.get(detail_url(speaker))
    assert response.status_code == 404
    assert response.json() == {"detail": "No Speaker matches the given query."}


def test_speakers_of_an_unpublished_conference_are_a_404_for_ordinary_users(attendee_client):
    secret = make_conference(is_published=False)
    make_session(secret, speakers=[make_speaker(secret)])
    assert attendee_client.get(list_url(secret)).status_code == 404


@pytest.mark.parametrize("n", [1, 12])
def test_speaker_list_query_count_does_not_grow(
    anonymous, django_assert_max_num_queries, conference, n
):
    for _ in range(n):
        speakers = [make_speaker(conference), make_speaker(conference)]
        for speaker in speakers:
            SpeakerLink.objects.create(speaker=speaker, title="Site", url="https://site.example")
        make_session(conference, speakers=speakers)
    with django_assert_max_num_queries(4):
        response = anonymous.get(list_url(conference))
    assert response.json()["count"] == 2 * n


def new_speaker(**fields):
    return {"slug": "ada", "name": "Ada Lovelace", "role": "Analyst", "company": "AE", **fields}


def stored(speaker: Speaker) -> tuple:
    return (
        speaker.conference.slug,
        speaker.slug,
        speaker.name,
        speaker.role,
        speaker.company,
        speaker.bio,
    )


def ada_answer(speaker: Speaker, **fields) -> dict:
    """The API's answer about new_speaker() once stored as ``speaker``, with ``fields`` changed."""
    return {
        "id": speaker.pk,
        "guid": speaker.guid,
        "slug": "ada",
        "name": "Ada Lovelace",
        "role": "Analyst",
        "company": "AE",
        "bio": "",
        "photo": None,
        "links": [],
        "url": "https://schedule.example.org/pycon/speakers/ada/",
        "created_at": speaker.created_at,
        "updated_at": speaker.updated_at,
        **fields,
    }


def test_anonymous_clients_cannot_create_speakers(anonymous, conference):
    response = anonymous.post(list_url(conference), new_speaker(), format="json")
    assert response.status_code == 401
    assert Speaker.objects.count() == 0


def test_ordinary_users_cannot_create_speakers(attendee_client, conference):
    response = attendee_client.post(list_url(conference), new_speaker(), format="json")
    assert response.status_code == 403


def test_staff_create_a_speaker_in_the_conference_of_the_url(organizer_client, conference):
    response = organizer_client.post(
        list_url(conference), new_speaker(conference=make_conference().pk), format="json"
    )
    assert response.status_code == 201
    speaker = Speaker.objects.get()
    assert stored(speaker) == ("pycon", "ada", "Ada Lovelace", "Analyst", "AE", "")
    assert stamps_read(response.json()) == ada_answer(speaker)


def test_users_with_the_add_speaker_permission_create_speakers(attendee, conference):
    client = client_with_permissions(attendee, "add_speaker")
    response = client.post(
        list_url(conference), new_speaker(bio="Wrote the first program."), format="json"
    )
    assert response.status_code == 201
    speaker = Speaker.objects.get()
    assert stored(speaker) == (
        "pycon",
        "ada",
        "Ada Lovelace",
        "Analyst",
        "AE",
        "Wrote the first program.",
    )
    assert stamps_read(response.json()) == ada_answer(speaker, bio="Wrote the first program.")


def test_speaker_with_a_slug_already_used_in_the_conference_is_refused(
    organizer_client, conference
):
    make_speaker(conference, slug="ada")
    response = organizer_client.post(list_url(conference), new_speaker(), format="json")
    assert response.status_code == 400
    assert response.json() == {
        "non_field_errors": ["This conference already has a speaker with this slug."]
    }


def test_speaker_guid_cannot_be_written(organizer_client, conference):
    speaker = make_speaker(conference)
    organizer_client.patch(detail_url(speaker), {"guid": "mine"}, format="json")
    assert Speaker.objects.get().guid == speaker.guid


def test_staff_change_a_speakers_company(organizer_client, conference):
    speaker = make_speaker(conference, company="Old")
    response = organizer_client.patch(detail_url(speaker), {"company": "New"}, format="json")
    assert response.status_code == 200
    assert Speaker.objects.get().company == "New"


def test_deleting_a_speaker_takes_them_off_their_sessions(organizer_client, conference):
    speaker = make_speaker(conference)
    make_session(conference, speakers=[speaker])
    assert organizer_client.delete(detail_url(speaker)).status_code == 204
    assert (Speaker.objects.count(), SessionSpeaker.objects.count(), Session.objects.count()) == (
        0,
        0,
        1,
    )

import datetime

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from conference.models import Conference
from sessions.models import Session, SessionSpeaker
from speakers.models import Availability, Speaker, SpeakerLink
from tests.api_fixtures import *  # noqa: F403 -- pytest fixtures, the autouse one included
from tests.api_fixtures import client_in_team, stamps_read
from tests.builders import make_conference, make_session, make_speaker, paris

pytestmark = pytest.mark.django_db


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
        "avatar_url": "",
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
    """The API's answer to staff about new_speaker() stored as ``speaker``, with ``fields`` changed."""
    return {
        "id": speaker.pk,
        "guid": speaker.guid,
        "slug": "ada",
        "name": "Ada Lovelace",
        "role": "Analyst",
        "company": "AE",
        "bio": "",
        "photo": None,
        "avatar_url": "",
        "links": [],
        "url": "https://schedule.example.org/pycon/speakers/ada/",
        "created_at": speaker.created_at,
        "updated_at": speaker.updated_at,
        "availability": [],
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


def test_the_programme_team_creates_speakers(attendee, conference):
    client = client_in_team(attendee, conference, is_programme=True)
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
    # The conference's teams read availability: the answer carries it.
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


# --- Availability: staff read and write it --------------------------------------------------


def utc(hour: int, minute: int = 0, day: int = 8) -> datetime.datetime:
    return datetime.datetime(2026, 4, day, hour, minute, tzinfo=datetime.UTC)


def windows_of(speaker: Speaker) -> list[tuple]:
    return list(speaker.availability.values_list("starts_at", "ends_at"))


@pytest.fixture
def ada(conference):
    ada = make_speaker(conference, name="Ada", slug="ada")
    make_session(conference, speakers=[ada])
    Availability.objects.create(speaker=ada, starts_at=paris(8, 14), ends_at=paris(8, 16))
    Availability.objects.create(speaker=ada, starts_at=paris(7, 9), ends_at=paris(7, 12))
    return ada


def test_the_teams_read_a_speakers_availability_in_utc_in_order(organizer_client, ada):
    assert organizer_client.get(detail_url(ada)).json()["availability"] == [
        {"starts_at": "2026-04-07T07:00:00Z", "ends_at": "2026-04-07T10:00:00Z"},
        {"starts_at": "2026-04-08T12:00:00Z", "ends_at": "2026-04-08T14:00:00Z"},
    ]


def test_the_teams_read_availability_in_the_speaker_list(organizer_client, ada, conference):
    [listed] = organizer_client.get(list_url(conference)).json()["results"]
    assert listed["availability"] == organizer_client.get(detail_url(ada)).json()["availability"]


def test_availability_is_not_shown_to_anyone_but_the_teams(
    anonymous, attendee_client, ada, conference
):
    for client in (anonymous, attendee_client):
        assert "availability" not in client.get(detail_url(ada)).json()
        assert "availability" not in client.get(list_url(conference)).json()["results"][0]


def test_sessions_show_their_speakers_without_availability(organizer_client, ada, conference):
    session = ada.sessions.get()
    url = reverse(
        "api:session-detail", kwargs={"conference_slug": conference.slug, "slug": session.slug}
    )
    assert "availability" not in organizer_client.get(url).json()["speakers"][0]


def test_staff_replace_a_speakers_availability(organizer_client, ada):
    response = organizer_client.patch(
        detail_url(ada),
        {
            "availability": [
                {"starts_at": "2026-04-08T10:00:00", "ends_at": "2026-04-08T12:30:00"},
                {"starts_at": "2026-04-07T15:00:00Z", "ends_at": "2026-04-07T16:00:00+00:00"},
            ]
        },
        format="json",
    )
    assert response.status_code == 200, response.json()
    # Without an offset, in the conference's zone (Paris, UTC+2 in April).
    assert windows_of(ada) == [(utc(15, day=7), utc(16, day=7)), (utc(8), utc(10, 30))]
    assert response.json()["availability"] == [
        {"starts_at": "2026-04-07T15:00:00Z", "ends_at": "2026-04-07T16:00:00Z"},
        {"starts_at": "2026-04-08T08:00:00Z", "ends_at": "2026-04-08T10:30:00Z"},
    ]


def test_an_empty_list_makes_a_speaker_available_at_any_time(organizer_client, ada):
    response = organizer_client.patch(detail_url(ada), {"availability": []}, format="json")
    assert response.status_code == 200
    assert (windows_of(ada), response.json()["availability"]) == ([], [])


def test_a_write_without_availability_keeps_it(organizer_client, ada):
    response = organizer_client.put(
        detail_url(ada), {"slug": "ada", "name": "Ada L."}, format="json"
    )
    assert response.status_code == 200
    assert windows_of(ada) == [(utc(7, day=7), utc(10, day=7)), (utc(12), utc(14))]


def test_staff_create_a_speaker_with_availability(organizer_client, conference):
    response = organizer_client.post(
        list_url(conference),
        new_speaker(
            availability=[{"starts_at": "2026-04-07T09:00", "ends_at": "2026-04-07T13:00"}]
        ),
        format="json",
    )
    assert response.status_code == 201, response.json()
    assert windows_of(Speaker.objects.get()) == [(utc(7, day=7), utc(11, day=7))]


def test_overlapping_windows_are_refused_and_nothing_is_saved(organizer_client, ada):
    response = organizer_client.patch(
        detail_url(ada),
        {
            "availability": [
                {"starts_at": "2026-04-08T10:00", "ends_at": "2026-04-08T12:00"},
                {"starts_at": "2026-04-08T11:30", "ends_at": "2026-04-08T13:00"},
            ]
        },
        format="json",
    )
    assert response.status_code == 400
    assert response.json() == {
        "availability": [
            "Two windows overlap: Wednesday 8 April, 10:00–12:00 CEST and Wednesday 8 April, "
            "11:30–13:00 CEST. Join them into one window, or change one so they no longer "
            "overlap."
        ]
    }
    assert windows_of(ada) == [(utc(7, day=7), utc(10, day=7)), (utc(12), utc(14))]


def test_a_bad_window_is_refused_by_its_number_and_nothing_is_saved(organizer_client, ada):
    response = organizer_client.patch(
        detail_url(ada),
        {
            "company": "Babbage Ltd",
            "availability": [
                {"starts_at": "2026-04-08T10:00", "ends_at": "2026-04-08T12:00"},
                {"starts_at": "2026-04-08T12:00", "ends_at": "2026-04-08T11:00"},
                {"starts_at": "2026-04-10T09:00", "ends_at": "2026-04-10T10:00"},
            ],
        },
        format="json",
    )
    assert response.status_code == 400
    assert response.json() == {
        "availability": [
            "Window 2: An availability window must end after it starts.",
            "Window 3: PyCon runs from Tuesday 7 April 2026 to Wednesday 8 April 2026 "
            "(Europe/Paris); an availability window must lie within those days.",
        ]
    }
    assert (Speaker.objects.get().company, windows_of(ada)) == (
        "Example Labs",
        [(utc(7, day=7), utc(10, day=7)), (utc(12), utc(14))],
    )


@pytest.mark.parametrize(
    ("availability", "messages"),
    [
        ({"starts_at": "2026-04-08T10:00"}, ['Expected a list of items but got type "dict".']),
        (None, ["This field may not be null."]),
        (
            ["10:00", {"starts_at": "soon", "ends_at": "2026-04-08T12:00"}, {}, None],
            [
                "Window 1: Invalid data. Expected a dictionary, but got str.",
                "Window 2, starts_at: Datetime has wrong format. Use one of these formats "
                "instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].",
                "Window 3, starts_at: This field is required.",
                "Window 3, ends_at: This field is required.",
                "Window 4: This field may not be null.",
            ],
        ),
        (
            [{"starts_at": "2026-04-08T10:00", "ends_at": "2026-04-08T11:00"}] * 101,
            ["Ensure this field has no more than 100 elements."],
        ),
    ],
    ids=["object", "null", "bad windows", "too many"],
)
def test_malformed_availability_is_a_400_listing_plain_messages(
    organizer_client, ada, availability, messages
):
    response = organizer_client.patch(
        detail_url(ada), {"availability": availability}, format="json"
    )
    assert response.status_code == 400
    assert response.json() == {"availability": messages}
    assert len(windows_of(ada)) == 2


def test_changing_availability_moves_the_speakers_version_and_the_conference_changed_at(
    organizer_client, ada
):
    Conference.objects.update(changed_at=utc(0, day=1))
    before = Speaker.objects.get().version
    organizer_client.patch(detail_url(ada), {"availability": []}, format="json")
    assert Speaker.objects.get().version == before + 1
    assert Conference.objects.get().changed_at > utc(0, day=1)


def test_the_venue_team_cannot_set_availability(attendee, ada):
    client = client_in_team(attendee, ada.conference, is_venue=True)
    response = client.patch(detail_url(ada), {"availability": []}, format="json")
    assert response.status_code == 403
    assert len(windows_of(ada)) == 2


@pytest.mark.parametrize("n", [1, 12])
def test_speaker_list_query_count_for_staff_does_not_grow(
    organizer_client, django_assert_max_num_queries, conference, n
):
    for _ in range(n):
        speaker = make_speaker(conference)
        SpeakerLink.objects.create(speaker=speaker, title="Site", url="https://site.example")
        Availability.objects.create(speaker=speaker, starts_at=paris(8, 9), ends_at=paris(8, 12))
        Availability.objects.create(speaker=speaker, starts_at=paris(8, 14), ends_at=paris(8, 18))
    # 6: the conference, the organizer's teams, the speakers, their links, availability and
    # the count; not one per speaker.
    with django_assert_max_num_queries(6):
        response = organizer_client.get(list_url(conference))
    assert [len(speaker["availability"]) for speaker in response.json()["results"]] == [2] * n

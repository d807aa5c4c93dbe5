import datetime
import threading

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection, connections
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from sessions.models import Attachment, SavedSession, Session, SessionSpeaker
from speakers.models import SpeakerLink
from tests.api_fixtures import *  # noqa: F403 -- pytest fixtures, the autouse one included
from tests.api_fixtures import client_in_team, stamps_read
from tests.builders import (
    make_conference,
    make_room,
    make_session,
    make_speaker,
    make_track,
    paris,
)

pytestmark = pytest.mark.django_db


def list_url(conference):
    return reverse("api:session-list", kwargs={"conference_slug": conference.slug})


def detail_url(session):
    return reverse(
        "api:session-detail",
        kwargs={"conference_slug": session.conference.slug, "slug": session.slug},
    )


def titles(response):
    assert response.status_code == 200, response.json()
    return [session["title"] for session in response.json()["results"]]


# --- Reading ------------------------------------------------------------------------------------


def test_session_list_shows_the_public_published_and_cancelled_sessions_in_time_order(
    anonymous, conference
):
    make_session(conference, title="Later", starts_at=paris(8, 11))
    make_session(conference, title="Earlier", starts_at=paris(8, 9))
    make_session(conference, title="Called off", status=Session.Status.CANCELLED)
    make_session(conference, title="Secret", status=Session.Status.DRAFT)
    make_session(make_conference(), title="Elsewhere")
    assert titles(anonymous.get(list_url(conference))) == ["Earlier", "Called off", "Later"]


def test_session_list_hides_drafts_from_ordinary_users(attendee_client, conference):
    make_session(conference, title="Public")
    make_session(conference, title="Secret", status=Session.Status.DRAFT, starts_at=paris(8, 11))
    assert titles(attendee_client.get(list_url(conference))) == ["Public"]


def test_session_list_shows_drafts_to_staff(organizer_client, conference):
    make_session(conference, title="Secret", status=Session.Status.DRAFT)
    assert titles(organizer_client.get(list_url(conference))) == ["Secret"]


def test_sessions_of_an_unpublished_conference_are_a_404_for_the_public(anonymous):
    secret = make_conference(is_published=False)
    make_session(secret)
    response = anonymous.get(list_url(secret))
    assert response.status_code == 404
    assert response.json() == {"detail": "No Conference matches the given query."}


def test_session_embeds_its_room_track_speakers_and_times_in_utc(anonymous, conference):
    ada = make_speaker(conference, name="Ada", company="Analytical")
    bob = make_speaker(conference, name="Bob", company="")
    session = make_session(
        conference,
        title="Compilers",
        slug="compilers",
        kind=Session.Kind.WORKSHOP,
        audience_level=Session.AudienceLevel.ADVANCED,
        description="Deep.",
        starts_at=paris(8, 10, 35),
        ends_at=paris(8, 11, 35),
        room=make_room(conference, name="Hall A", slug="hall-a"),
        track=make_track(conference, name="ML", slug="ml", colour="#123456"),
        speakers=[bob, ada],
    )
    data = anonymous.get(list_url(conference)).json()["results"][0]
    assert stamps_read(data) == keynote_answer(
        session,
        slug="compilers",
        title="Compilers",
        kind="workshop",
        audience_level="advanced",
        description="Deep.",
        starts_at="2026-04-08T08:35:00Z",
        ends_at="2026-04-08T09:35:00Z",
        room={"slug": "hall-a", "name": "Hall A"},
        track={"slug": "ml", "name": "ML", "colour": "#123456"},
        speakers=[
            {"id": bob.pk, "slug": "bob", "name": "Bob", "company": ""},
            {"id": ada.pk, "slug": "ada", "name": "Ada", "company": "Analytical"},
        ],
        url="https://schedule.example.org/pycon/sessions/compilers/",
    )
    assert data["created_at"].endswith("Z")
    assert data["updated_at"].endswith("Z")


def test_session_times_stay_in_utc_when_the_visitor_chose_another_zone(anonymous, conference):
    make_session(conference, starts_at=paris(8, 10))
    anonymous.cookies["tz"] = "America/New_York"
    data = anonymous.get(list_url(conference)).json()["results"][0]
    assert data["starts_at"] == "2026-04-08T08:00:00Z"


def test_session_without_room_or_track_embeds_nulls(anonymous, conference):
    make_session(conference)
    data = anonymous.get(list_url(conference)).json()["results"][0]
    assert (data["room"], data["track"]) == (None, None)


def test_attachments_link_absolutely_to_files_and_urls_and_null_when_only_announced(
    anonymous, conference, settings, tmp_path
):
    settings.MEDIA_ROOT = tmp_path
    session = make_session(conference, slug="talk")
    slides = Attachment.objects.create(
        session=session,
        title="Slides",
        file=SimpleUploadedFile("slides.pdf", b"%PDF"),
        position=0,
    )
    Attachment.objects.create(
        session=session, title="Video", url="https://video.example/1", position=1
    )
    Attachment.objects.create(session=session, title="Notes", position=2)
    data = anonymous.get(list_url(conference)).json()["results"][0]
    assert data["attachments"] == [
        {
            "title": "Slides",
            "url": f"https://schedule.example.org/pycon/sessions/talk/attachments/{slides.pk}/",
            "kind": "",
        },
        {"title": "Video", "url": "https://video.example/1", "kind": ""},
        {"title": "Notes", "url": None, "kind": ""},
    ]


def test_session_list_expands_speakers_on_request(anonymous, conference):
    ada = make_speaker(conference, name="Ada", role="Analyst", company="AE", bio="First.")
    SpeakerLink.objects.create(speaker=ada, title="Website", url="https://ada.example")
    make_session(conference, speakers=[ada])
    response = anonymous.get(list_url(conference), {"expand": "speakers"})
    speaker = response.json()["results"][0]["speakers"][0]
    assert {key: speaker[key] for key in ("slug", "role", "bio", "links", "photo", "url")} == {
        "slug": "ada",
        "role": "Analyst",
        "bio": "First.",
        "links": [{"title": "Website", "url": "https://ada.example"}],
        "photo": None,
        "url": "https://schedule.example.org/pycon/speakers/ada/",
    }


def test_session_list_refuses_an_unknown_expansion(anonymous, conference):
    response = anonymous.get(list_url(conference), {"expand": "rooms"})
    assert response.status_code == 400
    assert response.json() == {"expand": ['"rooms" is not a valid choice.']}


def test_session_detail_shows_full_speakers(anonymous, conference):
    ada = make_speaker(conference, name="Ada", role="Analyst")
    session = make_session(conference, speakers=[ada])
    response = anonymous.get(detail_url(session))
    assert response.status_code == 200
    assert response.json()["speakers"][0]["role"] == "Analyst"


def test_draft_session_detail_is_a_404_for_the_public(anonymous, conference):
    session = make_session(conference, status=Session.Status.DRAFT)
    response = anonymous.get(detail_url(session))
    assert response.status_code == 404
    assert response.json() == {"detail": "No Session matches the given query."}


def test_draft_session_detail_is_shown_to_staff(organizer_client, conference):
    session = make_session(conference, status=Session.Status.DRAFT)
    assert organizer_client.get(detail_url(session)).json()["status"] == "draft"


def test_session_detail_ignores_list_filters(anonymous, conference):
    session = make_session(conference, kind=Session.Kind.TALK)
    assert anonymous.get(detail_url(session), {"kind": "workshop"}).status_code == 200


@pytest.mark.parametrize("n", [1, 12])
# Counts include the speakers' conference, prefetched once for every speaker, and the links.
@pytest.mark.parametrize(("query", "queries"), [({}, 9), ({"expand": "speakers"}, 10)])
def test_session_list_query_count_does_not_grow(
    anonymous, django_assert_max_num_queries, conference, n, query, queries
):
    room, track = make_room(conference), make_track(conference)
    for _ in range(n):
        session = make_session(
            conference,
            room=room,
            track=track,
            starts_at=paris(8, 9) + datetime.timedelta(minutes=30 * _),
            speakers=[make_speaker(conference), make_speaker(conference)],
        )
        Attachment.objects.create(session=session, title="Slides", url="https://slides.example")
    with django_assert_max_num_queries(queries):
        response = anonymous.get(list_url(conference), query)
    assert len(response.json()["results"]) == n


# --- Filters, updated_since, ordering, paging ------------------------------------------------


def test_session_list_filters_by_day_in_the_conference_zone(anonymous, conference):
    make_session(conference, title="Just after midnight", starts_at=paris(7, 0, 30))
    make_session(conference, title="Day two", starts_at=paris(8, 10))
    assert titles(anonymous.get(list_url(conference), {"day": "2026-04-07"})) == [
        "Just after midnight"
    ]


def test_session_list_filters_by_several_tracks(anonymous, conference):
    data, ml, web = (make_track(conference, name=name) for name in ("Data", "ML", "Web"))
    make_session(conference, title="Data talk", track=data, starts_at=paris(8, 9))
    make_session(conference, title="ML talk", track=ml, starts_at=paris(8, 10))
    make_session(conference, title="Web talk", track=web, starts_at=paris(8, 11))
    response = anonymous.get(list_url(conference), {"track": ["data", "ml"]})
    assert titles(response) == ["Data talk", "ML talk"]


def test_session_list_filters_by_room(anonymous, conference):
    make_session(conference, title="In the hall", room=make_room(conference, name="Hall"))
    make_session(conference, title="Elsewhere", room=make_room(conference, name="Attic"))
    assert titles(anonymous.get(list_url(conference), {"room": "hall"})) == ["In the hall"]


def test_session_list_filters_by_kind(anonymous, conference):
    make_session(conference, title="Workshop", kind=Session.Kind.WORKSHOP)
    make_session(conference, title="Talk", kind=Session.Kind.TALK)
    assert titles(anonymous.get(list_url(conference), {"kind": "workshop"})) == ["Workshop"]


def test_session_list_filters_by_audience_level(anonymous, conference):
    make_session(conference, title="Hard", audience_level=Session.AudienceLevel.ADVANCED)
    make_session(conference, title="Easy", audience_level=Session.AudienceLevel.BEGINNER)
    assert titles(anonymous.get(list_url(conference), {"level": "beginner"})) == ["Easy"]


def test_session_list_filters_by_speaker(anonymous, conference):
    ada = make_speaker(conference, name="Ada")
    make_session(conference, title="Ada's talk", speakers=[ada])
    make_session(conference, title="Other talk", speakers=[make_speaker(conference)])
    assert titles(anonymous.get(list_url(conference), {"speaker": "ada"})) == ["Ada's talk"]


def test_session_list_searches_titles_descriptions_and_speakers(anonymous, conference):
    grace = make_speaker(conference, name="Grace Hopper", company="US Navy")
    make_session(conference, title="Compilers", speakers=[grace], starts_at=paris(8, 9))
    make_session(conference, title="GEMM", description="Navy blue kernels", starts_at=paris(8, 10))
    make_session(conference, title="Unrelated", starts_at=paris(8, 11))
    assert titles(anonymous.get(list_url(conference), {"q": "navy"})) == ["Compilers", "GEMM"]


def test_session_list_on_a_day_outside_the_conference_is_empty(anonymous, conference):
    make_session(conference)
    response = anonymous.get(list_url(conference), {"day": "9999-12-31"})
    assert (response.status_code, response.json()["results"]) == (200, [])


@pytest.mark.parametrize(
    ("query", "errors"),
    [
        ({"day": "not-a-date"}, {"day": ["Enter a valid date."]}),
        (
            {"track": "no-such-track"},
            {
                "track": [
                    "Select a valid choice. no-such-track is not one of the available choices."
                ]
            },
        ),
        (
            {"room": "no-such-room"},
            {"room": ["Select a valid choice. no-such-room is not one of the available choices."]},
        ),
        (
            {"kind": "rave"},
            {"kind": ["Select a valid choice. rave is not one of the available choices."]},
        ),
        (
            {"level": "guru"},
            {"level": ["Select a valid choice. guru is not one of the available choices."]},
        ),
        (
            {"speaker": "nobody"},
            {
                "speaker": [
                    "Select a valid choice. That choice is not one of the available choices."
                ]
            },
        ),
        ({"q": "x" * 201}, {"q": ["Ensure this value has at most 200 characters (it has 201)."]}),
    ],
)
def test_session_list_answers_an_invalid_filter_with_a_400_naming_it(
    anonymous, conference, query, errors
):
    response = anonymous.get(list_url(conference), query)
    assert response.status_code == 400
    assert response.json() == errors


def test_session_list_reports_every_invalid_filter_at_once(anonymous, conference):
    response = anonymous.get(list_url(conference), {"day": "x", "kind": "rave"})
    assert sorted(response.json()) == ["day", "kind"]


def test_session_filters_only_know_the_tracks_of_the_conference(anonymous, conference):
    make_track(make_conference(), name="Data")
    response = anonymous.get(list_url(conference), {"track": "data"})
    assert response.status_code == 400


def test_updated_since_lists_sessions_changed_at_or_after_that_instant(anonymous, conference):
    old = make_session(conference, title="Old", starts_at=paris(8, 9))
    make_session(conference, title="New", starts_at=paris(8, 10))
    cutoff = timezone.now()
    Session.objects.filter(pk=old.pk).update(updated_at=cutoff - datetime.timedelta(hours=1))
    Session.objects.exclude(pk=old.pk).update(updated_at=cutoff)
    response = anonymous.get(list_url(conference), {"updated_since": cutoff.isoformat()})
    assert titles(response) == ["New"]


def test_updated_since_reads_a_time_without_offset_as_utc(anonymous, conference):
    session = make_session(conference)
    Session.objects.filter(pk=session.pk).update(
        updated_at=datetime.datetime(2026, 1, 1, 12, tzinfo=datetime.UTC)
    )
    assert (
        titles(anonymous.get(list_url(conference), {"updated_since": "2026-01-01T12:00:01"})) == []
    )
    assert (
        len(titles(anonymous.get(list_url(conference), {"updated_since": "2026-01-01T12:00"}))) == 1
    )


def test_updated_since_stays_utc_when_a_display_zone_is_chosen(anonymous, conference):
    session = make_session(conference)
    Session.objects.filter(pk=session.pk).update(
        updated_at=datetime.datetime(2026, 1, 1, 12, tzinfo=datetime.UTC)
    )
    query = {"updated_since": "2026-01-01T12:00", "tz": "America/New_York"}
    assert len(titles(anonymous.get(list_url(conference), query))) == 1


@pytest.mark.parametrize(
    ("since", "zone", "expected"),
    [("0001-01-01T00:00:00", "Asia/Tokyo", 1), ("9999-12-31T23:59:59", "America/New_York", 0)],
)
def test_updated_since_at_the_ends_of_the_calendar_is_answered(
    anonymous, conference, since, zone, expected
):
    make_session(conference)
    response = anonymous.get(list_url(conference), {"updated_since": since, "tz": zone})
    assert len(titles(response)) == expected


def test_updated_since_that_is_not_a_date_time_is_a_400(anonymous, conference):
    response = anonymous.get(list_url(conference), {"updated_since": "yesterday"})
    assert response.status_code == 400
    assert response.json() == {
        "updated_since": [
            "Datetime has wrong format. Use one of these formats instead: "
            "YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z]."
        ]
    }


@pytest.mark.parametrize(
    ("ordering", "expected"),
    [
        ("title", ["Alpha", "Beta", "Gamma"]),
        ("-title", ["Gamma", "Beta", "Alpha"]),
        ("starts_at", ["Beta", "Gamma", "Alpha"]),
        ("-starts_at", ["Alpha", "Gamma", "Beta"]),
        ("updated_at", ["Gamma", "Alpha", "Beta"]),
    ],
)
def test_session_list_orders_on_request(anonymous, conference, ordering, expected):
    for title, hour in (("Alpha", 12), ("Beta", 9), ("Gamma", 10)):
        make_session(conference, title=title, starts_at=paris(8, hour))
    for minutes, title in enumerate(["Gamma", "Alpha", "Beta"]):
        Session.objects.filter(title=title).update(
            updated_at=timezone.now() + datetime.timedelta(minutes=minutes)
        )
    assert titles(anonymous.get(list_url(conference), {"ordering": ordering})) == expected


def test_session_list_refuses_an_unknown_ordering(anonymous, conference):
    response = anonymous.get(list_url(conference), {"ordering": "room"})
    assert response.status_code == 400
    assert response.json() == {
        "ordering": [
            "Order by one of: -starts_at, -title, -updated_at, starts_at, title, updated_at."
        ]
    }


def test_session_list_pages_with_a_count(anonymous, conference):
    for hour in (9, 10, 11):
        make_session(conference, title=f"At {hour}", starts_at=paris(8, hour))
    data = anonymous.get(list_url(conference), {"limit": 2, "offset": 1}).json()
    assert (data["count"], [s["title"] for s in data["results"]]) == (3, ["At 10", "At 11"])


# --- Writing ------------------------------------------------------------------------------------


def new_session(**fields):
    return {
        "slug": "keynote",
        "title": "Keynote",
        "kind": "keynote",
        "status": "published",
        "starts_at": "2026-04-08T09:00:00+02:00",
        "ends_at": "2026-04-08T09:45:00+02:00",
        **fields,
    }


def stored(session: Session) -> dict:
    """What a write sets on a session, read back from the database."""
    return {
        "conference": session.conference.slug,
        "slug": session.slug,
        "title": session.title,
        "kind": session.kind,
        "status": session.status,
        "audience_level": session.audience_level,
        "description": session.description,
        "starts_at": session.starts_at,
        "ends_at": session.ends_at,
        "room": session.room.slug if session.room else None,
        "track": session.track.slug if session.track else None,
        "speakers": [speaker.slug for speaker in session.ordered_speakers],
    }


# What new_session() stores: 09:00-09:45 Paris time, without room, track or speakers.
STORED_KEYNOTE = {
    "conference": "pycon",
    "slug": "keynote",
    "title": "Keynote",
    "kind": "keynote",
    "status": "published",
    "audience_level": "any",
    "description": "",
    "starts_at": paris(8, 9),
    "ends_at": paris(8, 9, 45),
    "room": None,
    "track": None,
    "speakers": [],
}


def keynote_answer(session: Session, **fields) -> dict:
    """The API's answer about new_session() once stored as ``session``, with ``fields`` changed:
    every key of a session's answer, written out once."""
    return {
        "id": session.pk,
        "guid": session.guid,
        "conference": "pycon",
        "slug": "keynote",
        "title": "Keynote",
        "kind": "keynote",
        "status": "published",
        "audience_level": "any",
        "description": "",
        "subtitle": "",
        "type_label": "",
        "language": "",
        "abstract": "",
        "do_not_record": False,
        "recording_license": "",
        "feedback_url": None,
        "logo_url": None,
        "source_url": None,
        "origin_url": None,
        "code": "",
        "starts_at": "2026-04-08T07:00:00Z",
        "ends_at": "2026-04-08T07:45:00Z",
        "time_zone": "Europe/Paris",
        "room": None,
        "track": None,
        "speakers": [],
        "attachments": [],
        "links": [],
        "url": "https://schedule.example.org/pycon/sessions/keynote/",
        "created_at": session.created_at,
        "updated_at": session.updated_at,
        **fields,
    }


def test_anonymous_clients_cannot_create_sessions(anonymous, conference):
    response = anonymous.post(list_url(conference), new_session(), format="json")
    assert response.status_code == 401
    assert Session.objects.count() == 0


def test_ordinary_users_cannot_create_sessions(attendee_client, conference):
    response = attendee_client.post(list_url(conference), new_session(), format="json")
    assert response.status_code == 403


def test_the_programme_team_creates_sessions(attendee, conference):
    client = client_in_team(attendee, conference, is_programme=True)
    response = client.post(list_url(conference), new_session(), format="json")
    assert response.status_code == 201
    session = Session.objects.get()
    assert stored(session) == STORED_KEYNOTE
    assert stamps_read(response.json()) == keynote_answer(session)


def test_an_empty_slug_is_refused_not_taken_for_no_track(organizer_client, conference):
    """The schema asks for a slug or null: "" is neither (schemathesis sends it)."""
    response = organizer_client.post(list_url(conference), new_session(track=""), format="json")
    assert response.status_code == 400
    assert response.json() == {"track": ["Give a slug, or null for none."]}
    assert Session.objects.count() == 0


def test_staff_create_a_session_with_speakers_in_billing_order(organizer_client, conference):
    make_room(conference, slug="hall", name="Hall")
    make_track(conference, slug="ml", name="ML", colour="#123456")
    make_speaker(conference, slug="ada", name="Ada")
    make_speaker(conference, slug="bob", name="Bob")
    response = organizer_client.post(
        list_url(conference),
        new_session(
            room="hall",
            track="ml",
            speakers=["bob", "ada"],
            audience_level="beginner",
            description="Opening *words*.",
        ),
        format="json",
    )
    assert response.status_code == 201
    session = Session.objects.get()
    assert stored(session) == {
        **STORED_KEYNOTE,
        "audience_level": "beginner",
        "description": "Opening *words*.",
        "room": "hall",
        "track": "ml",
        "speakers": ["bob", "ada"],
    }
    body = stamps_read(response.json())
    speakers = body.pop("speakers")
    expected = keynote_answer(
        session,
        audience_level="beginner",
        description="Opening *words*.",
        room={"slug": "hall", "name": "Hall"},
        track={"slug": "ml", "name": "ML", "colour": "#123456"},
    )
    del expected["speakers"]
    assert body == expected
    # Speakers come whole (role, bio, links), in billing order.
    assert [(s["slug"], s["name"], s["role"], s["links"]) for s in speakers] == [
        ("bob", "Bob", "Engineer", []),
        ("ada", "Ada", "Engineer", []),
    ]


def test_session_is_created_in_the_conference_of_the_url_whatever_the_body_says(
    organizer_client, conference
):
    other = make_conference(slug="other")
    response = organizer_client.post(
        list_url(conference), new_session(conference="other"), format="json"
    )
    assert response.status_code == 201
    session = Session.objects.get()
    assert stored(session) == STORED_KEYNOTE
    assert stamps_read(response.json()) == keynote_answer(session)
    assert other.sessions.count() == 0


def test_session_times_without_offset_are_read_in_the_conference_zone(organizer_client, conference):
    response = organizer_client.post(
        list_url(conference),
        new_session(starts_at="2026-04-08T09:00:00", ends_at="2026-04-08T09:45:00"),
        format="json",
    )
    assert response.status_code == 201
    session = Session.objects.get()
    assert (session.starts_at, session.ends_at) == (paris(8, 9), paris(8, 9, 45))
    assert stored(session) == STORED_KEYNOTE
    assert stamps_read(response.json()) == keynote_answer(session)


def test_session_double_booking_a_room_is_refused_naming_the_clash(organizer_client, conference):
    room = make_room(conference, name="Hall", slug="hall")
    make_session(conference, title="Opening", room=room, starts_at=paris(8, 9, 30))
    response = organizer_client.post(list_url(conference), new_session(room="hall"), format="json")
    assert response.status_code == 400
    assert response.json() == {
        "room": ["Hall already hosts “Opening” then (Wednesday 8 April 2026 09:30–10:00 CEST)."]
    }
    assert Session.objects.count() == 1


def test_session_double_booking_a_speaker_is_refused_and_nothing_is_saved(
    organizer_client, conference
):
    ada = make_speaker(conference, name="Ada", slug="ada")
    make_speaker(conference, slug="bob")
    make_session(conference, title="Ada elsewhere", speakers=[ada], starts_at=paris(8, 9, 30))
    response = organizer_client.post(
        list_url(conference), new_session(speakers=["bob", "ada"]), format="json"
    )
    assert response.status_code == 400
    assert response.json() == {
        "speakers": [
            "Ada already gives “Ada elsewhere” then (Wednesday 8 April 2026 09:30–10:00 CEST)."
        ]
    }
    assert list(Session.objects.values_list("title", flat=True)) == ["Ada elsewhere"]
    assert SessionSpeaker.objects.count() == 1


@pytest.mark.skipif(connection.vendor != "postgresql", reason="needs parallel connections")
@pytest.mark.django_db(transaction=True)
def test_clashing_bookings_sent_at_once_get_one_201_and_400s_naming_the_clash(organizer):
    conference = make_conference(slug="pycon")
    make_room(conference, slug="hall")
    barrier, answers = threading.Barrier(4), []

    def book(number):
        client = APIClient()
        client.force_authenticate(organizer)
        body = new_session(slug=f"contender-{number}", title=f"Contender {number}", room="hall")
        barrier.wait()
        try:
            response = client.post(list_url(conference), body, format="json")
            answers.append((response.status_code, response.json()))
        finally:
            connections.close_all()

    threads = [threading.Thread(target=book, args=(number,)) for number in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(status for status, _ in answers) == [201, 400, 400, 400]
    assert [sorted(body) for status, body in answers if status == 400] == [["room"]] * 3
    # The one session stored is the one the 201 answered about.
    [created] = [body for status, body in answers if status == 201]
    session = Session.objects.get()
    assert (session.pk, session.slug, session.title, session.room.slug) == (
        created["id"],
        created["slug"],
        created["title"],
        created["room"]["slug"],
    )


def test_session_listing_a_speaker_twice_is_refused(organizer_client, conference):
    make_speaker(conference, slug="ada")
    response = organizer_client.post(
        list_url(conference), new_session(speakers=["ada", "ada"]), format="json"
    )
    assert response.status_code == 400
    assert response.json() == {"speakers": ["This speaker is already on this session."]}
    assert Session.objects.count() == 0


def test_session_ending_before_it_starts_is_refused(organizer_client, conference):
    response = organizer_client.post(
        list_url(conference),
        new_session(ends_at="2026-04-08T08:00:00+02:00"),
        format="json",
    )
    assert response.status_code == 400
    assert response.json() == {"ends_at": ["A session must end after it starts."]}


def test_session_outside_the_conference_days_is_refused(organizer_client, conference):
    response = organizer_client.post(
        list_url(conference),
        new_session(starts_at="2026-04-09T09:00:00+02:00", ends_at="2026-04-09T10:00:00+02:00"),
        format="json",
    )
    assert response.status_code == 400
    assert response.json() == {
        "starts_at": [
            f"{conference.name} runs from Tuesday 7 April 2026 to Wednesday 8 April 2026 "
            "(Europe/Paris); this session must lie within those days."
        ]
    }


def test_session_with_a_slug_already_used_in_the_conference_is_refused(
    organizer_client, conference
):
    make_session(conference, slug="keynote", starts_at=paris(7, 9))
    response = organizer_client.post(list_url(conference), new_session(), format="json")
    assert response.status_code == 400
    assert response.json() == {
        "non_field_errors": ["This conference already has a session with this slug."]
    }


@pytest.mark.parametrize(
    ("field", "value", "error"),
    [
        ("room", "nowhere", "This conference has no room with the slug “nowhere”."),
        ("track", "nothing", "This conference has no track with the slug “nothing”."),
        ("speakers", ["nobody"], "This conference has no speaker with the slug “nobody”."),
    ],
)
def test_session_naming_an_unknown_slug_is_refused(
    organizer_client, conference, field, value, error
):
    response = organizer_client.post(
        list_url(conference), new_session(**{field: value}), format="json"
    )
    assert response.status_code == 400
    assert response.json() == {field: [error]}


def test_session_cannot_use_a_room_of_another_conference(organizer_client, conference):
    make_room(make_conference(), slug="hall")
    response = organizer_client.post(list_url(conference), new_session(room="hall"), format="json")
    assert response.json() == {"room": ["This conference has no room with the slug “hall”."]}


def test_staff_change_a_title_and_keep_the_speakers(organizer_client, conference):
    session = make_session(conference, speakers=[make_speaker(conference, slug="ada")])
    response = organizer_client.patch(detail_url(session), {"title": "Renamed"}, format="json")
    assert response.status_code == 200
    assert response.json()["title"] == "Renamed"
    assert [s["slug"] for s in response.json()["speakers"]] == ["ada"]


def test_staff_replace_the_speakers_of_a_session(organizer_client, conference):
    ada, bob = make_speaker(conference, slug="ada"), make_speaker(conference, slug="bob")
    make_speaker(conference, slug="cy")
    session = make_session(conference, speakers=[ada, bob])
    response = organizer_client.patch(
        detail_url(session), {"speakers": ["cy", "ada"]}, format="json"
    )
    assert response.status_code == 200
    assert [s.slug for s in Session.objects.get().ordered_speakers] == ["cy", "ada"]


def test_moving_a_session_onto_its_speakers_other_session_is_refused(organizer_client, conference):
    ada = make_speaker(conference, name="Ada")
    make_session(conference, title="Ada at eleven", speakers=[ada], starts_at=paris(8, 11))
    session = make_session(conference, speakers=[ada], starts_at=paris(8, 9))
    response = organizer_client.patch(
        detail_url(session),
        {"starts_at": "2026-04-08T11:00:00+02:00", "ends_at": "2026-04-08T11:30:00+02:00"},
        format="json",
    )
    assert response.status_code == 400
    assert response.json() == {
        "starts_at": [
            "Ada already gives “Ada at eleven” then (Wednesday 8 April 2026 11:00–11:30 CEST)."
        ]
    }


def test_ordinary_users_cannot_change_sessions(attendee_client, conference):
    session = make_session(conference)
    response = attendee_client.patch(detail_url(session), {"title": "Mine"}, format="json")
    assert response.status_code == 403


def test_a_session_time_in_year_one_east_of_utc_is_a_400(organizer_client, conference):
    response = organizer_client.post(
        list_url(conference), new_session(starts_at="0001-01-01T00:00:00"), format="json"
    )
    assert response.status_code == 400
    assert response.json() == {"starts_at": ["Datetime value out of range."]}


def test_staff_delete_a_session(organizer_client, conference):
    session = make_session(conference)
    assert organizer_client.delete(detail_url(session)).status_code == 204
    assert Session.objects.count() == 0


# --- My schedule --------------------------------------------------------------------------------


def my_schedule(client, conference):
    return client.get(reverse("api:my-schedule"), {"conference": conference.slug})


def entry_url(session):
    return reverse(
        "api:my-schedule-entry",
        kwargs={"conference_slug": session.conference.slug, "session_slug": session.slug},
    )


@pytest.mark.parametrize(
    ("method", "url"),
    [
        ("get", "/api/v1/me/schedule/?conference=pycon"),
        ("post", "/api/v1/me/schedule/"),
        ("delete", "/api/v1/me/schedule/pycon/keynote/"),
    ],
)
def test_my_schedule_needs_authentication(anonymous, conference, method, url):
    response = getattr(anonymous, method)(url)
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == "Token"
    assert response.json() == {"detail": "Authentication credentials were not provided."}


def test_my_schedule_lists_my_saved_sessions_of_that_conference_by_time(
    attendee, attendee_client, conference
):
    later = make_session(conference, title="Later", starts_at=paris(8, 14))
    earlier = make_session(conference, title="Earlier", starts_at=paris(8, 9))
    make_session(conference, title="Not saved", starts_at=paris(8, 11))
    elsewhere = make_session(make_conference(), title="Elsewhere")
    for session in (later, earlier, elsewhere):
        SavedSession.objects.add(attendee, session)
    assert titles(my_schedule(attendee_client, conference)) == ["Earlier", "Later"]


def test_my_schedule_never_shows_another_users_saves(
    attendee_client, django_user_model, conference
):
    someone = django_user_model.objects.create_user("someone")
    SavedSession.objects.add(someone, make_session(conference))
    assert titles(my_schedule(attendee_client, conference)) == []


def test_my_schedule_needs_a_conference(attendee_client):
    response = attendee_client.get(reverse("api:my-schedule"))
    assert response.status_code == 400
    assert response.json() == {"conference": ["This field is required."]}


def test_my_schedule_refuses_an_unknown_conference(attendee_client):
    response = attendee_client.get(reverse("api:my-schedule"), {"conference": "nowhere"})
    assert response.status_code == 400
    assert response.json() == {"conference": ["Object with slug=nowhere does not exist."]}


def test_saving_a_session_puts_it_on_my_schedule(attendee, attendee_client, conference):
    room = make_room(conference, slug="hall", name="Hall")
    session = make_session(conference, slug="keynote", title="Keynote", room=room)
    response = attendee_client.post(
        reverse("api:my-schedule"), {"conference": "pycon", "session": "keynote"}, format="json"
    )
    assert response.status_code == 201
    saved = SavedSession.objects.get()
    assert (saved.user, saved.session, saved.seen_starts_at, saved.seen_room) == (
        attendee,
        session,
        paris(8, 10),
        room,
    )
    # The session as schedules list it (speakers named, not described).
    assert stamps_read(response.json()) == keynote_answer(
        session,
        kind="talk",
        starts_at="2026-04-08T08:00:00Z",
        ends_at="2026-04-08T08:30:00Z",
        room={"slug": "hall", "name": "Hall"},
    )


def test_saving_a_session_twice_keeps_one_entry_and_answers_200(attendee_client, conference):
    make_session(conference, slug="keynote")
    body = {"conference": "pycon", "session": "keynote"}
    attendee_client.post(reverse("api:my-schedule"), body, format="json")
    response = attendee_client.post(reverse("api:my-schedule"), body, format="json")
    assert response.status_code == 200
    assert SavedSession.objects.count() == 1


def test_saving_a_cancelled_session_is_refused(attendee_client, conference):
    make_session(conference, slug="gone", status=Session.Status.CANCELLED)
    response = attendee_client.post(
        reverse("api:my-schedule"), {"conference": "pycon", "session": "gone"}, format="json"
    )
    assert response.status_code == 400
    assert response.json() == {"session": ["Only published sessions can be saved."]}


def test_saving_a_draft_session_is_refused_without_revealing_it(attendee_client, conference):
    make_session(conference, slug="secret", status=Session.Status.DRAFT)
    response = attendee_client.post(
        reverse("api:my-schedule"), {"conference": "pycon", "session": "secret"}, format="json"
    )
    assert response.status_code == 400
    assert response.json() == {
        "session": ["This conference has no session with the slug “secret”."]
    }
    assert SavedSession.objects.count() == 0


def test_removing_a_saved_session_takes_it_off_my_schedule(attendee, attendee_client, conference):
    session = make_session(conference)
    SavedSession.objects.add(attendee, session)
    assert attendee_client.delete(entry_url(session)).status_code == 204
    assert SavedSession.objects.count() == 0


def test_removing_a_session_that_is_not_saved_is_a_404(attendee_client, conference):
    response = attendee_client.delete(entry_url(make_session(conference)))
    assert response.status_code == 404
    assert response.json() == {"detail": "This session is not on your schedule."}


def test_removing_never_touches_another_users_save(attendee_client, django_user_model, conference):
    session = make_session(conference)
    someone = django_user_model.objects.create_user("someone")
    SavedSession.objects.add(someone, session)
    assert attendee_client.delete(entry_url(session)).status_code == 404
    assert SavedSession.objects.filter(user=someone).count() == 1


NOT_ON_MY_SCHEDULE = (404, {"detail": "This session is not on your schedule."})


def answer(response):
    return response.status_code, response.json()


def test_removing_a_draft_is_answered_as_removing_a_session_that_does_not_exist(
    attendee, attendee_client, conference
):
    draft = make_session(conference, status=Session.Status.DRAFT)
    SavedSession.objects.create(user=attendee, session=draft)  # saved before it was withdrawn
    missing = attendee_client.delete("/api/v1/me/schedule/pycon/no-such-session/")
    assert answer(attendee_client.delete(entry_url(draft))) == answer(missing) == NOT_ON_MY_SCHEDULE


def test_removing_from_an_unpublished_conference_is_answered_as_from_one_that_does_not_exist(
    attendee, attendee_client
):
    session = make_session(make_conference(slug="secret", is_published=False))
    SavedSession.objects.create(user=attendee, session=session)
    missing = attendee_client.delete("/api/v1/me/schedule/nowhere/no-such-session/")
    assert answer(attendee_client.delete(entry_url(session))) == answer(missing)
    assert answer(missing) == NOT_ON_MY_SCHEDULE


def test_saving_in_an_unpublished_conference_is_answered_as_in_one_that_does_not_exist(
    attendee_client,
):
    make_session(make_conference(slug="secret", is_published=False), slug="talk")
    hidden = attendee_client.post(
        reverse("api:my-schedule"), {"conference": "secret", "session": "talk"}, format="json"
    )
    missing = attendee_client.post(
        reverse("api:my-schedule"), {"conference": "nowhr", "session": "talk"}, format="json"
    )
    assert (hidden.status_code, hidden.content.replace(b"secret", b"nowhr")) == (
        400,
        missing.content,
    )


@pytest.mark.parametrize("n", [1, 12])
def test_my_schedule_query_count_does_not_grow(
    attendee, attendee_client, django_assert_max_num_queries, conference, n
):
    for index in range(n):
        session = make_session(
            conference,
            starts_at=paris(8, 9) + datetime.timedelta(minutes=30 * index),
            speakers=[make_speaker(conference), make_speaker(conference)],
        )
        SavedSession.objects.add(attendee, session)
    with django_assert_max_num_queries(7):  # one of them for the sessions' links
        response = my_schedule(attendee_client, conference)
    assert response.json()["count"] == n

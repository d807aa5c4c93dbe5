import datetime
import re

import pytest
import yaml
from django.db import IntegrityError
from django.urls import reverse
from rest_framework.test import APIClient
from rest_framework.throttling import AnonRateThrottle

from conference.api.policies import VersionedObjectMixin
from conference.api.views import RoomViewSet
from conference.models import ApiToken, Room, Track
from conference.models.api import digest_of_key
from sessions.models import Session
from tests.api_fixtures import *  # noqa: F403 -- pytest fixtures, the autouse one included
from tests.api_fixtures import client_in_team
from tests.builders import make_conference, make_room, make_session, make_speaker, make_track

pytestmark = pytest.mark.django_db


def nested_url(conference, name, slug=None):
    kwargs = {"conference_slug": conference.slug}
    if slug is not None:
        kwargs["slug"] = slug
    return reverse(f"api:{name}", kwargs=kwargs)


def slugs(response):
    return [item["slug"] for item in response.json()["results"]]


def room_fields(room: Room) -> tuple:
    return (room.conference.slug, room.slug, room.name, room.capacity, room.position)


def track_fields(track: Track) -> tuple:
    return (track.conference.slug, track.slug, track.name, track.colour, track.description)


# --- Conferences ------------------------------------------------------------------------------


def test_conference_list_shows_anonymous_clients_published_conferences_newest_first(anonymous):
    make_conference(
        slug="old", starts_on=datetime.date(2025, 4, 7), ends_on=datetime.date(2025, 4, 8)
    )
    make_conference(slug="new", starts_on=datetime.date(2026, 4, 7))
    make_conference(slug="hidden", is_published=False)
    response = anonymous.get(reverse("api:conference-list"))
    assert response.status_code == 200
    assert slugs(response) == ["new", "old"]


def test_conference_list_hides_unpublished_conferences_from_ordinary_users(attendee_client):
    make_conference(slug="shown")
    make_conference(slug="hidden", is_published=False)
    assert slugs(attendee_client.get(reverse("api:conference-list"))) == ["shown"]


def test_conference_list_shows_staff_unpublished_conferences(organizer_client):
    make_conference(slug="shown", name="A")
    make_conference(slug="hidden", name="B", is_published=False)
    assert slugs(organizer_client.get(reverse("api:conference-list"))) == ["shown", "hidden"]


def test_conference_detail_describes_the_conference_with_absolute_links(anonymous, conference):
    response = anonymous.get(reverse("api:conference-detail", kwargs={"slug": "pycon"}))
    data = response.json()
    assert response.status_code == 200
    assert {key: data[key] for key in ("slug", "name", "starts_on", "ends_on", "time_zone")} == {
        "slug": "pycon",
        "name": "PyCon",
        "starts_on": "2026-04-07",
        "ends_on": "2026-04-08",
        "time_zone": "Europe/Paris",
    }
    assert data["url"] == "https://schedule.example.org/pycon/"
    assert data["sessions_url"] == "https://schedule.example.org/api/v1/conferences/pycon/sessions/"


def test_conference_detail_gives_the_registration_address_or_null(anonymous):
    make_conference(slug="tickets", registration_url="https://example.org/register")
    make_conference(slug="no-tickets")
    urls = [
        anonymous.get(reverse("api:conference-detail", kwargs={"slug": slug})).json()[
            "registration_url"
        ]
        for slug in ("tickets", "no-tickets")
    ]
    assert urls == ["https://example.org/register", None]


@pytest.mark.parametrize("client_name", ["anonymous", "attendee_client"])
def test_unpublished_conference_is_a_json_404_for_non_staff(request, client_name):
    make_conference(slug="secret", is_published=False)
    client = request.getfixturevalue(client_name)
    response = client.get(reverse("api:conference-detail", kwargs={"slug": "secret"}))
    assert response.status_code == 404
    assert response["Content-Type"] == "application/json"
    assert response.json() == {"detail": "No Conference matches the given query."}


def test_unpublished_conference_is_visible_to_staff(organizer_client):
    make_conference(slug="secret", is_published=False)
    response = organizer_client.get(reverse("api:conference-detail", kwargs={"slug": "secret"}))
    assert response.status_code == 200


def test_conferences_cannot_be_created_through_the_api(organizer_client):
    response = organizer_client.post(reverse("api:conference-list"), {"name": "X"}, format="json")
    assert response.status_code == 405
    assert response.json() == {"detail": 'Method "POST" not allowed.'}


@pytest.mark.parametrize("n", [1, 12])
def test_conference_list_query_count_does_not_grow(anonymous, django_assert_max_num_queries, n):
    for _ in range(n):
        make_conference()
    with django_assert_max_num_queries(2):
        response = anonymous.get(reverse("api:conference-list"))
    assert response.json()["count"] == n


# --- Rooms and tracks ---------------------------------------------------------------------------


def test_room_list_is_in_display_order(anonymous, conference):
    make_room(conference, slug="second", position=2)
    make_room(conference, slug="first", position=1)
    make_room(make_conference(), slug="elsewhere")
    assert slugs(anonymous.get(nested_url(conference, "room-list"))) == ["first", "second"]


def test_room_detail_shows_its_fields(anonymous, conference):
    make_room(conference, name="Hall A", slug="hall-a", capacity=300, position=1)
    response = anonymous.get(nested_url(conference, "room-detail", "hall-a"))
    assert response.json() == {
        "id": Room.objects.get().pk,
        "slug": "hall-a",
        "name": "Hall A",
        "kind": "",
        "capacity": 300,
        "position": 1,
        "description": "",
        "guid": "",
    }


def test_rooms_of_an_unpublished_conference_are_hidden_from_anonymous_clients(anonymous):
    secret = make_conference(is_published=False)
    make_room(secret)
    assert anonymous.get(nested_url(secret, "room-list")).status_code == 404


def test_room_of_an_unknown_slug_is_a_json_404(anonymous, conference):
    response = anonymous.get(nested_url(conference, "room-detail", "nowhere"))
    assert response.status_code == 404
    assert response.json() == {"detail": "No Room matches the given query."}


def test_unknown_conference_is_a_json_404_under_nested_urls(anonymous):
    response = anonymous.get("/api/v1/conferences/nowhere/rooms/")
    assert response.status_code == 404
    assert response.json() == {"detail": "No Conference matches the given query."}


def test_anonymous_clients_cannot_create_rooms_and_are_told_to_authenticate(anonymous, conference):
    response = anonymous.post(nested_url(conference, "room-list"), {"slug": "a", "name": "A"})
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == "Token"
    assert Room.objects.count() == 0


def test_ordinary_users_cannot_create_rooms(attendee_client, conference):
    response = attendee_client.post(
        nested_url(conference, "room-list"), {"slug": "a", "name": "A"}, format="json"
    )
    assert response.status_code == 403
    assert response.json() == {"detail": "You do not have permission to perform this action."}


def test_staff_create_a_room_in_the_conference_of_the_url_whatever_the_body_says(
    organizer_client, conference
):
    other = make_conference()
    response = organizer_client.post(
        nested_url(conference, "room-list"),
        {"slug": "hall-a", "name": "Hall A", "conference": other.pk},
        format="json",
    )
    assert response.status_code == 201
    room = Room.objects.get()
    assert room_fields(room) == ("pycon", "hall-a", "Hall A", None, 0)
    assert response.json() == {
        "id": room.pk,
        "slug": "hall-a",
        "name": "Hall A",
        "kind": "",
        "capacity": None,
        "position": 0,
        "description": "",
        "guid": "",
    }


def test_the_venue_team_creates_rooms(attendee, conference):
    client = client_in_team(attendee, conference, is_venue=True)
    response = client.post(
        nested_url(conference, "room-list"),
        {"slug": "a", "name": "A", "capacity": 80, "position": 2},
        format="json",
    )
    assert response.status_code == 201
    room = Room.objects.get()
    assert room_fields(room) == ("pycon", "a", "A", 80, 2)
    assert response.json() == {
        "id": room.pk,
        "slug": "a",
        "name": "A",
        "kind": "",
        "capacity": 80,
        "position": 2,
        "description": "",
        "guid": "",
    }


def test_a_reviewer_may_not_delete_rooms(attendee, conference):
    make_room(conference, slug="hall")
    client = client_in_team(attendee, conference, is_reviewer=True)
    assert client.delete(nested_url(conference, "room-detail", "hall")).status_code == 403


def test_room_with_a_slug_already_used_in_the_conference_is_refused(organizer_client, conference):
    make_room(conference, slug="hall")
    response = organizer_client.post(
        nested_url(conference, "room-list"), {"slug": "hall", "name": "Hall"}, format="json"
    )
    assert response.status_code == 400
    assert response.json() == {
        "non_field_errors": ["This conference already has a room with this slug."]
    }


def test_room_may_reuse_a_slug_of_another_conference(organizer_client, conference):
    make_room(make_conference(slug="other"), slug="hall", name="Other hall")
    response = organizer_client.post(
        nested_url(conference, "room-list"), {"slug": "hall", "name": "Hall"}, format="json"
    )
    assert response.status_code == 201
    rooms = Room.objects.order_by("conference__slug")
    assert [room_fields(room) for room in rooms] == [
        ("other", "hall", "Other hall", None, 0),
        ("pycon", "hall", "Hall", None, 0),
    ]
    room = rooms.get(conference=conference)
    assert response.json() == {
        "id": room.pk,
        "slug": "hall",
        "name": "Hall",
        "kind": "",
        "capacity": None,
        "position": 0,
        "description": "",
        "guid": "",
    }


def test_staff_rename_a_room(organizer_client, conference):
    make_room(conference, slug="hall", name="Hall")
    response = organizer_client.patch(
        nested_url(conference, "room-detail", "hall"), {"name": "Great Hall"}, format="json"
    )
    assert response.status_code == 200
    assert Room.objects.get().name == "Great Hall"


def test_staff_say_what_kind_of_room_it_is_from_the_kinds_schedule_apps_know(
    organizer_client, conference
):
    make_room(conference, slug="hall", name="Hall")
    url = nested_url(conference, "room-detail", "hall")
    response = organizer_client.patch(url, {"kind": "lecturehall"}, format="json")
    assert response.status_code == 200
    assert response.json()["kind"] == "lecturehall"
    assert Room.objects.get().kind == Room.Kind.LECTURE_HALL
    refused = organizer_client.patch(url, {"kind": "ballroom"}, format="json")
    assert refused.status_code == 400
    assert list(refused.json()) == ["kind"]
    assert Room.objects.get().kind == Room.Kind.LECTURE_HALL


def test_deleting_a_room_that_hosts_sessions_is_a_conflict(organizer_client, conference):
    room = make_room(conference, slug="hall", name="Hall")
    make_session(conference, room=room)
    response = organizer_client.delete(nested_url(conference, "room-detail", "hall"))
    assert response.status_code == 409
    assert response.json() == {"detail": "Hall still hosts sessions; move or delete them first."}
    assert Room.objects.count() == 1


def test_staff_delete_an_unused_room(organizer_client, conference):
    make_room(conference, slug="hall")
    response = organizer_client.delete(nested_url(conference, "room-detail", "hall"))
    assert response.status_code == 204
    assert Room.objects.count() == 0


@pytest.mark.parametrize(
    ("client_name", "status", "detail"),
    [
        ("anonymous", 401, "Authentication credentials were not provided."),
        ("attendee_client", 403, "You do not have permission to perform this action."),
    ],
)
def test_only_staff_create_tracks(request, conference, client_name, status, detail):
    client = request.getfixturevalue(client_name)
    response = client.post(
        nested_url(conference, "track-list"), {"slug": "web", "name": "Web"}, format="json"
    )
    assert (response.status_code, response.json()) == (status, {"detail": detail})
    assert Track.objects.count() == 0


def test_track_list_is_alphabetical_with_colours(anonymous, conference):
    make_track(conference, name="Web", colour="#111111")
    make_track(conference, name="Data", colour="#222222")
    response = anonymous.get(nested_url(conference, "track-list"))
    assert [(t["name"], t["colour"]) for t in response.json()["results"]] == [
        ("Data", "#222222"),
        ("Web", "#111111"),
    ]


def test_track_with_a_colour_that_is_not_hex_is_refused(organizer_client, conference):
    response = organizer_client.post(
        nested_url(conference, "track-list"),
        {"slug": "web", "name": "Web", "colour": "red"},
        format="json",
    )
    assert response.status_code == 400
    assert response.json() == {"colour": ["Enter a colour as #rrggbb, for example #ee4c2c."]}


def test_staff_create_a_track(organizer_client, conference):
    response = organizer_client.post(
        nested_url(conference, "track-list"),
        {"slug": "web", "name": "Web", "colour": "#ee4c2c"},
        format="json",
    )
    assert response.status_code == 201
    track = Track.objects.get()
    assert track_fields(track) == ("pycon", "web", "Web", "#ee4c2c", "")
    assert response.json() == {
        "id": track.pk,
        "slug": "web",
        "name": "Web",
        "colour": "#ee4c2c",
        "description": "",
    }


def test_staff_create_a_track_with_the_default_colour(organizer_client, conference):
    response = organizer_client.post(
        nested_url(conference, "track-list"),
        {"slug": "web", "name": "Web", "description": "All things web."},
        format="json",
    )
    assert response.status_code == 201
    track = Track.objects.get()
    assert track_fields(track) == ("pycon", "web", "Web", "#5b6b7f", "All things web.")
    assert response.json() == {
        "id": track.pk,
        "slug": "web",
        "name": "Web",
        "colour": "#5b6b7f",
        "description": "All things web.",
    }


@pytest.mark.parametrize("name", ["room-list", "track-list"])
@pytest.mark.parametrize("n", [1, 12])
def test_room_and_track_list_query_count_does_not_grow(
    anonymous, django_assert_max_num_queries, conference, name, n
):
    for _ in range(n):
        make_room(conference)
        make_track(conference)
    with django_assert_max_num_queries(3):
        response = anonymous.get(nested_url(conference, name))
    assert response.json()["count"] == n


# --- Pagination ---------------------------------------------------------------------------------


def test_lists_are_paged_50_at_a_time_with_a_count(anonymous, conference):
    Room.objects.bulk_create(
        Room(conference=conference, name=f"R{i}", slug=f"r{i}") for i in range(51)
    )
    data = anonymous.get(nested_url(conference, "room-list")).json()
    assert (data["count"], len(data["results"])) == (51, 50)
    assert data["next"] == "http://testserver/api/v1/conferences/pycon/rooms/?limit=50&offset=50"


def test_limit_above_200_returns_200(anonymous, conference):
    Room.objects.bulk_create(
        Room(conference=conference, name=f"R{i}", slug=f"r{i}") for i in range(201)
    )
    data = anonymous.get(nested_url(conference, "room-list"), {"limit": 500}).json()
    assert (data["count"], len(data["results"])) == (201, 200)


def test_limit_and_offset_pick_a_page(anonymous, conference):
    for position in range(3):
        make_room(conference, slug=f"r{position}", position=position)
    response = anonymous.get(nested_url(conference, "room-list"), {"limit": 1, "offset": 1})
    assert slugs(response) == ["r1"]


@pytest.mark.parametrize(
    ("query", "field"),
    [({"limit": "ten"}, "limit"), ({"limit": "0"}, "limit"), ({"offset": "-1"}, "offset")],
)
def test_paging_parameters_that_are_not_numbers_are_a_400(anonymous, conference, query, field):
    response = anonymous.get(nested_url(conference, "room-list"), query)
    assert response.status_code == 400
    assert list(response.json()) == [field]


# --- Authentication, errors, throttling, documentation -----------------------------------------


def test_token_is_obtained_with_username_and_password(anonymous, organizer):
    response = anonymous.post(
        reverse("api:auth-token"),
        {"username": "organizer", "password": "organizer-password"},
        format="json",
    )
    assert response.status_code == 200
    body = response.json()
    token = ApiToken.objects.get()
    assert token.key_digest == digest_of_key(body["token"])
    assert body == {
        "token": body["token"],
        "prefix": body["token"][:8],
        "name": "",
        "scope": "write",  # the account's reach: staff write
        "conferences": [],
        "expires_at": None,
    }
    assert (token.user, token.prefix) == (organizer, body["token"][:8])


def test_an_attendees_token_without_limits_writes_their_schedule_and_nothing_else(
    anonymous, attendee, conference
):
    response = anonymous.post(
        reverse("api:auth-token"),
        {"username": "ada", "password": "correct horse battery"},
        format="json",
    )
    assert (response.status_code, response.json()["scope"]) == (200, "write")
    anonymous.credentials(HTTP_AUTHORIZATION=f"Token {response.json()['token']}")
    room = {"slug": "hall", "name": "Hall"}
    assert (
        anonymous.post(nested_url(conference, "room-list"), room, format="json").status_code == 403
    )


def test_token_request_is_json_only_and_needs_no_token_in_the_schema(api_schema):
    schema = api_schema
    operation = schema["paths"]["/api/v1/auth/token/"]["post"]
    assert list(operation["requestBody"]["content"]) == ["application/json"]
    # No security listed: a generated client asks for no token to get one.
    assert "security" not in operation


def test_token_is_not_issued_for_a_form(anonymous, organizer):
    response = anonymous.post(
        reverse("api:auth-token"),
        "username=organizer&password=organizer-password",
        content_type="application/x-www-form-urlencoded",
    )
    assert (response.status_code, response.json()) == (
        415,
        {"detail": 'Unsupported media type "application/x-www-form-urlencoded" in request.'},
    )
    assert not ApiToken.objects.filter(user=organizer).exists()


def test_token_is_refused_for_a_wrong_password(anonymous, organizer):
    response = anonymous.post(
        reverse("api:auth-token"), {"username": "organizer", "password": "guess"}, format="json"
    )
    assert response.status_code == 400
    assert response.json() == {"non_field_errors": ["Unable to log in with provided credentials."]}


def test_token_authenticates_writes(organizer, conference):
    client = APIClient()
    token = ApiToken.objects.create(user=organizer, scope="write")
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    response = client.post(
        nested_url(conference, "room-list"), {"slug": "hall", "name": "Hall"}, format="json"
    )
    assert response.status_code == 201
    room = Room.objects.get()
    assert room_fields(room) == ("pycon", "hall", "Hall", None, 0)
    assert response.json() == {
        "id": room.pk,
        "slug": "hall",
        "name": "Hall",
        "kind": "",
        "capacity": None,
        "position": 0,
        "description": "",
        "guid": "",
    }


def test_invalid_token_is_a_401_even_for_reads(conference):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Token not-a-real-token")
    response = client.get(reverse("api:conference-list"))
    assert response.status_code == 401
    assert response.json() == {"detail": "Invalid token."}


def test_session_authenticated_writes_need_the_csrf_token(organizer, conference):
    client = APIClient(enforce_csrf_checks=True)
    client.force_login(organizer)
    response = client.post(
        nested_url(conference, "room-list"), {"slug": "hall", "name": "Hall"}, format="json"
    )
    assert response.status_code == 403
    assert response.json() == {"detail": "CSRF Failed: CSRF cookie not set."}


@pytest.mark.parametrize("method", ["get", "post", "delete"])
@pytest.mark.parametrize(
    "path",
    [
        "/api/v1/nowhere/",
        "/api/v2/conferences/",
        "/api/v1/conferences",
        "/api/v1/me/schedule/%C3%89%0A/x/",
    ],
)
def test_unknown_api_urls_are_json_404s(anonymous, method, path):
    response = getattr(anonymous, method)(path)
    assert response.status_code == 404
    assert response["Content-Type"] == "application/json"
    assert response.json() == {"detail": "Not found."}


def test_anonymous_clients_are_throttled_with_a_json_429(anonymous, monkeypatch, conference):
    monkeypatch.setattr(AnonRateThrottle, "rate", "2/minute", raising=False)
    for _ in range(2):
        assert anonymous.get(reverse("api:conference-list")).status_code == 200
    response = anonymous.get(reverse("api:conference-list"))
    assert response.status_code == 429
    assert response["Retry-After"] == "60"
    assert response.json() == {"detail": "Request was throttled. Expected available in 60 seconds."}


def test_unexpected_errors_are_json_500s(anonymous, conference, monkeypatch):
    def explode(self):
        raise RuntimeError("boom")

    monkeypatch.setattr(RoomViewSet, "get_conference_queryset", explode)
    response = anonymous.get(nested_url(conference, "room-list"))
    assert response.status_code == 500
    assert response.json() == {"detail": "Server error."}


def test_database_conflicts_are_json_409s(organizer_client, conference, monkeypatch):
    def collide(self, serializer):
        raise IntegrityError("duplicate key value")

    monkeypatch.setattr(RoomViewSet, "perform_create", collide)
    response = organizer_client.post(
        nested_url(conference, "room-list"), {"slug": "hall", "name": "Hall"}, format="json"
    )
    assert response.status_code == 409
    assert response.json() == {
        "detail": "This change conflicts with the current state of the data."
    }


# --- Versions: ETag and If-Match on rooms, tracks, sessions and speakers ---------------------

# Each resource: how to make one, its detail route, and a change an organizer might send.
VERSIONED = {
    "room": (lambda conference: make_room(conference, slug="hall"), {"capacity": 60}),
    "track": (lambda conference: make_track(conference, slug="web"), {"description": "New."}),
    "session": (lambda conference: make_session(conference, slug="talk"), {"description": "New."}),
    "speaker": (lambda conference: make_speaker(conference, slug="ada"), {"company": "New Co"}),
}


@pytest.fixture(params=sorted(VERSIONED))
def versioned(request, conference):
    """One object of each versioned kind, with its detail URL and a change to send."""
    make, change = VERSIONED[request.param]
    obj = make(conference)
    return obj, nested_url(conference, f"{request.param}-detail", obj.slug), change


def changed_elsewhere(obj) -> None:
    """Another organizer saves the object (in the admin, say) meanwhile."""
    type(obj).objects.get(pk=obj.pk).save()


def stored(obj, change: dict) -> dict:
    fresh = type(obj).objects.get(pk=obj.pk)
    return {name: getattr(fresh, name) for name in change}


def version_of(etag: str) -> str:
    """The version a detail's ETag names: ``"3.<digest>"`` → "3"."""
    return etag.strip('"').partition(".")[0]


def test_detail_carries_a_strong_etag_that_every_write_changes(organizer_client, versioned):
    obj, url, change = versioned
    first = organizer_client.get(url)["ETag"]
    written = organizer_client.patch(url, change, format="json")["ETag"]
    changed_elsewhere(obj)
    last = organizer_client.get(url)["ETag"]
    assert [version_of(etag) for etag in (first, written, last)] == ["1", "2", "3"]
    assert not first.startswith("W/")


def test_anonymous_readers_get_the_etag_too(anonymous, conference):
    make_room(conference, slug="hall")
    etag = anonymous.get(nested_url(conference, "room-detail", "hall"))["ETag"]
    assert version_of(etag) == "1"


def test_a_change_with_a_stale_if_match_is_a_412_and_changes_nothing(organizer_client, versioned):
    obj, url, change = versioned
    etag = organizer_client.get(url)["ETag"]
    changed_elsewhere(obj)
    before = stored(obj, change)

    response = organizer_client.patch(url, change, format="json", headers={"If-Match": etag})

    assert response.status_code == 412
    assert response.json() == {
        "detail": (
            f"This {obj._meta.verbose_name} changed after the version your If-Match names; it is "
            'now at ETag "2". Read it again (GET), apply your change to what it is now, and send '
            "its new ETag in If-Match."
        ),
        "etag": '"2"',
    }
    assert stored(obj, change) == before


def test_a_change_with_the_current_if_match_goes_ahead(organizer_client, versioned):
    obj, url, change = versioned
    changed_elsewhere(obj)
    etag = organizer_client.get(url)["ETag"]

    response = organizer_client.patch(url, change, format="json", headers={"If-Match": etag})

    assert (response.status_code, version_of(response["ETag"])) == (200, "3")
    assert stored(obj, change) == change


@pytest.mark.parametrize(
    ("if_match", "status"),
    [
        ('"1"', 204),
        ('"1.0123abcd"', 204),
        ('"7", "1"', 204),
        ("*", 204),
        ('W/"1"', 412),
        ('W/"1.0123abcd"', 412),
        ("1", 412),
        ('"2"', 412),
        ('"2.0123abcd"', 412),
    ],
)
def test_a_delete_goes_ahead_only_if_its_if_match_names_the_current_version_strongly(
    organizer_client, versioned, if_match, status
):
    obj, url, _ = versioned
    response = organizer_client.delete(url, headers={"If-Match": if_match})
    assert response.status_code == status
    assert type(obj).objects.filter(pk=obj.pk).exists() == (status == 412)


def test_a_put_with_a_stale_if_match_is_a_412(organizer_client, conference):
    room = make_room(conference, slug="hall", name="Hall")
    etag = organizer_client.get(nested_url(conference, "room-detail", "hall"))["ETag"]
    changed_elsewhere(room)
    response = organizer_client.put(
        nested_url(conference, "room-detail", "hall"),
        {"slug": "hall", "name": "Great Hall", "capacity": 10, "position": 0},
        format="json",
        headers={"If-Match": etag},
    )
    assert response.status_code == 412
    assert Room.objects.get().name == "Hall"


@pytest.mark.parametrize(
    ("if_match", "status"), [(None, 409), ('"1"', 412)], ids=["without If-Match", "with If-Match"]
)
def test_a_write_landing_during_a_change_refuses_the_change(
    organizer_client, conference, monkeypatch, if_match, status
):
    session = make_session(conference, slug="talk", title="Talk")
    get_object = VersionedObjectMixin.get_object

    def another_write_lands_after_the_read(view):
        obj = get_object(view)
        Session.objects.filter(pk=obj.pk).update(title="Landed meanwhile")
        return obj

    monkeypatch.setattr(VersionedObjectMixin, "get_object", another_write_lands_after_the_read)
    headers = {"If-Match": if_match} if if_match else {}
    response = organizer_client.patch(
        nested_url(conference, "session-detail", "talk"),
        {"description": "Mine."},
        format="json",
        headers=headers,
    )

    assert response.status_code == status
    if status == 409:
        assert response.json() == {
            "detail": "Someone else changed this session while this request was being handled; "
            "nothing was changed. Read it again and retry."
        }
    else:
        assert response.json()["etag"] == '"2"'
    assert Session.objects.get(pk=session.pk).description == ""


def test_schema_documents_if_match_the_etag_and_the_412(api_schema):
    schema = api_schema
    detail = schema["paths"]["/api/v1/conferences/{conference_slug}/sessions/{slug}/"]
    for method in ("put", "patch", "delete"):
        assert "If-Match" in [p["name"] for p in detail[method]["parameters"]]
        assert "412" in detail[method]["responses"]
    for method in ("get", "put", "patch"):
        assert detail[method]["responses"]["200"]["headers"]["ETag"]["required"] is True


# --- Conditional reads: If-None-Match and 304 on every read -----------------------------------

READS = [
    "conference-list",
    "conference-detail",
    "room-list",
    "room-detail",
    "session-list",
    "session-detail",
    "speaker-list",
    "speaker-detail",
    "track-list",
    "release-list",
    "removal-list",
]


def read_url(conference, name: str) -> str:
    if name == "conference-list":
        return reverse("api:conference-list")
    if name == "conference-detail":
        return reverse("api:conference-detail", args=[conference.slug])
    slug = {"room": "hall", "session": "talk", "speaker": "ada"}.get(name.partition("-")[0])
    return nested_url(conference, name, slug if name.endswith("-detail") else None)


@pytest.fixture
def filled(conference):
    room = make_room(conference, slug="hall", name="Hall")
    session = make_session(conference, slug="talk", room=room)
    session.speakers.add(make_speaker(conference, slug="ada", name="Ada"))
    return conference


@pytest.mark.parametrize("name", READS)
def test_a_read_answers_304_to_the_etag_it_gave(anonymous, filled, name):
    url = read_url(filled, name)
    first = anonymous.get(url)

    again = anonymous.get(url, headers={"If-None-Match": first["ETag"]})

    assert (first.status_code, again.status_code) == (200, 304)
    assert (again.content, again["ETag"]) == (b"", first["ETag"])


@pytest.mark.parametrize("name", READS)
def test_a_read_answers_304_to_the_weak_form_of_its_etag(anonymous, filled, name):
    url = read_url(filled, name)
    etag = anonymous.get(url)["ETag"]
    assert anonymous.get(url, headers={"If-None-Match": f'"x", W/{etag}'}).status_code == 304


def test_a_session_read_is_whole_again_once_its_room_is_renamed(anonymous, filled):
    url = read_url(filled, "session-detail")
    etag = anonymous.get(url)["ETag"]
    Room.objects.filter(slug="hall").update(name="Great Hall")

    response = anonymous.get(url, headers={"If-None-Match": etag})

    assert response.status_code == 200
    assert response.json()["room"]["name"] == "Great Hall"
    assert version_of(response["ETag"]) == version_of(etag)  # the session itself is unchanged


def test_a_list_read_is_whole_again_once_an_item_is_added(anonymous, filled):
    url = read_url(filled, "room-list")
    etag = anonymous.get(url)["ETag"]
    make_room(filled, slug="annex")

    response = anonymous.get(url, headers={"If-None-Match": etag})

    assert response.status_code == 200
    assert [room["slug"] for room in response.json()["results"]] == ["hall", "annex"]


def test_each_page_of_a_list_has_its_own_etag(anonymous, filled):
    make_room(filled, slug="annex")
    url = read_url(filled, "room-list")
    first = anonymous.get(url, {"limit": 1})["ETag"]
    response = anonymous.get(url, {"limit": 1, "offset": 1}, headers={"If-None-Match": first})
    assert response.status_code == 200


def test_my_schedule_answers_304_until_i_save_another_session(attendee_client, filled):
    url = reverse("api:my-schedule")
    query = {"conference": filled.slug}
    etag = attendee_client.get(url, query)["ETag"]
    assert attendee_client.get(url, query, headers={"If-None-Match": etag}).status_code == 304

    saved = attendee_client.post(url, {"conference": filled.slug, "session": "talk"}, format="json")

    assert saved.status_code == 201
    assert attendee_client.get(url, query, headers={"If-None-Match": etag}).status_code == 200


def test_an_if_match_with_the_etag_of_a_read_goes_ahead_after_a_room_rename(
    organizer_client, filled
):
    url = read_url(filled, "session-detail")
    etag = organizer_client.get(url)["ETag"]
    Room.objects.filter(slug="hall").update(name="Great Hall")

    response = organizer_client.patch(
        url, {"description": "New."}, format="json", headers={"If-Match": etag}
    )

    assert response.status_code == 200


def test_schema_documents_the_etag_and_the_304_on_every_read(api_schema):
    schema = api_schema
    reads = [ops["get"] for ops in schema["paths"].values() if "get" in ops]
    assert len(reads) >= len(READS)
    for read in reads:
        assert "304" in read["responses"]
        assert read["responses"]["200"]["headers"]["ETag"]["required"] is True


def test_schema_describes_every_api_path_as_openapi_3(anonymous):
    response = anonymous.get(reverse("api:schema"))
    schema = yaml.safe_load(response.content)
    assert response.status_code == 200
    assert schema["openapi"] == "3.0.3"
    assert sorted(schema["paths"]) == [
        "/api/v1/auth/token/",
        "/api/v1/conferences/",
        "/api/v1/conferences/{conference_slug}/decisions/",
        "/api/v1/conferences/{conference_slug}/feedback/",
        "/api/v1/conferences/{conference_slug}/my-proposals/",
        "/api/v1/conferences/{conference_slug}/my-proposals/{code}/",
        "/api/v1/conferences/{conference_slug}/my-proposals/{code}/submit/",
        "/api/v1/conferences/{conference_slug}/my-proposals/{code}/withdraw/",
        "/api/v1/conferences/{conference_slug}/proposals/",
        "/api/v1/conferences/{conference_slug}/proposals/{code}/",
        "/api/v1/conferences/{conference_slug}/proposals/{code}/decision/",
        "/api/v1/conferences/{conference_slug}/proposals/{code}/my-review/",
        "/api/v1/conferences/{conference_slug}/proposals/{code}/reviews/",
        "/api/v1/conferences/{conference_slug}/releases/",
        "/api/v1/conferences/{conference_slug}/removed/",
        "/api/v1/conferences/{conference_slug}/rooms/",
        "/api/v1/conferences/{conference_slug}/rooms/{slug}/",
        "/api/v1/conferences/{conference_slug}/sessions/",
        "/api/v1/conferences/{conference_slug}/sessions/{slug}/",
        "/api/v1/conferences/{conference_slug}/speakers/",
        "/api/v1/conferences/{conference_slug}/speakers/{slug}/",
        "/api/v1/conferences/{conference_slug}/tracks/",
        "/api/v1/conferences/{conference_slug}/tracks/{slug}/",
        "/api/v1/conferences/{slug}/",
        "/api/v1/me/schedule/",
        "/api/v1/me/schedule/{conference_slug}/{session_slug}/",
    ]


def test_schema_is_served_as_json_on_request(anonymous):
    response = anonymous.get(reverse("api:schema"), {"format": "json"})
    assert response["Content-Type"] == "application/vnd.oai.openapi+json"
    assert response.json()["info"]["title"] == "Conference schedule API"


@pytest.mark.parametrize("language", [{"HTTP_ACCEPT_LANGUAGE": "fr"}, {"cookie": "fr"}])
def test_schema_is_english_whatever_the_readers_language(anonymous, settings, language):
    english = anonymous.get(reverse("api:schema")).content
    if "cookie" in language:
        anonymous.cookies[settings.LANGUAGE_COOKIE_NAME] = language["cookie"]
        language = {}

    response = anonymous.get(reverse("api:schema"), **language)

    assert response.content.decode().splitlines() == english.decode().splitlines()
    assert response["Content-Language"] == "en"


def test_schema_refuses_nul_in_every_string_a_client_sends(api_schema):
    schema = api_schema
    sessions = schema["paths"]["/api/v1/conferences/{conference_slug}/sessions/"]
    parameters = {p["name"]: p["schema"] for p in sessions["get"]["parameters"]}
    body = schema["components"]["schemas"]["SessionWriteRequest"]["properties"]
    token = schema["components"]["schemas"]["AuthTokenRequest"]["properties"]
    patterns = [
        parameters["q"]["pattern"],
        parameters["updated_since"]["pattern"],
        body["title"]["pattern"],
        token["password"]["pattern"],
    ]

    assert patterns == [r"^[^\u0000]*$"] * 4
    assert re.fullmatch(patterns[0], "Ada\x00") is None
    assert re.fullmatch(patterns[0], "Ada") is not None


def test_schema_documents_the_session_filters(api_schema):
    schema = api_schema
    operation = schema["paths"]["/api/v1/conferences/{conference_slug}/sessions/"]["get"]
    assert sorted(p["name"] for p in operation["parameters"]) == [
        "conference_slug",
        "day",
        "expand",
        "kind",
        "level",
        "limit",
        "offset",
        "ordering",
        "q",
        "room",
        "speaker",
        "track",
        "updated_since",
    ]
    assert sorted(operation["responses"]) == ["200", "304", "400", "401", "404", "429"]


def test_swagger_ui_is_served_from_our_own_static_files(client):
    response = client.get(reverse("api:docs"))
    assert response.status_code == 200
    assert "/static/drf_spectacular_sidecar/swagger-ui-dist/" in response.content.decode()

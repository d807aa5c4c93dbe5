"""Malformed, oversized and unexpected input to every public URL: a clear 4xx or a page, never a 500."""

import pytest
from django.test import Client

from sessions.models import CalendarFeed, SavedSession
from tests.builders import make_conference, make_room, make_session, make_speaker, make_track

pytestmark = pytest.mark.django_db

LONG = "x" * 10_000
BAD_VALUES = [
    "",
    "not-a-date",
    "2026-02-30",
    "9999-99-99",
    "9999-12-31",
    "0001-01-01",
    "-1",
    "1e309",
    "NaN",
    "Mars/Olympus",
    "../../etc/passwd",
    "%00",
    "\x00",
    "<script>alert(1)</script>",
    "' OR 1=1 --",
    "🦄" * 50,
    LONG,
]
PARAMETERS = [
    "day",
    "track",
    "room",
    "kind",
    "level",
    "speaker",
    "q",
    "tz",
    "next",
    "limit",
    "offset",
    "ordering",
]

PAGES = [
    "/",
    "/pycon/",
    "/pycon/tracks.css",
    "/pycon/schedule/",
    "/pycon/schedule/grid/",
    "/pycon/schedule.ics",
    "/pycon/schedule.xml",
    "/pycon/schedule.json",
    "/pycon/sessions/talk/",
    "/pycon/sessions/talk.ics",
    "/pycon/speakers/",
    "/pycon/speakers/ada/",
    "/pycon/my-schedule/",
    "/accounts/login/",
    "/accounts/signup/",
    "/accounts/password/reset/",
]


@pytest.fixture(scope="module")
def site(module_db, django_db_blocker):
    """Built once for the module's 470 tests; what a test writes is rolled back after it."""
    with django_db_blocker.unblock():
        conference = make_conference(slug="pycon")
        speaker = make_speaker(conference, name="Ada", slug="ada")
        make_session(
            conference,
            slug="talk",
            room=make_room(conference),
            track=make_track(conference),
            speakers=[speaker],
        )
        return conference


def assert_handled(response) -> None:
    assert response.status_code < 500, response.content[:300]


@pytest.mark.parametrize("path", PAGES)
@pytest.mark.parametrize("value", BAD_VALUES, ids=lambda value: repr(value[:20]))
def test_a_bad_query_value_never_breaks_a_page(client, site, path, value):
    assert_handled(client.get(path, dict.fromkeys(PARAMETERS, value)))


@pytest.mark.parametrize("path", PAGES)
def test_repeated_parameters_never_break_a_page(client, site, path):
    query = "&".join(f"{name}={value}" for name in PARAMETERS for value in ("a", "2026-04-08", "b"))
    assert_handled(client.get(f"{path}?{query}"))


@pytest.mark.parametrize(
    "path",
    [
        "/pycon/sessions/" + "x" * 300 + "/",
        "/pycon/sessions/talk/attachments/99999999999999999999/",
        "/pycon/my-schedule/not-a-token.ics",
        "/pycon/my-schedule/" + "a" * 40 + "." + "b" * 120 + ".ics",
        "/" + "y" * 2000 + "/schedule/",
        "/pycon/schedule/grid/?day=2030-01-01",
    ],
)
def test_unknown_or_absurd_addresses_get_a_404_or_a_page(client, site, path):
    assert client.get(path).status_code in (200, 404)


@pytest.mark.parametrize(
    "body",
    [
        {"action": LONG},
        {"action": "save", "next": "https://evil.example/"},
        {"action": "save", "next": LONG},
        {},
    ],
)
def test_odd_save_requests_are_answered_cleanly(client, site, django_user_model, body):
    client.force_login(django_user_model.objects.create_user("ada"))
    response = client.post("/pycon/sessions/talk/save/", body)
    assert response.status_code in (302, 400)
    if response.status_code == 302:
        assert not response.url.startswith("https://evil.example")


@pytest.mark.parametrize(
    "content_type", ["application/json", "text/plain", "multipart/form-data; boundary=x"]
)
def test_wrong_content_types_on_forms_are_answered_cleanly(
    client, site, django_user_model, content_type
):
    client.force_login(django_user_model.objects.create_user("ada"))
    for path in ["/pycon/sessions/talk/save/", "/pycon/my-schedule/keep/", "/accounts/login/"]:
        assert_handled(client.post(path, data="{not json", content_type=content_type))


def test_a_save_without_the_csrf_token_is_refused(site, django_user_model):
    strict = Client(enforce_csrf_checks=True)
    user = django_user_model.objects.create_user("ada")
    strict.force_login(user)
    response = strict.post("/pycon/sessions/talk/save/", {"action": "save"})
    assert response.status_code == 403
    assert not SavedSession.objects.filter(user=user).exists()


def test_another_users_calendar_token_never_opens_my_feed(client, site, django_user_model):
    ada = django_user_model.objects.create_user("ada")
    feed = CalendarFeed.issue(ada, site)
    forged = f"{feed.selector}.{'A' * len(feed.verifier)}"
    assert client.get(f"/pycon/my-schedule/{forged}.ics").status_code == 404


API_LISTS = [
    "/api/v1/conferences/",
    "/api/v1/conferences/pycon/",
    "/api/v1/conferences/pycon/rooms/",
    "/api/v1/conferences/pycon/tracks/",
    "/api/v1/conferences/pycon/sessions/",
    "/api/v1/conferences/pycon/sessions/talk/",
    "/api/v1/conferences/pycon/speakers/",
    "/api/v1/me/schedule/",
]


@pytest.mark.parametrize("path", API_LISTS)
@pytest.mark.parametrize("value", BAD_VALUES, ids=lambda value: repr(value[:20]))
def test_a_bad_query_value_never_breaks_the_api(client, site, path, value):
    response = client.get(
        path, dict.fromkeys([*PARAMETERS, "updated_since", "expand", "conference"], value)
    )
    assert_handled(response)
    assert response["Content-Type"] == "application/json"


@pytest.mark.parametrize(
    ("content_type", "body"),
    [
        ("application/json", "{not json"),
        ("application/json", '{"title": ' + '"x"' * 3 + "}"),
        ("application/json", "[]"),
        ("application/json", '{"title": "' + LONG + '"}'),
        ("text/plain", "title=x"),
        ("application/xml", "<session/>"),
        ("multipart/form-data; boundary=x", "--x--"),
    ],
)
@pytest.mark.parametrize(
    "path",
    [
        "/api/v1/conferences/pycon/sessions/",
        "/api/v1/conferences/pycon/rooms/",
        "/api/v1/me/schedule/",
        "/api/v1/auth/token/",
    ],
)
def test_malformed_api_bodies_get_a_json_4xx(
    client, site, django_user_model, path, content_type, body
):
    client.force_login(
        django_user_model.objects.create_user("staff", is_staff=True, is_superuser=True)
    )
    response = client.post(path, data=body, content_type=content_type)
    assert 400 <= response.status_code < 500
    assert response["Content-Type"] == "application/json"


def test_the_admin_is_for_staff_only(client, site, django_user_model):
    client.force_login(django_user_model.objects.create_user("ada"))
    response = client.get("/admin/schedule/session/")
    assert response.status_code == 302
    assert response.url.startswith("/admin/login/")

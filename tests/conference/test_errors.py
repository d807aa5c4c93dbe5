"""Bad requests get a clear 4xx, JSON under /api/ and a plain page elsewhere; never a 500.

The NUL tests matter most on PostgreSQL, which refuses NUL in text (a DataError, so a 500 before
conference.views.errors refused them first); CI runs them there as well as on SQLite.
"""

import json

import pytest
from django.conf import settings
from rest_framework.test import APIClient

from sessions.models import SavedSession, Session
from tests.api_fixtures import *  # noqa: F403 -- pytest fixtures, the autouse one included
from tests.builders import make_conference, make_room, make_session, make_speaker

pytestmark = pytest.mark.django_db

NUL_REFUSED = "Null characters are not allowed in a request."


@pytest.fixture
def conference():
    """PyCon with a talk, "talk", in a room and with a speaker: pages to break."""
    conference = make_conference(slug="pycon")
    make_session(
        conference, slug="talk", room=make_room(conference), speakers=[make_speaker(conference)]
    )
    return conference


def assert_json_error(response, status, detail):
    assert response.status_code == status
    assert response["Content-Type"] == "application/json"
    assert response.json() == {"detail": detail}


def assert_error_page(response, status, message):
    assert response.status_code == status
    assert response["Content-Type"] == "text/html; charset=utf-8"
    assert f"<p>{message}</p>" in response.content.decode()


# --- NUL: refused before anything can send it to the database -----------------------------------


def test_nul_in_my_schedules_api_query_is_a_json_400(attendee_client, conference):
    response = attendee_client.get("/api/v1/me/schedule/?conference=%00")
    assert_json_error(response, 400, NUL_REFUSED)


@pytest.mark.parametrize(
    "body",
    [{"conference": "py\x00con", "session": "talk"}, {"conference": "pycon", "session": "\x00"}],
)
def test_nul_in_a_json_body_is_a_json_400(attendee, attendee_client, conference, body):
    response = attendee_client.post("/api/v1/me/schedule/", body, format="json")
    assert_json_error(response, 400, NUL_REFUSED)
    assert not SavedSession.objects.filter(user=attendee).exists()


def test_nul_in_a_json_body_in_another_encoding_is_refused_too(anonymous):
    body = json.dumps({"username": "ada\x00", "password": "x"}).encode("utf-16")
    response = anonymous.generic(
        "POST", "/api/v1/auth/token/", body, content_type="application/json; charset=utf-16"
    )
    assert_json_error(response, 400, NUL_REFUSED)


def test_the_text_backslash_u0000_in_json_is_not_a_nul(anonymous):
    body = json.dumps({"username": "ada\\u0000", "password": "x"})  # a backslash, then "u0000"
    response = anonymous.post("/api/v1/auth/token/", body, content_type="application/json")
    assert response.json() == {"non_field_errors": ["Unable to log in with provided credentials."]}


@pytest.mark.parametrize("text", ["\\ud800", "\\udc00", "\\ud800x", "\\udc00\\ud800"])
def test_an_unpaired_surrogate_in_a_json_body_is_a_json_400(organizer_client, conference, text):
    body = '{"title": "a' + text + '", "kind": "' + text + '"}'
    response = organizer_client.patch(
        "/api/v1/conferences/pycon/sessions/talk/", body, content_type="application/json"
    )
    assert_json_error(
        response, 400, "Unpaired surrogates (\\ud800 to \\udfff) are not allowed in JSON."
    )


def test_a_surrogate_pair_in_a_json_body_is_a_character_like_any_other(
    organizer_client, conference
):
    body = '{"title": "Unicorns \\ud83e\\udd84"}'
    response = organizer_client.patch(
        "/api/v1/conferences/pycon/sessions/talk/", body, content_type="application/json"
    )
    assert response.json()["title"] == "Unicorns 🦄"


@pytest.mark.parametrize("path", ["/pycon/my-schedule/keep/", "/pycon/my-schedule/seen/"])
def test_nul_in_a_my_schedule_form_is_a_400_page(client, django_user_model, conference, path):
    client.force_login(django_user_model.objects.create_user("ada"))
    assert_error_page(client.post(path, {"session": "talk\x00"}), 400, NUL_REFUSED)


@pytest.mark.parametrize(
    "path",
    [
        "/admin/schedule/session/?status=%00",
        "/admin/schedule/session/?q=%00",
        "/admin/autocomplete/?app_label=schedule&model_name=attachment&field_name=session&term=%00",
        "/admin/schedule/session/%00/change/",
    ],
)
def test_nul_in_the_admin_is_a_400_page(admin_client, conference, path):
    assert_error_page(admin_client.get(path), 400, NUL_REFUSED)


def test_nul_in_the_session_cookie_is_a_400(conference):
    # A quoted cookie value may spell NUL as an octal escape, which Python's cookie parser decodes.
    client = APIClient(HTTP_COOKIE='sessionid="abcdefghijklmnop\\000"')
    assert_error_page(client.get("/pycon/schedule/"), 400, NUL_REFUSED)


def test_nul_in_an_api_token_is_a_json_400(anonymous, conference):
    response = anonymous.get("/api/v1/conferences/", HTTP_AUTHORIZATION="Token abc\x00")
    assert_json_error(response, 400, NUL_REFUSED)


def test_the_400_page_speaks_the_visitors_language_and_the_api_english(client, conference):
    headers = {"accept-language": "fr"}
    page = client.get("/pycon/schedule/?q=%00", headers=headers)
    assert_error_page(page, 400, "Les caractères nuls ne sont pas admis dans une requête.")
    assert "<h1>Requête incorrecte</h1>" in page.content.decode()
    api = client.get("/api/v1/conferences/?q=%00", headers=headers)
    assert_json_error(api, 400, NUL_REFUSED)


def test_the_400_page_carries_the_security_headers(client, conference):
    response = client.get("/pycon/schedule/?q=%00")
    assert response.status_code == 400
    assert "default-src 'self'" in response["Content-Security-Policy"]
    assert response["X-Frame-Options"] == "DENY"


# --- Bodies too large or too deep, too many fields ----------------------------------------------


def test_deeply_nested_json_is_a_json_400(anonymous):
    body = "[" * 100_000 + "]" * 100_000
    response = anonymous.post("/api/v1/auth/token/", body, content_type="application/json")
    assert_json_error(response, 400, "JSON parse error - the document is nested too deeply.")


def test_deeply_nested_json_to_any_api_write_is_a_json_400(organizer_client, conference):
    body = '{"title": ' + "[" * 100_000 + "]" * 100_000 + "}"
    response = organizer_client.post(
        "/api/v1/conferences/pycon/sessions/", body, content_type="application/json"
    )
    assert_json_error(response, 400, "JSON parse error - the document is nested too deeply.")
    assert Session.objects.count() == 1


TOO_LARGE = "The request is too large: at most 2.5 MB, not counting uploaded files."


def test_a_json_body_over_the_limit_is_a_json_413(anonymous):
    body = json.dumps({"username": "x" * settings.DATA_UPLOAD_MAX_MEMORY_SIZE, "password": "y"})
    response = anonymous.post("/api/v1/auth/token/", body, content_type="application/json")
    assert_json_error(response, 413, TOO_LARGE)


def test_a_form_over_the_limit_is_a_413_page(client):
    response = client.post(
        "/accounts/login/", {"username": "x" * settings.DATA_UPLOAD_MAX_MEMORY_SIZE}
    )
    assert_error_page(response, 413, TOO_LARGE)


class UnreadBody:
    """A request body that records whether anything read it."""

    def __init__(self):
        self.reads = 0

    def read(self, *args):
        self.reads += 1
        return b""

    def readline(self, *args):
        return self.read()


@pytest.mark.parametrize(
    "path",
    ["/accounts/login/", "/admin/login/", "/api/v1/auth/token/"],
    ids=["page", "admin", "api"],
)
def test_a_request_declaring_a_body_over_the_limit_is_a_413_before_it_is_read(client, path):
    body = UnreadBody()

    response = client.generic(
        "POST",
        path,
        CONTENT_TYPE="multipart/form-data; boundary=x",
        CONTENT_LENGTH=str(537 * 1024 * 1024),
        **{"wsgi.input": body},
    )

    assert response.status_code == 413
    assert "The request is too large: at most 60 MB in all." in response.content.decode()
    assert body.reads == 0


def test_an_upload_under_the_request_limit_still_reaches_its_form(admin_client):
    response = admin_client.post("/admin/login/", {"username": "x" * 10})
    assert response.status_code != 413


TOO_MANY = "Too many query parameters or form fields: at most 1,000."


def test_too_many_query_parameters_on_the_api_are_a_json_400(anonymous, conference):
    query = "&".join(f"p{number}=1" for number in range(1_001))
    response = anonymous.get(f"/api/v1/conferences/pycon/sessions/?{query}")
    assert_json_error(response, 400, TOO_MANY)


def test_too_many_query_parameters_on_a_page_are_a_400_page(client, conference):
    query = "&".join(f"p{number}=1" for number in range(1_001))
    assert_error_page(client.get(f"/pycon/schedule/?{query}"), 400, TOO_MANY)


# --- Every API error is JSON --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "path", "status"),
    [
        ("get", "/api/v1/no-such-thing/", 404),
        ("get", "/api/nothing/here", 404),
        ("put", "/api/v1/conferences/", 405),
        ("post", "/api/schema/", 405),
        ("post", "/api/docs/", 405),
        ("get", "/api/schema/?format=xml", 404),
        ("delete", "/api/v1/auth/token/", 405),
    ],
)
def test_api_errors_are_json(organizer_client, method, path, status):
    response = getattr(organizer_client, method)(path)
    assert response.status_code == status
    assert response["Content-Type"] == "application/json"
    assert set(response.json()) == {"detail"}

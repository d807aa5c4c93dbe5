"""Malformed, oversized and unexpected input to every public URL: a clear 4xx or a page, never a 500."""

import json
from urllib.parse import quote

import pytest
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.core import signing
from django.test import Client, RequestFactory
from django.urls import reverse

from sessions.models import CalendarFeed, Proposal, SavedSession, Session
from sessions.releases import release_schedule
from tests.builders import (
    make_call,
    make_conference,
    make_proposal,
    make_room,
    make_session,
    make_speaker,
    make_track,
    paris,
)

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
    "/pycon/now/",
    "/pycon/now/hall/",
    "/pycon/changes/",
    "/pycon/changes.atom",
    "/pycon/call/",
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
            room=make_room(conference, name="Hall"),
            track=make_track(conference, name="Data"),
            speakers=[speaker],
        )
        release_schedule(conference, version="v1", comment="First.", user=None)
        # Open whenever the tests run, so its form reads what is posted.
        make_call(conference, opens_at=paris(1, 0, year=2020), closes_at=paris(1, 0, year=2099))
        proposer = get_user_model().objects.create_user("proposer")
        make_proposal(conference, proposer, state=Proposal.State.SUBMITTED, code="TALK42")
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
    ("path", "status"),
    [
        ("/pycon/sessions/" + "x" * 300 + "/", 404),
        ("/pycon/sessions/talk/attachments/99999999999999999999/", 404),
        ("/pycon/my-schedule/not-a-token.ics", 404),
        ("/pycon/my-schedule/" + "a" * 40 + "." + "b" * 120 + ".ics", 404),
        ("/" + "y" * 2000 + "/schedule/", 404),
        ("/pycon/schedule/grid/?day=2030-01-01", 200),  # a day it lacks: a grid all the same
        ("/pycon/now/" + "z" * 300 + "/", 404),
    ],
)
def test_unknown_or_absurd_addresses_get_a_404_or_a_page(client, site, path, status):
    assert client.get(path).status_code == status


@pytest.mark.parametrize(
    ("body", "status"),
    [
        ({"action": LONG}, 400),
        ({"action": "save", "next": "https://evil.example/"}, 302),
        ({"action": "save", "next": LONG}, 302),
        ({}, 400),
    ],
)
def test_odd_save_requests_are_answered_cleanly(client, site, django_user_model, body, status):
    client.force_login(django_user_model.objects.create_user("ada"))
    response = client.post("/pycon/sessions/talk/save/", body)
    assert response.status_code == status
    if status == 302:
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
    "/api/v1/conferences/pycon/releases/",
    "/api/v1/me/schedule/",
    "/api/v1/conferences/pycon/proposals/",
    "/api/v1/conferences/pycon/my-proposals/",
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


# --- Logged in: the same pages and sweeps with an account, its forms and its API ----------------

NESTED = "[" * 2_000 + "]" * 2_000
# What query strings and form fields get besides BAD_VALUES: an integer beyond any column, and
# brackets as deep as a JSON parser would choke on.
MORE_VALUES = ["99999999999999999999999", NESTED]
FORM_VALUES = [*BAD_VALUES, *MORE_VALUES]


def value_id(value) -> str:
    return repr(value)[:20]


@pytest.fixture
def staff(django_user_model):
    return django_user_model.objects.create_superuser("staff", "staff@example.org", "x")


@pytest.fixture
def staff_client(client, staff):
    client.force_login(staff)
    return client


# The pages with personal parts (Save buttons, my schedule): they run other code when logged in.
PERSONAL_PAGES = [
    "/pycon/schedule/",
    "/pycon/schedule/grid/",
    "/pycon/sessions/talk/",
    "/pycon/speakers/ada/",
    "/pycon/my-schedule/",
    "/pycon/call/",
    "/pycon/call/proposals/",
    "/pycon/call/new/",
]


@pytest.mark.parametrize("path", PERSONAL_PAGES)
@pytest.mark.parametrize("value", FORM_VALUES, ids=value_id)
def test_a_bad_query_value_never_breaks_a_page_for_a_logged_in_visitor(
    attendee_client, site, path, value
):
    assert_handled(attendee_client.get(path, dict.fromkeys(PARAMETERS, value)))


ACCOUNT_FORMS = {
    "/pycon/sessions/talk/save/": ["action", "next"],
    "/pycon/my-schedule/keep/": ["session"],
    "/pycon/my-schedule/seen/": ["session"],
    "/pycon/my-schedule/calendar/": ["next"],
    "/accounts/password/change/": ["old_password", "new_password1", "new_password2"],
    "/accounts/logout/": ["next"],
    "/accounts/settings/": ["email", "schedule_changes"],
    "/accounts/settings/verify/": ["next"],
    # A proposal's co-speakers (tests/sessions/cfp/test_co_speakers.py: as its speaker).
    "/pycon/call/ABCDEF/co-speakers/invite/": ["email", "next"],
    "/pycon/call/invitation/abc/": ["name", "bio"],
    "/pycon/call/new/": [
        "title",
        "kind",
        "track",
        "audience_level",
        "language",
        "abstract",
        "description",
        "notes",
        "speaker_name",
        "speaker_bio",
        "version",
        "action",
    ],
}
ANONYMOUS_FORMS = {
    "/accounts/login/": ["username", "password", "next"],
    "/accounts/signup/": ["username", "email", "password1", "password2"],
    "/accounts/password/reset/": ["email"],
}


@pytest.mark.parametrize(("path", "fields"), ACCOUNT_FORMS.items())
@pytest.mark.parametrize("value", FORM_VALUES, ids=value_id)
def test_a_bad_form_value_never_breaks_a_logged_in_form(attendee_client, site, path, fields, value):
    assert_handled(attendee_client.post(path, dict.fromkeys(fields, value)))


@pytest.mark.parametrize(("path", "fields"), ANONYMOUS_FORMS.items())
@pytest.mark.parametrize("value", FORM_VALUES, ids=value_id)
def test_a_bad_form_value_never_breaks_an_account_form(client, site, path, fields, value):
    assert_handled(client.post(path, dict.fromkeys(fields, value)))


@pytest.fixture
def accepted_proposal(site, attendee):
    """An accepted proposal of ``attendee``'s (to the call ``site`` opened): their answer page
    opens its form to them."""
    return make_proposal(site, attendee, state=Proposal.State.ACCEPTED)


@pytest.mark.parametrize("field", ["answer", "version"])
@pytest.mark.parametrize("value", FORM_VALUES, ids=value_id)
def test_a_bad_value_never_breaks_a_speakers_answer(
    attendee_client, accepted_proposal, field, value
):
    url = f"/pycon/call/{accepted_proposal.code}/answer/"
    data = {"answer": "confirm", "version": accepted_proposal.version, field: value}
    assert_handled(attendee_client.post(url, data))
    assert_handled(attendee_client.get(url, {field: value}))


# The signed links mails carry: any token, signed or not, is a page saying it does not work.
@pytest.mark.parametrize(
    "link", ["/accounts/verify/{}/", "/accounts/unsubscribe/{}/", "/pycon/call/invitation/{}/"]
)
@pytest.mark.parametrize("value", [*BAD_VALUES[1:], *MORE_VALUES], ids=value_id)
@pytest.mark.parametrize("method", ["get", "post"])
def test_a_bad_token_never_breaks_a_mailed_link(client, site, link, value, method):
    response = getattr(client, method)(link.format(quote(value, safe="")))
    assert_handled(response)


@pytest.mark.parametrize(
    "signed", ["x", [1, 2, 3], {"user": "1"}, ["account", "1"], ["nobody", 1], ["account", True]]
)
@pytest.mark.parametrize(
    ("link", "salt"),
    [
        ("/accounts/verify/{}/", "conference.accounts.mail.verify-email"),
        ("/accounts/unsubscribe/{}/", "conference.accounts.mail.unsubscribe"),
    ],
)
def test_a_signed_token_of_another_shape_is_refused(client, site, link, salt, signed):
    response = client.post(link.format(signing.dumps(signed, salt=salt)))
    assert response.status_code == 400


# JSON values of every type where strings, slugs, numbers and lists are expected.
JSON_VALUES = [
    "",
    "\x00",
    "not-a-date",
    "0001-01-01",
    "9999-12-31",
    "-1",
    "1e309",
    "99999999999999999999999",
    "🦄" * 50,
    NESTED,
    LONG,
    None,
    True,
    -1,
    10**400,
    1.5,
    [],
    {},
    [[["deep"]]],
    {"slug": {"slug": "x"}},
    ["talk", None, 3],
]
WRITE_FIELDS = [
    "conference",
    "session",
    "slug",
    "title",
    "name",
    "kind",
    "status",
    "audience_level",
    "description",
    "starts_at",
    "ends_at",
    "room",
    "track",
    "speakers",
    "availability",
    "capacity",
    "position",
    "colour",
    "role",
    "company",
    "bio",
    "username",
    "password",
    "score",
    "comment",
    "state",
    "note",
    "notes",
    "proposals",
    "answers",
]


@pytest.mark.parametrize("value", JSON_VALUES, ids=value_id)
def test_a_bad_value_never_breaks_my_schedule_in_the_api(attendee_client, site, value):
    body = dict.fromkeys(WRITE_FIELDS, value)
    responses = [
        attendee_client.post("/api/v1/me/schedule/", body, content_type="application/json"),
        attendee_client.get("/api/v1/me/schedule/", {"conference": json_text(value)}),
        attendee_client.get(
            "/api/v1/me/schedule/", {"conference": "pycon", "limit": json_text(value)}
        ),
    ]
    for response in responses:
        assert_handled(response)
        assert response["Content-Type"] == "application/json"


def json_text(value) -> str:
    return value if isinstance(value, str) else json.dumps(value)


@pytest.mark.parametrize("slug", ["x" * 300, "-", "_", "0" * 50, "talk-" * 40])
def test_removing_an_odd_slug_from_my_schedule_is_a_json_404(attendee_client, site, slug):
    response = attendee_client.delete(f"/api/v1/me/schedule/pycon/{slug}/")
    assert response.status_code == 404
    assert response["Content-Type"] == "application/json"


API_WRITES = [
    ("post", "/api/v1/conferences/pycon/sessions/"),
    ("patch", "/api/v1/conferences/pycon/sessions/talk/"),
    ("put", "/api/v1/conferences/pycon/sessions/talk/"),
    ("post", "/api/v1/conferences/pycon/rooms/"),
    ("patch", "/api/v1/conferences/pycon/rooms/hall/"),
    ("post", "/api/v1/conferences/pycon/tracks/"),
    ("patch", "/api/v1/conferences/pycon/tracks/data/"),
    ("post", "/api/v1/conferences/pycon/speakers/"),
    ("patch", "/api/v1/conferences/pycon/speakers/ada/"),
    ("post", "/api/v1/auth/token/"),
    ("post", "/api/v1/conferences/pycon/my-proposals/"),
    ("put", "/api/v1/conferences/pycon/proposals/TALK42/my-review/"),
    ("post", "/api/v1/conferences/pycon/proposals/TALK42/decision/"),
    ("post", "/api/v1/conferences/pycon/decisions/"),
]


@pytest.mark.parametrize(("method", "path"), API_WRITES)
@pytest.mark.parametrize("value", JSON_VALUES, ids=value_id)
def test_a_bad_value_in_every_field_never_breaks_api_writes(
    staff_client, site, method, path, value
):
    # Some of these are valid somewhere ("-1" is a fine slug): what matters is no 500.
    body = dict.fromkeys(WRITE_FIELDS, value)
    response = getattr(staff_client, method)(path, body, content_type="application/json")
    assert_handled(response)
    assert response["Content-Type"] == "application/json"


PROPOSAL_PARAMETERS = [*PARAMETERS, "state", "not_reviewed_by_me"]


@pytest.mark.parametrize("path", ["proposals/", "proposals/TALK42/reviews/", "my-proposals/"])
@pytest.mark.parametrize("value", BAD_VALUES, ids=lambda value: repr(value[:20]))
def test_a_bad_query_value_never_breaks_the_proposals_api(staff_client, site, path, value):
    response = staff_client.get(
        f"/api/v1/conferences/pycon/{path}", dict.fromkeys(PROPOSAL_PARAMETERS, value)
    )
    assert_handled(response)
    assert response["Content-Type"] == "application/json"


HOSTILE_BODIES = {
    "nested": NESTED * 50,
    "nested object": '{"title": ' + '{"a": ' * 5_000 + "1" + "}" * 5_000 + "}",
    "huge": json.dumps({"title": "x" * 3_000_000}),
    "huge number": '{"capacity": ' + "9" * 5_000 + "}",
    "infinity": '{"capacity": Infinity}',
    "nul": '{"title": "a\\u0000b"}',
    "raw nul": '{"title": "a\x00b"}',
    "lone surrogates": json.dumps(dict.fromkeys(WRITE_FIELDS, "\ud800\udfff\udc00")),
    "not utf-8": b'{"title": "\xff\xfe"}',
    "truncated": '{"title": "x',
    "empty": "",
}


@pytest.mark.parametrize(("method", "path"), API_WRITES)
@pytest.mark.parametrize("body", HOSTILE_BODIES.values(), ids=HOSTILE_BODIES.keys())
def test_a_hostile_body_never_breaks_api_writes(staff_client, site, method, path, body):
    response = getattr(staff_client, method)(path, body, content_type="application/json")
    assert_handled(response)
    assert response["Content-Type"] == "application/json"


# --- The admin: every changelist's filters, the autocomplete, object addresses, add forms ------

ADMIN_MODELS = sorted(admin.site._registry, key=lambda model: model._meta.label)
# Values for the admin, which takes them one parameter at a time.
# One of each kind a filter, a search or a form field may choke on: NUL, empty, not a date, a
# negative and an overflowing number, and long text with quotes and astral characters.
ADMIN_VALUES = [
    "\x00",
    "",
    "not-a-date",
    "-1",
    "99999999999999999999999",
    "🦄' OR 1=1 --" + LONG,
]


def model_id(model) -> str:
    return model._meta.label


def admin_url(model, view: str, *args) -> str:
    return reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_{view}", args=args)


def filter_parameters(model, user) -> list[str]:
    """The query parameters of the changelist's filters, as its own links spell them."""
    request = RequestFactory().get(admin_url(model, "changelist"))
    request.user = user
    changelist = admin.site._registry[model].get_changelist_instance(request)
    return [name for spec in changelist.filter_specs for name in spec.expected_parameters()]


@pytest.mark.parametrize("model", ADMIN_MODELS, ids=model_id)
@pytest.mark.parametrize("value", ADMIN_VALUES, ids=value_id)
def test_a_bad_filter_value_never_breaks_an_admin_changelist(
    staff_client, staff, site, model, value
):
    url = admin_url(model, "changelist")
    for name in [*filter_parameters(model, staff), "q"]:  # one at a time: each is checked
        assert_handled(staff_client.get(url, {name: value}))


@pytest.mark.parametrize("name", ["o", "p", "all", "e", "_to_field", "_popup"])
@pytest.mark.parametrize("value", ADMIN_VALUES, ids=value_id)
def test_a_bad_changelist_parameter_never_breaks_the_admin(staff_client, site, name, value):
    assert_handled(staff_client.get(admin_url(Session, "changelist"), {name: value}))


def autocomplete_fields():
    """(model, field) for every autocomplete widget of the admin, inlines included."""
    for model_admin in admin.site._registry.values():
        for owner in (model_admin, *model_admin.inlines):
            for field in owner.autocomplete_fields:
                yield owner.model, field


@pytest.mark.parametrize(
    ("model", "field"),
    sorted(autocomplete_fields(), key=lambda pair: (pair[0]._meta.label, pair[1])),
    ids=lambda item: item if isinstance(item, str) else model_id(item),
)
@pytest.mark.parametrize("value", ADMIN_VALUES, ids=value_id)
def test_a_bad_value_never_breaks_the_admin_autocomplete(staff_client, site, model, field, value):
    query = {
        "app_label": model._meta.app_label,
        "model_name": model._meta.model_name,
        "field_name": field,
        "term": "a",
    }
    for name in query | {"page": "1"}:
        assert_handled(staff_client.get("/admin/autocomplete/", {**query, name: value}))


@pytest.mark.parametrize("model", ADMIN_MODELS, ids=model_id)
@pytest.mark.parametrize(
    "object_id", ["0", "-1", "99999999999999999999999", "abc", "%00", "..", "🦄"], ids=value_id
)
def test_an_odd_object_address_in_the_admin_is_answered_cleanly(
    staff_client, site, model, object_id
):
    for view in ("change", "history", "delete"):
        assert_handled(staff_client.get(admin_url(model, view, object_id)))


@pytest.mark.parametrize("model", ADMIN_MODELS, ids=model_id)
@pytest.mark.parametrize("value", ADMIN_VALUES, ids=value_id)
def test_a_bad_value_in_every_field_of_an_admin_add_form_is_answered_cleanly(
    staff_client, site, model, value
):
    url = admin_url(model, "add")
    page = staff_client.get(url)
    if not admin.site._registry[model].has_add_permission(page.wsgi_request):
        assert page.status_code == 403  # read-only records (axes, task results): no add form
        return
    data = dict.fromkeys((field.html_name for field in page.context["adminform"].form), value)
    for inline in page.context["inline_admin_formsets"]:
        prefix = inline.formset.prefix
        # One row of junk; a junk row count would only make Django build a thousand empty rows.
        data |= {f"{prefix}-TOTAL_FORMS": "1", f"{prefix}-INITIAL_FORMS": "0"}
        data |= dict.fromkeys((field.html_name for field in inline.formset.empty_form), value)
        data = {name.replace("__prefix__", "0"): item for name, item in data.items()}
    assert_handled(staff_client.post(url, data))

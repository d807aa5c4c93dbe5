"""Every door that names a conference's object, asked by everyone who is not of its teams.

The routes are found by walking the URLconf (as the page-privacy test does): every admin page of
an object or a conference (each registered ModelAdmin's change, delete and history, the
planner, imports, releases, speaker invitations), every API route under a conference, every
public, speaker and feedback page. A new route is covered without editing this test; a route
with an argument this test cannot fill fails it, naming the argument.

Conference A is unpublished. Outsiders (anonymous, an attendee, staff of no team, each role of
conference B's team, a token limited to B) get nothing of it: a 404 as for a conference that
does not exist (the admin's login redirect to those who may not open the admin; a 401 to an
anonymous API write). Each role of A's team knows A exists (never a 404); its organizer may open
every door (never a 403).
"""

import pytest
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.urls import URLResolver, get_resolver, resolve, reverse
from rest_framework.test import APIClient

from conference.models import ApiToken, Role, WebhookDelivery, WebhookEndpoint
from sessions.models import Attachment, Feedback, Proposal, Release, ScheduleImport
from speakers.models import SessionChangeProposal
from tests.builders import (
    make_call,
    make_conference,
    make_proposal,
    make_room,
    make_session,
    make_speaker,
    make_team,
    make_track,
    paris,
)

pytestmark = pytest.mark.django_db

# Arguments naming A's objects, filled in per route (see ``door_url``).
CONFERENCE_ARGUMENTS = {"conference_slug", "conference_id", "object_id"}
# Django's own "view on site" and the bare "<object_id>/" redirect lead to the pages below.
SKIPPED_NAMES = {"admin:view_on_site", "admin:None"}


def arguments_of(pattern) -> set[str]:
    return set(pattern.pattern.converters) | set(pattern.pattern.regex.groupindex)


def walk(resolver, namespace=None, arguments=frozenset()):
    """Each named route with the arguments of its whole address (its includes' too)."""
    for pattern in resolver.url_patterns:
        if isinstance(pattern, URLResolver):
            inner = pattern.namespace or None
            joined = f"{namespace}:{inner}" if namespace and inner else inner or namespace
            yield from walk(pattern, joined, arguments | arguments_of(pattern))
        else:
            name = f"{namespace}:{pattern.name}" if namespace else str(pattern.name)
            yield name, arguments | arguments_of(pattern)


ROUTES = dict(walk(get_resolver()))


OUR_APPS = {"conference", "speakers", "schedule"}


def conference_doors() -> list[str]:
    """Every named route whose arguments name a conference, or an object of our apps in the
    admin (Django's users and groups, tasks and failed logins are for superusers alone:
    ``test_site_wide_admin_pages_are_for_superusers_alone``)."""
    return sorted(
        name
        for name, arguments in ROUTES.items()
        if arguments & CONFERENCE_ARGUMENTS
        and name not in SKIPPED_NAMES
        and not (
            name.startswith("admin:")
            and "object_id" in arguments
            and admin_model(name)._meta.app_label not in OUR_APPS
        )
    )


def admin_model(name: str):
    """The model of an admin route ``admin:<app>_<model>_<action>``."""
    for model in admin.site._registry:
        prefix = f"admin:{model._meta.app_label}_{model._meta.model_name}_"
        if name.startswith(prefix):
            return model
    raise AssertionError(f"{name}: no registered ModelAdmin")


@pytest.fixture(scope="module")
def world(module_db, django_db_blocker):
    """Conference A (unpublished) with one of everything, conference B, and the people: built
    once for the module's thousand tests; what a test writes is rolled back after it."""
    with django_db_blocker.unblock():
        return build_world()


def build_world():
    django_user_model = get_user_model()
    a = make_conference(name="Conference A", slug="conf-a", is_published=False)
    b = make_conference(name="Conference B", slug="conf-b")
    room, track = make_room(a, slug="hall"), make_track(a, slug="ml")
    speaker = make_speaker(a, slug="ada")
    session = make_session(a, room=room, track=track, slug="talk", speakers=[speaker])
    people = {}

    def person(name, *conferences, staff=True, **roles):
        user = django_user_model.objects.create_user(
            name, f"{name}@example.org", "pw", is_staff=staff
        )
        if roles:
            make_team(user, conferences=conferences, **roles)
        people[name] = user
        return user

    person("attendee", staff=False)
    person("staff-of-no-team")
    for role in Role.values:
        person(f"b-{role}", b, **{f"is_{role}": True})
        person(f"a-{role}", a, **{f"is_{role}": True})
    boss = person("boss", all_conferences=True, is_organizer=True)
    token = ApiToken.objects.create(user=boss, name="B only", scope=ApiToken.Scope.WRITE)
    token.conferences.set([b])
    endpoint = WebhookEndpoint.objects.create(conference=a, url="https://hooks.example.org/a")
    call = make_call(a)
    # A proposal sent to A's call and accepted, its speaker an account of no team: reviewers
    # read it, planners decide on it, and its own pages (the answer page) are its speaker's.
    proposer = person("proposer", staff=False)
    objects = {
        "conference": a,
        "room": room,
        "track": track,
        "speaker": speaker,
        "session": session,
        "attachment": Attachment.objects.create(
            session=session, title="Slides", url="https://slides.example.org"
        ),
        "feedback": Feedback.objects.create(session=session, user=people["attendee"], rating=4),
        "release": Release.objects.create(
            conference=a, version="v1", released_at=paris(1, 9), snapshot={}
        ),
        "webhookendpoint": endpoint,
        "webhookdelivery": WebhookDelivery.objects.create(
            endpoint=endpoint, event="session.changed", body="{}"
        ),
        "team": make_team(people["a-organizer"], conferences=[a], is_organizer=True),
        "apitoken": ApiToken.objects.create(user=people["a-organizer"], name="A's"),
        "sessionchangeproposal": SessionChangeProposal.objects.create(
            session=session, speaker=speaker, title="A new title", original_title=session.title
        ),
        "proposal": make_proposal(a, proposer, state=Proposal.State.ACCEPTED, title="A proposal"),
        "scheduleimport": ScheduleImport.objects.create(
            conference=a, file_name="sessions.csv", data=b"code,title\n"
        ),
        "call": call,
    }
    return {"a": a, "objects": objects, "people": people, "token": token}


def door_url(name: str, world, twin: bool = False) -> str:
    """The door ``name`` opened on conference A's objects; with ``twin``, the same door of a
    conference (or an object) that does not exist."""
    a, objects = world["a"], world["objects"]
    values = {}
    for argument in ROUTES[name]:
        if argument == "conference_slug":
            values[argument] = "no-such-conference" if twin else a.slug
        elif argument == "conference_id":
            values[argument] = 999_999 if twin else a.pk
        elif argument == "object_id":
            values[argument] = 999_999 if twin else objects[admin_model(name)._meta.model_name].pk
        elif argument in {"session_id", "slug", "session_slug"}:
            named = name.split(":")[-1]
            owner = next(
                (kind for kind in ("room", "track", "speaker") if named.startswith(kind)),
                "session",
            )
            obj = objects[owner]
            values[argument] = obj.pk if argument == "session_id" else obj.slug
        elif argument == "room_slug":
            values[argument] = objects["room"].slug
        elif argument == "pk":
            values[argument] = objects["attachment"].pk
        elif argument == "import_id":
            values[argument] = objects["scheduleimport"].pk
        elif argument == "code":
            values[argument] = objects["proposal"].code
        elif argument == "token":
            values[argument] = "x" * 10 + "." + "y" * 20
        elif argument == "calendar":
            values[argument] = "google"
        else:
            raise AssertionError(f"{name}: the door test cannot fill <{argument}>; teach it")
    return reverse(name, kwargs=values)


def ask(world, who: str, name: str, twin: bool = False):
    url = door_url(name, world, twin)
    if name.startswith("api:"):
        client = APIClient()
        if who == "token-of-b":
            client.credentials(HTTP_AUTHORIZATION=f"Token {world['token'].key}")
        elif who != "anonymous":
            client.force_authenticate(world["people"][who])
        # A viewset's route answers the methods it maps; knock with a read where there is one.
        actions = getattr(resolve(url).func, "actions", None) or {"get": None}
        method = "get" if "get" in actions else sorted(actions)[0]
        return getattr(client, method)(url)
    from django.test import Client

    client = Client()
    if who not in {"anonymous", "token-of-b"}:
        client.force_login(world["people"][who])
    response = client.get(url)
    # A door that only acts (revoke a token) is knocked on as it is used.
    return client.post(url) if response.status_code == 405 else response


OUTSIDERS = [
    "anonymous",
    "attendee",
    "staff-of-no-team",
    *(f"b-{role}" for role in Role.values),
    "token-of-b",
]


def expected_for_outsider(who: str, name: str) -> set[int]:
    if name in SAME_FOR_EVERY_CONFERENCE:
        return {200}
    if name.startswith("admin:"):
        return {302} if who in {"anonymous", "attendee"} else {404}
    if name.startswith("api:"):
        # An anonymous write, or a read that needs a role, asks to log in first, whatever the
        # conference: that discloses nothing.
        return {401, 404} if who == "anonymous" else {404}
    return {302, 404} if who == "anonymous" else {404}


DOORS = conference_doors()
# Doors that answer alike whatever the conference: the grid's row styles (one stylesheet per
# number of rows).
SAME_FOR_EVERY_CONFERENCE = {"sessions:schedule-grid-rows"}
# Doors opened by a secret of their own (a mailed link, a private feed) or about one's own saves:
# no role opens them.
# A call's own pages: public while the call runs, which is before its conference is published
# (who opens them, and that a conference without a call answers them with a 404:
# tests/sessions/cfp/test_speaker_pages.py).
CALL_DOORS = {"call", "my-proposals", "proposal-new"}
PERSONAL_DOORS = {
    "speakers:invitation",
    "sessions:my-schedule-feed",
    "api:my-schedule-entry",
    # A speaker's own proposal: nobody else's, whatever their role.
    "api:my-proposal-detail",
    "api:my-proposal-submit",
    "api:my-proposal-withdraw",
}


def test_the_walk_finds_every_kind_of_door():
    kinds = {name.split(":")[0] for name in DOORS}
    assert {
        "admin",
        "api",
        "conference",
        "sessions",
        "speakers",
        "speaker-pages",
        "feedback",
    } <= kinds
    assert "admin:schedule_session_planner" in DOORS
    assert "admin:schedule_session_change" in DOORS
    assert "admin:speakers_sessionchangeproposal_change" in DOORS
    assert "admin:schedule_proposal_change" in DOORS
    assert "admin:schedule_proposal_export" in DOORS
    assert "admin:schedule_call_change" in DOORS
    assert "speaker-pages:propose-change" in DOORS
    assert "cfp-decision-answer" in DOORS


@pytest.mark.parametrize(
    ("who", "name"),
    [
        (who, name)
        for who in OUTSIDERS
        for name in DOORS
        # A token opens only the API.
        if (who != "token-of-b" or name.startswith("api:")) and name not in CALL_DOORS
    ],
)
def test_no_door_gives_an_outsider_anything_of_an_unpublished_conference(world, who, name):
    response, nothing = ask(world, who, name), ask(world, who, name, twin=True)
    assert response.status_code in expected_for_outsider(who, name), (
        f"{who} asked {door_url(name, world)}: {response.status_code}"
    )
    # What they get is what a conference that does not exist gives: nothing to tell them apart.
    # (Anonymous visitors may instead be sent to log in: a speaker's own pages look their
    # conference up among the unpublished too, for its speakers, once they have logged in.)
    if not (who == "anonymous" and response.status_code == 302):
        assert response.status_code == nothing.status_code
    if response.status_code == 200:
        assert response.content == nothing.content


TEAM_DOORS = [
    name for name in DOORS if name.split(":")[0] in {"admin", "api"} and name not in PERSONAL_DOORS
]


@pytest.mark.parametrize("name", TEAM_DOORS)
@pytest.mark.parametrize("role", Role.values)
def test_every_role_of_its_team_is_answered_by_what_it_may_see(world, role, name):
    """Its team knows the conference: an admin or API door answers (a 403 where the role may
    not act), and a 404 only for an admin object the role may not even see (a webhook, a team, a
    token that is another person's), as the admin hides what is not theirs."""
    user = world["people"][f"a-{role}"]
    response = ask(world, f"a-{role}", name)
    hidden = False
    if name.startswith("admin:") and "object_id" in ROUTES[name]:
        model = admin_model(name)._meta
        obj = world["objects"][model.model_name]
        hidden = not user.has_perm(f"{model.app_label}.view_{model.model_name}", obj)
    assert response.status_code != 500
    assert (response.status_code == 404) == hidden, (
        f"a-{role} asked {door_url(name, world)}: {response.status_code}"
    )


@pytest.mark.parametrize("who", ["staff-of-no-team", "a-organizer", "b-programme"])
@pytest.mark.parametrize(
    "model", [model for model in admin.site._registry if model._meta.app_label not in OUR_APPS]
)
def test_site_wide_admin_pages_are_for_superusers_alone(world, who, model):
    from django.test import Client

    client = Client()
    client.force_login(world["people"][who])
    url = reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist")

    assert client.get(url).status_code == 403

"""Nothing of a visitor ends up in the shared part of a cached page (conference/pages/).

Every view that caches its page through SharedPageMixin is found from the URL configuration,
so a new page is covered without editing this file.
"""

import itertools

import pytest
from django.contrib import messages
from django.contrib.auth.models import AnonymousUser
from django.contrib.messages.storage.cookie import CookieStorage
from django.core.exceptions import ImproperlyConfigured
from django.http import HttpResponse, QueryDict
from django.test import Client
from django.urls import URLResolver, get_resolver, resolve, reverse

from conference.models import PUBLIC_COPY
from conference.pages.copies import FinishedPage, worker_copies
from conference.pages.holes import HOLE_KINDS, HoleKind, SharedPage, hole_kind
from conference.pages.nobody import PersonalPartOutsideHoleError, nobody_request
from conference.pages.versions import page_query
from conference.pages.views import SharedPageMixin
from sessions.models import SavedSession
from tests.builders import make_conference, make_room, make_session, make_speaker, make_track, paris

pytestmark = pytest.mark.django_db

USERNAME = "grace-hopper-staff"
EMAIL = "grace.private@example.org"
MESSAGE = "Your private notice 7731"
# A session and a speaker share one slug, so each page's URL needs one value per placeholder.
SLUG = "leak-probe"


def shared_page_routes() -> list[tuple[str, str]]:
    """(URL name, placeholder names) of every view that caches its page as a shared page."""

    def walk(patterns, namespace="", placeholders=()):
        for pattern in patterns:
            found = (*placeholders, *pattern.pattern.converters)
            if isinstance(pattern, URLResolver):
                inner = f"{namespace}{pattern.namespace}:" if pattern.namespace else namespace
                yield from walk(pattern.url_patterns, inner, found)
            else:
                yield f"{namespace}{pattern.name}", found, pattern.callback

    return [
        (name, placeholders)
        for name, placeholders, callback in walk(get_resolver().url_patterns)
        if issubclass(getattr(callback, "view_class", object), SharedPageMixin)
        and callback.view_class.shared
    ]


ROUTES = shared_page_routes()


def test_the_routes_found_are_the_conference_pages_and_exports():
    names = {name for name, _placeholders in ROUTES}
    assert {"sessions:schedule", "sessions:schedule-xml", "speakers:speaker-detail"} <= names
    assert "sessions:my-schedule" not in names  # a page of one visitor's own, never shared


@pytest.fixture
def conference():
    """A pair: conference "leaky" and its one session, whose slug and speaker's are ``SLUG``."""
    conference = make_conference(slug="leaky")
    room = make_room(conference, name="Main Hall", slug="main-hall")
    session = make_session(
        conference,
        title="Probing leaks",
        slug=SLUG,
        room=room,
        track=make_track(conference),
        starts_at=paris(8, 10),
        speakers=[make_speaker(conference, name="Ada Probe", slug=SLUG)],
    )
    return conference, session


@pytest.fixture
def staff_client(client, django_user_model, conference):
    """A staff member, logged in, who saved a session and has a message waiting."""
    user = django_user_model.objects.create_user(USERNAME, email=EMAIL, password="x", is_staff=True)
    SavedSession.objects.add(user, conference[1])
    client.force_login(user)
    storage = CookieStorage(client.get("/").wsgi_request)
    storage.add(messages.INFO, MESSAGE)
    carrier = HttpResponse()
    storage.update(carrier)
    client.cookies[storage.cookie_name] = carrier.cookies[storage.cookie_name].value
    return client


def route_url(name: str, placeholders: tuple[str, ...]) -> str:
    values = {"conference_slug": "leaky", "room_slug": "main-hall", "slug": SLUG}
    return reverse(name, kwargs={placeholder: values[placeholder] for placeholder in placeholders})


def stored_shared_parts() -> list[bytes]:
    """The text of every page kept for others: shared parts, and finished pages."""
    kept = []
    for page, _size in worker_copies.entries.values():
        if isinstance(page, SharedPage):
            kept.append(b"".join(page.parts))
        elif isinstance(page, FinishedPage):
            kept.append(page.content)
    return kept


@pytest.mark.parametrize(("name", "placeholders"), ROUTES, ids=[name for name, _ in ROUTES])
def test_a_cached_page_keeps_nothing_of_the_visitor_who_made_it(
    staff_client, conference, name, placeholders
):
    url = route_url(name, placeholders)
    response = staff_client.get(url)
    assert response.status_code == 200, url
    page = b"".join(response.streaming_content) if response.streaming else response.content
    csrf_cookie = staff_client.cookies.get("csrftoken")
    kept = stored_shared_parts()
    assert kept, f"{url} kept no page"
    for text in kept:
        assert USERNAME.encode() not in text
        assert EMAIL.encode() not in text
        assert MESSAGE.encode() not in text
        assert b"csrfmiddlewaretoken" not in text
        if csrf_cookie is not None:
            assert csrf_cookie.value.encode() not in text
    has_holes = not resolve(url).func.view_class.same_for_every_user  # not the embed
    if response.get("Content-Type", "").startswith("text/html") and has_holes:
        # The visitor's own parts are there, filled in for them.
        assert USERNAME.encode() in page
        assert b"csrfmiddlewaretoken" in page


def test_printing_the_csrf_field_outside_a_hole_fails_the_page(client, conference, settings):
    from django.template import engines

    template = engines["jinja2"].from_string("<form>{{ csrf_input }}</form>")
    request = client.get("/").wsgi_request
    with pytest.raises(PersonalPartOutsideHoleError):
        template.render({}, nobody_request(request, QueryDict(), PUBLIC_COPY))


def test_a_hole_kind_whose_states_differ_in_length_is_refused_when_registered():
    class Confirmation(HoleKind):
        template_name = "sessions/includes/save_confirmation.html"
        index_field = "card_id"
        fixed_length = True
        states = ("", "Saved to your schedule.")
        examples = ({"card_id": "session-1"},)

        def state(self, data, visitor):
            return ""

        def unusual(self, visitor):
            return ()

    registered = HOLE_KINDS[Confirmation.template_name]
    with pytest.raises(ImproperlyConfigured, match="equally long"):
        hole_kind(Confirmation)
    assert HOLE_KINDS[Confirmation.template_name] is registered


UNDECLARED = "probe"
PROBE_VALUE = "first-visitor-value-5521"


def printing_undeclared_parameter(get):
    """A view's ``get`` that also prints ``?probe=`` into its page: a view reading a query
    parameter it did not declare."""

    def wrapped(self, request, *args, **kwargs):
        response = get(self, request, *args, **kwargs)
        printed = request.GET.get(UNDECLARED, "").encode()
        if response.streaming:
            response.streaming_content = itertools.chain(response.streaming_content, [printed])
        elif getattr(response, "is_rendered", True):
            response.content += printed
        else:
            response.add_post_render_callback(
                lambda rendered: setattr(rendered, "content", rendered.content + printed)
            )
        return response

    return wrapped


def body(response) -> bytes:
    return b"".join(response.streaming_content) if response.streaming else response.content


@pytest.mark.parametrize("logged_in", [False, True], ids=["anonymous", "logged-in"])
@pytest.mark.parametrize(("name", "placeholders"), ROUTES, ids=[name for name, _ in ROUTES])
def test_an_undeclared_query_parameter_cannot_change_what_others_get(
    client, django_user_model, monkeypatch, conference, name, placeholders, logged_in
):
    view_class = resolve(route_url(name, placeholders)).func.view_class
    monkeypatch.setattr(view_class, "get", printing_undeclared_parameter(view_class.get))
    if logged_in:
        client.force_login(django_user_model.objects.create_user("first-visitor"))
    url = route_url(name, placeholders)
    first = client.get(url, {UNDECLARED: PROBE_VALUE})
    assert first.status_code == 200, url
    assert PROBE_VALUE.encode() not in body(first)
    for text in stored_shared_parts():
        assert PROBE_VALUE.encode() not in text
    assert PROBE_VALUE.encode() not in body(Client().get(url))  # the next visitor's page


def test_the_stand_in_request_carries_only_the_declared_query_parameters(rf):
    request = rf.get("/pycon/schedule/", {"track": ["b", "a"], "utm_source": "mail", "foo": "1"})
    request.user = AnonymousUser()
    stand_in = nobody_request(request, page_query(request, ("tz", "track")), PUBLIC_COPY)
    assert dict(stand_in.GET.lists()) == {"track": ["a", "b"]}
    assert stand_in.META["QUERY_STRING"] == "track=a&track=b"
    assert request.GET["foo"] == "1"  # the visitor's own request is left as it was

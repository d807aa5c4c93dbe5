"""Nothing of a visitor ends up in the shared part of a cached page (conference/pages/).

Every view that caches its page through SharedPageMixin is found from the URL configuration,
so a new page is covered without editing this file.
"""

import pytest
from django.contrib import messages
from django.contrib.messages.storage.cookie import CookieStorage
from django.core.exceptions import ImproperlyConfigured
from django.http import HttpResponse
from django.urls import URLResolver, get_resolver, resolve, reverse

from conference.pages.copies import FinishedPage, worker_copies
from conference.pages.holes import HOLE_KINDS, HoleKind, SharedPage, hole_kind
from conference.pages.nobody import PersonalPartOutsideHoleError
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
    values = {"conference_slug": "leaky", "room_slug": "main-hall", "slug": SLUG}
    url = reverse(name, kwargs={placeholder: values[placeholder] for placeholder in placeholders})
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
    from conference.pages.nobody import nobody_request

    with pytest.raises(PersonalPartOutsideHoleError):
        template.render({}, nobody_request(request))


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

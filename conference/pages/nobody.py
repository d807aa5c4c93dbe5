"""The visitor a shared part is rendered for: nobody, so nothing personal can end up in it.

The shared part of a page is cached and sent to everyone whose request names the same version.
It is rendered for a stand-in request (``nobody_request``): an anonymous user with only the
role of the copy the version names (its previewers see drafts), only the query parameters the page declares, no
cookies, an empty session, no messages, and a CSRF field that refuses to print. What is
personal can then only come from a hole (conference.pages.holes), rendered per visitor.
"""

from __future__ import annotations

import copy
from importlib import import_module

from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.http import HttpRequest, QueryDict

from conference.models import PREVIEW_COPY, Preview

# What a request carries of its visitor, besides the user: left out of the stand-in.
PERSONAL_META = ("HTTP_COOKIE", "CSRF_COOKIE", "CSRF_COOKIE_NEEDS_UPDATE", "HTTP_AUTHORIZATION")


class PersonalPartOutsideHoleError(Exception):
    """A template printed something of its visitor in the shared part of a page."""


class CsrfStandIn:
    """The CSRF field and token on a shared part: printing either is a mistake, caught here
    rather than by the next visitor, who would get the first one's token."""

    def __html__(self) -> str:
        raise PersonalPartOutsideHoleError(
            "The CSRF field belongs to one visitor: print it inside a personal() hole."
        )

    __str__ = __html__


CSRF_STAND_IN = CsrfStandIn()


class Nobody(AnonymousUser):
    """No account, no name, no address: only the copy of the page's conference
    (``conference.models.copy_for``) it is rendered for, as what it may preview
    (``preview_of`` reads ``page_preview``)."""

    def __init__(self, page_copy: str, conference_id: int | None):
        previewed = frozenset({conference_id}) if page_copy == PREVIEW_COPY else frozenset()
        self.page_preview = Preview(everything=False, conference_ids=previewed)


def nobody_request(
    request: HttpRequest, query: QueryDict, page_copy: str, conference_id: int | None = None
) -> HttpRequest:
    """``request`` as nobody makes it: same address and display zone, nothing personal, and
    ``query`` (the parameters the page declares, ``page_query``) as its whole query string;
    rendered for ``page_copy`` (``copy_for`` the visitor) of conference ``conference_id``.

    The shared part is cached by the declared parameters alone: a view reading any other
    (``request.GET["foo"]``) must find nothing there, or one visitor's value would be kept
    for all.
    """
    stand_in = copy.copy(request)
    stand_in.user = Nobody(page_copy, conference_id)
    stand_in.COOKIES = {}
    stand_in.META = {
        name: value for name, value in request.META.items() if name not in PERSONAL_META
    }
    stand_in.META["QUERY_STRING"] = query.urlencode()
    stand_in.GET = QueryDict(query.urlencode())
    stand_in.session = import_module(settings.SESSION_ENGINE).SessionStore()
    stand_in._messages = []
    stand_in.renders_shared_part = True
    return stand_in


def shared_part_context(request: HttpRequest | None) -> dict:
    """Context processor: on a shared part the CSRF field and token are stand-ins that refuse
    to print (Django's template backends put the visitor's there first) and there are no
    messages."""
    if getattr(request, "renders_shared_part", False):
        return {"csrf_input": CSRF_STAND_IN, "csrf_token": CSRF_STAND_IN, "messages": []}
    return {}

"""Bad input and errors: refused in one place, answered as JSON under /api/ and as plain pages elsewhere.

``RefuseUnstorableTextMiddleware`` turns away any request carrying a NUL character (or, in JSON,
an unpaired surrogate) before a view, form, filter, serializer, the admin or an authentication
backend can hand it to the database: PostgreSQL refuses NUL in text, and the DataError would be
a 500. A middleware, because a validator on our own fields would leave out what we do not build:
the admin's list filters and autocomplete, DRF's query parameters, the session cookie and the
token header.

A write that waited SQLite's whole timeout for the database's write lock raises
OperationalError "database is locked": nothing was written and the same request will succeed a
moment later, so it is a 503 with Retry-After, not a 500; ``BusyDatabaseMiddleware`` answers it
when a view raised it, ``server_error`` when a middleware did (saving the session).

The ``handler400``-``handler500`` views (set in ``conference.site.urls``) answer what Django raises
itself: too many fields, a body over DATA_UPLOAD_MAX_MEMORY_SIZE, the refusals here (NUL, and
``RefuseLargeBodyMiddleware``'s body declared over REQUEST_MAX_BYTES), and any
error outside a DRF view. ``conference.api.policies.api_exception_handler`` hands bad requests inside DRF
views to them too, so each status has one wording for pages and API alike.
"""

import re
import sys

from django.conf import settings
from django.core.exceptions import (
    BadRequest,
    RequestDataTooBig,
    TooManyFieldsSent,
    TooManyFilesSent,
)
from django.db import OperationalError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.template import loader
from django.utils import translation
from django.utils.formats import number_format
from django.utils.translation import gettext, gettext_lazy
from django.views import defaults
from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

from conference.i18n.languages import activate_conference_language
from conference.models import Conference

NUL = "\x00"
NUL_REFUSED = gettext_lazy("Null characters are not allowed in a request.")
SURROGATE_REFUSED = gettext_lazy(
    "Unpaired surrogates (\\ud800 to \\udfff) are not allowed in JSON."
)
# In a JSON text: "\u" and then 0000, a high surrogate without a low one after it, or a low
# surrogate (paired or not: json_refusal() looks). Starting with a literal lets the regex engine
# skip ahead, so a large body costs less to check than DRF takes to parse it.
JSON_ESCAPE_TO_CHECK = re.compile(
    r"\\u(?:0000|[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F])|[dD][c-fC-F][0-9a-fA-F]{2})"
)
HIGH_SURROGATE = re.compile(r"\\u[dD][89abAB][0-9a-fA-F]{2}")
FORM_TYPES = frozenset({"application/x-www-form-urlencoded", "multipart/form-data"})


class UnstorableTextRefused(BadRequest):
    """A request carrying text no database column may hold; its message is shown as is."""


def unstorable_text(request: HttpRequest) -> str | None:
    """Why the request must be refused, if it carries text we could neither store nor look up.

    NUL anywhere (the path, a query or form field, a JSON body, a cookie, a header), or an
    unpaired surrogate escape in a JSON body: query strings and forms are decoded with errors
    replaced, so only JSON can carry one. Each part is looked at only when the request has it;
    request.GET and request.COOKIES are parsed by the next middleware anyway, and request.POST
    and the JSON body by the view.
    """
    if NUL in request.path_info:
        return NUL_REFUSED
    if request.META.get("QUERY_STRING") and query_holds_nul(request.GET):
        return NUL_REFUSED
    if request.method == "POST" and request.content_type in FORM_TYPES:
        if query_holds_nul(request.POST):
            return NUL_REFUSED
    elif request.content_type == "application/json" and request.body:
        text = request.body.decode(request.encoding or settings.DEFAULT_CHARSET, "replace")
        if refusal := json_refusal(text):
            return refusal
    if request.META.get("HTTP_COOKIE") and any(
        NUL in name or NUL in value for name, value in request.COOKIES.items()
    ):
        return NUL_REFUSED
    headers = (value for name, value in request.META.items() if name.startswith("HTTP_"))
    if any(isinstance(value, str) and NUL in value for value in headers):
        return NUL_REFUSED
    return None


def json_refusal(text: str) -> str | None:
    """NUL_REFUSED or SURROGATE_REFUSED if the JSON ``text`` holds either, else None."""
    if NUL in text:  # not valid JSON anyway
        return NUL_REFUSED
    for match in JSON_ESCAPE_TO_CHECK.finditer(text):
        start, escape = match.start(), match.group()
        if not starts_escape(text, start):  # "\\u0000" is a backslash and "u0000"
            continue
        if escape == "\\u0000":
            return NUL_REFUSED
        if escape[3] in "89abAB":  # a high surrogate the regex found no low one after
            return SURROGATE_REFUSED
        paired = start >= 6 and HIGH_SURROGATE.fullmatch(text, start - 6, start)
        if not (paired and starts_escape(text, start - 6)):
            return SURROGATE_REFUSED
    return None


def starts_escape(text: str, index: int) -> bool:
    """Whether the backslash at ``index`` starts an escape: an even number of them before it."""
    first = index
    while first and text[first - 1] == "\\":
        first -= 1
    return (index - first) % 2 == 0


def query_holds_nul(query) -> bool:
    return any(
        NUL in name or any(NUL in value for value in values) for name, values in query.lists()
    )


class RefuseUnstorableTextMiddleware:
    """A 400 for any request carrying NUL or a lone surrogate (the module's docstring says why)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if refusal := unstorable_text(request):
            # Raised, not returned: bad_request below answers it like every other 400.
            raise UnstorableTextRefused(refusal)
        return self.get_response(request)


class RequestBodyTooLarge(RequestDataTooBig):
    """A request declaring a body over settings.REQUEST_MAX_BYTES, refused unread."""


class RefuseLargeBodyMiddleware:
    """A 413 for a request whose Content-Length is over settings.REQUEST_MAX_BYTES, before
    anything reads its body.

    Django bounds what it keeps in memory (DATA_UPLOAD_MAX_MEMORY_SIZE, checked against the
    declared length before reading, but not counting uploaded files) and how many fields and
    files a form has; it streams files of any size to disk. Each file field checks its own size
    only once the whole body is read. So without this a huge upload keeps a worker reading for
    as long as the client sends. A body without a Content-Length is not read by Django at all.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        declared = request.META.get("CONTENT_LENGTH") or ""
        if declared.isascii() and declared.isdigit() and int(declared) > settings.REQUEST_MAX_BYTES:
            raise RequestBodyTooLarge("Request body over REQUEST_MAX_BYTES.")
        return self.get_response(request)


class JsonBodyParser(JSONParser):
    """DRF's JSON parser; a body nested too deeply for Python's parser is a 400, not a 500."""

    def parse(self, stream, media_type=None, parser_context=None):
        try:
            return super().parse(stream, media_type, parser_context)
        except RecursionError as error:
            raise ParseError("JSON parse error - the document is nested too deeply.") from error


def is_api(request: HttpRequest) -> bool:
    return request.path_info.startswith("/api/")


def error_response(request: HttpRequest, status: int, title: str, message: str) -> HttpResponse:
    if is_api(request):
        return JsonResponse({"detail": message}, status=status)
    # A page of its own, not base.html: the request may be too broken to build a normal page.
    body = loader.render_to_string("400.html", {"title": title, "message": message})
    return HttpResponse(body, status=status)


def megabytes(size: int) -> str:
    value = size / 2**20
    shown = number_format(int(value) if value.is_integer() else round(value, 2))
    return gettext("%(size)s MB") % {"size": shown}


def bad_request(request, exception=None):
    """handler400: what was wrong, in words; a body too large is a 413. In the visitor's
    language on a page; in English under /api/, like the rest of the API's own words."""
    if is_api(request):
        with translation.override("en"):
            return refusal(request, exception)
    return refusal(request, exception)


def refusal(request, exception=None) -> HttpResponse:
    if isinstance(exception, RequestBodyTooLarge):
        message = gettext("The request is too large: at most %(limit)s in all.") % {
            "limit": megabytes(settings.REQUEST_MAX_BYTES)
        }
        return error_response(request, 413, gettext("Request too large"), message)
    if isinstance(exception, RequestDataTooBig):
        limit = megabytes(settings.DATA_UPLOAD_MAX_MEMORY_SIZE)
        message = gettext(
            "The request is too large: at most %(limit)s, not counting uploaded files."
        ) % {"limit": limit}
        return error_response(request, 413, gettext("Request too large"), message)
    if isinstance(exception, TooManyFieldsSent):
        limit = settings.DATA_UPLOAD_MAX_NUMBER_FIELDS
        message = gettext("Too many query parameters or form fields: at most %(limit)s.") % {
            "limit": number_format(limit, force_grouping=True)
        }
    elif isinstance(exception, TooManyFilesSent):
        message = gettext("Too many files: at most %(limit)s.") % {
            "limit": number_format(settings.DATA_UPLOAD_MAX_NUMBER_FILES, force_grouping=True)
        }
    elif isinstance(exception, UnstorableTextRefused):
        message = str(exception)
    else:  # Django's other refusals (a bad Host header, a broken upload) may name internals
        message = gettext("The request could not be understood.")
    return error_response(request, 400, gettext("Bad request"), message)


def permission_denied(request, exception=None):
    if is_api(request):
        return JsonResponse({"detail": "You do not have permission to do this."}, status=403)
    return defaults.permission_denied(request, exception)


def conference_of(request: HttpRequest) -> Conference | None:
    """The conference whose address ``request`` is under, if the visitor may see it."""
    slug = request.path_info.strip("/").partition("/")[0]
    user = getattr(request, "user", None)
    if not slug or user is None:
        return None
    return Conference.objects.visible_by_slug(user, slug)


def page_not_found(request, exception=None):
    """A page not found under a conference keeps the conference's header and links, and the
    visitor's own account links; elsewhere the site's."""
    if is_api(request):
        return JsonResponse({"detail": "Not found."}, status=404)
    conference = conference_of(request)
    if conference is None:
        return defaults.page_not_found(request, exception)
    activate_conference_language(request, conference.language)
    context = {"conference": conference, "time_zone_picker": False}
    return render(request, "conference/404.html", context, status=404)


# Seconds a client is asked to wait before trying a write again that found the database locked.
BUSY_RETRY_AFTER = 5


def is_database_locked(error: BaseException | None) -> bool:
    return isinstance(error, OperationalError) and "database is locked" in str(error)


def database_busy(request: HttpRequest) -> HttpResponse:
    """503 with Retry-After: the request found the database's write lock taken for longer than
    its timeout (SQLite, behind a long write) and did nothing."""
    response = error_response(
        request,
        503,
        gettext("Busy: please try again"),
        gettext("The site is busy writing and saved nothing. Please try again in a few seconds."),
    )
    response["Retry-After"] = str(BUSY_RETRY_AFTER)
    return response


class BusyDatabaseMiddleware:
    """A view that found the database locked answers 503 with Retry-After (``database_busy``)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        return database_busy(request) if is_database_locked(exception) else None


def server_error(request):
    # Django calls this while handling the error: a middleware's, which no process_exception sees.
    if is_database_locked(sys.exc_info()[1]):
        return database_busy(request)
    if is_api(request):
        return JsonResponse({"detail": "Server error."}, status=500)
    return defaults.server_error(request)

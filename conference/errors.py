"""Bad input and errors: refused in one place, answered as JSON under /api/ and as plain pages elsewhere.

``RefuseNullCharactersMiddleware`` turns away any request carrying a NUL character before a view,
form, filter, serializer, the admin or an authentication backend can hand it to the database:
PostgreSQL refuses NUL in text, and the DataError would be a 500. A middleware, because a
validator on our own fields would leave out what we do not build: the admin's list filters and
autocomplete, DRF's query parameters, the session cookie and the token header.

The ``handler400``-``handler500`` views (set in ``conference.urls``) answer what Django raises
itself: too many fields, a body over DATA_UPLOAD_MAX_MEMORY_SIZE, the NUL refusal above, and any
error outside a DRF view. ``conference.api.api_exception_handler`` hands bad requests inside DRF
views to them too, so each status has one wording for pages and API alike.
"""

import re

from django.conf import settings
from django.core.exceptions import (
    BadRequest,
    RequestDataTooBig,
    TooManyFieldsSent,
    TooManyFilesSent,
)
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template import loader
from django.views import defaults
from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

NUL = "\x00"
# A NUL in a JSON text: the escape \u0000 after an even number of backslashes (an odd number
# makes it the literal text "\u0000"), or the raw character, which JSON forbids anyway.
JSON_NUL = re.compile(r"\x00|(?<!\\)(?:\\\\)*\\u0000")
FORM_TYPES = frozenset({"application/x-www-form-urlencoded", "multipart/form-data"})


class NullCharacterRefused(BadRequest):
    """A request carrying a NUL character: no text we store or look up may hold one."""

    message = "Null characters are not allowed in a request."


def holds_nul(request: HttpRequest) -> bool:
    """True if the path, a query or form field, a JSON body, a cookie or a header holds NUL.

    Each part is looked at only when the request has it; request.GET and request.COOKIES are
    parsed by the next middleware anyway, and request.POST and the JSON body by the view.
    """
    if NUL in request.path_info:
        return True
    if request.META.get("QUERY_STRING") and query_holds_nul(request.GET):
        return True
    if request.method == "POST" and request.content_type in FORM_TYPES:
        if query_holds_nul(request.POST):
            return True
    elif request.content_type == "application/json" and request.body:
        text = request.body.decode(request.encoding or settings.DEFAULT_CHARSET, "replace")
        if JSON_NUL.search(text):
            return True
    if request.META.get("HTTP_COOKIE") and any(
        NUL in name or NUL in value for name, value in request.COOKIES.items()
    ):
        return True
    return any(
        NUL in value
        for name, value in request.META.items()
        if name.startswith("HTTP_") and isinstance(value, str)
    )


def query_holds_nul(query) -> bool:
    return any(
        NUL in name or any(NUL in value for value in values) for name, values in query.lists()
    )


class RefuseNullCharactersMiddleware:
    """A 400 for any request holding NUL (see the module's docstring for why here)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if holds_nul(request):
            # Raised, not returned: bad_request below answers it like every other 400.
            raise NullCharacterRefused(NullCharacterRefused.message)
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
    return f"{size / 2**20:g} MB"


def bad_request(request, exception=None):
    """handler400: what was wrong, in words; a body too large is a 413."""
    if isinstance(exception, RequestDataTooBig):
        limit = megabytes(settings.DATA_UPLOAD_MAX_MEMORY_SIZE)
        message = f"The request is too large: at most {limit}, not counting uploaded files."
        return error_response(request, 413, "Request too large", message)
    if isinstance(exception, TooManyFieldsSent):
        limit = settings.DATA_UPLOAD_MAX_NUMBER_FIELDS
        message = f"Too many query parameters or form fields: at most {limit:,}."
    elif isinstance(exception, TooManyFilesSent):
        message = f"Too many files: at most {settings.DATA_UPLOAD_MAX_NUMBER_FILES:,}."
    elif isinstance(exception, NullCharacterRefused):
        message = NullCharacterRefused.message
    else:  # Django's other refusals (a bad Host header, a broken upload) may name internals
        message = "The request could not be understood."
    return error_response(request, 400, "Bad request", message)


def permission_denied(request, exception=None):
    if is_api(request):
        return JsonResponse({"detail": "You do not have permission to do this."}, status=403)
    return defaults.permission_denied(request, exception)


def page_not_found(request, exception=None):
    if is_api(request):
        return JsonResponse({"detail": "Not found."}, status=404)
    return defaults.page_not_found(request, exception)


def server_error(request):
    if is_api(request):
        return JsonResponse({"detail": "Server error."}, status=500)
    return defaults.server_error(request)

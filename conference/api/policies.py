"""What every API view shares: paging, permissions, conditional reads, versioned writes, errors."""

import hashlib
import logging
from functools import partial

from django.core.exceptions import BadRequest, SuspiciousOperation
from django.db import IntegrityError
from django.http import HttpResponseNotModified, JsonResponse
from django.utils.http import parse_etags
from django.views.decorators.csrf import csrf_exempt
from rest_framework import exceptions, permissions
from rest_framework.pagination import LimitOffsetPagination
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response
from rest_framework.views import exception_handler, set_rollback

from conference.api.tokens import TokenScopePermission
from conference.versioning import EditConflictError, Versioned
from conference.views.errors import is_database_locked

logger = logging.getLogger("django.request")


class ApiPagination(LimitOffsetPagination):
    """?limit= (default PAGE_SIZE, 50; at most 200) and ?offset=; anything but a number is a 400."""

    max_limit = 200
    max_offset = 10**9  # far beyond any list here, well within what databases OFFSET by

    def get_limit(self, request):
        raw = request.query_params.get(self.limit_query_param)
        if raw is None:
            return self.default_limit
        return min(self.parse(raw, self.limit_query_param, minimum=1), self.max_limit)

    def get_offset(self, request):
        raw = request.query_params.get(self.offset_query_param)
        if raw is None:
            return 0
        return self.parse(raw, self.offset_query_param, minimum=0, maximum=self.max_offset)

    @staticmethod
    def parse(raw: str, name: str, minimum: int, maximum: int | None = None) -> int:
        # isdigit() alone takes other scripts' digits, int() takes "1_000"; neither is a URL number.
        if not (raw.isascii() and raw.isdigit()):
            value = None
        else:
            value = int(raw) if len(raw) <= 18 else 10**18  # no int() of a million digits
        if value is None or value < minimum or (maximum is not None and value > maximum):
            limit = f" and at most {maximum}" if maximum is not None else ""
            raise exceptions.ValidationError(
                {name: [f"Enter a whole number of at least {minimum}{limit}."]}
            )
        return value

    def get_paginated_response_schema(self, schema):
        paginated = super().get_paginated_response_schema(schema)
        properties = paginated["properties"]
        properties["count"]["example"] = 120
        properties["next"]["example"] = (
            "https://example.org/api/v1/conferences/?limit=50&offset=100"
        )
        properties["previous"]["example"] = (
            "https://example.org/api/v1/conferences/?limit=50&offset=0"
        )
        return paginated

    def get_schema_operation_parameters(self, view):
        return [
            {
                "name": self.limit_query_param,
                "in": "query",
                "required": False,
                "description": (
                    f"Number of results per page: {self.default_limit} by default; values "
                    f"above {self.max_limit} return {self.max_limit}."
                ),
                "schema": {"type": "integer", "minimum": 1},
            },
            {
                "name": self.offset_query_param,
                "in": "query",
                "required": False,
                "description": "Index of the first result to return.",
                "schema": {"type": "integer", "minimum": 0, "maximum": self.max_offset},
            },
        ]


class TeamPermission(permissions.BasePermission):
    """Who may do what through the API, for every view: the permissions of
    conference/permissions.py, granted by the person's teams in the conference of the URL.

    Reads are open (each view's queryset decides what a visitor sees) unless the view names a
    ``read_permission``; a write needs the model's add, change or delete permission. A token
    acts as its owner, within its own limits (``TokenScopePermission``, and
    ``reachable_conferences`` hides the conferences it is not for): never beyond them.
    """

    WRITE_ACTIONS = {"POST": "add", "PUT": "change", "PATCH": "change", "DELETE": "delete"}

    def has_permission(self, request, view):
        permission = self.required(request, view)
        if permission is None:
            return True
        user = request.user
        if not (user and user.is_authenticated):
            return False
        # Looked up only for a signed-in person: an anonymous writer learns they must log in
        # before learning whether the conference exists.
        conference = view.conference if "conference_slug" in view.kwargs else None
        return user.has_perm(permission, conference)

    def has_object_permission(self, request, view, obj):
        permission = self.required(request, view)
        return permission is None or request.user.has_perm(permission, obj)

    def required(self, request, view) -> str | None:
        if request.method in permissions.SAFE_METHODS:
            return getattr(view, "read_permission", None)
        if getattr(view, request.method.lower(), None) is None:
            return None  # no such door: DRF answers 405, whoever asks
        opts = view.queryset.model._meta
        return f"{opts.app_label}.{self.WRITE_ACTIONS[request.method]}_{opts.model_name}"


def etags_match_weakly(etag: str, header: str) -> bool:
    """Whether an If-None-Match ``header`` names ``etag``, comparing weakly (RFC 9110 13.1.2)."""
    named = parse_etags(header)
    return "*" in named or etag in {tag.removeprefix("W/") for tag in named}


class ConditionalReadMixin:
    """Every successful answer carries an ETag; a read whose If-None-Match names it is a 304.

    The ETag is a digest of the rendered body, so it changes exactly when the answer does: a
    room renamed inside a session, a conference published to staff only, the user's own saved
    sessions, the host in the paging links. A key made of the conference's ``changed_at`` and the
    URL would have to know each of those per view, and the conference list spans conferences.
    The body is still made for a 304; what it saves is the transfer and the client's parsing.

    A Versioned object's tag starts with its version, ``"5.<digest>"``, which is what If-Match
    compares (``VersionedObjectMixin``).
    """

    def finalize_response(self, request, response, *args, **kwargs):
        response = super().finalize_response(request, response, *args, **kwargs)
        if response.status_code == 200 and isinstance(response, Response):
            # The body exists only once rendered: tag it then.
            response.add_post_render_callback(partial(self.answer_conditionally, request))
        return response

    def answer_conditionally(self, request, response):
        digest = hashlib.sha256(response.content).hexdigest()[:32]
        obj = getattr(self, "loaded_object", None)
        etag = f'"{obj.version}.{digest}"' if obj is not None else f'"{digest}"'
        response["ETag"] = etag
        header = request.headers.get("If-None-Match")
        if request.method in ("GET", "HEAD") and header and etags_match_weakly(etag, header):
            not_modified = HttpResponseNotModified()
            for name in ("Cache-Control", "ETag", "Vary"):
                if name in response:
                    not_modified[name] = response[name]
            not_modified.cookies = response.cookies
            return not_modified
        return response


class ApiPolicyMixin(ConditionalReadMixin):
    """Who may do what, how lists are paged, and conditional reads, for every API viewset."""

    permission_classes = [TokenScopePermission, TeamPermission]
    pagination_class = ApiPagination


class Conflict(exceptions.APIException):
    status_code = 409
    default_detail = "This change conflicts with the current state of the data."
    default_code = "conflict"


class PreconditionFailed(exceptions.APIException):
    status_code = 412
    default_detail = "The If-Match header names a version that is no longer the current one."
    default_code = "precondition_failed"


def version_named(etag: str) -> str | None:
    """The version an ETag from a detail names: ``"5.<digest>"`` and ``"5"`` name 5. A weak one
    names none: If-Match compares strongly."""
    if etag.startswith("W/"):
        return None
    return etag.strip('"').partition(".")[0]


class VersionedObjectMixin:
    """Optimistic concurrency over HTTP for Versioned objects (conference/versioning.py).

    A detail response carries a strong ``ETag`` starting with the object's version
    (``ConditionalReadMixin``). PUT, PATCH and DELETE with an ``If-Match`` naming no current
    version answer 412 and change nothing; only the version counts, so a change to another
    object shown inside this one (a speaker's name in a session) refuses no write to it. Without
    If-Match they go ahead as before, still based on the version the request read, so a write
    landing between that read and this one is a 409 rather than silently overwritten.
    """

    def get_object(self):
        obj = super().get_object()
        if self.request.method not in permissions.SAFE_METHODS:
            self.check_if_match(obj)
        self.loaded_object = obj
        return obj

    def check_if_match(self, obj: Versioned) -> None:
        header = self.request.headers.get("If-Match")
        if header is None:
            return
        etags = parse_etags(header)
        if "*" not in etags and str(obj.version) not in {version_named(tag) for tag in etags}:
            raise self.precondition_failed(obj, obj.version)

    def precondition_failed(self, obj: Versioned, current: int | None) -> PreconditionFailed:
        kind = obj._meta.verbose_name
        if current is None:
            detail = f"This {kind} was deleted after the version your If-Match names."
        else:
            detail = (
                f"This {kind} changed after the version your If-Match names; it is now at "
                f'ETag "{current}". Read it again (GET), apply your change to what it is now, '
                "and send its new ETag in If-Match."
            )
        return PreconditionFailed(
            {"detail": detail, "etag": None if current is None else f'"{current}"'}
        )

    def refused(self, conflict: EditConflictError) -> exceptions.APIException:
        """Someone else wrote the object between this request's read and its write."""
        if "If-Match" in self.request.headers:
            return self.precondition_failed(conflict.instance, conflict.current_version)
        return Conflict(
            f"Someone else changed this {conflict.instance._meta.verbose_name} while this request "
            "was being handled; nothing was changed. Read it again and retry."
        )

    def perform_update(self, serializer):
        try:
            super().perform_update(serializer)
        except EditConflictError as conflict:
            raise self.refused(conflict) from conflict

    def perform_destroy(self, instance):
        try:
            super().perform_destroy(instance)
        except EditConflictError as conflict:
            raise self.refused(conflict) from conflict


def api_exception_handler(exc, context):
    """DRF's handler, plus JSON (never Django's HTML pages) for conflicts and server errors."""
    response = exception_handler(exc, context)
    if response is not None:
        return response
    if isinstance(exc, SuspiciousOperation | BadRequest) or is_database_locked(exc):
        # A body over DATA_UPLOAD_MAX_MEMORY_SIZE and the like, raised when DRF reads the body,
        # and a write that found the database locked: returning None lets Django answer them,
        # through conference.views.errors (bad_request, BusyDatabaseMiddleware; JSON).
        return None
    set_rollback()
    if isinstance(exc, IntegrityError):
        # Validation passed but the database refused: another request changed the same rows.
        return Response({"detail": Conflict.default_detail}, status=Conflict.status_code)
    request = context["request"]
    logger.error(
        "Internal Server Error: %s",
        request.path,
        exc_info=exc,
        extra={"status_code": 500, "request": request._request},
    )
    return Response({"detail": "Server error."}, status=500)


class JsonErrorsMixin:
    """Errors as JSON, as everywhere in the API, from views that answer YAML or HTML when they
    succeed (the schema and its docs page)."""

    def handle_exception(self, exc):
        self.request.accepted_renderer = JSONRenderer()
        self.request.accepted_media_type = JSONRenderer.media_type
        return super().handle_exception(exc)


@csrf_exempt
def api_not_found(request, *args, **kwargs):
    """Any /api/ URL that names no endpoint: JSON, like every other API answer."""
    return JsonResponse({"detail": "Not found."}, status=404)

"""API v1: conferences, rooms and tracks, and what every API view shares (scope, permissions, errors)."""

import copy
import hashlib
import logging
from functools import cached_property, partial

from django.core.exceptions import BadRequest, SuspiciousOperation
from django.db import IntegrityError, transaction
from django.db.models import RestrictedError
from django.http import HttpResponseNotModified, JsonResponse
from django.shortcuts import get_object_or_404
from django.utils.http import parse_etags
from django.views.decorators.csrf import csrf_exempt
from drf_spectacular.extensions import OpenApiSerializerExtension
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_serializer,
    extend_schema_view,
)
from rest_framework import exceptions, permissions, serializers, viewsets
from rest_framework.authtoken.serializers import AuthTokenSerializer
from rest_framework.authtoken.views import ObtainAuthToken
from rest_framework.pagination import LimitOffsetPagination
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response
from rest_framework.views import exception_handler, set_rollback

from conference.errors import JsonBodyParser
from conference.limits import (
    ScopedRateThrottle,
    login_is_locked,
    login_lock_seconds_left,
    login_locked_message,
)
from conference.models import HEX_COLOUR_MESSAGE, Conference, Room, Track
from conference.serializers import (
    ConferenceSerializer,
    ErrorSerializer,
    PreconditionFailedSerializer,
    RoomSerializer,
    TrackSerializer,
    ValidationErrorSerializer,
)
from conference.versioning import EditConflictError, Versioned

logger = logging.getLogger("django.request")

DEMO_CONFERENCE = "pytorch-eu-2026"


# --- Policies shared by every API view: ApiPolicyMixin, and settings.REST_FRAMEWORK -----------


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


class StaffOrModelPermissionsOrReadOnly(permissions.DjangoModelPermissions):
    """Anyone may read (each view's queryset decides what they see); staff, or holders of the
    model's add/change/delete permission, may write."""

    def has_permission(self, request, view):
        if request.method in permissions.SAFE_METHODS:
            return True
        user = request.user
        if not (user and user.is_authenticated):
            return False
        if user.is_staff:
            return True
        # The view's class-level queryset names the model; get_queryset() would already look up
        # the conference and answer 404 before an anonymous writer learns they must log in.
        return user.has_perms(self.get_required_permissions(request.method, view.queryset.model))


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

    permission_classes = [StaffOrModelPermissionsOrReadOnly]
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
    if isinstance(exc, SuspiciousOperation | BadRequest):
        # A body over DATA_UPLOAD_MAX_MEMORY_SIZE and the like, raised when DRF reads the body:
        # returning None lets Django answer them, through conference.errors.bad_request (JSON).
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


# --- Documentation helpers -------------------------------------------------------------------


class ApiSchema(AutoSchema):
    """Marks reads as open to anonymous clients where the default permission class allows it."""

    def get_auth(self):
        auths = super().get_auth()
        open_reads = any(
            isinstance(permission, StaffOrModelPermissionsOrReadOnly)
            for permission in self.view.get_permissions()
        )
        if open_reads and self.method in permissions.SAFE_METHODS and {} not in auths:
            auths.append({})
        return auths


class ValidationErrorSchema(OpenApiSerializerExtension):
    target_class = ValidationErrorSerializer

    def map_serializer(self, auto_schema, direction):
        return {
            "type": "object",
            "description": (
                "Each key names a field of the request (body or query string) and lists what is "
                "wrong with it; `non_field_errors` holds rules that span fields. A request body "
                "that is not valid JSON gets `detail` instead."
            ),
            "additionalProperties": {
                "oneOf": [
                    {"type": "array", "items": {"type": "string"}},
                    {"type": "string"},
                ]
            },
        }


ERRORS = {
    400: (
        ValidationErrorSerializer,
        "The request was not valid; each field names its problems.",
        {"starts_at": ["A session must end after it starts."]},
    ),
    401: (
        ErrorSerializer,
        "Missing or invalid credentials (send `Authorization: Token <key>`).",
        {"detail": "Authentication credentials were not provided."},
    ),
    403: (
        ErrorSerializer,
        "Authenticated, but not allowed: writes need staff status or the model's permission.",
        {"detail": "You do not have permission to perform this action."},
    ),
    404: (
        ErrorSerializer,
        "No such object, or not visible to you (unpublished conferences and draft sessions).",
        {"detail": "No Conference matches the given query."},
    ),
    409: (
        ErrorSerializer,
        "The object is still in use, or another request changed the same data at the same time.",
        {"detail": "Master Stage still hosts sessions; move or delete them first."},
    ),
    412: (
        PreconditionFailedSerializer,
        "The `If-Match` header names a version that is no longer the current one: someone "
        "changed the object since you read it. Nothing was changed; read it again.",
        {
            "detail": (
                'This session changed after the version your If-Match names; it is now at ETag "5". '
                "Read it again (GET), apply your change to what it is now, and send its new ETag "
                "in If-Match."
            ),
            "etag": '"5"',
        },
    ),
    429: (
        ErrorSerializer,
        "Too many requests; the `Retry-After` header says how many seconds to wait.",
        {"detail": "Request was throttled. Expected available in 12 seconds."},
    ),
}


def errors(*codes: int, invalid: dict | None = None) -> dict[int, OpenApiResponse]:
    """Documented error responses, each with its schema and an example (``invalid`` for the 400)."""
    responses = {}
    for code in codes:
        serializer, description, example = ERRORS[code]
        if code == 400 and invalid is not None:
            example = invalid
        responses[code] = OpenApiResponse(
            response=serializer,
            description=description,
            examples=[OpenApiExample(f"HTTP {code}", value=example, status_codes=[code])],
        )
    return responses


READ = (401, 429)
READ_ONE = (401, 404, 429)
LIST = (400, 401, 429)  # 400: paging parameters that are not numbers
LIST_IN_CONFERENCE = (400, 401, 404, 429)
PAGING_ERROR = ["Enter a whole number of at least 0 and at most 1000000000."]
WRITE = (400, 401, 403, 404, 409, 429)
CHANGE = (400, 401, 403, 404, 409, 412, 429)  # PUT and PATCH of a versioned object
DELETE = (401, 403, 404, 409, 412, 429)

IF_MATCH = OpenApiParameter(
    "If-Match",
    str,
    OpenApiParameter.HEADER,
    description=(
        'The `ETag` of the version your change is based on, as a GET returned it (`"5"`). '
        "If the object has changed since, the request is refused with 412 and nothing is "
        "changed. Without it the request goes ahead (409 if another write lands during it)."
    ),
)
ETAG = OpenApiParameter(
    "ETag",
    str,
    OpenApiParameter.HEADER,
    response=[200],
    required=True,
    description=(
        'Strong ETag: the object\'s version, then a digest of this answer (`"5.3f2a…"`). It '
        "changes with every write of the object and whenever the answer would. Send it back in "
        "`If-Match` to change the object only if nobody else has (only the version before the "
        "dot counts there), or in `If-None-Match` to get a 304 while the answer is unchanged."
    ),
)
READ_ETAG = {
    "description": "Strong ETag of this answer (a digest of its body); send it in "
    "`If-None-Match` to get a 304 while the answer is unchanged.",
    "required": True,
    "schema": {"type": "string"},
}
NOT_MODIFIED = {
    "description": "Not Modified, with no body: the request's `If-None-Match` header named the "
    "ETag this answer still has."
}


def document_conditional_reads(result, generator, request, public):
    """drf-spectacular hook: every read carries an ETag and may answer 304 (ConditionalReadMixin
    serves all of them). If-None-Match is not listed as a parameter: a client that sends none
    never gets a 304, and a fuzzer given the parameter would send `*` and expect a 200."""
    for path, operations in result["paths"].items():
        read = operations.get("get")
        if read is None or not path.startswith("/api/v1/"):
            continue
        read["responses"]["304"] = copy.deepcopy(NOT_MODIFIED)
        headers = read["responses"]["200"].setdefault("headers", {})
        headers.setdefault("ETag", copy.deepcopy(READ_ETAG))
    return result


SLUG_SCHEMA = {"type": "string", "pattern": r"^[-a-zA-Z0-9_]+$"}


def path_slug(name: str, description: str, example: str) -> OpenApiParameter:
    return OpenApiParameter(
        name,
        SLUG_SCHEMA,
        OpenApiParameter.PATH,
        description=description,
        examples=[OpenApiExample("From the demo conference", value=example)],
    )


CONFERENCE_SLUG = path_slug(
    "conference_slug", "Slug of the conference, as in its page's URL.", DEMO_CONFERENCE
)


# --- Views -----------------------------------------------------------------------------------


class ConferenceScopedMixin(ApiPolicyMixin):
    """Views under /conferences/<conference_slug>/: staff reach every conference, others only
    published ones; writes take the conference from the URL, never from the body."""

    lookup_field = "slug"
    lookup_value_converter = "slug"

    @cached_property
    def conference(self) -> Conference:
        conferences = Conference.objects.visible_to(self.request.user)
        return get_object_or_404(conferences, slug=self.kwargs["conference_slug"])

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):  # drf-spectacular inspecting the view
            return self.queryset.none()
        return self.get_conference_queryset()

    def get_conference_queryset(self):
        raise NotImplementedError

    def get_serializer_context(self):
        context = super().get_serializer_context()
        if not getattr(self, "swagger_fake_view", False):
            context["conference"] = self.conference
        return context

    def filter_queryset(self, queryset):
        # Filters and ordering shape lists; a detail URL names one object whatever the query says.
        return super().filter_queryset(queryset) if self.action == "list" else queryset

    # Validation and save in one transaction: clean() then locks the room or speaker it books
    # (sessions.models.lock_while_saving), so of two clashing writes the second waits and gets the
    # usual 400 naming the clash.
    def create(self, request, *args, **kwargs):
        with transaction.atomic():
            return super().create(request, *args, **kwargs)

    def update(self, request, *args, **kwargs):
        with transaction.atomic():
            return super().update(request, *args, **kwargs)

    def perform_destroy(self, instance):
        try:
            instance.delete()
        except RestrictedError as error:
            raise Conflict(
                f"{instance} still hosts sessions; move or delete them first."
            ) from error


@extend_schema(tags=["conferences"])
@extend_schema_view(
    list=extend_schema(
        summary="List conferences",
        description="Published conferences, newest first; staff also see unpublished ones.",
        responses={
            200: ConferenceSerializer(many=True),
            **errors(*LIST, invalid={"limit": ["Enter a whole number of at least 1."]}),
        },
    ),
    retrieve=extend_schema(
        summary="Get a conference",
        parameters=[path_slug("slug", "Slug of the conference.", DEMO_CONFERENCE)],
        responses={200: ConferenceSerializer, **errors(*READ_ONE)},
    ),
)
class ConferenceViewSet(ApiPolicyMixin, viewsets.ReadOnlyModelViewSet):
    """Conferences: read only here; organizers create them in the admin."""

    queryset = Conference.objects.all()
    serializer_class = ConferenceSerializer
    lookup_field = "slug"
    lookup_value_converter = "slug"

    def get_queryset(self):
        return Conference.objects.visible_to(self.request.user).order_by("-starts_on", "name", "pk")


def part_schema(kind: str, serializer, example_request: dict, example_slug: str, invalid: dict):
    """The same documentation for rooms and tracks, which differ only in their fields."""
    plural = f"{kind}s"
    slug = path_slug("slug", f"Slug of the {kind} in this conference.", example_slug)
    request_example = OpenApiExample(f"A new {kind}", value=example_request, request_only=True)
    schema_view = extend_schema_view(
        list=extend_schema(
            summary=f"List the {plural} of a conference",
            parameters=[CONFERENCE_SLUG],
            responses={
                200: serializer(many=True),
                **errors(*LIST_IN_CONFERENCE, invalid={"offset": PAGING_ERROR}),
            },
        ),
        retrieve=extend_schema(
            summary=f"Get a {kind}",
            parameters=[CONFERENCE_SLUG, slug, ETAG],
            responses={200: serializer, **errors(*READ_ONE)},
        ),
        create=extend_schema(
            summary=f"Add a {kind}",
            description=f"Staff, or users with the add_{kind} permission.",
            parameters=[CONFERENCE_SLUG],
            examples=[request_example],
            responses={201: serializer, **errors(*WRITE, invalid=invalid)},
        ),
        update=extend_schema(
            summary=f"Replace a {kind}",
            parameters=[CONFERENCE_SLUG, slug, IF_MATCH, ETAG],
            responses={200: serializer, **errors(*CHANGE, invalid=invalid)},
        ),
        partial_update=extend_schema(
            summary=f"Change some fields of a {kind}",
            parameters=[CONFERENCE_SLUG, slug, IF_MATCH, ETAG],
            responses={200: serializer, **errors(*CHANGE, invalid=invalid)},
        ),
        destroy=extend_schema(
            summary=f"Delete a {kind}",
            description=f"Refused with 409 while sessions still use the {kind}.",
            parameters=[CONFERENCE_SLUG, slug, IF_MATCH],
            responses={204: None, **errors(*DELETE)},
        ),
    )
    return lambda viewset: extend_schema(tags=[plural])(schema_view(viewset))


@part_schema(
    "room",
    RoomSerializer,
    {"slug": "workshop-room", "name": "Workshop Room", "capacity": 40, "position": 4},
    "master-stage",
    {"non_field_errors": ["This conference already has a room with this slug."]},
)
class RoomViewSet(VersionedObjectMixin, ConferenceScopedMixin, viewsets.ModelViewSet):
    """Rooms of a conference, in display order."""

    queryset = Room.objects.all()
    serializer_class = RoomSerializer

    def get_conference_queryset(self):
        return self.conference.rooms.order_by("position", "name", "pk")


@part_schema(
    "track",
    TrackSerializer,
    {"slug": "robotics", "name": "Robotics", "colour": "#ee4c2c", "description": ""},
    "security-privacy",
    {"colour": [HEX_COLOUR_MESSAGE]},
)
class TrackViewSet(VersionedObjectMixin, ConferenceScopedMixin, viewsets.ModelViewSet):
    """Tracks of a conference, by name."""

    queryset = Track.objects.all()
    serializer_class = TrackSerializer

    def get_conference_queryset(self):
        return self.conference.tracks.order_by("name", "pk")


class LoginLocked(exceptions.APIException):
    """The account is locked by the login limit (conference.limits): a 429 with Retry-After."""

    status_code = 429
    default_code = "login_locked"

    def __init__(self, username: str):
        super().__init__(login_locked_message(username))
        self.wait = login_lock_seconds_left(username)  # DRF's handler sends it as Retry-After


@extend_schema_serializer(component_name="AuthToken")  # the schema's name for it, as before
class LoginLimitedAuthTokenSerializer(AuthTokenSerializer):
    """DRF's credentials check, which counts towards the site's login limit (it passes the request
    to authenticate()) and says so when the account is locked."""

    username = serializers.CharField(label="Username", write_only=True, max_length=150)

    def validate(self, attrs):
        try:
            return super().validate(attrs)
        except exceptions.ValidationError:
            if login_is_locked(self.context["request"]):
                raise LoginLocked(attrs["username"]) from None
            raise


@extend_schema(
    summary="Get an API token",
    description=(
        "Exchange a username and password for the account's token, then send it on every request "
        "as `Authorization: Token <key>`. The same token is returned until an organizer deletes "
        "it in the admin. Failed tries count towards the same limit as the site's login page: "
        "once an account is locked, every try answers 429 until the `Retry-After` seconds pass."
    ),
    tags=["auth"],
    request=LoginLimitedAuthTokenSerializer,
    examples=[
        OpenApiExample(
            "Credentials",
            value={"username": "organizer", "password": "correct horse battery staple"},
            request_only=True,
        ),
        OpenApiExample(
            "Token",
            value={"token": "9944b09199c62bcf9418ad846dd0e4bbdfc6ee4b"},
            response_only=True,
        ),
    ],
    responses={
        200: LoginLimitedAuthTokenSerializer,
        **errors(400, 429),
    },
)
class ObtainTokenView(ObtainAuthToken):
    """DRF's obtain_auth_token, under the login limit, and throttled per client on its own scope."""

    serializer_class = LoginLimitedAuthTokenSerializer
    authentication_classes = []
    permission_classes = [permissions.AllowAny]
    # DRF's view takes forms too; our JSON parser answers a too deeply nested body with a 400.
    parser_classes = [FormParser, MultiPartParser, JsonBodyParser]
    throttle_classes = [ScopedRateThrottle]
    throttle_scope = "auth-token"

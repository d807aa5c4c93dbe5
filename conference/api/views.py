"""API v1: conferences, rooms and tracks, and signing in for a token."""

from functools import cached_property

from django.db import transaction
from django.db.models import RestrictedError
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import (
    OpenApiExample,
    extend_schema,
    extend_schema_serializer,
    extend_schema_view,
)
from rest_framework import exceptions, permissions, serializers, viewsets
from rest_framework.authtoken.serializers import AuthTokenSerializer
from rest_framework.exceptions import ValidationError
from rest_framework.filters import BaseFilterBackend
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response
from rest_framework.views import APIView

from conference.accounts.limits import (
    ScopedRateThrottle,
    login_is_locked,
    login_lock_seconds_left,
    login_locked_message,
)
from conference.api.policies import (
    ApiPolicyMixin,
    Conflict,
    VersionedObjectMixin,
)
from conference.api.schema import (
    CHANGE,
    CONFERENCE_SLUG,
    DELETE,
    DEMO_CONFERENCE,
    ETAG,
    IF_MATCH,
    LIST,
    LIST_IN_CONFERENCE,
    PAGING_ERROR,
    READ_ONE,
    WRITE,
    errors,
    path_slug,
)
from conference.api.serializers import (
    ConferenceSerializer,
    RoomSerializer,
    TrackSerializer,
    UTCDateTimeField,
)
from conference.api.tokens import reachable_conferences
from conference.models import HEX_COLOUR_MESSAGE, ApiToken, Conference, Room, Track
from conference.views.errors import JsonBodyParser


class UpdatedSinceFilter(BaseFilterBackend):
    """``?updated_since=<ISO 8601>``: what changed (or was removed) at or after that instant, for
    syncing clients; the queryset's ``changed_since()`` says what counts as a change."""

    param = "updated_since"

    def filter_queryset(self, request, queryset, view):
        raw = request.query_params.get(self.param)
        if raw is None:
            return queryset
        try:
            # UTC, as documented, even when a ?tz= or the visitor's zone cookie is active (and
            # DRF's check of 0001-01-01 in a zone east of UTC would overflow).
            since = UTCDateTimeField().run_validation(raw)
        except ValidationError as error:
            raise ValidationError({self.param: error.detail}) from error
        return queryset.changed_since(since)

    def get_schema_operation_parameters(self, view):
        what = getattr(view, "updated_since_help", None) or (
            f"Only {view.queryset.model._meta.verbose_name_plural} created or changed "
            "(as this list shows them) at or after this instant"
        )
        return [
            {
                "name": self.param,
                "in": "query",
                "required": False,
                "description": (
                    f"{what} (ISO 8601; without an offset, UTC). Pass the `Date` of the "
                    "first answer of your last sync, less a minute."
                ),
                "schema": {"type": "string", "format": "date-time"},
            }
        ]


class ConferenceScopedMixin(ApiPolicyMixin):
    """Views under /conferences/<conference_slug>/: staff reach every conference, others only
    published ones; writes take the conference from the URL, never from the body."""

    lookup_field = "slug"
    lookup_value_converter = "slug"

    @cached_property
    def conference(self) -> Conference:
        conferences = reachable_conferences(
            self.request, Conference.objects.visible_to(self.request.user)
        )
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
    # (sessions.models.bookings.lock_while_saving), so of two clashing writes the second waits and gets the
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
        conferences = Conference.objects.visible_to(self.request.user)
        return reachable_conferences(self.request, conferences).order_by("-starts_on", "name", "pk")


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
    {"colour": [str(HEX_COLOUR_MESSAGE)]},
)
class TrackViewSet(VersionedObjectMixin, ConferenceScopedMixin, viewsets.ModelViewSet):
    """Tracks of a conference, by name."""

    queryset = Track.objects.all()
    serializer_class = TrackSerializer

    def get_conference_queryset(self):
        return self.conference.tracks.order_by("name", "pk")


class LoginLocked(exceptions.APIException):
    """The account is locked by the login limit (conference.accounts.limits): a 429 with Retry-After."""

    status_code = 429
    default_code = "login_locked"

    def __init__(self, username: str):
        super().__init__(login_locked_message(username))
        self.wait = login_lock_seconds_left(username)  # DRF's handler sends it as Retry-After


class SlugsField(serializers.ListField):
    """A list of slugs whose errors read as one list, as every other field's do (DRF's
    ListField keys them by position, which the API's error schema does not allow)."""

    def to_internal_value(self, data):
        try:
            return super().to_internal_value(data)
        except ValidationError as error:
            if isinstance(error.detail, dict):
                position, messages = next(iter(error.detail.items()))
                raise ValidationError([f"Item {position}: {messages[0]}"]) from error
            raise


@extend_schema_serializer(component_name="AuthToken")  # the schema's name for it, as before
class LoginLimitedAuthTokenSerializer(AuthTokenSerializer):
    """DRF's credentials check (a serializer only: DRF's token model is not used), which counts
    towards the site's login limit (it passes the request to authenticate()) and says so when
    the account is locked; then the limits of the new ApiToken."""

    username = serializers.CharField(label="Username", write_only=True, max_length=150)
    name = serializers.CharField(
        required=False, write_only=True, max_length=100, help_text="What the token is for."
    )
    scope = serializers.ChoiceField(
        choices=ApiToken.Scope.values,
        required=False,
        write_only=True,
        help_text=(
            "`read` or `write`. Left out: `read` if any other limit is sent; with none, the "
            "account's reach (`write` for staff, `read` for others)."
        ),
    )
    conferences = SlugsField(
        child=serializers.SlugField(max_length=100),
        required=False,
        write_only=True,
        max_length=100,
        help_text="Slugs of the only conferences the token reaches; others answer 404.",
    )
    expires_in_days = serializers.IntegerField(
        required=False,
        write_only=True,
        min_value=1,
        max_value=3650,
        help_text="Days until the token stops working (401 “Token has expired.”).",
    )

    LIMITS = ("name", "scope", "conferences", "expires_in_days")

    def validate(self, attrs):
        try:
            attrs = super().validate(attrs)
        except exceptions.ValidationError:
            if login_is_locked(self.context["request"]):
                raise LoginLocked(attrs["username"]) from None
            raise
        slugs = attrs.get("conferences")
        if slugs:
            known = Conference.objects.visible_to(attrs["user"]).filter(slug__in=slugs)
            attrs["conferences"] = list(known)
            unknown = sorted(set(slugs) - {conference.slug for conference in known})
            if unknown:
                raise ValidationError({"conferences": [f"No conference “{unknown[0]}”."]})
        return attrs

    def save(self) -> ApiToken:
        """A new ApiToken. Asked for without limits, it has the account's reach, as migration
        conference/0022 gave the tokens from before scopes: write, bounded by the account's
        teams (an attendee writes their own schedule, nothing else)."""
        data = self.validated_data
        user = data["user"]
        if any(name in data for name in self.LIMITS):
            scope = data.get("scope", ApiToken.Scope.READ)
        else:
            scope = ApiToken.Scope.WRITE
        return ApiToken.objects.issue(
            user,
            scope=scope,
            name=data.get("name", ""),
            conferences=data.get("conferences", []),
            expires_in_days=data.get("expires_in_days"),
        )


class IssuedTokenSerializer(serializers.Serializer):
    token = serializers.CharField(
        source="key",
        help_text="Send it as `Authorization: Token <token>`. Shown this once: only its digest "
        "is kept.",
    )
    prefix = serializers.CharField(help_text="Its first characters, as the admin lists it.")
    name = serializers.CharField()
    scope = serializers.ChoiceField(choices=ApiToken.Scope.values)
    conferences = serializers.SerializerMethodField(
        help_text="The conferences it reaches, none meaning all the account may see."
    )
    expires_at = UTCDateTimeField(allow_null=True, help_text="Null for never.")

    def get_conferences(self, token) -> list[str]:
        return sorted(conference.slug for conference in token.conferences.all())


@extend_schema(
    summary="Get an API token",
    description=(
        "Exchange a username and password for a new token, then send it on every request as "
        "`Authorization: Token <key>`. The key is in this answer only: the server keeps its "
        "digest, and the admin lists the token by its `prefix`. A token acts as its account, "
        "never beyond the account's teams, and within its own limits: `scope` `read` refuses "
        "every write with 403, `conferences` makes others answer 404, and an expired or "
        "revoked token answers 401. Without `name`, `scope`, `conferences` or "
        "`expires_in_days` the token has the account's reach (`write`, within what the "
        "account may do: an attendee's saves their schedule); with any of them, `scope` "
        "defaults to `read`. Failed tries count towards the "
        "same limit as the site's login page: once an account is locked, every try answers 429 "
        "until the `Retry-After` seconds pass."
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
            "A read-only token for one conference, for 30 days",
            value={
                "username": "organizer",
                "password": "correct horse battery staple",
                "name": "Venue screens",
                "scope": "read",
                "conferences": [DEMO_CONFERENCE],
                "expires_in_days": 30,
            },
            request_only=True,
        ),
        OpenApiExample(
            "Token",
            value={
                "token": "kX2vQm9TzR4wLp7nYc1sHf8bJd3gAe6uNq0iVt5oWxE",
                "prefix": "kX2vQm9T",
                "name": "Venue screens",
                "scope": "read",
                "conferences": [DEMO_CONFERENCE],
                "expires_at": "2026-05-07T08:00:00Z",
            },
            response_only=True,
        ),
    ],
    responses={
        200: IssuedTokenSerializer,
        **errors(400, 429),
    },
)
class ObtainTokenView(APIView):
    """A new ApiToken for a username and password, under the login limit, and throttled per
    client on its own scope."""

    serializer_class = LoginLimitedAuthTokenSerializer
    authentication_classes = []
    permission_classes = [permissions.AllowAny]
    # JSON only, as the rest of the API (DRF's view also takes forms): the schema then declares
    # one request body, which clients generated from it (openapi-python-client) can send.
    parser_classes = [JsonBodyParser]
    renderer_classes = [JSONRenderer]
    throttle_classes = [ScopedRateThrottle]
    throttle_scope = "auth-token"

    def get_serializer(self, *args, **kwargs):
        context = {"request": self.request, "format": self.format_kwarg, "view": self}
        return self.serializer_class(*args, context=context, **kwargs)

    def post(self, request, *args, **kwargs):
        serializer = self.get_serializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        return Response(IssuedTokenSerializer(serializer.save()).data)

"""API v1: sessions of a conference, and the authenticated user's own schedule."""

import django_filters
from django.core.exceptions import ValidationError as DjangoValidationError
from django_filters.rest_framework import DjangoFilterBackend
from drf_spectacular.contrib.django_filters import DjangoFilterExtension
from drf_spectacular.plumbing import build_array_type, build_parameter_type
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_view,
)
from rest_framework import mixins, permissions, serializers, status, viewsets
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.filters import OrderingFilter
from rest_framework.response import Response

from conference.api.policies import (
    ApiPolicyMixin,
    VersionedObjectMixin,
)
from conference.api.schema import (
    CHANGE,
    CONFERENCE_SLUG,
    DELETE,
    ETAG,
    IF_MATCH,
    LIST,
    LIST_IN_CONFERENCE,
    READ,
    READ_ONE,
    SLUG_SCHEMA,
    WRITE,
    errors,
    path_slug,
)
from conference.api.tokens import TokenScopePermission, check_token_reaches
from conference.api.views import (
    ConferenceScopedMixin,
    UpdatedSinceFilter,
)
from sessions.api.serializers import (
    SPEAKER_LINKS,
    MyScheduleQuerySerializer,
    ReleaseSerializer,
    RemovalSerializer,
    SaveSessionSerializer,
    SessionDetailSerializer,
    SessionListQuerySerializer,
    SessionSerializer,
    SessionWriteSerializer,
)
from sessions.filters import SessionFilter
from sessions.models import Release, Removal, SavedSession, Session
from sessions.releases import prefetch_changes
from speakers.models import Speaker

DEMO_SESSION = "live-migration-of-pytorch-gpu-nodes-from-azure-to-european-clouds"


class SessionFilterBackend(DjangoFilterBackend):
    """The schedule pages' SessionFilter, scoped to the conference of the URL; bad values are a 400."""

    def get_filterset_kwargs(self, request, queryset, view):
        return {
            **super().get_filterset_kwargs(request, queryset, view),
            "conference": view.conference,
        }


FILTER_DESCRIPTIONS = {
    "day": "Sessions starting on this day (YYYY-MM-DD) as the conference's clocks count days.",
    "q": "Words in the title, description, or a speaker's name or company.",
}


class SessionFilterSchema(DjangoFilterExtension):
    """Documents SessionFilter's slug filters (room, track, speaker) and the search's length limit,
    which drf-spectacular's django-filter support cannot infer."""

    target_class = SessionFilterBackend
    priority = 1

    def resolve_filter_field(self, auto_schema, model, filterset_class, field_name, filter_field):
        if isinstance(
            filter_field,
            django_filters.ModelChoiceFilter | django_filters.ModelMultipleChoiceFilter,
        ):
            many = isinstance(filter_field, django_filters.ModelMultipleChoiceFilter)
            description = f"{filter_field.label}: slug in this conference"
            if many:
                return [
                    build_parameter_type(
                        name=field_name,
                        location=OpenApiParameter.QUERY,
                        schema=build_array_type(SLUG_SCHEMA),
                        description=f"{description}; repeat for several (any of them).",
                        explode=True,
                        style="form",
                    )
                ]
            parameter = build_parameter_type(
                name=field_name,
                location=OpenApiParameter.QUERY,
                schema=SLUG_SCHEMA,
                description=f"{description}; empty for any.",
            )
            return [{**parameter, "allowEmptyValue": True}]
        parameters = super().resolve_filter_field(
            auto_schema, model, filterset_class, field_name, filter_field
        )
        for parameter in parameters:
            if max_length := filter_field.extra.get("max_length"):
                parameter["schema"]["maxLength"] = max_length
            parameter["description"] = FILTER_DESCRIPTIONS.get(field_name, parameter["description"])
            # As on the schedule page, whose form sends "kind=" for "any type".
            parameter["allowEmptyValue"] = True
        return parameters


class StrictOrderingFilter(OrderingFilter):
    """DRF's ordering, but an unknown field is a 400 rather than silently ignored."""

    def get_ordering(self, request, queryset, view):
        raw = request.query_params.get(self.ordering_param)
        if raw is None:
            return self.get_default_ordering(view)
        terms = [term.strip() for term in raw.split(",")]
        allowed = {prefix + name for name in view.ordering_fields for prefix in ("", "-")}
        unknown = [term for term in terms if term not in allowed]
        if unknown or not terms:
            raise ValidationError(
                {self.ordering_param: [f"Order by one of: {', '.join(sorted(allowed))}."]}
            )
        return [*terms, "pk"]  # a total order keeps pages stable

    def get_schema_operation_parameters(self, view):
        choices = [prefix + name for name in view.ordering_fields for prefix in ("", "-")]
        return [
            {
                "name": self.ordering_param,
                "in": "query",
                "required": False,
                "description": "Sort order; `-` reverses. Default: start time, then room, then title.",
                "schema": {"type": "string", "enum": choices},
            }
        ]


SESSION_SLUG = path_slug("slug", "Slug of the session in this conference.", DEMO_SESSION)
EXPAND = OpenApiParameter(
    "expand",
    str,
    enum=["speakers"],
    description="`speakers` embeds full speaker objects (role, bio, links) instead of names.",
)
SESSION_EXAMPLE = OpenApiExample(
    "A new workshop",
    request_only=True,
    value={
        "slug": "hands-on-torch-compile",
        "title": "Hands-on torch.compile",
        "kind": "workshop",
        "status": "draft",
        "audience_level": "intermediate",
        "description": "Bring a laptop.",
        "starts_at": "2026-04-07T16:00:00+02:00",
        "ends_at": "2026-04-07T17:30:00+02:00",
        "room": "founders-cafe",
        "track": "frameworks-compilers",
        "speakers": ["mike-krom"],
    },
)
SESSION_LISTED = OpenApiExample(
    "A session",
    response_only=True,
    status_codes=[200],
    value={
        "id": 1,
        "guid": "051b5f4b-d46d-5b3e-9813-65c7da4b3d12",
        "conference": "pytorch-eu-2026",
        "slug": DEMO_SESSION,
        "title": "Live Migration of PyTorch GPU Nodes From Azure To European Clouds",
        "kind": "lightning-talk",
        "status": "published",
        "audience_level": "intermediate",
        "description": "Many European PyTorch teams run their GPU workloads on hyperscalers…",
        "starts_at": "2026-04-08T08:35:00Z",
        "ends_at": "2026-04-08T08:45:00Z",
        "time_zone": "Europe/Paris",
        "room": {"slug": "central-room", "name": "Central Room"},
        "track": {"slug": "security-privacy", "name": "Security & Privacy", "colour": "#b3261e"},
        "speakers": [
            {"id": 1, "slug": "mike-krom", "name": "Mike Krom", "company": "ACF Cybersolutions"}
        ],
        "attachments": [
            {"title": "Slides", "url": "https://example.org/media/attachments/slides.pdf"}
        ],
        "url": f"https://example.org/pytorch-eu-2026/sessions/{DEMO_SESSION}/",
        "created_at": "2026-03-01T00:00:00Z",
        "updated_at": "2026-03-01T00:00:00Z",
    },
)
CLASH = {
    "room": [
        "Master Stage already hosts “Opening keynote” then (Tuesday 7 April 2026 09:00–09:30 CEST)."
    ]
}
WRITE_DESCRIPTION = (
    "Staff, or users with the matching session permission. The same rules as the admin apply: "
    "a room or speaker already booked at that time, a session ending before it starts or "
    "outside the conference's days, or a slug already used are 400s naming the field "
    "(`room`, `speakers`, `ends_at`, `starts_at`, `non_field_errors`)."
)


@extend_schema(tags=["sessions"])
@extend_schema_view(
    list=extend_schema(
        summary="List the sessions of a conference",
        description=(
            "Published and cancelled sessions (staff also see drafts), filtered with the same "
            "parameters as the schedule page. Invalid filter values are a 400 naming the parameter."
        ),
        parameters=[CONFERENCE_SLUG, EXPAND],
        examples=[SESSION_LISTED],
        responses={
            200: SessionSerializer(many=True),
            **errors(*LIST_IN_CONFERENCE, invalid={"day": ["Enter a valid date."]}),
        },
    ),
    retrieve=extend_schema(
        summary="Get a session",
        description="With full speaker objects.",
        parameters=[CONFERENCE_SLUG, SESSION_SLUG, ETAG],
        responses={200: SessionDetailSerializer, **errors(*READ_ONE)},
    ),
    create=extend_schema(
        summary="Add a session",
        description=WRITE_DESCRIPTION,
        parameters=[CONFERENCE_SLUG],
        request=SessionWriteSerializer,
        examples=[SESSION_EXAMPLE],
        responses={201: SessionDetailSerializer, **errors(*WRITE, invalid=CLASH)},
    ),
    update=extend_schema(
        summary="Replace a session",
        description=WRITE_DESCRIPTION,
        parameters=[CONFERENCE_SLUG, SESSION_SLUG, IF_MATCH, ETAG],
        request=SessionWriteSerializer,
        responses={200: SessionDetailSerializer, **errors(*CHANGE, invalid=CLASH)},
    ),
    partial_update=extend_schema(
        summary="Change some fields of a session",
        description=WRITE_DESCRIPTION,
        parameters=[CONFERENCE_SLUG, SESSION_SLUG, IF_MATCH, ETAG],
        request=SessionWriteSerializer,
        responses={200: SessionDetailSerializer, **errors(*CHANGE, invalid=CLASH)},
    ),
    destroy=extend_schema(
        summary="Delete a session",
        parameters=[CONFERENCE_SLUG, SESSION_SLUG, IF_MATCH],
        responses={204: None, **errors(*DELETE)},
    ),
)
class SessionViewSet(VersionedObjectMixin, ConferenceScopedMixin, viewsets.ModelViewSet):
    """Sessions of a conference: the public sees published and cancelled ones, staff all."""

    queryset = Session.objects.all()
    filter_backends = [SessionFilterBackend, UpdatedSinceFilter, StrictOrderingFilter]
    filterset_class = SessionFilter
    ordering_fields = ["starts_at", "title", "updated_at"]
    # No default ``ordering``: without ?ordering= a list keeps the queryset's schedule order.

    def get_conference_queryset(self):
        sessions = (
            self.conference.sessions.visible_to(self.request.user).for_listing().in_schedule_order()
        )
        return sessions.prefetch_related(SPEAKER_LINKS) if self.expands_speakers() else sessions

    def expands_speakers(self) -> bool:
        if self.action == "retrieve":
            return True
        if self.action != "list":
            return False
        query = SessionListQuerySerializer(data=self.request.query_params)
        query.is_valid(raise_exception=True)
        return query.validated_data.get("expand") == "speakers"

    def get_serializer_class(self):
        if self.action in ("create", "update", "partial_update"):
            return SessionWriteSerializer
        return SessionDetailSerializer if self.expands_speakers() else SessionSerializer


@extend_schema(tags=["my schedule"])
@extend_schema_view(
    list=extend_schema(
        summary="List my saved sessions",
        description="The sessions the authenticated user saved in one conference, by start time.",
        parameters=[MyScheduleQuerySerializer],
        responses={
            200: SessionSerializer(many=True),
            **errors(*LIST, invalid={"conference": ["This field is required."]}),
        },
    ),
    create=extend_schema(
        summary="Save a session",
        description=(
            'Body: `{"conference": "<slug>", "session": "<slug>"}`. 201 when saved now, 200 when it '
            "was already saved (still one entry); only published sessions can be saved."
        ),
        request=SaveSessionSerializer,
        examples=[
            OpenApiExample(
                "Save a session",
                request_only=True,
                value={"conference": "pytorch-eu-2026", "session": DEMO_SESSION},
            )
        ],
        responses={
            201: OpenApiResponse(SessionSerializer, description="Saved now."),
            200: OpenApiResponse(SessionSerializer, description="Was already saved."),
            **errors(400, *READ, invalid={"session": ["Only published sessions can be saved."]}),
        },
    ),
    destroy=extend_schema(
        summary="Remove a session from my schedule",
        parameters=[
            CONFERENCE_SLUG,
            path_slug("session_slug", "Slug of the saved session.", DEMO_SESSION),
        ],
        responses={204: None, **errors(401, 404, 429)},
    ),
)
class MyScheduleViewSet(
    ApiPolicyMixin,
    mixins.ListModelMixin,
    mixins.CreateModelMixin,
    mixins.DestroyModelMixin,
    viewsets.GenericViewSet,
):
    """The authenticated user's saved sessions: nobody else's, ever."""

    queryset = Session.objects.none()
    serializer_class = SessionSerializer
    permission_classes = [permissions.IsAuthenticated, TokenScopePermission]

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return Session.objects.none()
        query = MyScheduleQuerySerializer(data=self.request.query_params)
        query.is_valid(raise_exception=True)
        check_token_reaches(self.request, query.validated_data["conference"].pk)
        saved = SavedSession.objects.of(self.request.user, query.validated_data["conference"])
        return (
            query.validated_data["conference"]
            .sessions.visible_to(self.request.user)
            .filter(pk__in=saved.values("session"))
            .for_listing()
            .in_schedule_order()
        )

    def get_serializer_class(self):
        return SaveSessionSerializer if self.action == "create" else SessionSerializer

    def create(self, request, *args, **kwargs):
        serializer = self.get_serializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        check_token_reaches(request, serializer.validated_data["conference"].pk)
        session = serializer.validated_data["session"]
        try:
            created = SavedSession.objects.add(request.user, session)
        except DjangoValidationError as error:
            raise ValidationError(serializers.as_serializer_error(error)) from error
        session = session.conference.sessions.filter(pk=session.pk).for_listing().get()
        return Response(
            SessionSerializer(session, context=self.get_serializer_context()).data,
            status=status.HTTP_201_CREATED if created else status.HTTP_200_OK,
        )

    def destroy(self, request, *args, **kwargs):
        # One answer whether the session does not exist, is hidden from this user (a draft, an
        # unpublished conference) or is simply not saved: the first two must not be told apart.
        session = (
            Session.objects.visible_to(request.user)
            .filter(conference__slug=kwargs["conference_slug"], slug=kwargs["session_slug"])
            .first()
        )
        if session is not None:
            check_token_reaches(request, session.conference_id)
        if session is None or not SavedSession.objects.remove(request.user, session):
            raise NotFound("This session is not on your schedule.")
        return Response(status=status.HTTP_204_NO_CONTENT)


@extend_schema(tags=["releases"])
@extend_schema_view(
    list=extend_schema(
        summary="List the releases of a conference's schedule",
        description=(
            "Every release organizers announced, newest first, each with its changes against "
            "the release before it: sessions new, moved, in another room, cancelled, reinstated, "
            "removed, retitled, or with other speakers. `before` and `after` are the session as "
            "each release recorded it, so a change stays readable after the session changed "
            "again or was deleted. schedule.xml and schedule.json carry the latest `version`."
        ),
        parameters=[CONFERENCE_SLUG],
        responses={
            200: ReleaseSerializer(many=True),
            **errors(
                *LIST_IN_CONFERENCE, invalid={"limit": ["Enter a whole number of at least 1."]}
            ),
        },
    ),
)
class ReleaseViewSet(ConferenceScopedMixin, mixins.ListModelMixin, viewsets.GenericViewSet):
    """Releases of a conference's schedule: public, read only (organizers release in the admin)."""

    queryset = Release.objects.all()
    serializer_class = ReleaseSerializer

    def get_conference_queryset(self):
        return self.conference.releases.all()

    def paginate_queryset(self, queryset):
        # One page's releases compared with each other and with the release before the page.
        page = super().paginate_queryset(queryset)
        return None if page is None else prefetch_changes(page)


@extend_schema(tags=["sync"])
@extend_schema_view(
    list=extend_schema(
        summary="List the sessions and speakers removed from a conference",
        description=(
            "For clients that sync with `updated_since`: the sessions and speakers they should "
            "drop, oldest first, because they were deleted or no longer show to this client (a "
            "session made a draft again, a speaker left with no public session). Attendees learn "
            "only of what was public; staff of every deletion. A session or speaker that shows "
            "again is listed here no more, and comes back in its list."
        ),
        parameters=[CONFERENCE_SLUG],
        responses={
            200: RemovalSerializer(many=True),
            **errors(
                *LIST_IN_CONFERENCE,
                invalid={"updated_since": ["Datetime has wrong format."]},
            ),
        },
    ),
)
class RemovalViewSet(ConferenceScopedMixin, mixins.ListModelMixin, viewsets.GenericViewSet):
    """What a syncing client must drop: deleted or no longer visible sessions and speakers."""

    queryset = Removal.objects.all()
    serializer_class = RemovalSerializer
    filter_backends = [UpdatedSinceFilter]
    updated_since_help = "Only what was removed at or after this instant"

    def get_conference_queryset(self):
        user = self.request.user
        sessions = self.conference.sessions.visible_to(user)
        speakers = Speaker.objects.filter(conference=self.conference).visible_to(user, sessions)
        return (
            self.conference.removals.visible_to(user)
            .except_shown(sessions, speakers)
            .order_by("removed_at", "pk")
        )

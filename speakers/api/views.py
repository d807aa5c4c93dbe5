"""API v1: speakers of a conference."""

from django.db.models.functions import Lower
from drf_spectacular.utils import OpenApiExample, extend_schema, extend_schema_view
from rest_framework import viewsets

from conference.api.policies import (
    VersionedObjectMixin,
)
from conference.api.schema import (
    CHANGE,
    CONFERENCE_SLUG,
    DELETE,
    ETAG,
    IF_MATCH,
    LIST_IN_CONFERENCE,
    PAGING_ERROR,
    READ_ONE,
    WRITE,
    errors,
    path_slug,
)
from conference.api.views import (
    ConferenceScopedMixin,
    UpdatedSinceFilter,
)
from speakers.api.serializers import SpeakerWithAvailabilitySerializer
from speakers.models import Speaker

DUPLICATE = {"non_field_errors": ["This conference already has a speaker with this slug."]}
BAD_WINDOW = {"availability": ["Window 2: An availability window must end after it starts."]}
SPEAKER_SLUG = path_slug("slug", "Slug of the speaker in this conference.", "mike-krom")


@extend_schema(tags=["speakers"])
@extend_schema_view(
    list=extend_schema(
        summary="List the speakers of a conference",
        description=(
            "Alphabetical. Everyone sees the speakers of sessions they may see; staff see every "
            "speaker, including those not yet on a session, and their availability."
        ),
        parameters=[CONFERENCE_SLUG],
        responses={
            200: SpeakerWithAvailabilitySerializer(many=True),
            **errors(*LIST_IN_CONFERENCE, invalid={"offset": PAGING_ERROR}),
        },
    ),
    retrieve=extend_schema(
        summary="Get a speaker",
        parameters=[CONFERENCE_SLUG, SPEAKER_SLUG, ETAG],
        responses={200: SpeakerWithAvailabilitySerializer, **errors(*READ_ONE)},
    ),
    create=extend_schema(
        summary="Add a speaker",
        description="Staff, or users with the add_speaker permission. Photos and links are set in the admin.",
        parameters=[CONFERENCE_SLUG],
        examples=[
            OpenApiExample(
                "A new speaker",
                request_only=True,
                value={
                    "slug": "ada-lovelace",
                    "name": "Ada Lovelace",
                    "role": "Analyst",
                    "company": "Analytical Engines Ltd",
                    "bio": "Wrote the first program.",
                    "availability": [
                        {"starts_at": "2026-04-07T09:00:00", "ends_at": "2026-04-07T13:00:00"}
                    ],
                },
            )
        ],
        responses={201: SpeakerWithAvailabilitySerializer, **errors(*WRITE, invalid=DUPLICATE)},
    ),
    update=extend_schema(
        summary="Replace a speaker",
        parameters=[CONFERENCE_SLUG, SPEAKER_SLUG, IF_MATCH, ETAG],
        responses={200: SpeakerWithAvailabilitySerializer, **errors(*CHANGE, invalid=BAD_WINDOW)},
    ),
    partial_update=extend_schema(
        summary="Change some fields of a speaker",
        parameters=[CONFERENCE_SLUG, SPEAKER_SLUG, IF_MATCH, ETAG],
        responses={200: SpeakerWithAvailabilitySerializer, **errors(*CHANGE, invalid=BAD_WINDOW)},
    ),
    destroy=extend_schema(
        summary="Delete a speaker",
        description="Also takes the speaker off their sessions.",
        parameters=[CONFERENCE_SLUG, SPEAKER_SLUG, IF_MATCH],
        responses={204: None, **errors(*DELETE)},
    ),
)
class SpeakerViewSet(VersionedObjectMixin, ConferenceScopedMixin, viewsets.ModelViewSet):
    """Speakers of a conference, alphabetical."""

    queryset = Speaker.objects.all()
    serializer_class = SpeakerWithAvailabilitySerializer
    filter_backends = [UpdatedSinceFilter]

    def get_conference_queryset(self):
        user = self.request.user
        speakers = Speaker.objects.filter(conference=self.conference).visible_to(
            user, self.conference.sessions.visible_to(user)
        )
        if user.has_perm("speakers.view_availability", self.conference):
            # The conference's teams alone see availability (SpeakerWithAvailabilitySerializer).
            speakers = speakers.prefetch_related("availability")
        return (
            speakers.select_related("conference")
            .prefetch_related("links")
            .order_by(Lower("name"), "pk")
        )

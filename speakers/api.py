"""API v1: speakers of a conference."""

from django.db.models.functions import Lower
from drf_spectacular.utils import OpenApiExample, extend_schema, extend_schema_view
from rest_framework import viewsets

from conference.api import (
    CHANGE,
    CONFERENCE_SLUG,
    DELETE,
    ETAG,
    IF_MATCH,
    LIST_IN_CONFERENCE,
    PAGING_ERROR,
    READ_ONE,
    WRITE,
    ConferenceScopedMixin,
    VersionedObjectMixin,
    errors,
    path_slug,
)
from sessions.models import Session
from speakers.models import Speaker
from speakers.serializers import SpeakerSerializer

DUPLICATE = {"non_field_errors": ["This conference already has a speaker with this slug."]}
SPEAKER_SLUG = path_slug("slug", "Slug of the speaker in this conference.", "mike-krom")


@extend_schema(tags=["speakers"])
@extend_schema_view(
    list=extend_schema(
        summary="List the speakers of a conference",
        description=(
            "Alphabetical. Everyone sees the speakers of sessions they may see; staff see every "
            "speaker, including those not yet on a session."
        ),
        parameters=[CONFERENCE_SLUG],
        responses={
            200: SpeakerSerializer(many=True),
            **errors(*LIST_IN_CONFERENCE, invalid={"offset": PAGING_ERROR}),
        },
    ),
    retrieve=extend_schema(
        summary="Get a speaker",
        parameters=[CONFERENCE_SLUG, SPEAKER_SLUG, ETAG],
        responses={200: SpeakerSerializer, **errors(*READ_ONE)},
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
                },
            )
        ],
        responses={201: SpeakerSerializer, **errors(*WRITE, invalid=DUPLICATE)},
    ),
    update=extend_schema(
        summary="Replace a speaker",
        parameters=[CONFERENCE_SLUG, SPEAKER_SLUG, IF_MATCH, ETAG],
        responses={200: SpeakerSerializer, **errors(*CHANGE, invalid=DUPLICATE)},
    ),
    partial_update=extend_schema(
        summary="Change some fields of a speaker",
        parameters=[CONFERENCE_SLUG, SPEAKER_SLUG, IF_MATCH, ETAG],
        responses={200: SpeakerSerializer, **errors(*CHANGE, invalid=DUPLICATE)},
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
    serializer_class = SpeakerSerializer

    def get_conference_queryset(self):
        speakers = Speaker.objects.filter(conference=self.conference)
        if not self.request.user.is_staff:
            # As on the speaker pages: only speakers of a session the visitor may see.
            sessions = Session.objects.visible_to(self.request.user).filter(
                conference=self.conference
            )
            speakers = speakers.giving(sessions)
        return (
            speakers.select_related("conference")
            .prefetch_related("links")
            .order_by(Lower("name"), "pk")
        )

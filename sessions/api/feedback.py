"""Feedback averages for organizers over the API: ``GET /api/v1/conferences/<slug>/feedback/``.

For the conference's organizer, programme and reviewer teams; one grouped query (``Feedback.objects.totals_by_session()``), as the admin's summary.
Comments are not in the API: organizers read them in the admin.
"""

from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import generics, serializers
from rest_framework.response import Response

from conference.api.schema import CONFERENCE_SLUG, DEMO_CONFERENCE, errors
from conference.api.views import ConferenceScopedMixin
from sessions.models.feedback import ConferenceSummary, Feedback, summarize


class TallySerializer(serializers.Serializer):
    count = serializers.IntegerField(help_text="How many attendees rated it.")
    average = serializers.FloatField(
        allow_null=True, help_text="Average rating, 1 to 5, to two decimals; null without ratings."
    )


class TrackTallySerializer(TallySerializer):
    track = serializers.CharField(
        source="slug", help_text="Slug of the track; empty for sessions without one."
    )
    name = serializers.CharField(help_text="Name of the track, or “(no track)”.")


class SessionTallySerializer(TallySerializer):
    session = serializers.CharField(source="slug", help_text="Slug of the session.")
    title = serializers.CharField()
    track = serializers.CharField(source="track_slug", help_text="Slug of its track, or empty.")


class FeedbackSummarySerializer(serializers.Serializer):
    conference = serializers.SlugField(help_text="Slug of the conference.")
    count = serializers.IntegerField(source="overall.count", help_text="Ratings in all.")
    average = serializers.FloatField(
        source="overall.average", allow_null=True, help_text="Average of every rating."
    )
    tracks = TrackTallySerializer(many=True, help_text="Per track, by name.")
    sessions = SessionTallySerializer(
        many=True, help_text="Per rated session, in schedule order; unrated sessions are left out."
    )


EXAMPLE = {
    "conference": DEMO_CONFERENCE,
    "count": 3,
    "average": 4.33,
    "tracks": [{"track": "ml", "name": "ML", "count": 3, "average": 4.33}],
    "sessions": [
        {"session": "graphs", "title": "Graphs", "track": "ml", "count": 3, "average": 4.33}
    ],
}


@extend_schema(
    tags=["feedback"],
    summary="Feedback averages of a conference",
    description=(
        "Staff only. Attendees' ratings (1 to 5) counted and averaged per session, per track "
        "and for the whole conference. Comments are read in the admin."
    ),
    parameters=[CONFERENCE_SLUG],
    responses={
        200: FeedbackSummarySerializer,
        **errors(401, 403, 404, 429),
    },
    examples=[OpenApiExample("A conference with three ratings", value=EXAMPLE)],
)
class FeedbackSummaryView(ConferenceScopedMixin, generics.GenericAPIView):
    """Averages for those who may read the conference's feedback (``schedule.view_feedback``:
    its organizer, programme and reviewer teams), within their token's conferences."""

    read_permission = "schedule.view_feedback"
    queryset = Feedback.objects.none()
    serializer_class = FeedbackSummarySerializer
    pagination_class = None

    def get(self, request, conference_slug):
        conference = self.conference
        totals = Feedback.objects.of_conference(conference).totals_by_session()
        [summary] = summarize(totals) or [ConferenceSummary(conference.pk, conference.name)]
        data = {
            "conference": conference.slug,
            "overall": summary.overall,
            "tracks": list(summary.tracks.values()),
            "sessions": summary.sessions,
        }
        return Response(self.get_serializer(data).data)

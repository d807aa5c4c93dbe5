"""Everything under /api/: version 1 of the REST API, its OpenAPI schema and docs, JSON 404s."""

from csp.constants import UNSAFE_INLINE
from csp.decorators import csp_update
from django.urls import include, path, re_path
from django.utils import translation
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView
from rest_framework.routers import DefaultRouter, SimpleRouter

from conference.api.policies import (
    JsonErrorsMixin,
    api_not_found,
)
from conference.api.views import (
    ConferenceViewSet,
    ObtainTokenView,
    RoomViewSet,
    TrackViewSet,
)
from sessions.api.feedback import FeedbackSummaryView
from sessions.api.views import MyScheduleViewSet, ReleaseViewSet, RemovalViewSet, SessionViewSet
from sessions.cfp.api.views import BulkDecisionViewSet, MyProposalViewSet, ProposalViewSet
from speakers.api.views import SpeakerViewSet

app_name = "api"


class SchemaView(JsonErrorsMixin, SpectacularAPIView):
    """The schema in English whatever the reader's language (Accept-Language, the language
    cookie), as the API's own words are: one schema for every client and every cache."""

    def dispatch(self, request, *args, **kwargs):
        with translation.override("en"):
            response = super().dispatch(request, *args, **kwargs)
            # Rendered here: lazy texts (labels, help texts) would otherwise be translated later.
            response.render()
        response["Content-Language"] = "en"
        return response


class DocsView(JsonErrorsMixin, SpectacularSwaggerSplitView):
    pass


class Router(DefaultRouter):
    include_format_suffixes = False  # JSON only: no .json / .api URL variants


router = Router(use_regex_path=False)
router.register("conferences", ConferenceViewSet, basename="conference")

conference_router = SimpleRouter(use_regex_path=False)
conference_router.register("rooms", RoomViewSet, basename="room")
conference_router.register("tracks", TrackViewSet, basename="track")
conference_router.register("sessions", SessionViewSet, basename="session")
conference_router.register("speakers", SpeakerViewSet, basename="speaker")
conference_router.register("my-proposals", MyProposalViewSet, basename="my-proposal")

v1_patterns = [
    path("", include(router.urls)),
    path("conferences/<slug:conference_slug>/", include(conference_router.urls)),
    # A list only: the router would also route the writes ConferenceScopedMixin defines.
    path(
        "conferences/<slug:conference_slug>/releases/",
        ReleaseViewSet.as_view({"get": "list"}),
        name="release-list",
    ),
    path(
        "conferences/<slug:conference_slug>/removed/",
        RemovalViewSet.as_view({"get": "list"}),
        name="removal-list",
    ),
    path(
        "conferences/<slug:conference_slug>/feedback/",
        FeedbackSummaryView.as_view(),
        name="feedback-summary",
    ),
    # Proposals for the conference's teams: reads, a review, decisions. Routed one by one, as
    # releases are: the router would also route the writes ConferenceScopedMixin defines.
    path(
        "conferences/<slug:conference_slug>/proposals/",
        ProposalViewSet.as_view({"get": "list"}),
        name="proposal-list",
    ),
    path(
        "conferences/<slug:conference_slug>/proposals/<slug:code>/",
        ProposalViewSet.as_view({"get": "retrieve"}),
        name="proposal-detail",
    ),
    path(
        "conferences/<slug:conference_slug>/proposals/<slug:code>/reviews/",
        ProposalViewSet.as_view({"get": "reviews"}, filter_backends=[], pagination_class=None),
        name="proposal-reviews",
    ),
    path(
        "conferences/<slug:conference_slug>/proposals/<slug:code>/my-review/",
        ProposalViewSet.as_view({"put": "my_review"}),
        name="proposal-my-review",
    ),
    path(
        "conferences/<slug:conference_slug>/proposals/<slug:code>/decision/",
        ProposalViewSet.as_view({"post": "decision"}),
        name="proposal-decision",
    ),
    path(
        "conferences/<slug:conference_slug>/decisions/",
        BulkDecisionViewSet.as_view({"post": "create"}),
        name="decisions",
    ),
    path(
        "me/schedule/",
        MyScheduleViewSet.as_view({"get": "list", "post": "create"}),
        name="my-schedule",
    ),
    path(
        "me/schedule/<slug:conference_slug>/<slug:session_slug>/",
        MyScheduleViewSet.as_view({"delete": "destroy"}),
        name="my-schedule-entry",
    ),
    path("auth/token/", ObtainTokenView.as_view(), name="auth-token"),
]

urlpatterns = [
    path("v1/", include(v1_patterns)),
    path("schema/", SchemaView.as_view(), name="schema"),
    # Swagger UI from our own static files (sidecar). Its bundle sets inline styles, so this one
    # page allows them; scripts stay 'self' only. (Redoc is left out: it fetches web fonts.)
    path(
        "docs/",
        csp_update({"style-src": [UNSAFE_INLINE]})(DocsView.as_view(url_name="api:schema")),
        name="docs",
    ),
    # Last: any other /api/ URL (even one with a newline) is a JSON 404, not the HTML page.
    # [\s\S] rather than the (?s) flag: Django cannot reverse URLs at all with (?s: in a pattern.
    re_path(r"^[\s\S]*$", api_not_found, name="not-found"),
]

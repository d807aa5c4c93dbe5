"""Root URLs. Every public page lives under its conference's slug: /<conference>/..."""

from django.conf import settings
from django.contrib import admin
from django.urls import include, path
from django.views.decorators.csrf import csrf_exempt
from django.views.i18n import JavaScriptCatalog, set_language

from conference.site import offline
from conference.views import conferences
from conference.views.preview_time import PreviewTimeView
from sessions.urls import feedback_patterns

conference_patterns = (
    [
        path("", conferences.ConferenceDetailView.as_view(), name="conference-detail"),
        path("tracks.css", conferences.TrackStylesView.as_view(), name="track-styles"),
        path("offline/", offline.conference_offline_page, name="offline"),
        path("offline.json", offline.conference_offline_manifest, name="offline-manifest"),
        path("preview-time/", PreviewTimeView.as_view(), name="preview-time"),
    ],
    "conference",
)

urlpatterns = [
    # Our JavaScript's strings (static/js/, the djangojs catalogue), for the admin's planner.
    path("admin/jsi18n/confsched/", JavaScriptCatalog.as_view(), name="javascript-catalog"),
    path("admin/", admin.site.urls),
    # At the root, so the worker's scope is the whole site (conference/site/offline.py).
    path("service-worker.js", offline.service_worker, name="service-worker"),
    path("manifest.webmanifest", offline.web_manifest, name="web-manifest"),
    path("offline/", offline.offline_page, name="offline"),
    # Pages that name no icon (the admin's, the API's documentation) make browsers ask here.
    path("favicon.ico", offline.favicon),
    path("accounts/", include("conference.accounts.urls")),
    # The language switcher (includes/language_form.html) posts here. Without a CSRF token: an
    # anonymous visitor's page is the same bytes for all, so it cannot hold theirs, and a forged
    # post only changes which language the site shows them (docs/i18n.md).
    path("i18n/setlang/", csrf_exempt(set_language), name="set_language"),
    path("api/", include("conference.site.api_urls")),
    path("", conferences.ConferenceListView.as_view(), name="conference-list"),
    path("<slug:conference_slug>/", include(conference_patterns)),
    path("<slug:conference_slug>/", include("sessions.urls")),
    path("<slug:conference_slug>/", include("speakers.urls")),
    path("<slug:conference_slug>/speaker/", include("speakers.own_urls")),
    path("<slug:conference_slug>/call/", include("sessions.cfp.urls")),
    path("<slug:conference_slug>/", include(feedback_patterns)),
]

# JSON under /api/, pages elsewhere (conference/views/errors.py).
handler400 = "conference.views.errors.bad_request"
handler403 = "conference.views.errors.permission_denied"
handler404 = "conference.views.errors.page_not_found"
handler500 = "conference.views.errors.server_error"

if settings.DEBUG:
    from django.conf.urls.static import static

    urlpatterns += static(settings.MEDIA_URL, document_root=settings.MEDIA_ROOT)

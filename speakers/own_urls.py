"""A speaker's own pages, under /<conference>/speaker/ (speakers/views/materials.py).

Never stored, by a cache in front nor by the browser's offline copies (the service worker keeps
no ``no-store`` answer): they hold the speaker's forms and CSRF token, as the account pages do.
"""

from django.urls import path
from django.views.decorators.cache import never_cache

from speakers.views import materials, proposals

app_name = "speaker-pages"

urlpatterns = [
    path("availability/", never_cache(materials.AvailabilityView.as_view()), name="availability"),
    path(
        "sessions/<slug:slug>/materials/",
        never_cache(materials.SessionMaterialsView.as_view()),
        name="session-materials",
    ),
    path(
        "sessions/<slug:slug>/propose-change/",
        never_cache(proposals.ProposeChangeView.as_view()),
        name="propose-change",
    ),
    path(
        "sessions/<slug:slug>/materials/<int:pk>/remove/",
        never_cache(materials.RemoveMaterialView.as_view()),
        name="remove-material",
    ),
]

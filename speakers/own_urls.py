"""A speaker's own pages, under /<conference>/speaker/ (speakers/materials.py)."""

from django.urls import path

from speakers import materials

app_name = "speaker-pages"

urlpatterns = [
    path("availability/", materials.AvailabilityView.as_view(), name="availability"),
    path(
        "sessions/<slug:slug>/materials/",
        materials.SessionMaterialsView.as_view(),
        name="session-materials",
    ),
    path(
        "sessions/<slug:slug>/materials/<int:pk>/remove/",
        materials.RemoveMaterialView.as_view(),
        name="remove-material",
    ),
]

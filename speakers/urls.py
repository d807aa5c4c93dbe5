from django.urls import path
from django.views.decorators.cache import never_cache

from speakers.views import public, self_service

app_name = "speakers"

urlpatterns = [
    path("speakers/", public.SpeakerListView.as_view(), name="speaker-list"),
    path("speakers/<slug:slug>/", public.SpeakerDetailView.as_view(), name="speaker-detail"),
    path("speakers/<slug:slug>/photo/", public.SpeakerPhotoView.as_view(), name="speaker-photo"),
    # A speaker's own pages: never kept by a browser or a cache in front (like account pages).
    path("speaker/", never_cache(self_service.MyTalksView.as_view()), name="my_talks"),
    path("speaker/profile/", never_cache(self_service.ProfileView.as_view()), name="profile"),
    path(
        "speaker/invitation/<str:token>/",
        never_cache(self_service.InvitationView.as_view()),
        name="invitation",
    ),
]

from django.urls import path

from speakers import views

app_name = "speakers"

urlpatterns = [
    path("speakers/", views.SpeakerListView.as_view(), name="speaker-list"),
    path("speakers/<slug:slug>/", views.SpeakerDetailView.as_view(), name="speaker-detail"),
    path("speakers/<slug:slug>/photo/", views.SpeakerPhotoView.as_view(), name="speaker-photo"),
]

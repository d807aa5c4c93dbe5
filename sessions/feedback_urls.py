"""Feedback pages, under /<conference>/: apart from sessions/urls.py and speakers/urls.py."""

from django.urls import path

from sessions import feedback_views

app_name = "feedback"

urlpatterns = [
    path(
        "sessions/<slug:slug>/feedback/",
        feedback_views.SessionFeedbackView.as_view(),
        name="session-feedback",
    ),
    path(
        "speaker/feedback/",
        feedback_views.SpeakerFeedbackView.as_view(),
        name="speaker-feedback",
    ),
]

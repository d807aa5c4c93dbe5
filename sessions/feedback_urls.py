"""Feedback pages, under /<conference>/: apart from sessions/urls.py and speakers/urls.py.

Never kept by a browser or a cache in front, like the speakers' own pages (speakers/urls.py).
"""

from django.urls import path
from django.views.decorators.cache import never_cache

from sessions.views import feedback

app_name = "feedback"

urlpatterns = [
    path(
        "sessions/<slug:slug>/feedback/",
        never_cache(feedback.SessionFeedbackView.as_view()),
        name="session-feedback",
    ),
    path(
        "speaker/feedback/",
        never_cache(feedback.SpeakerFeedbackView.as_view()),
        name="speaker-feedback",
    ),
]

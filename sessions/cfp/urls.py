"""The call's pages, under /<conference>/call/: the call itself and speakers' proposals
(``speaker_urls``), co-speakers' invitations (``co_speaker_urls``), answering a decision
(``decision_urls``). Never cached: each is about its visitor."""

from django.urls import include, path

urlpatterns = [
    path("", include("sessions.cfp.speaker_urls")),
    path("", include("sessions.cfp.co_speaker_urls")),
    path("", include("sessions.cfp.decision_urls")),
]

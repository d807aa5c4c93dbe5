"""An accepted speaker's answer to the decision on their proposal, under /<conference>/call/
(sessions/cfp/decision_views.py). Never stored by a cache or the browser's offline copies: it
holds the speaker's buttons and CSRF token, as their other pages do."""

from django.urls import path
from django.views.decorators.cache import never_cache

from sessions.cfp import decision_views

urlpatterns = [
    path(
        "<slug:code>/answer/",
        never_cache(decision_views.DecisionAnswerView.as_view()),
        name="cfp-decision-answer",
    ),
]

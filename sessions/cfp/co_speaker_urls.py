"""Co-speakers' pages, under /<conference>/call/ (sessions/cfp/co_speaker_views.py).

Never stored, by a cache in front nor by the browser's offline copies: they hold a speaker's
forms and CSRF token, as the account pages do.
"""

from django.urls import path
from django.views.decorators.cache import never_cache

from sessions.cfp import co_speaker_views as views

urlpatterns = [
    path(
        "<slug:code>/co-speakers/invite/",
        never_cache(views.InviteView.as_view()),
        name="cfp-co-speaker-invite",
    ),
    path(
        "<slug:code>/co-speakers/<int:pk>/remove/",
        never_cache(views.RemoveView.as_view()),
        name="cfp-co-speaker-remove",
    ),
    path(
        "<slug:code>/invitations/<int:pk>/withdraw/",
        never_cache(views.WithdrawView.as_view()),
        name="cfp-co-speaker-invitation-withdraw",
    ),
    path(
        "invitation/<str:token>/",
        never_cache(views.InvitationView.as_view()),
        name="cfp-co-speaker-invitation",
    ),
]

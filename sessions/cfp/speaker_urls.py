"""The call's page and a speaker's proposals, under /<conference>/call/. Never kept by a browser
or a cache in front: each page is about its visitor (their proposals, the call as of their
preview time)."""

from django.urls import path, re_path
from django.views.decorators.cache import never_cache

from sessions.cfp import views

# A proposal's code (Proposal.code): capitals and digits, so it never hides a word of the other
# pages under /call/.
CODE = r"(?P<code>[A-Z0-9]{1,12})"

urlpatterns = [
    path("", never_cache(views.CallView.as_view()), name="call"),
    path("proposals/", never_cache(views.MyProposalsView.as_view()), name="my-proposals"),
    path("new/", never_cache(views.ProposalView.as_view()), name="proposal-new"),
    re_path(rf"^{CODE}/$", never_cache(views.ProposalView.as_view()), name="proposal"),
    re_path(
        rf"^{CODE}/withdraw/$",
        never_cache(views.WithdrawView.as_view()),
        name="proposal-withdraw",
    ),
    re_path(
        rf"^{CODE}/delete/$",
        never_cache(views.DeleteDraftView.as_view()),
        name="proposal-delete",
    ),
]

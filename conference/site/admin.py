"""The admin site: Django's, with the product's name, the site's login limit, and a dashboard of
the conferences that are coming or just over as its index (sessions/dashboard.py).

Installed as the default site by ``AdminConfig`` (conference/site/apps.py), so ``admin.site`` and
every ``@admin.register`` are this site."""

from django.contrib import admin
from django.utils.translation import gettext_lazy

from conference.accounts.views import forgets_the_visitor
from conference.forms import AdminLoginForm
from sessions.dashboard import summarize_conferences


class ConferenceAdminSite(admin.AdminSite):
    site_header = gettext_lazy("confsched: organizers")
    site_title = "confsched"
    index_title = gettext_lazy("Dashboard")
    index_template = "admin/schedule/dashboard.html"
    # The admin's login counts towards, and respects, the same login limit as the site's.
    login_form = AdminLoginForm

    def index(self, request, extra_context=None):
        """Django's list of models, under a card per conference for those who may see sessions:
        the conferences still to come or ended lately, or with ``?past=all`` every one."""
        every_one = request.GET.get("past") == "all"
        dashboard = summarize_conferences(request.user, every_one=every_one)
        return super().index(request, {**dashboard, **(extra_context or {})})

    def logout(self, request, extra_context=None):
        # Clears what the browser kept of the visitor's pages, as the site's log-out does.
        return forgets_the_visitor(super().logout)(request, extra_context)

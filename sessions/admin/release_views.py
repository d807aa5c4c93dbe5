"""Releasing the schedule from the admin: review what the release announces, then confirm.

``SessionAdmin.get_urls()`` mounts it at /admin/schedule/session/release/<conference id>/,
wrapped by ``admin_site.admin_view`` (staff only), for those who may change sessions. Nothing
is stored until the organizer confirms; the rules are ``sessions.releases.release_schedule``.
"""

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.translation import gettext as _
from django.views import View

from conference.admin.scoped import reachable
from conference.models import Conference
from sessions.admin.forms import ReleaseForm
from sessions.forms import error_messages_by_field
from sessions.releases import (
    preview_release,
    release_schedule,
    speaker_reach,
    suggested_version,
)
from speakers.models import SessionChangeProposal


def release_urls(model_admin) -> list:
    name = f"{model_admin.opts.app_label}_{model_admin.opts.model_name}_release"
    view = ReleaseView.as_view(model_admin=model_admin)
    return [
        path("release/<int:conference_id>/", model_admin.admin_site.admin_view(view), name=name)
    ]


class ReleaseView(View):
    model_admin = None

    def setup(self, request, *args, **kwargs):
        super().setup(request, *args, **kwargs)
        self.conference = get_object_or_404(Conference, pk=kwargs["conference_id"])

    def dispatch(self, request, *args, **kwargs):
        reachable(request, "schedule.add_release", self.conference)
        return super().dispatch(request, *args, **kwargs)

    def get(self, request, *args, **kwargs):
        preview = preview_release(self.conference)
        form = self.form(preview, initial={"version": suggested_version(self.conference)})
        return self.page(preview, form)

    def post(self, request, *args, **kwargs):
        preview = preview_release(self.conference)
        form = self.form(preview, data=request.POST)
        if form.is_valid():
            try:
                release = release_schedule(
                    self.conference,
                    version=form.cleaned_data["version"],
                    comment=form.cleaned_data["comment"],
                    user=request.user,
                    expected_digest=form.cleaned_data["shown"],
                )
            except ValidationError as error:
                for field, problems in error_messages_by_field(error).items():
                    form.add_error(field if field in form.fields else None, problems)
            else:
                messages.success(
                    request,
                    _("Released %(version)s of %(conference)s: %(summary)s.")
                    % {
                        "version": release.version,
                        "conference": self.conference,
                        "summary": preview.summary,
                    },
                )
                return redirect("admin:schedule_release_change", release.pk)
        # Show what releasing would announce now, with the fingerprint of that.
        form.data = {**form.data.dict(), "shown": preview.digest}
        return self.page(preview, form)

    def form(self, preview, **kwargs) -> ReleaseForm:
        kwargs.setdefault("initial", {})["shown"] = preview.digest
        return ReleaseForm(has_changes=bool(preview.changes), **kwargs)

    def page(self, preview, form):
        admin_site = self.model_admin.admin_site
        context = {
            **admin_site.each_context(self.request),
            "opts": self.model_admin.opts,
            "title": _("Release the schedule of %(conference)s") % {"conference": self.conference},
            "conference": self.conference,
            "preview": preview,
            "changes": [
                (change, change.describe(self.conference.tz)) for change in preview.changes
            ],
            "reach": speaker_reach(preview.changes),
            "form": form,
            # Waiting speakers' proposals: accepted before releasing, they are in it.
            "pending_proposals": list(
                SessionChangeProposal.objects.pending()
                .of_conference(self.conference)
                .select_related("speaker", "session")
            ),
            "releases_url": reverse("admin:schedule_release_changelist")
            + f"?conference__id__exact={self.conference.pk}",
        }
        self.request.current_app = admin_site.name
        return TemplateResponse(self.request, "admin/schedule/session/release.html", context)

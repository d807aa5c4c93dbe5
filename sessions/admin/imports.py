"""The admin's schedule import page: upload a file, see what it would do, confirm.

``SessionAdmin.get_urls()`` mounts these under /admin/schedule/session/import/; each view is
wrapped by ``admin_site.admin_view`` (staff only) and asks for the add and change permissions on
sessions. The steps themselves are sessions/importers/runs.py, started (now or in a task) by
sessions/importers/tasks.py.
"""

from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils import translation
from django.utils.translation import gettext as _
from django.views import View

from conference.admin.scoped import reachable
from conference.models import Conference
from sessions.admin.forms import ScheduleImportForm
from sessions.importers.spreadsheet import EXAMPLE_CSV
from sessions.importers.tasks import start_check, start_import
from sessions.models import ScheduleImport

RECENT_IMPORTS = 20


def import_urls(model_admin) -> list:
    wrap = model_admin.admin_site.admin_view
    name = f"{model_admin.opts.app_label}_{model_admin.opts.model_name}_import"
    return [
        path("import/example.csv", wrap(example_csv), name=f"{name}_example"),
        path(
            "import/<int:conference_id>/",
            wrap(ImportView.as_view(model_admin=model_admin)),
            name=name,
        ),
        path(
            "import/<int:conference_id>/<int:import_id>/",
            wrap(ImportDetailView.as_view(model_admin=model_admin)),
            name=f"{name}_detail",
        ),
    ]


def example_csv(request):
    response = HttpResponse(EXAMPLE_CSV, content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = 'attachment; filename="sessions-example.csv"'
    return response


class ImportMixin:
    """The conference in the URL, for staff who may add and change sessions."""

    model_admin = None

    def setup(self, request, *args, **kwargs):
        super().setup(request, *args, **kwargs)
        self.conference = get_object_or_404(Conference, pk=kwargs["conference_id"])

    def dispatch(self, request, *args, **kwargs):
        reachable(request, "schedule.add_scheduleimport", self.conference)
        return super().dispatch(request, *args, **kwargs)

    def admin_context(self, title: str) -> dict:
        return {
            **self.model_admin.admin_site.each_context(self.request),
            "opts": self.model_admin.opts,
            "title": title,
            "conference": self.conference,
            "import_url": reverse("admin:schedule_session_import", args=[self.conference.pk]),
            "planner_url": reverse("admin:schedule_session_planner", args=[self.conference.pk]),
        }


class ImportView(ImportMixin, View):
    """The upload form and this conference's recent imports."""

    def get(self, request, *args, **kwargs):
        return self.render(ScheduleImportForm())

    def post(self, request, *args, **kwargs):
        form = ScheduleImportForm(request.POST, request.FILES)
        if not form.is_valid():
            return self.render(form, status=400)
        upload = form.cleaned_data["file"]
        schedule_import = ScheduleImport(
            conference=self.conference,
            file_name=upload.name[:255],
            data=upload.read(),
            hold_conflicts=form.cleaned_data["hold_conflicts"],
            created_by=request.user,
            language=translation.get_language(),
        )
        start_check(schedule_import)
        return redirect(detail_url(schedule_import))

    def render(self, form, status=200):
        context = {
            **self.admin_context(
                _("Import a schedule into %(conference)s") % {"conference": self.conference}
            ),
            "form": form,
            "imports": self.conference.schedule_imports.defer("data", "report")
            .select_related("created_by")
            .all()[:RECENT_IMPORTS],
        }
        return TemplateResponse(
            request=self.request,
            template="admin/schedule/session/import.html",
            context=context,
            status=status,
        )


class ImportDetailView(ImportMixin, View):
    """One upload: its check's preview, the confirm button, or its import's result.

    While a step runs in a task, the page polls itself with htmx; its status part alone is
    answered to those requests, and a finished step reloads the page.
    """

    def setup(self, request, *args, **kwargs):
        super().setup(request, *args, **kwargs)
        self.schedule_import = get_object_or_404(
            ScheduleImport.objects.defer("data"),
            pk=kwargs["import_id"],
            conference=self.conference,
        )

    def get(self, request, *args, **kwargs):
        schedule_import = self.schedule_import
        if request.htmx and not schedule_import.is_running:
            response = HttpResponse(status=204)
            response["HX-Refresh"] = "true"
            return response
        context = {
            **self.admin_context(_("Import of %(file)s") % {"file": schedule_import.file_name}),
            "schedule_import": schedule_import,
            "preview": preview_of(schedule_import),
            "detail_url": detail_url(schedule_import),
        }
        template = (
            "admin/schedule/session/import_progress.html"
            if request.htmx
            else "admin/schedule/session/import_detail.html"
        )
        return TemplateResponse(request, template, context)

    def post(self, request, *args, **kwargs):
        # Confirmed twice (a double click, two organizers): the first one runs, the page shows it.
        start_import(self.schedule_import, request.user)
        return redirect(detail_url(self.schedule_import))


def detail_url(schedule_import: ScheduleImport) -> str:
    return reverse(
        "admin:schedule_session_import_detail",
        args=[schedule_import.conference_id, schedule_import.pk],
    )


def preview_of(schedule_import: ScheduleImport) -> dict:
    """The report's lines by what they do, as the page lists them."""
    report = schedule_import.report or {}
    sections = report.get("sections", {})
    counts = report.get("counts", {})
    return {
        "summary": report.get("summary", []),
        "created": sections.get("created", []),
        "updated": sections.get("updated", []),
        "kept": sections.get("kept", []),
        # The sessions created or updated, with their day, times and room (stored before
        # imports listed them, the report has none: its lines are in the sections above).
        "sessions": report.get("sessions", []),
        "held": report.get("held", []),
        "overrides": report.get("overrides", []),
        "unchanged": sum(counts.get("unchanged", {}).values()),
    }

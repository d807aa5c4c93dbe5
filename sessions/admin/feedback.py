"""Organizers' view of attendee feedback: the list (hide and show comments, CSV export) and the
averages per session, per track and per conference (``summary/``, one grouped query)."""

import csv
import io

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import HttpResponse
from django.template.response import TemplateResponse
from django.urls import path
from django.utils import timezone
from django.utils.text import Truncator
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from conference.admin.conference import ConferencePartListFilter, conference_id_from
from conference.admin.scoped import ConferenceScopedAdmin
from conference.permissions import conferences_where
from sessions.models.feedback import Feedback, summarize

# A spreadsheet reads a cell starting with one of these as a formula (OWASP "CSV injection").
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")

CSV_COLUMNS = [
    "conference",
    "session",
    "track",
    "starts",
    "rating",
    "comment",
    "hidden",
    "created",
    "updated",
]


def csv_cell(value) -> str:
    """``value`` as a CSV cell no spreadsheet runs: text that would start a formula gets a
    leading apostrophe, which spreadsheets show as text and do not evaluate."""
    text = "" if value is None else str(value)
    return f"'{text}" if text.startswith(FORMULA_STARTS) else text


def feedback_csv(feedback) -> str:
    """Feedback rows as CSV, times in each conference's zone; authors are left out."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(CSV_COLUMNS)
    for item in feedback:
        session, conference = item.session, item.session.conference
        zone = conference.tz
        writer.writerow(
            csv_cell(value)
            for value in (
                conference.slug,
                session.title,
                session.track.name if session.track else "",
                session.starts_at and timezone.localtime(session.starts_at, zone).isoformat(),
                item.rating,
                item.comment,
                "yes" if item.hidden else "no",
                timezone.localtime(item.created_at, zone).isoformat(timespec="seconds"),
                timezone.localtime(item.updated_at, zone).isoformat(timespec="seconds"),
            )
        )
    return out.getvalue()


class FeedbackTrackFilter(ConferencePartListFilter):
    conference_parameter = "session__conference__id__exact"


@admin.register(Feedback)
class FeedbackAdmin(ConferenceScopedAdmin, admin.ModelAdmin):
    conference_lookup = "session__conference"

    list_display = ["session", "conference", "track", "rating", "short_comment", "hidden"]
    list_filter = [
        ("session__conference", admin.RelatedFieldListFilter),
        ("session__track", FeedbackTrackFilter),
        "hidden",
        "rating",
    ]
    list_select_related = ["session__conference", "session__track"]
    search_fields = ["comment", "session__title"]
    actions = ["hide_comments", "show_comments", "export_csv"]
    # Attendees' words are theirs: organizers hide a comment, they do not edit it.
    fields = ["session", "user", "rating", "comment", "hidden", "created_at", "updated_at"]
    readonly_fields = ["session", "user", "rating", "comment", "created_at", "updated_at"]
    change_list_template = "admin/schedule/feedback/change_list.html"

    def has_add_permission(self, request):
        return False

    def get_queryset(self, request):
        return super().get_queryset(request).for_admin()

    def get_urls(self):
        name = f"{self.opts.app_label}_{self.opts.model_name}_summary"
        view = self.admin_site.admin_view(self.summary_view)
        return [path("summary/", view, name=name), *super().get_urls()]

    @admin.display(description=gettext_lazy("conference"), ordering="session__conference__name")
    def conference(self, feedback):
        return feedback.session.conference.name

    @admin.display(description=gettext_lazy("track"), ordering="session__track__name")
    def track(self, feedback):
        return feedback.session.track.name if feedback.session.track else ""

    @admin.display(description=gettext_lazy("comment"))
    def short_comment(self, feedback):
        return Truncator(feedback.comment).chars(80)

    @admin.action(
        description=gettext_lazy("Hide the selected comments from speakers"), permissions=["change"]
    )
    def hide_comments(self, request, queryset):
        count = queryset.update(hidden=True)
        self.message_user(
            request,
            ngettext("Hid %(count)s comment.", "Hid %(count)s comments.", count) % {"count": count},
            messages.SUCCESS,
        )

    @admin.action(
        description=gettext_lazy("Show the selected comments to speakers"), permissions=["change"]
    )
    def show_comments(self, request, queryset):
        count = queryset.update(hidden=False)
        self.message_user(
            request,
            ngettext("Showed %(count)s comment again.", "Showed %(count)s comments again.", count)
            % {"count": count},
            messages.SUCCESS,
        )

    @admin.action(
        description=gettext_lazy("Export the selected feedback as CSV"), permissions=["view"]
    )
    def export_csv(self, request, queryset):
        body = feedback_csv(queryset.for_export())
        response = HttpResponse(body, content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = 'attachment; filename="feedback.csv"'
        return response

    def summary_view(self, request):
        """Averages and counts per session, per track and per conference; ``?conference=<id>``
        narrows it to one."""
        if not self.has_view_permission(request):
            raise PermissionDenied
        # Only the feedback of the conferences the person may read it in (get_queryset).
        feedback = self.get_queryset(request)
        chosen = conference_id_from(request.GET.get("conference"))
        if chosen is not None:
            feedback = feedback.filter(session__conference_id=chosen)
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": _("Feedback: averages and counts"),
            "summaries": summarize(feedback.totals_by_session()),
            "conferences": conferences_where(request.user, "schedule.view_feedback").order_by(
                "-starts_on", "name"
            ),
            "chosen": chosen,
        }
        return TemplateResponse(request, "admin/schedule/feedback/summary.html", context)

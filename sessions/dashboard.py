"""The admin's index: per conference, where its schedule stands and the way to its tools.

A fixed number of queries per conference, whatever its number of sessions: one for the
counts of every conference, then its latest release and public schedule (``preview_release``)
and its warnings (``schedule_warnings``).
"""

from dataclasses import dataclass

from django.urls import reverse
from django.utils import timezone
from django.utils.http import urlencode

from conference.models import Conference
from conference.timezones import short_date
from sessions.models import Release, Session
from sessions.releases import preview_release
from sessions.warnings import schedule_warnings


@dataclass(frozen=True)
class StatusCount:
    label: str
    count: int
    url: str


@dataclass(frozen=True)
class ConferenceSummary:
    """One conference's card on the dashboard; links the user may not follow are None."""

    conference: Conference
    statuses: list[StatusCount]
    unscheduled: int
    warnings: int
    last_release: Release | None
    changes_since: str
    planner_url: str | None
    release_url: str | None
    import_url: str | None

    @property
    def last_released(self) -> str:
        """“Wed 1 Apr 2026 18:00 CEST”, in the conference's zone."""
        if self.last_release is None:
            return ""
        local = timezone.localtime(self.last_release.released_at, self.conference.tz)
        return f"{short_date(local, weekday=True)} {local:%H:%M} {local.tzname()}"


def session_list_url(conference: Conference, **filters: str) -> str:
    query = urlencode({"conference__id__exact": conference.pk, **filters})
    return f"{reverse('admin:schedule_session_changelist')}?{query}"


def summarize_conferences(user) -> list[ConferenceSummary]:
    """The dashboard of ``user``: every conference, the one starting last first."""
    conferences = list(Conference.objects.order_by("-starts_on", "name"))
    counts = Session.objects.counts_by_conference()
    may_change = user.has_perm("schedule.change_session")
    may_import = may_change and user.has_perm("schedule.add_session")
    summaries = []
    for conference in conferences:
        by_status = counts.get(conference.pk, {})
        preview = preview_release(conference)
        warnings = schedule_warnings(conference, conference.sessions.all())
        summaries.append(
            ConferenceSummary(
                conference=conference,
                statuses=[
                    StatusCount(
                        label,
                        by_status.get(status, 0),
                        session_list_url(conference, status__exact=status),
                    )
                    for status, label in Session.Status.choices
                ],
                unscheduled=by_status.get("unscheduled", 0),
                warnings=sum(len(messages) for messages in warnings.values()),
                last_release=preview.previous,
                changes_since=preview.summary,
                planner_url=tool_url("planner", conference) if may_change else None,
                release_url=tool_url("release", conference) if may_change else None,
                import_url=tool_url("import", conference) if may_import else None,
            )
        )
    return summaries


def tool_url(tool: str, conference: Conference) -> str:
    return reverse(f"admin:schedule_session_{tool}", args=[conference.pk])


def with_conference_dashboard(index):
    """Wrap the admin site's index view to show the dashboard above the list of models, to
    those who may see sessions (admin/schedule/dashboard.html)."""

    def index_with_dashboard(request, extra_context=None):
        summaries = []
        user = request.user
        if user.has_perm("schedule.view_session") or user.has_perm("schedule.change_session"):
            summaries = summarize_conferences(request.user)
        return index(request, {"conference_summaries": summaries, **(extra_context or {})})

    return index_with_dashboard

"""The admin's index: per conference, where its schedule stands and the way to its tools.

A fixed number of queries per conference shown, whatever its number of sessions: one for the
counts of every conference shown, then its latest release and public schedule
(``preview_release``) and its warnings (``schedule_warnings``). Conferences long over are left
out (counted, a click away), so the index does not slow down as the years go by.
"""

from dataclasses import dataclass

from django.db.models import Q
from django.urls import reverse
from django.utils import timezone
from django.utils.http import urlencode
from django.utils.translation import pgettext_lazy

from conference.i18n.timezones import short_moment
from conference.models import Conference
from conference.permissions import conferences_where
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
        return short_moment(self.last_release.released_at, self.conference.tz)


def session_list_url(conference: Conference, **filters: str) -> str:
    query = urlencode({"conference__id__exact": conference.pk, **filters})
    return f"{reverse('admin:schedule_session_changelist')}?{query}"


# How many past conferences the dashboard shows beside those still to come; older ones are a
# click away, so the index costs the same however many conferences a site has held.
RECENT_PAST = 3

# Each count's heading names the sessions counted, as “Unscheduled” beside them does: plural in
# French too (“Publiées 35”, not the status's singular “Publiée 35”).
STATUS_HEADINGS = {
    Session.Status.DRAFT: pgettext_lazy("sessions counted by status", "Drafts"),
    Session.Status.PUBLISHED: pgettext_lazy("sessions counted by status", "Published"),
    Session.Status.CANCELLED: pgettext_lazy("sessions counted by status", "Cancelled"),
}


def summarize_conferences(user, every_one: bool = False) -> dict:
    """What the admin's index shows ``user``: a card per conference still to come or running, and
    for the ``RECENT_PAST`` that ended last (every conference with ``every_one``), the one
    starting last first; and how many older ones were left out. Nothing for those who may not
    see sessions: of the conferences their teams cover."""
    reachable = conferences_where(user, "schedule.view_session")
    conferences = reachable.order_by("-starts_on", "name")
    left_out = 0
    if not every_one:
        today = timezone.localdate()
        ended = reachable.filter(ends_on__lt=today).order_by("-ends_on", "name")
        recent = list(ended.values_list("pk", flat=True)[: RECENT_PAST + 1])
        left_out = ended.count() - RECENT_PAST if len(recent) > RECENT_PAST else 0
        conferences = conferences.filter(Q(ends_on__gte=today) | Q(pk__in=recent[:RECENT_PAST]))
    conferences = list(conferences)
    counts = Session.objects.filter(conference__in=conferences).counts_by_conference()
    summaries = []
    for conference in conferences:
        may_change = user.has_perm("schedule.change_session", conference)
        may_import = user.has_perm("schedule.add_scheduleimport", conference)
        by_status = counts.get(conference.pk, {})
        preview = preview_release(conference)
        warnings = schedule_warnings(conference, conference.sessions.all())
        summaries.append(
            ConferenceSummary(
                conference=conference,
                statuses=[
                    StatusCount(
                        STATUS_HEADINGS[status],
                        by_status.get(status, 0),
                        session_list_url(conference, status__exact=status),
                    )
                    for status in Session.Status
                ],
                unscheduled=by_status.get("unscheduled", 0),
                warnings=sum(len(messages) for messages in warnings.values()),
                last_release=preview.previous,
                changes_since=preview.summary,
                planner_url=tool_url("planner", conference) if may_change else None,
                release_url=tool_url("release", conference)
                if user.has_perm("schedule.add_release", conference)
                else None,
                import_url=tool_url("import", conference) if may_import else None,
            )
        )
    return {"conference_summaries": summaries, "past_conferences": left_out}


def tool_url(tool: str, conference: Conference) -> str:
    return reverse(f"admin:schedule_session_{tool}", args=[conference.pk])

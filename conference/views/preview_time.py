"""A preview time: a conference's organizers and venue team see the pages about the present (now
and next, door signs) and when feedback opens as at a moment they choose, to try them before the
conference or after it (docs/organizers.md, "Seeing the site at another time").

``now_for(request, conference)`` is the one "now" of those pages and rules. It reads the preview
time kept in the visitor's session only for someone who holds ``conference.run_venue`` in that
conference, asked at every request: anyone else, and a member who has left the team, gets the
real time whatever their session or request says. The time is frozen, not a clock started at
it: the page says one moment, the one chosen.

The pages it changes are shared (conference/pages/): they render for the minute ``now_for``
gives, which their version names, so a copy made for a preview minute is the page of that minute
for anyone (a pure function of its version, docs/pages.md); the banner saying it is a preview is a
personal part of the page (``personal_context``), never in the shared text.
"""

from __future__ import annotations

import datetime

from django.contrib.auth.views import redirect_to_login
from django.http import Http404, HttpRequest
from django.shortcuts import redirect
from django.urls import reverse
from django.utils import timezone
from django.utils.cache import patch_cache_control
from django.views.generic import FormView

from conference.forms import PreviewTimeForm
from conference.models import Conference
from conference.views.conferences import ConferencePageMixin, safe_next
from sessions.models import Session

# In the visitor's session: {conference pk (str): the instant, ISO 8601 in UTC}.
SESSION_KEY = "preview_times"
PERMISSION = "conference.run_venue"


def may_set_preview_time(user, conference: Conference) -> bool:
    return user.is_authenticated and user.has_perm(PERMISSION, conference)


def preview_time(request: HttpRequest, conference: Conference) -> datetime.datetime | None:
    """The moment ``request``'s visitor chose to see ``conference`` at, if they may; else None.
    Asked once per request and conference (the page, its banner and its headers ask again)."""
    asked = request.__dict__.setdefault("_preview_times", {})
    if conference.pk not in asked:
        asked[conference.pk] = read_preview_time(request, conference)
    return asked[conference.pk]


def read_preview_time(request: HttpRequest, conference: Conference) -> datetime.datetime | None:
    session = getattr(request, "session", None)
    kept = session.get(SESSION_KEY, {}).get(str(conference.pk)) if session is not None else None
    if not kept or not may_set_preview_time(request.user, conference):
        return None
    try:
        moment = datetime.datetime.fromisoformat(kept)
    except (TypeError, ValueError):
        return None
    return moment if timezone.is_aware(moment) else None


def now_for(request: HttpRequest, conference: Conference) -> datetime.datetime:
    """Now, for this visitor of this conference's pages: their preview time, else the clock's."""
    return preview_time(request, conference) or timezone.now()


def preview_time_context(request: HttpRequest, conference: Conference) -> dict:
    """What the banner (templates/conference/includes/preview_time.html, a personal part) reads."""
    return {
        "preview_time": preview_time(request, conference),
        "may_set_preview_time": may_set_preview_time(request.user, conference),
        # Back to this page after choosing: its path alone, no parameter the visitor sent.
        "next_url": request.path,
    }


class FollowsTheClockMixin:
    """For a view of ``conference`` whose page reads ``now_for``: its preview banner, a personal
    part (templates/conference/includes/preview_time.html), and, while the visitor's preview time
    is on, ``Cache-Control: no-store``, so that no cache keeps the page they see: neither the
    browser's nor the offline worker's (conference/site/service_worker.js keeps no such answer)."""

    def personal_context(self, request) -> dict:
        return {
            **super().personal_context(request),
            **preview_time_context(request, self.conference),
        }

    def dispatch(self, request, *args, **kwargs):
        response = super().dispatch(request, *args, **kwargs)
        if preview_time(request, self.conference) is not None:
            patch_cache_control(response, no_store=True)
        return response


class PreviewTimeView(ConferencePageMixin, FormView):
    """``/<conf>/preview-time/``: set or end the visitor's preview time. Only for those who may;
    anyone else is told the page does not exist (404), as for an object they cannot reach."""

    template_name = "conference/preview_time.html"
    form_class = PreviewTimeForm
    shared = False

    def dispatch(self, request, *args, **kwargs):
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        if not may_set_preview_time(request.user, self.conference):
            raise Http404("Only the conference's organizers and venue team set a preview time.")
        return super().dispatch(request, *args, **kwargs)

    def get_form_kwargs(self):
        return {**super().get_form_kwargs(), "conference": self.conference}

    def get_initial(self):
        # The time already chosen, else the conference's busiest moment, to the minute (10:00 on
        # its first day while it has no public session with times).
        conference = self.conference
        busiest = Session.objects.public().filter(conference=conference).busiest_moment()
        if busiest is None:
            busiest = datetime.datetime.combine(
                conference.starts_on, datetime.time(10), tzinfo=conference.tz
            )
        offered = busiest.replace(second=0, microsecond=0)
        return {"moment": preview_time(self.request, conference) or offered}

    def post(self, request, *args, **kwargs):
        if "end" in request.POST:
            times = dict(request.session.get(SESSION_KEY, {}))
            times.pop(str(self.conference.pk), None)
            request.session[SESSION_KEY] = times
            return redirect(safe_next(request, self.now_url()))
        return super().post(request, *args, **kwargs)

    def form_valid(self, form):
        times = dict(self.request.session.get(SESSION_KEY, {}))
        moment = form.cleaned_data["moment"].astimezone(datetime.UTC)
        times[str(self.conference.pk)] = moment.isoformat()
        self.request.session[SESSION_KEY] = times
        return redirect(safe_next(self.request, self.now_url()))

    def now_url(self) -> str:
        return reverse("sessions:now", kwargs={"conference_slug": self.conference.slug})

    def get_context_data(self, **kwargs):
        return super().get_context_data(
            preview_time=preview_time(self.request, self.conference),
            next_url=safe_next(self.request, ""),
            **kwargs,
        )

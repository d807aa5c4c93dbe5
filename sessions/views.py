import datetime
import json
import re
from functools import lru_cache
from urllib.parse import quote

from django.db.models import QuerySet
from django.http import HttpResponse, HttpResponseBadRequest, QueryDict
from django.middleware.csrf import get_token
from django.shortcuts import get_object_or_404
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.html import escape
from django.utils.text import slugify
from django.views import View
from django.views.generic import DetailView, TemplateView

from conference.uploads import serve_upload
from conference.views import ConferenceMixin
from sessions.exports import build_calendar, build_frab_data, build_frab_xml
from sessions.filters import SessionFilter
from sessions.models import Attachment, SavedSession, Session
from sessions.timetable import build_grid, group_by_day_and_slot


def active_filter_chips(filterset: SessionFilter, query: QueryDict) -> list[tuple[str, str]]:
    """(label, link without it) for each valid filter value in use, so each can be removed alone."""
    if not filterset.is_bound:
        return []
    filterset.errors  # noqa: B018 -- validates the form, filling cleaned_data for the valid fields
    chips = []
    for name, value in filterset.form.cleaned_data.items():
        field = filterset.form.fields[name]
        for item in value if isinstance(value, QuerySet | list) else [value]:
            if item in (None, ""):
                continue
            raw = getattr(item, "slug", None) or (
                item.isoformat() if hasattr(item, "isoformat") else item
            )
            remaining = query.copy()
            remaining.setlist(name, [kept for kept in remaining.getlist(name) if kept != raw])
            if isinstance(item, datetime.date):
                label = date_format(item, "l j F")
            elif isinstance(item, str) and name != "q":
                label = dict(field.choices).get(item, item)
            else:
                label = item
            chips.append((f"{field.label}: {label}", f"?{remaining.urlencode()}"))
    return chips


SAVE_SLOT = re.compile(
    r'<span class="save-slot" data-url="(?P<url>[^"]*)" data-title="(?P<title>[^"]*)" '
    r'data-session="(?P<pk>\d+)" data-open="(?P<open>[01])"></span>'
)


@lru_cache(maxsize=256)
def quoted_next(next_url: str) -> str:
    """The page's own address as a ?next= value: the same for every card of the page."""
    return quote(next_url, safe="/")


def save_toggle_html(
    *, url: str, title: str, saved: bool, next_url: str, csrf_token: str | None
) -> str:
    """The save / remove button of one session, for one visitor.

    Plain string formatting rather than a template or format_html: a schedule page fills one per
    session (a thousand at a large conference) on every request, cached or not. ``url`` and
    ``title`` must already be HTML-escaped. Without a CSRF token (anonymous) it is a link:
    saving starts with logging in.
    """
    if csrf_token is None:
        return (
            f'<a class="save-button" href="{url}?next={quoted_next(next_url)}" '
            f'aria-label="Save “{title}” to my schedule"><span aria-hidden="true">☆</span> Save</a>'
        )
    if saved:
        action, label, verb, star = "remove", f"Remove “{title}” from my schedule", "Saved", "★"
    else:
        action, label, verb, star = "save", f"Save “{title}” to my schedule", "Save", "☆"
    return (
        f'<form method="post" action="{url}" class="save-toggle" hx-post="{url}" hx-swap="outerHTML">'
        f'<input type="hidden" name="csrfmiddlewaretoken" value="{escape(csrf_token)}">'
        f'<input type="hidden" name="next" value="{escape(next_url)}">'
        f'<input type="hidden" name="action" value="{action}">'
        f'<button type="submit" class="save-button{" is-saved" if saved else ""}" '
        f'aria-pressed="{"true" if saved else "false"}" aria-label="{label}">'
        f'<span aria-hidden="true">{star}</span> {verb}</button></form>'
    )


class SaveTogglesMixin:
    """Pages with session cards leave a slot per save button; each request fills them.

    One query finds the visitor's saved sessions, however many cards the page has, and the rest
    of the page stays shared between visitors (and cacheable).
    """

    def personalize(self, html: str) -> str:
        html = super().personalize(html)
        if 'class="save-slot"' not in html:
            return html
        request = self.request
        authenticated = request.user.is_authenticated
        saved_ids = (
            set(
                SavedSession.objects.of(request.user, self.conference).values_list(
                    "session_id", flat=True
                )
            )
            if authenticated
            else set()
        )
        token = get_token(request) if authenticated else None
        next_url = request.get_full_path()

        def fill(slot: re.Match) -> str:
            saved = int(slot["pk"]) in saved_ids
            if slot["open"] == "0" and not saved:
                return ""  # a cancelled session can be removed, not saved
            return save_toggle_html(
                url=slot["url"],
                title=slot["title"],
                saved=saved,
                next_url=next_url,
                csrf_token=token,
            )

        return SAVE_SLOT.sub(fill, html)


class SessionListMixin(SaveTogglesMixin, ConferenceMixin):
    """Filtered, loaded sessions of the conference, shared by the list and the grid."""

    shared = True

    def get_filterset(self):
        queryset = (
            self.conference.sessions.visible_to(self.request.user)
            .for_cards()
            .order_by("starts_at", "room__position", "title")
        )
        return SessionFilter(
            self.request.GET or None,
            queryset=queryset,
            conference=self.conference,
            request=self.request,
        )

    def sessions_shown(self, filterset) -> list[Session]:
        return list(filterset.qs)

    def get_context_data(self, **kwargs):
        filterset = self.get_filterset()
        sessions = self.sessions_shown(filterset)
        self.rooms = list(self.conference.rooms.all())
        chosen = self.request.GET
        return super().get_context_data(
            filterset=filterset,
            sessions=sessions,
            # Checkboxes written out by the template: Django's widget templates took 1/4 of the
            # schedule's render time for a few dozen boxes.
            choice_filters=[
                (
                    name,
                    legend,
                    [(part.slug, part.name, part.slug in chosen.getlist(name)) for part in parts],
                )
                for name, legend, parts in (
                    ("track", "Track", self.conference.tracks.all()),
                    ("room", "Room", self.rooms),
                )
            ],
            filter_chips=active_filter_chips(filterset, self.request.GET),
            filters_in_use=bool(self.request.GET.keys() - {"tz"}),
            **kwargs,
        )


class ScheduleView(SessionListMixin, TemplateView):
    template_name = "sessions/schedule.html"
    extra_context = {"nav": "schedule"}

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        context["days"] = group_by_day_and_slot(context["sessions"])
        return context


class ScheduleGridView(SessionListMixin, TemplateView):
    """One day at a time: the chosen ?day=, else the first day that has sessions."""

    template_name = "sessions/schedule_grid.html"
    extra_context = {"nav": "grid"}

    def sessions_shown(self, filterset) -> list[Session]:
        """The chosen day's sessions; without a ?day=, the first day's, loading no other day."""
        sessions = filterset.qs  # validates the filters first
        self.day = filterset.form.cleaned_data.get("day") if filterset.is_bound else None
        if self.day is not None:  # the filter has narrowed them already
            return list(sessions)
        first_start = sessions.values_list("starts_at", flat=True).first()
        if first_start is None:
            self.day = self.conference.starts_on
            return []
        self.day = timezone.localtime(first_start, self.conference.tz).date()
        return list(sessions.on_day(self.conference, self.day))

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        context.update(day=self.day, grid=build_grid(context["sessions"], self.rooms))
        return context


class SessionDetailView(SaveTogglesMixin, ConferenceMixin, DetailView):
    template_name = "sessions/session_detail.html"
    context_object_name = "session"
    shared = True

    def get_object(self, queryset=None):
        sessions = self.conference.sessions.visible_to(self.request.user)
        return get_object_or_404(
            sessions.select_related("room", "track").for_listing(), slug=self.kwargs["slug"]
        )

    def get_context_data(self, **kwargs):
        session = self.object
        parallel = (
            self.conference.sessions.visible_to(self.request.user)
            .overlapping(session.starts_at, session.ends_at)
            .exclude(pk=session.pk)
            .select_related("room", "track")
            .for_cards()
        )
        return super().get_context_data(parallel_sessions=list(parallel), **kwargs)


class ExportMixin(ConferenceMixin):
    """Exports hold public data only, the same for every client, so every GET is conditional."""

    shared = True
    same_for_every_user = True
    content_type = ""
    extension = ""

    def public_sessions(self):
        return (
            self.conference.sessions.public()
            .for_listing()
            .order_by("starts_at", "room__position", "title")
        )

    def base_url(self) -> str:
        return self.request.build_absolute_uri("/").rstrip("/")

    def export_response(self, body: bytes, filename: str) -> HttpResponse:
        response = HttpResponse(body, content_type=self.content_type)
        response["Content-Disposition"] = f'inline; filename="{filename}.{self.extension}"'
        return response


class ScheduleCalendarView(ExportMixin, View):
    """The whole public schedule as iCalendar, narrowed by the schedule page's own filters."""

    content_type = "text/calendar; charset=utf-8"
    extension = "ics"

    def get(self, request, conference_slug):
        filterset = SessionFilter(
            request.GET or None, queryset=self.public_sessions(), conference=self.conference
        )
        if filterset.is_bound and not filterset.is_valid():
            problems = "; ".join(
                f"{name}: {' '.join(errors)}" for name, errors in filterset.errors.items()
            )
            return HttpResponseBadRequest(
                f"Bad filter: {problems}", content_type="text/plain; charset=utf-8"
            )
        body = build_calendar(
            self.conference, filterset.qs, base_url=self.base_url(), name=self.conference.name
        )
        return self.export_response(body, self.conference.slug)


class SessionCalendarView(ExportMixin, View):
    content_type = "text/calendar; charset=utf-8"
    extension = "ics"

    def get(self, request, conference_slug, slug):
        session = get_object_or_404(self.public_sessions(), slug=slug)
        body = build_calendar(
            self.conference, [session], base_url=self.base_url(), name=session.display_title
        )
        return self.export_response(body, session.slug)


class FrabXmlView(ExportMixin, View):
    """schedule.xml as frab and pretalx publish it, for conference apps and video teams."""

    content_type = "application/xml; charset=utf-8"
    extension = "xml"

    def get(self, request, conference_slug):
        body = build_frab_xml(self.conference, self.public_sessions(), base_url=self.base_url())
        return self.export_response(body, "schedule")


class FrabJsonView(ExportMixin, View):
    content_type = "application/json"
    extension = "json"

    def get(self, request, conference_slug):
        data = build_frab_data(self.conference, self.public_sessions(), base_url=self.base_url())
        body = json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode()
        return self.export_response(body, "schedule")


class AttachmentDownloadView(ConferenceMixin, View):
    """An uploaded file, as a download with its real type and a safe name."""

    def get(self, request, conference_slug, slug, pk):
        sessions = Session.objects.visible_to(request.user).filter(conference=self.conference)
        attachment = get_object_or_404(
            Attachment.objects.exclude(file=""), session__in=sessions, session__slug=slug, pk=pk
        )
        return serve_upload(
            attachment.file, filename=slugify(attachment.title) or "attachment", as_attachment=True
        )

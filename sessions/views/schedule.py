import datetime
from collections.abc import Iterable
from functools import cached_property

from django.conf import settings
from django.db.models import QuerySet
from django.http import (
    Http404,
    HttpResponse,
    HttpResponseBadRequest,
    QueryDict,
    StreamingHttpResponse,
)
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.http import urlencode
from django.views import View
from django.views.decorators.cache import cache_control
from django.views.generic import DetailView, TemplateView

from conference.models import Conference, Room, Track, describe_days
from conference.uploads import serve_upload
from conference.views.conferences import (
    ConferenceMixin,
    ConferencePageMixin,
    DropsEmptyParametersMixin,
    FollowsFormerSlugsMixin,
)
from sessions.exports.frab_schedule import frab_json_chunks, frab_xml_chunks
from sessions.exports.fragments import cached_frab_events, calendar_events
from sessions.exports.ical import ADD_TO_CALENDAR, build_calendar, calendar_chunks
from sessions.filters import SessionFilter
from sessions.models import Attachment, Session, SessionQuerySet
from sessions.models.loaders import put_in_places
from sessions.releases import change_log
from sessions.timetable import (
    GRID_MOST_COLUMNS,
    GRID_MOST_ROWS,
    build_grid,
    group_by_day_and_slot,
)
from sessions.views.personal import SaveTogglesMixin


def active_filter_chips(
    filterset: SessionFilter, query: QueryDict, navigation: tuple[str, ...] = ()
) -> list[tuple[str, str]]:
    """(label, link without it) for each valid filter value in use, so each can be removed alone;
    none for the ``navigation`` parameters (the grid's day: its tabs show it)."""
    if not filterset.is_bound:
        return []
    filterset.errors  # noqa: B018 -- validates the form, filling cleaned_data for the valid fields
    chips = []
    for name, value in filterset.form.cleaned_data.items():
        if name in navigation:
            continue
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


def cards(
    sessions: SessionQuerySet, conference: Conference, rooms: list[Room], tracks: list[Track]
) -> list[Session]:
    """The rows of ``sessions``, a FilterSet's result, with what their cards show; their
    conference, rooms and tracks from ``conference``, ``rooms`` and ``tracks``, which the page
    read once.

    Loaded on a copy, never on the FilterSet's own queryset: the FilterSet and its filters point
    at each other, a reference cycle only the garbage collector's full pass frees, and nothing
    of the rows may hang on it (not even through a Prefetch, which keeps the first row it filled).
    Else every row a schedule showed would outlive its answer until that pass.
    """
    rows = sessions.for_cards(places=False)
    return put_in_places(list(rows), conference, rooms, tracks)


class SessionListMixin(DropsEmptyParametersMixin, SaveTogglesMixin, ConferencePageMixin):
    """Filtered, loaded sessions of the conference, shared by the list and the grid."""

    query_parameters = ("tz", *SessionFilter.base_filters)
    # Parameters that choose what to look at rather than narrow it: not offered as filters to clear.
    navigation_parameters: tuple[str, ...] = ("tz",)

    @cached_property
    def rooms(self) -> list[Room]:
        """The conference's rooms, read once for the page: its cards, filters and grid."""
        return list(self.conference.rooms.all())

    @cached_property
    def tracks(self) -> list[Track]:
        """The conference's tracks, read once for the page: its cards and filters."""
        return list(self.conference.tracks.all())

    def cards(self, sessions: SessionQuerySet) -> list[Session]:
        return cards(sessions, self.conference, self.rooms, self.tracks)

    def get_filterset(self):
        queryset = self.conference.sessions.visible_to(self.request.user).in_schedule_order()
        filter_query = self.page_query.copy()
        filter_query.pop("tz", None)
        return SessionFilter(
            filter_query or None,
            queryset=queryset,
            conference=self.conference,
            request=self.request,
            rooms=self.rooms,
            tracks=self.tracks,
        )

    def sessions_shown(self, filterset) -> list[Session]:
        return self.cards(filterset.qs)

    def get_context_data(self, **kwargs):
        filterset = self.get_filterset()
        sessions = self.sessions_shown(filterset)
        return super().get_context_data(
            filterset=filterset,
            sessions=sessions,
            filter_chips=active_filter_chips(
                filterset, self.page_query, navigation=self.navigation_parameters
            ),
            filters_in_use=bool(self.page_query.keys() - set(self.navigation_parameters)),
            clear_filters_url="?"
            + urlencode(
                {
                    name: self.page_query[name]
                    for name in self.navigation_parameters
                    if name in self.page_query
                }
            ),
            match_count=len(sessions)
            if self.page_query.keys() - set(self.navigation_parameters)
            else None,
            **kwargs,
        )


class ScheduleView(SessionListMixin, TemplateView):
    """Every day, or one day at a time when the conference is too large to read (or load) at once.

    Day tabs choose a ?day= as on the grid: a day is where to look, not a filter to clear. A
    large conference shows its first day with sessions until a day is chosen, or every day with
    ?days=all.
    """

    template_name = "sessions/schedule.html"
    extra_context = {"nav": "schedule", "time_zone_at_top": True}
    query_parameters = (*SessionListMixin.query_parameters, "days")
    navigation_parameters = ("tz", "days", "day")
    # Above this many sessions a day at a time: the cost of a page grows with the sessions it
    # lists, and past this many one page of them all is too long to make and to read.
    all_days_up_to = 2000

    def sessions_shown(self, filterset) -> list[Session]:
        sessions = filterset.qs  # validates the filters first
        chosen_day = filterset.form.cleaned_data.get("day") if filterset.is_bound else None
        self.chosen_day = chosen_day
        self.session_count = filterset.queryset.count()
        self.one_day = None
        self.day = chosen_day
        if (
            chosen_day is not None
            or self.session_count <= self.all_days_up_to
            or self.page_query.get("days") == "all"
        ):
            return self.cards(sessions)
        first_start = sessions.values_list("starts_at", flat=True).first()
        if first_start is None:
            return []
        self.day = self.one_day = self.conference.day_of(first_start)
        return self.cards(sessions.on_day(self.conference, self.one_day))

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        context["days"] = group_by_day_and_slot(context["sessions"])
        context.update(one_day=self.one_day, day=self.day, session_count=self.session_count)
        large = self.session_count > self.all_days_up_to
        days_on_offer = context["filterset"].days_on_offer  # read by the filter form anyway
        context["day_tabs"] = days_on_offer
        # The day the visitor chose (not the one a large schedule opens on), kept by the filters.
        context["kept_day"] = self.chosen_day.isoformat() if self.chosen_day else None
        # A large schedule says ?days=all, or it would open on its first day again.
        all_days = self.page_query.copy()
        all_days.pop("day", None)
        all_days.pop("days", None)
        if large:
            all_days["days"] = "all"
        context["all_days_url"] = f"?{all_days.urlencode()}"
        # As the home page says them: the days with sessions, else the conference's own.
        context["session_days"] = describe_days(days_on_offer)
        context["conference_dates"] = describe_days(self.conference.days)
        return context


class ScheduleGridView(SessionListMixin, TemplateView):
    """One day at a time: the chosen ?day=, else the first day that has sessions."""

    template_name = "sessions/schedule_grid.html"
    extra_context = {"nav": "grid", "time_zone_at_top": True}
    navigation_parameters = ("tz", "day")

    def sessions_shown(self, filterset) -> list[Session]:
        """The chosen day's sessions; without a ?day=, the first day's, loading no other day."""
        sessions = filterset.qs  # validates the filters first
        self.day = filterset.form.cleaned_data.get("day") if filterset.is_bound else None
        if self.day is not None:  # the filter has narrowed them already
            return self.cards(sessions)
        first_start = sessions.values_list("starts_at", flat=True).first()
        if first_start is None:
            self.day = self.conference.starts_on
            return []
        self.day = self.conference.day_of(first_start)
        return self.cards(sessions.on_day(self.conference, self.day))

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        context.update(day=self.day, grid=build_grid(context["sessions"], self.rooms))
        # Tabs only for days with sessions the visitor may see, whatever the other filters.
        context["day_tabs"] = context["filterset"].days_on_offer
        return context


@cache_control(max_age=24 * 60 * 60, public=True)
def grid_rows_css(request, conference_slug):
    """The grid's columns, rows and spans as classes; the same for every conference."""
    return TemplateResponse(
        request,
        "sessions/grid_rows.css",
        {
            "columns": range(1, GRID_MOST_COLUMNS + 1),
            "room_counts": range(1, GRID_MOST_COLUMNS),  # the time column takes one
            "rows": range(1, GRID_MOST_ROWS + 1),
        },
        content_type="text/css; charset=utf-8",
    )


class SessionDetailView(FollowsFormerSlugsMixin, SaveTogglesMixin, ConferencePageMixin, DetailView):
    template_name = "sessions/session_detail.html"
    context_object_name = "session"
    extra_context = {"time_zone_link": True}

    def current_slug(self, former_slug):
        sessions = self.conference.sessions.visible_to(self.request.user)
        return (
            sessions.filter(former_slugs__slug=former_slug).values_list("slug", flat=True).first()
        )

    def get_object(self, queryset=None):
        sessions = self.conference.sessions.visible_to(self.request.user)
        try:
            self.page = sessions.page_and_parallels(self.kwargs["slug"])
        except Session.DoesNotExist:
            raise Http404("No session the visitor may see has this address.") from None
        return self.page.session

    def changed_by_clock_at(self):
        """The page offers feedback until the conference's feedback window closes."""
        closes = self.conference.feedback_closes_at
        return closes if timezone.now() >= closes else None

    def get_context_data(self, **kwargs):
        return super().get_context_data(
            feedback_closed=self.changed_by_clock_at() is not None,
            parallel_sessions=self.page.parallels,
            parallels_total=self.page.parallels_total,
            **kwargs,
        )


class ExportMixin(ConferencePageMixin):
    """Exports hold public data only, the same for every client, so every GET is conditional."""

    same_for_every_user = True
    query_parameters = ()
    content_type = ""
    extension = ""

    def public_sessions(self):
        """In schedule order; each export chooses what it loads of them (sessions/exports/)."""
        return self.conference.sessions.public().in_schedule_order()

    def base_url(self) -> str:
        return settings.SITE_URL

    def export_response(
        self, body: bytes | Iterable[bytes], filename: str
    ) -> HttpResponse | StreamingHttpResponse:
        """``body`` whole, or in chunks: a whole conference's export is streamed, so a
        10,000-session one goes out as it is joined and is never held whole."""
        if isinstance(body, bytes):
            response = HttpResponse(body, content_type=self.content_type)
        else:
            response = StreamingHttpResponse(body, content_type=self.content_type)
        response["Content-Disposition"] = f'inline; filename="{filename}.{self.extension}"'
        return response


class ScheduleCalendarView(ExportMixin, View):
    """The whole public schedule as iCalendar, narrowed by the schedule page's own filters."""

    content_type = "text/calendar; charset=utf-8"
    extension = "ics"
    query_parameters = tuple(SessionFilter.base_filters)

    def get(self, request, conference_slug):
        filterset = SessionFilter(
            self.page_query or None, queryset=self.public_sessions(), conference=self.conference
        )
        if filterset.is_bound and not filterset.is_valid():
            problems = "; ".join(
                f"{name}: {' '.join(errors)}" for name, errors in filterset.errors.items()
            )
            return HttpResponseBadRequest(
                f"Bad filter: {problems}", content_type="text/plain; charset=utf-8"
            )
        events = calendar_events(self.conference, filterset.qs, base_url=self.base_url())
        chunks = calendar_chunks(self.conference, events, name=self.conference.name)
        return self.export_response(chunks, self.conference.slug)


class SessionCalendarView(FollowsFormerSlugsMixin, ExportMixin, View):
    content_type = "text/calendar; charset=utf-8"
    extension = "ics"

    def current_slug(self, former_slug):
        sessions = self.conference.sessions.public().filter(former_slugs__slug=former_slug)
        return sessions.values_list("slug", flat=True).first()

    def get(self, request, conference_slug, slug):
        session = get_object_or_404(self.public_sessions().for_ical(), slug=slug)
        body = build_calendar(
            self.conference, [session], base_url=self.base_url(), name=session.export_title
        )
        return self.export_response(body, session.slug)


class AddToCalendarView(FollowsFormerSlugsMixin, ConferenceMixin, View):
    """“Add to Google Calendar”, “Add to Outlook”: on to that calendar's new-event form, filled in
    with the session. The session page links here, not to the calendar, so it does not carry two
    long addresses that few visitors follow; none for a draft or a cancelled session."""

    def published_sessions(self):
        sessions = self.conference.sessions.visible_to(self.request.user)
        return sessions.filter(status=Session.Status.PUBLISHED).select_related("room")

    def current_slug(self, former_slug):
        sessions = self.published_sessions().filter(former_slugs__slug=former_slug)
        return sessions.values_list("slug", flat=True).first()

    def get(self, request, conference_slug, slug, calendar):
        session = get_object_or_404(self.published_sessions(), slug=slug)
        build_address = ADD_TO_CALENDAR[calendar]
        return redirect(build_address(self.conference, session, base_url=settings.SITE_URL))


class FrabXmlView(ExportMixin, View):
    """schedule.xml as frab and pretalx publish it, for conference apps and video teams."""

    content_type = "application/xml; charset=utf-8"
    extension = "xml"

    def get(self, request, conference_slug):
        events = cached_frab_events(
            self.conference, self.public_sessions(), base_url=self.base_url(), form="xml"
        )
        chunks = frab_xml_chunks(self.conference, events, base_url=self.base_url())
        return self.export_response(chunks, "schedule")


class FrabJsonView(ExportMixin, View):
    content_type = "application/json"
    extension = "json"

    def get(self, request, conference_slug):
        events = cached_frab_events(
            self.conference, self.public_sessions(), base_url=self.base_url(), form="json"
        )
        chunks = frab_json_chunks(self.conference, events, base_url=self.base_url())
        return self.export_response(chunks, "schedule")


class AttachmentDownloadView(ConferenceMixin, View):
    """An uploaded file, as a download with its real type and a safe name."""

    def get(self, request, conference_slug, slug, pk):
        sessions = Session.objects.visible_to(request.user).filter(conference=self.conference)
        attachment = get_object_or_404(
            Attachment.objects.exclude(file=""), session__in=sessions, session__slug=slug, pk=pk
        )
        return serve_upload(attachment.file, filename=attachment.download_stem, as_attachment=True)


class ChangeLogView(ConferencePageMixin, TemplateView):
    """Every release of the schedule, newest first, with what it changed, times in the
    visitor's zone."""

    template_name = "sessions/change_log.html"

    def get_context_data(self, **kwargs):
        zone = timezone.get_current_timezone()
        releases = change_log(self.conference, zone)
        # Before the first release the schedule may well be public already: say which it is.
        schedule_is_public = bool(releases) or self.conference.sessions.public().exists()
        return super().get_context_data(
            change_log=releases, schedule_is_public=schedule_is_public, site_url="", **kwargs
        )

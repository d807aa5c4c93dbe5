from urllib.parse import urlencode

from django.http import Http404, HttpResponsePermanentRedirect, HttpResponseRedirect
from django.shortcuts import redirect
from django.urls import reverse
from django.utils import timezone
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.generic import DetailView, ListView

from conference.i18n.languages import activate_conference_language
from conference.models import Conference, describe_days
from conference.pages.views import SharedPageMixin


def safe_next(request, default: str) -> str:
    """The ?next= (or posted next) address if it stays on this site, else ``default``."""
    next_url = request.POST.get("next") or request.GET.get("next")
    if next_url and url_has_allowed_host_and_scheme(
        next_url, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return next_url
    return default


class ConferenceMixin:
    """Scopes a view to the conference named in the URL, and shows times in the right zone.

    The conference is one the visitor may see (``Conference.objects.visible_to``); times show in
    the zone the visitor chose, else the conference's own; in the language the visitor asked
    for, else the conference's own (conference/i18n/languages.py).
    """

    def setup(self, request, *args, **kwargs):
        super().setup(request, *args, **kwargs)
        self.conference = Conference.objects.visible_by_slug(
            request.user, kwargs["conference_slug"]
        )
        if self.conference is None:
            raise Http404("No conference by that name.")
        if not request.chosen_time_zone:
            timezone.activate(self.conference.tz)
        activate_conference_language(request, self.conference.language)

    def get_context_data(self, **kwargs):
        zone = timezone.get_current_timezone()
        return super().get_context_data(
            conference=self.conference,
            display_zone=timezone.get_current_timezone_name(),
            display_tz=zone,
            **kwargs,
        )


class ConferencePageMixin(SharedPageMixin, ConferenceMixin):
    """A public page of a conference, cached and shared (conference.pages)."""


class DropsEmptyParametersMixin:
    """A search or filter page whose address carries no empty parameters.

    A GET form submits its empty fields too (``?q=&kind=&level=``); the page answers with a
    redirect to its address without them, so links people share and bookmark say only what
    they chose, and a page has one address however it was reached. Works without JavaScript.
    """

    def dispatch(self, request, *args, **kwargs):
        if request.method in ("GET", "HEAD"):
            pairs = [(name, value) for name, values in request.GET.lists() for value in values]
            kept = [(name, value) for name, value in pairs if value.strip()]
            if len(kept) < len(pairs):
                query = urlencode(kept)
                return HttpResponseRedirect(f"{request.path}?{query}" if query else request.path)
        return super().dispatch(request, *args, **kwargs)


class FollowsFormerSlugsMixin:
    """A session or speaker renamed in the admin keeps its old links working: 301 to the new one.

    ``current_slug(slug)`` names the visible row that once had ``slug`` (None: a plain 404). A
    live row with that slug always wins; this is consulted only when there is none.
    """

    def current_slug(self, former_slug: str) -> str | None:
        raise NotImplementedError

    def dispatch(self, request, *args, **kwargs):
        try:
            return super().dispatch(request, *args, **kwargs)
        except Http404:
            if request.method not in ("GET", "HEAD"):
                raise
            current = self.current_slug(kwargs["slug"])
            if current is None:
                raise
        url = reverse(request.resolver_match.view_name, kwargs={**kwargs, "slug": current})
        query = request.META.get("QUERY_STRING")
        return HttpResponsePermanentRedirect(f"{url}?{query}" if query else url)


class ConferenceListView(ListView):
    template_name = "conference/conference_list.html"

    def get_queryset(self):
        return Conference.objects.published()

    def get(self, request, *args, **kwargs):
        conferences = list(self.get_queryset()[:2])
        if len(conferences) == 1:
            return redirect(conferences[0])
        return super().get(request, *args, **kwargs)


class ConferenceDetailView(ConferencePageMixin, DetailView):
    template_name = "conference/conference_detail.html"

    def get_object(self, queryset=None):
        return self.conference

    def get_context_data(self, **kwargs):
        # The days that have sessions, not the conference's own dates (which may include a day
        # of co-located events with nothing in this schedule); those only when none has any.
        sessions = self.conference.sessions.visible_to(self.request.user)
        session_days = sessions.start_days(self.conference)
        return super().get_context_data(
            rooms=self.conference.rooms.all(),
            tracks=self.conference.tracks.all(),
            session_days=describe_days(session_days),
            conference_dates=describe_days(self.conference.days),
            has_call=hasattr(self.conference, "call"),
            **kwargs,
        )


class TrackStylesView(ConferencePageMixin, DetailView):
    """Track colours as a stylesheet, so pages need no inline styles (and CSP can forbid them)."""

    template_name = "conference/tracks.css"
    content_type = "text/css; charset=utf-8"
    same_for_every_user = True
    query_parameters = ()

    def get_object(self, queryset=None):
        return self.conference

    def get_context_data(self, **kwargs):
        return super().get_context_data(tracks=self.conference.tracks.all(), **kwargs)

import hashlib

from django.shortcuts import get_object_or_404, redirect
from django.utils import timezone
from django.utils.cache import get_conditional_response
from django.utils.http import http_date, quote_etag
from django.views.generic import DetailView, ListView

from conference.models import Conference
from conference.timezones import sorted_zones


class ConferenceMixin:
    """Scopes a view to the conference named in the URL and shows its times in the right zone.

    With ``conditional`` set, GETs carry an ETag and Last-Modified taken from the conference's
    ``changed_at`` and are answered 304 without rendering when the client is up to date. Pages
    that differ per user (saved markers) are conditional for anonymous visitors only.
    """

    conditional = False
    same_for_every_user = False

    def dispatch(self, request, *args, **kwargs):
        conferences = (
            Conference.objects.all() if request.user.is_staff else Conference.objects.published()
        )
        self.conference = get_object_or_404(conferences, slug=kwargs["conference_slug"])
        if not request.chosen_time_zone:
            timezone.activate(self.conference.tz)
        if not self.is_conditional(request):
            return super().dispatch(request, *args, **kwargs)
        etag = self.etag(request)
        last_modified = int(self.conference.changed_at.timestamp())
        not_modified = get_conditional_response(request, etag=etag, last_modified=last_modified)
        if not_modified is not None:
            return not_modified
        response = super().dispatch(request, *args, **kwargs)
        if response.status_code == 200:
            response.headers.setdefault("ETag", etag)
            response.headers.setdefault("Last-Modified", http_date(last_modified))
        return response

    def is_conditional(self, request) -> bool:
        return (
            self.conditional
            and request.method in ("GET", "HEAD")
            and (self.same_for_every_user or not request.user.is_authenticated)
        )

    def etag(self, request) -> str:
        """Changes with the conference's content, the URL with its filters, and the time zone."""
        variant = "|".join(
            [
                str(self.conference.pk),
                self.conference.changed_at.isoformat(),
                request.get_full_path(),
                timezone.get_current_timezone_name(),
            ]
        )
        return quote_etag(hashlib.sha256(variant.encode()).hexdigest()[:32])

    def get_context_data(self, **kwargs):
        zone = timezone.get_current_timezone_name()
        return super().get_context_data(
            conference=self.conference,
            display_zone=zone,
            time_zone_choices=[
                self.conference.time_zone,
                *(name for name in sorted_zones() if name != self.conference.time_zone),
            ],
            **kwargs,
        )


class ConferenceListView(ListView):
    template_name = "conference/conference_list.html"

    def get_queryset(self):
        return Conference.objects.published()

    def get(self, request, *args, **kwargs):
        conferences = list(self.get_queryset()[:2])
        if len(conferences) == 1:
            return redirect(conferences[0])
        return super().get(request, *args, **kwargs)


class ConferenceDetailView(ConferenceMixin, DetailView):
    template_name = "conference/conference_detail.html"
    conditional = True

    def get_object(self, queryset=None):
        return self.conference

    def get_context_data(self, **kwargs):
        return super().get_context_data(
            rooms=self.conference.rooms.all(),
            tracks=self.conference.tracks.all(),
            **kwargs,
        )


class TrackStylesView(ConferenceMixin, DetailView):
    """Track colours as a stylesheet, so pages need no inline styles (and CSP can forbid them)."""

    template_name = "conference/tracks.css"
    content_type = "text/css; charset=utf-8"
    conditional = True
    same_for_every_user = True

    def get_object(self, queryset=None):
        return self.conference

    def get_context_data(self, **kwargs):
        return super().get_context_data(tracks=self.conference.tracks.all(), **kwargs)

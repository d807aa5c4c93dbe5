from django.shortcuts import get_object_or_404, redirect
from django.utils import timezone
from django.views.generic import DetailView, ListView

from conference.models import Conference
from conference.timezones import sorted_zones


class ConferenceMixin:
    """Scopes a view to the conference named in the URL and shows its times in the right zone."""

    def dispatch(self, request, *args, **kwargs):
        conferences = (
            Conference.objects.all() if request.user.is_staff else Conference.objects.published()
        )
        self.conference = get_object_or_404(conferences, slug=kwargs["conference_slug"])
        if not request.chosen_time_zone:
            timezone.activate(self.conference.tz)
        return super().dispatch(request, *args, **kwargs)

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

    def get_object(self, queryset=None):
        return self.conference

    def get_context_data(self, **kwargs):
        return super().get_context_data(tracks=self.conference.tracks.all(), **kwargs)

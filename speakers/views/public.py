from django.db.models.functions import Lower
from django.http import Http404
from django.shortcuts import get_object_or_404
from django.views import View
from django.views.generic import DetailView, ListView

from conference.pages.views import visitor_messages
from conference.uploads import serve_upload
from conference.views.conferences import (
    ConferencePageMixin,
    DropsEmptyParametersMixin,
    FollowsFormerSlugsMixin,
)
from sessions.personal import save_toggles
from speakers.forms import SpeakerSearchForm
from speakers.models import Speaker


class SpeakerSessionsMixin(ConferencePageMixin):
    """Speakers of the conference who give at least one session the visitor may see."""

    def visible_sessions(self):
        return self.conference.sessions.visible_to(self.request.user)

    def speakers(self):
        return self.conference.speakers.giving(self.visible_sessions())


class SpeakerListView(DropsEmptyParametersMixin, SpeakerSessionsMixin, ListView):
    """Alphabetical, searchable with ?q=; a festival's thousands of speakers come in pages."""

    template_name = "speakers/speaker_list.html"
    extra_context = {"nav": "speakers"}
    context_object_name = "speakers"
    query_parameters = ("tz", "q", "page")
    # Every speaker of a 1,000-session conference (800) on one page; 8,000 would take seconds.
    paginate_by = 1000

    def get_queryset(self):
        speakers = self.speakers().order_by(Lower("name"), "pk")
        self.search_form = SpeakerSearchForm(self.page_query)
        query = self.search_form.cleaned_data["q"] if self.search_form.is_valid() else ""
        if query:
            speakers = speakers.search(query)
        return speakers

    def paginate_queryset(self, queryset, page_size):
        """The page's speakers only, each with their sessions."""
        paginator, page, speakers, is_paginated = super().paginate_queryset(queryset, page_size)
        page.object_list = speakers.with_sessions(self.visible_sessions())
        return paginator, page, page.object_list, is_paginated

    def get_context_data(self, **kwargs):
        form = self.search_form
        query = form.cleaned_data["q"] if form.is_valid() else ""
        return super().get_context_data(search_form=form, query=query, **kwargs)


class SpeakerDetailView(FollowsFormerSlugsMixin, SpeakerSessionsMixin, DetailView):
    template_name = "speakers/speaker_detail.html"
    context_object_name = "speaker"
    extra_context = {"time_zone_link": True}

    def personal_context(self, request) -> dict:
        # The Save buttons of the speaker's session cards, as on the schedule.
        return {
            **super().personal_context(request),
            **save_toggles(request.user, self.conference, visitor_messages(request)),
        }

    def current_slug(self, former_slug):
        speakers = self.speakers().filter(former_slugs__slug=former_slug)
        return speakers.values_list("slug", flat=True).first()

    def get_object(self, queryset=None):
        # Only the speakers of sessions the visitor may see have a page (``speakers()``): found
        # from those sessions, rather than by its subquery, which lists every such speaker.
        try:
            return self.visible_sessions().speaker_page(self.kwargs["slug"])
        except Speaker.DoesNotExist:
            raise Http404("No speaker of a visible session has this address.") from None


class SpeakerPhotoView(SpeakerSessionsMixin, View):
    shared = False  # a file stream, not a page to cache

    def get(self, request, conference_slug, slug):
        speaker = get_object_or_404(self.speakers().exclude(photo=""), slug=slug)
        return serve_upload(speaker.photo, filename=speaker.slug, as_attachment=False)

"""The schedule as another website shows it in a frame: /<conf>/embed/ (the list) and
/<conf>/embed/grid/ (a day's grid), with the schedule's filters as query parameters.

No site chrome and nothing personal: the same bytes for every visitor, as a public export.
Only the conference's ``embed_origins`` may frame them (Content-Security-Policy
``frame-ancestors``); every other page of the site keeps refusing to be framed (settings).
Each page tells its frame how tall it is (static/js/embed.js); the snippet the conference's
admin page offers (conference.admin.conference.embed_snippet) sizes the iframe from that.
"""

from csp.constants import NONE

from sessions.views.schedule import ScheduleGridView, ScheduleView

THEMES = ("light", "dark")  # else the visitor's own preference


class EmbedMixin:
    same_for_every_user = True  # no holes: the visitor is another site's, and saves nothing here
    extra_context = {"embedded": True}

    def get_context_data(self, **kwargs):
        theme = self.page_query.get("theme")
        return super().get_context_data(theme=theme if theme in THEMES else None, **kwargs)

    def dispatch(self, request, *args, **kwargs):
        response = super().dispatch(request, *args, **kwargs)
        conference = getattr(self, "conference", None)  # not found before a redirect
        origins = conference.embedding_origins if conference else []
        response._csp_replace = {"frame-ancestors": origins or [NONE]}
        response.xframe_options_exempt = True
        return response


class EmbedScheduleView(EmbedMixin, ScheduleView):
    template_name = "sessions/embed/schedule.html"
    query_parameters = (*ScheduleView.query_parameters, "theme")
    navigation_parameters = (*ScheduleView.navigation_parameters, "theme")


class EmbedGridView(EmbedMixin, ScheduleGridView):
    template_name = "sessions/embed/grid.html"
    query_parameters = (*ScheduleGridView.query_parameters, "theme")
    navigation_parameters = (*ScheduleGridView.navigation_parameters, "theme")

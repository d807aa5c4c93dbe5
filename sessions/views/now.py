"""Now and next: what runs in every room at this minute, and each room's door sign."""

import datetime

from django.shortcuts import get_object_or_404
from django.utils import timezone
from django.views.generic import TemplateView

from conference.views.conferences import ConferencePageMixin
from conference.views.preview_time import FollowsTheClockMixin, now_for
from sessions.timetable import build_door_sign, build_now_board


def current_minute(request, conference) -> datetime.datetime:
    """Now, to the minute, for this visitor: the instant the now pages show (``now_for``: the
    real time, or the preview time an organizer chose)."""
    return now_for(request, conference).replace(second=0, microsecond=0)


class NowPageMixin(FollowsTheClockMixin, ConferencePageMixin):
    """A shared page about the current minute.

    The page renders for ``current_minute()`` and names that minute in its version
    (``page_moment()``, see conference.pages.versions): the cache serves a copy only within the
    minute it was made for, so no page shown is more than a minute behind the clock, and an edit
    still shows at once. The page refreshes its board every minute (htmx, in the template).
    """

    # A new version every minute: a short life keeps a day of them from piling up in the cache.
    page_cache_seconds = 2 * 60

    def setup(self, request, *args, **kwargs):
        super().setup(request, *args, **kwargs)
        self.moment = current_minute(request, self.conference)

    def page_moment(self) -> datetime.datetime:
        return self.moment

    def visible_sessions(self):
        return self.conference.sessions.visible_to(self.request.user)

    def get_context_data(self, **kwargs):
        return super().get_context_data(
            moment=self.moment,
            today=timezone.localdate(self.moment),
            conference_started=self.moment >= self.conference.opens_at,
            **kwargs,
        )


class NowView(NowPageMixin, TemplateView):
    template_name = "sessions/now.html"

    def get_context_data(self, **kwargs):
        sessions = (
            self.visible_sessions().running_or_next(self.moment).for_cards().in_schedule_order()
        )
        rooms = list(self.conference.rooms.all())
        board = build_now_board(
            list(sessions), rooms, self.moment, self.conference, timezone.get_current_timezone()
        )
        return super().get_context_data(board=board, **kwargs)


class DoorSignView(NowPageMixin, TemplateView):
    """One room's sign: its session now, the next one, and the rest of that day."""

    template_name = "sessions/door_sign.html"

    def setup(self, request, *args, **kwargs):
        super().setup(request, *args, **kwargs)
        self.room = get_object_or_404(self.conference.rooms, slug=kwargs["room_slug"])

    def get_context_data(self, **kwargs):
        sessions = (
            self.visible_sessions()
            .for_door_sign(self.room)
            .rest_of_day(self.moment, self.conference, timezone.get_current_timezone())
            .for_cards()
            .in_schedule_order()
        )
        zone = timezone.get_current_timezone()
        sign = build_door_sign(list(sessions), self.moment, self.conference, zone)
        return super().get_context_data(
            room=self.room,
            sign=sign,
            conference_day=self.conference.day_of(self.moment, zone),
            **kwargs,
        )

from django.urls import path, re_path
from django.views.decorators.cache import never_cache

from sessions.exports.ical import ADD_TO_CALENDAR
from sessions.views import embed, feedback, feeds, my_schedule, now, schedule

app_name = "sessions"

urlpatterns = [
    path("schedule/", schedule.ScheduleView.as_view(), name="schedule"),
    path("schedule/grid/", schedule.ScheduleGridView.as_view(), name="schedule-grid"),
    path("schedule/grid/rows.css", schedule.grid_rows_css, name="schedule-grid-rows"),
    path("embed/", embed.EmbedScheduleView.as_view(), name="embed"),
    path("embed/grid/", embed.EmbedGridView.as_view(), name="embed-grid"),
    path("now/", now.NowView.as_view(), name="now"),
    path("now/<slug:room_slug>/", now.DoorSignView.as_view(), name="door-sign"),
    path("changes/", schedule.ChangeLogView.as_view(), name="changes"),
    path("changes.atom", feeds.ChangeLogFeedView.as_view(), name="changes-feed"),
    path("schedule.ics", schedule.ScheduleCalendarView.as_view(), name="schedule-ics"),
    path("schedule.xml", schedule.FrabXmlView.as_view(), name="schedule-xml"),
    path("schedule.json", schedule.FrabJsonView.as_view(), name="schedule-json"),
    path("sessions/<slug:slug>.ics", schedule.SessionCalendarView.as_view(), name="session-ics"),
    path("sessions/<slug:slug>/", schedule.SessionDetailView.as_view(), name="session-detail"),
    re_path(
        rf"^sessions/(?P<slug>[-a-zA-Z0-9_]+)/add-to/(?P<calendar>{'|'.join(ADD_TO_CALENDAR)})/$",
        schedule.AddToCalendarView.as_view(),
        name="session-add-to-calendar",
    ),
    path(
        "sessions/<slug:slug>/attachments/<int:pk>/",
        schedule.AttachmentDownloadView.as_view(),
        name="attachment-download",
    ),
    path("sessions/<slug:slug>/save/", my_schedule.SaveSessionView.as_view(), name="session-save"),
    path("my-schedule/", my_schedule.MyScheduleView.as_view(), name="my-schedule"),
    path("my-schedule/keep/", my_schedule.KeepSessionView.as_view(), name="my-schedule-keep"),
    path("my-schedule/seen/", my_schedule.AcknowledgeMoveView.as_view(), name="my-schedule-seen"),
    path(
        "my-schedule/calendar/",
        my_schedule.CalendarLinkView.as_view(),
        name="my-schedule-calendar",
    ),
    re_path(
        r"^my-schedule/(?P<token>[A-Za-z0-9_-]{8,64}\.[A-Za-z0-9_-]{16,128})\.ics$",
        my_schedule.my_schedule_feed,
        name="my-schedule-feed",
    ),
]


# Feedback pages, under /<conference>/ in their own namespace ``feedback``. Never kept by a
# browser or a cache in front, like the speakers' own pages (speakers/own_urls.py).
feedback_patterns = (
    [
        path(
            "sessions/<slug:slug>/feedback/",
            never_cache(feedback.SessionFeedbackView.as_view()),
            name="session-feedback",
        ),
        path(
            "speaker/feedback/",
            never_cache(feedback.SpeakerFeedbackView.as_view()),
            name="speaker-feedback",
        ),
    ],
    "feedback",
)

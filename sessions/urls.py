from django.urls import path

from sessions import views

app_name = "sessions"

urlpatterns = [
    path("schedule/", views.ScheduleView.as_view(), name="schedule"),
    path("schedule/grid/", views.ScheduleGridView.as_view(), name="schedule-grid"),
    path(
        "sessions/<slug:slug>/",
        views.SessionDetailView.as_view(),
        name="session-detail",
    ),
]

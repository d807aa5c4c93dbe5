from axes.admin import AccessAttemptAdmin
from axes.models import AccessAttempt
from django.contrib import admin
from django.db.models import Count

from conference.forms import AdminLoginForm
from conference.models import Conference, Room, Track

# The admin's login counts towards, and respects, the same login limit as the site's.
admin.site.login_form = AdminLoginForm

# Failed logins, where organizers see who is locked and delete a row to unlock an account. Only
# this of axes' admin pages (settings.AXES_ENABLE_ADMIN is off): its access logs stay empty here.
admin.site.register(AccessAttempt, AccessAttemptAdmin)


class RoomInline(admin.TabularInline):
    model = Room
    extra = 0
    prepopulated_fields = {"slug": ("name",)}
    fields = ["name", "slug", "capacity", "position"]


class TrackInline(admin.TabularInline):
    model = Track
    extra = 0
    prepopulated_fields = {"slug": ("name",)}
    fields = ["name", "slug", "colour", "description"]


@admin.register(Conference)
class ConferenceAdmin(admin.ModelAdmin):
    list_display = [
        "name",
        "starts_on",
        "ends_on",
        "city",
        "time_zone",
        "is_published",
        "session_count",
    ]
    list_filter = ["is_published"]
    search_fields = ["name", "slug", "city", "venue"]
    prepopulated_fields = {"slug": ("name",)}
    inlines = [RoomInline, TrackInline]
    fieldsets = [
        (None, {"fields": ["name", "slug", "is_published"]}),
        (
            "When and where",
            {"fields": ["starts_on", "ends_on", "time_zone", "venue", "city"]},
        ),
        (
            "For attendees",
            {
                "fields": [
                    "description",
                    "registration_url",
                    "help_url",
                    "contact_email",
                ]
            },
        ),
    ]

    def get_queryset(self, request):
        return (
            super().get_queryset(request).annotate(session_count=Count("sessions", distinct=True))
        )

    @admin.display(description="sessions", ordering="session_count")
    def session_count(self, conference):
        return conference.session_count


class ConferencePartAdmin(admin.ModelAdmin):
    """Rooms and tracks: listed per conference with how many sessions use them."""

    list_filter = ["conference"]
    list_select_related = ["conference"]
    search_fields = ["name", "slug", "conference__name"]
    prepopulated_fields = {"slug": ("name",)}

    def get_queryset(self, request):
        return (
            super().get_queryset(request).annotate(session_count=Count("sessions", distinct=True))
        )

    @admin.display(description="sessions", ordering="session_count")
    def session_count(self, part):
        return part.session_count


@admin.register(Room)
class RoomAdmin(ConferencePartAdmin):
    list_display = ["name", "conference", "capacity", "position", "session_count"]
    list_editable = ["position"]


@admin.register(Track)
class TrackAdmin(ConferencePartAdmin):
    list_display = ["name", "conference", "colour", "session_count"]

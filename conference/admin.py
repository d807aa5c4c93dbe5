from django.contrib import admin
from django.contrib.admin.widgets import AutocompleteSelect
from django.core.exceptions import ValidationError
from django.db.models import Count

from conference.models import Conference, Room, Track


class KeyCheckingAutocompleteSelect(AutocompleteSelect):
    """Django's autocomplete widget, minus a 500. After a form error it looks the submitted value
    up to show it again, and a value that cannot be a key ("abc" for a number, or a number beyond
    the column) made that query fail. Such a value is simply not shown; the form says why."""

    def optgroups(self, name, value, attr=None):
        return super().optgroups(name, [item for item in value if self.could_be_key(item)], attr)

    def could_be_key(self, item) -> bool:
        remote = self.field.remote_field
        key = remote.model._meta.get_field(remote.field_name)
        try:
            key.run_validators(key.to_python(item))
        except ValidationError:
            return False
        return True


class AutocompleteAdminMixin:
    """For a ModelAdmin or inline with ``autocomplete_fields``: they use the widget above."""

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        if db_field.name in self.get_autocomplete_fields(request):
            kwargs.setdefault(
                "widget",
                KeyCheckingAutocompleteSelect(db_field, self.admin_site, using=kwargs.get("using")),
            )
        return super().formfield_for_foreignkey(db_field, request, **kwargs)


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

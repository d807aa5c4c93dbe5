from django.contrib import admin
from django.db.models import Count

from conference.admin import (
    AutocompleteAdminMixin,
    ConferenceTimeZoneAdminMixin,
    VersionedAdmin,
    conference_of_form,
    forwarded_conference,
)
from conference.timezones import time_zone_note
from speakers.models import Availability, Speaker, SpeakerLink


class SpeakerLinkInline(admin.TabularInline):
    model = SpeakerLink
    extra = 0
    fields = ["title", "url", "position"]


class AvailabilityInline(admin.TabularInline):
    model = Availability
    extra = 0
    fields = ["starts_at", "ends_at"]
    verbose_name_plural = "availability (none: available at any time)"

    def get_formset(self, request, obj=None, **kwargs):
        formset = super().get_formset(request, obj, **kwargs)
        note = time_zone_note(conference_of_form(request, obj))
        for name in ("starts_at", "ends_at"):
            formset.form.base_fields[name].help_text = note
        return formset


@admin.register(Speaker)
class SpeakerAdmin(ConferenceTimeZoneAdminMixin, AutocompleteAdminMixin, VersionedAdmin):
    list_display = ["name", "role", "company", "conference", "session_count"]
    list_filter = ["conference"]
    list_select_related = ["conference"]
    # Meta.ordering does not survive get_queryset()'s Count (a GROUP BY): without this the
    # session form's speaker autocomplete pages through an unordered list.
    ordering = ["conference", "name", "pk"]
    search_fields = ["name", "company", "role"]
    prepopulated_fields = {"slug": ("name",)}
    autocomplete_fields = ["user"]
    inlines = [SpeakerLinkInline, AvailabilityInline]
    fields = [
        "conference",
        "name",
        "slug",
        "role",
        "company",
        "bio",
        "photo",
        "avatar_url",
        "user",
        "email",
        "schedule_change_mails",
        "appears_in_parallel",
    ]

    def get_queryset(self, request):
        return (
            super().get_queryset(request).annotate(session_count=Count("sessions", distinct=True))
        )

    def get_search_results(self, request, queryset, search_term):
        queryset, may_have_duplicates = super().get_search_results(request, queryset, search_term)
        # A session's speaker autocomplete asks for its conference's speakers only.
        conference = forwarded_conference(request)
        if conference is not None:
            queryset = queryset.filter(conference=conference)
        return queryset, may_have_duplicates

    @admin.display(description="sessions", ordering="session_count")
    def session_count(self, speaker):
        return speaker.session_count

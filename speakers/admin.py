from django.contrib import admin
from django.db.models import Count

from conference.admin import AutocompleteAdminMixin, VersionedAdmin, forwarded_conference
from speakers.models import Speaker, SpeakerLink


class SpeakerLinkInline(admin.TabularInline):
    model = SpeakerLink
    extra = 0
    fields = ["title", "url", "position"]


@admin.register(Speaker)
class SpeakerAdmin(AutocompleteAdminMixin, VersionedAdmin):
    list_display = ["name", "role", "company", "conference", "session_count"]
    list_filter = ["conference"]
    list_select_related = ["conference"]
    # Meta.ordering does not survive get_queryset()'s Count (a GROUP BY): without this the
    # session form's speaker autocomplete pages through an unordered list.
    ordering = ["conference", "name", "pk"]
    search_fields = ["name", "company", "role"]
    prepopulated_fields = {"slug": ("name",)}
    autocomplete_fields = ["user"]
    inlines = [SpeakerLinkInline]
    fields = ["conference", "name", "slug", "role", "company", "bio", "photo", "user"]

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

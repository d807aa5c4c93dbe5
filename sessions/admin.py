from django.contrib import admin, messages
from django.core.exceptions import ValidationError
from django.db.models import Count, F
from django.utils import timezone
from django.utils.formats import date_format

from conference.admin import AutocompleteAdminMixin
from conference.models import Conference
from sessions.models import (
    SCHEDULE_ORDER,
    Attachment,
    Session,
    SessionSpeaker,
    ordered_speakers_prefetch,
)


class SessionSpeakerInline(AutocompleteAdminMixin, admin.TabularInline):
    model = SessionSpeaker
    extra = 1
    autocomplete_fields = ["speaker"]
    fields = ["speaker", "position"]
    ordering = ["position", "pk"]


class AttachmentInline(admin.TabularInline):
    model = Attachment
    extra = 0
    fields = ["title", "file", "url", "position"]


class InterestFilter(admin.SimpleListFilter):
    title = "interest vs room capacity"
    parameter_name = "interest"

    def lookups(self, request, model_admin):
        return [("over", "More saves than seats"), ("within", "Fits the room")]

    def queryset(self, request, queryset):
        if self.value() == "over":
            return queryset.filter(save_count__gt=F("room__capacity"))
        if self.value() == "within":
            return queryset.filter(save_count__lte=F("room__capacity"))
        return queryset


@admin.register(Session)
class SessionAdmin(admin.ModelAdmin):
    list_display = [
        "title",
        "day",
        "time",
        "room",
        "track",
        "kind",
        "status",
        "speaker_names",
        "saved_by",
        "over_capacity",
    ]
    list_display_links = ["title"]
    list_filter = [
        "conference",
        "status",
        "kind",
        "track",
        "room",
        "audience_level",
        InterestFilter,
    ]
    list_select_related = ["conference", "room", "track"]
    search_fields = ["title", "speakers__name", "speakers__company"]
    ordering = ["conference", *SCHEDULE_ORDER]
    prepopulated_fields = {"slug": ("title",)}
    inlines = [SessionSpeakerInline, AttachmentInline]
    actions = ["publish", "unpublish", "cancel"]
    readonly_fields = ["created_at", "updated_at"]
    fieldsets = [
        (None, {"fields": ["conference", "title", "slug", "kind", "status"]}),
        ("When and where", {"fields": ["starts_at", "ends_at", "room", "track"]}),
        ("Content", {"fields": ["description", "audience_level"]}),
        ("History", {"fields": ["created_at", "updated_at"], "classes": ["collapse"]}),
    ]

    def get_queryset(self, request):
        return (
            super()
            .get_queryset(request)
            .prefetch_related(ordered_speakers_prefetch())
            .annotate(save_count=Count("saves", distinct=True))
        )

    # Times are entered and shown in the conference's zone, whatever the server's zone.
    def changeform_view(self, request, object_id=None, form_url="", extra_context=None):
        conference = self.conference_for(request, object_id)
        if conference is None:
            return super().changeform_view(request, object_id, form_url, extra_context)
        with timezone.override(conference.tz):
            response = super().changeform_view(request, object_id, form_url, extra_context)
            # Render inside the override: widgets format their times at render time.
            if hasattr(response, "render"):
                response.render()
            return response

    def conference_for(self, request, object_id):
        """The conference whose zone this form speaks: the posted one, the session's, or the only one."""
        chosen = request.POST.get("conference") or request.GET.get("conference")
        if chosen:
            return Conference.objects.filter(pk=chosen).first() if chosen.isdigit() else None
        if object_id:
            session = self.get_object(request, object_id)
            return session.conference if session else None
        conferences = list(Conference.objects.all()[:2])
        return conferences[0] if len(conferences) == 1 else None

    def get_changeform_initial_data(self, request):
        initial = super().get_changeform_initial_data(request)
        if "conference" not in initial:
            conference = self.conference_for(request, None)
            if conference:
                initial["conference"] = conference.pk
        return initial

    def get_form(self, request, obj=None, change=False, **kwargs):
        form = super().get_form(request, obj, change, **kwargs)
        conference = self.conference_for(request, None) or (obj.conference if obj else None)
        if conference:
            note = f"In {conference.time_zone}, the conference's time zone."
        else:
            note = "In the time zone of the chosen conference."
        for name in ("starts_at", "ends_at"):
            form.base_fields[name].help_text = note
        return form

    @admin.display(description="day", ordering="starts_at")
    def day(self, session):
        return date_format(session.local_starts_at, "D j M Y")

    @admin.display(description="time", ordering="starts_at")
    def time(self, session):
        return f"{session.local_starts_at:%H:%M}–{session.local_ends_at:%H:%M} {session.local_ends_at.tzname()}"

    @admin.display(description="saved by", ordering="save_count")
    def saved_by(self, session):
        return session.save_count

    @admin.display(description="over capacity", boolean=True)
    def over_capacity(self, session):
        """More attendees saved it than its room seats: swap rooms before the day."""
        if session.room is None or session.room.capacity is None:
            return None
        return session.save_count > session.room.capacity

    @admin.display(description="speakers")
    def speaker_names(self, session):
        return ", ".join(speaker.name for speaker in session.ordered_speakers)

    def change_status(self, request, queryset, status, verb):
        try:
            count = queryset.set_status(status)
        except ValidationError as error:
            self.message_user(
                request,
                f"Nothing was {verb}: " + " ".join(error.messages),
                level=messages.ERROR,
            )
            return
        self.message_user(request, f"{count} session(s) {verb}.", level=messages.SUCCESS)

    @admin.action(description="Publish selected sessions", permissions=["change"])
    def publish(self, request, queryset):
        self.change_status(request, queryset, Session.Status.PUBLISHED, "published")

    @admin.action(
        description="Unpublish selected sessions (back to draft)",
        permissions=["change"],
    )
    def unpublish(self, request, queryset):
        self.change_status(request, queryset, Session.Status.DRAFT, "unpublished")

    @admin.action(description="Cancel selected sessions", permissions=["change"])
    def cancel(self, request, queryset):
        self.change_status(request, queryset, Session.Status.CANCELLED, "cancelled")


@admin.register(Attachment)
class AttachmentAdmin(AutocompleteAdminMixin, admin.ModelAdmin):
    list_display = ["title", "session", "file", "url"]
    list_select_related = ["session"]
    search_fields = ["title", "session__title"]
    autocomplete_fields = ["session"]

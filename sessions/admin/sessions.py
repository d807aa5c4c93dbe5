import datetime

from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.db.models import Count, F
from django.template.response import TemplateResponse
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from conference.admin.conference import (
    ConferenceAutocompleteSelect,
    ConferencePartListFilter,
    ConferenceTimeZoneAdminMixin,
    VersionedAdmin,
    conference_id_from,
    conference_of_form,
    open_popups_on,
)
from conference.admin.scoped import ConferenceScopedAdmin
from conference.admin.widgets import AutocompleteAdminMixin
from conference.i18n.timezones import short_date
from conference.models import Conference
from conference.permissions import conferences_where
from sessions.admin.forms import SessionAdminForm
from sessions.admin.imports import import_urls
from sessions.admin.planner import planner_urls
from sessions.admin.release_views import release_urls
from sessions.models import (
    SCHEDULE_ORDER,
    Attachment,
    Session,
    SessionLink,
    SessionSpeaker,
    StatusChange,
    ordered_speakers_prefetch,
)


class SessionSpeakerInline(ConferenceScopedAdmin, AutocompleteAdminMixin, admin.TabularInline):
    conference_lookup = "session__conference"

    model = SessionSpeaker
    extra = 1
    autocomplete_fields = ["speaker"]
    fields = ["speaker", "position"]
    ordering = ["position", "pk"]

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        if db_field.name == "speaker":
            kwargs.setdefault(
                "widget",
                ConferenceAutocompleteSelect(db_field, self.admin_site, using=kwargs.get("using")),
            )
        return super().formfield_for_foreignkey(db_field, request, **kwargs)

    def get_formset(self, request, obj=None, **kwargs):
        formset = super().get_formset(request, obj, **kwargs)
        # Its conference's speakers only, and the “+” adds one to it.
        if "speaker" in formset.form.base_fields:
            open_popups_on(formset.form.base_fields["speaker"], conference_of_form(request, obj))
        return formset


class AttachmentInline(ConferenceScopedAdmin, admin.TabularInline):
    conference_lookup = "session__conference"

    model = Attachment
    extra = 0
    fields = ["title", "file", "url", "kind", "position"]


class SessionLinkInline(ConferenceScopedAdmin, admin.TabularInline):
    conference_lookup = "session__conference"

    model = SessionLink
    extra = 0
    fields = ["title", "url", "kind", "position"]


class InterestFilter(admin.SimpleListFilter):
    title = gettext_lazy("interest vs room capacity")
    parameter_name = "interest"

    def lookups(self, request, model_admin):
        return [("over", _("More saves than seats")), ("within", _("Fits the room"))]

    def queryset(self, request, queryset):
        if self.value() == "over":
            return queryset.filter(save_count__gt=F("room__capacity"))
        if self.value() == "within":
            return queryset.filter(save_count__lte=F("room__capacity"))
        return queryset


class ConferenceDayFilter(admin.SimpleListFilter):
    """The days of the conference the list is filtered to (or of the only one), as the schedule
    counts them: past midnight belongs to the evening before when days change later."""

    title = gettext_lazy("conference day")
    parameter_name = "day"

    def conference(self, request) -> Conference | None:
        chosen = conference_id_from(request.GET.get(ConferencePartListFilter.conference_parameter))
        conferences = Conference.objects.all()
        if chosen is not None:
            conferences = conferences.filter(pk=chosen)
        found = list(conferences[:2])
        return found[0] if len(found) == 1 else None

    def lookups(self, request, model_admin):
        conference = self.conference(request)
        if conference is None:
            return []
        return [(day.isoformat(), short_date(day, weekday=True)) for day in conference.days]

    def queryset(self, request, queryset):
        try:
            day = datetime.date.fromisoformat(self.value() or "")
        except ValueError:
            return queryset  # no day chosen, or one typed wrong: the whole list
        conference = self.conference(request)
        if conference is None:
            return queryset
        return queryset.on_day(conference, day)


class HeldFilter(admin.SimpleListFilter):
    title = gettext_lazy("held for review")
    parameter_name = "held"

    def lookups(self, request, model_admin):
        return [("yes", _("Held by an import"))]

    def queryset(self, request, queryset):
        if self.value() == "yes":
            return queryset.exclude(held_reason="")
        return queryset


def listed_conferences(request) -> list[Conference]:
    """The conferences whose sessions the person may see, loaded once per request for the
    session list's buttons and columns."""
    if not hasattr(request, "listed_conferences"):
        request.listed_conferences = list(conferences_where(request.user, "schedule.view_session"))
    return request.listed_conferences


HELD_ROW = {("status", "held_reason"): "status"}
# The fieldsets' titles, by which inlines_after places the inlines.
WHEN_AND_WHERE = gettext_lazy("When and where")
TEXT = gettext_lazy("Text")


@admin.register(Session)
class SessionAdmin(ConferenceScopedAdmin, ConferenceTimeZoneAdminMixin, VersionedAdmin):
    form = SessionAdminForm
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
        ConferenceDayFilter,
        "status",
        "kind",
        ("track", ConferencePartListFilter),
        ("room", ConferencePartListFilter),
        "audience_level",
        "do_not_record",
        InterestFilter,
        HeldFilter,
    ]
    list_select_related = ["conference", "room", "track"]
    search_fields = ["title", "speakers__name", "speakers__company"]
    ordering = ["conference", *SCHEDULE_ORDER]
    prepopulated_fields = {"slug": ("title",)}
    inlines = [SessionSpeakerInline, AttachmentInline, SessionLinkInline]
    actions = ["publish", "unpublish", "cancel", "reinstate"]
    readonly_fields = ["created_at", "updated_at", "held_reason"]
    # In the order organizers work: what it is, when and where, who gives it (the speakers'
    # inline, placed after that fieldset by render_change_form), its text, links and files.
    fieldsets = [
        (
            gettext_lazy("What"),
            {
                "fields": [
                    "conference",
                    "title",
                    "subtitle",
                    ("kind", "type_label"),
                    ("status", "held_reason"),
                ]
            },
        ),
        (
            WHEN_AND_WHERE,
            {
                "fields": [
                    ("starts_at", "duration", "ends_at"),
                    ("room", "track"),
                    "planned_minutes",
                ]
            },
        ),
        (
            TEXT,
            {
                "fields": [
                    "abstract",
                    "description",
                    ("audience_level", "language"),
                    ("do_not_record", "recording_license"),
                ]
            },
        ),
        (
            gettext_lazy("More links"),
            {
                "fields": ["feedback_url", "logo_url", "source_url", "origin_url", "code"],
                "classes": ["collapse"],
            },
        ),
        (
            gettext_lazy("Address and history"),
            {"fields": ["slug", "created_at", "updated_at"], "classes": ["collapse"]},
        ),
    ]
    # Which inlines follow which fieldset (by the inline's formset prefix); the rest come last.
    inlines_after = [
        (WHEN_AND_WHERE, ["session_speakers"]),
        (TEXT, ["attachments", "links"]),
    ]
    change_form_template = "admin/schedule/session/change_form.html"

    class Media:
        css = {"all": ["css/admin.css"]}
        js = ["js/session_times.js"]

    def get_urls(self):
        return planner_urls(self) + release_urls(self) + import_urls(self) + super().get_urls()

    def changelist_view(self, request, extra_context=None):
        # Ten columns and the filters need the width of a 1,280 px screen: the app list gives it
        # up on this page (the breadcrumbs lead back to the others). Object tools: a planner
        # button per conference, for those who may move sessions.
        conferences = listed_conferences(request)
        user = request.user
        extra_context = {
            "is_nav_sidebar_enabled": False,
            "planner_conferences": [
                each for each in conferences if user.has_perm("schedule.change_session", each)
            ],
            "import_conferences": [
                each for each in conferences if user.has_perm("schedule.add_scheduleimport", each)
            ],
            **(extra_context or {}),
        }
        return super().changelist_view(request, extra_context)

    def get_fieldsets(self, request, obj=None):
        # Why an import held the session back is shown only while there is a reason.
        if obj is not None and obj.held_reason:
            return self.fieldsets
        return [
            (name, {**options, "fields": [HELD_ROW.get(row, row) for row in options["fields"]]})
            for name, options in self.fieldsets
        ]

    def render_change_form(self, request, context, *args, **kwargs):
        inlines = {inline.formset.prefix: inline for inline in context["inline_admin_formsets"]}
        # Titles compared as the page reads them (lazy, in the request's language).
        after = {str(name): prefixes for name, prefixes in self.inlines_after}
        context["sections"] = [
            (
                fieldset,
                [
                    inlines.pop(prefix)
                    for prefix in after.get(str(fieldset.name), [])
                    if prefix in inlines
                ],
            )
            for fieldset in context["adminform"]
        ]
        context["other_inlines"] = list(inlines.values())
        # The form needs the width the app list would take.
        context["is_nav_sidebar_enabled"] = False
        return super().render_change_form(request, context, *args, **kwargs)

    def get_list_display(self, request):
        # Which conference a session is at needs saying only when there are several.
        if len(listed_conferences(request)) > 1:
            return ["title", "conference", *self.list_display[1:]]
        return self.list_display

    def get_queryset(self, request):
        return (
            super()
            .get_queryset(request)
            .prefetch_related(ordered_speakers_prefetch())
            .annotate(save_count=Count("saves", distinct=True))
        )

    def get_form(self, request, obj=None, change=False, **kwargs):
        form = super().get_form(request, obj, change, **kwargs)
        form.conference = conference_of_form(request, obj)
        for name in ("room", "track"):
            if name in form.base_fields:
                open_popups_on(form.base_fields[name], form.conference)
        if form.conference is None and obj is None and "conference" in form.base_fields:
            form.base_fields["conference"].help_text = format_html(
                _(
                    "Start from the conference to be offered only its rooms, tracks and "
                    "speakers: {}."
                ),
                format_html_join(
                    ", ",
                    '<a href="?{}">{}</a>',
                    (
                        (f"conference={pk}", name)
                        for pk, name in Conference.objects.values_list("pk", "name")
                    ),
                ),
            )
        return form

    @admin.display(description=gettext_lazy("day"), ordering="starts_at")
    def day(self, session):
        if session.is_unscheduled:
            return _("Unscheduled")
        day = short_date(session.conference_day, weekday=True)
        # Listed with the evening before, it still says that its clock time is the next morning.
        if session.local_starts_at.date() != session.conference_day:
            return _("%(day)s, after midnight") % {"day": day}
        return day

    @admin.display(description=gettext_lazy("time"), ordering="starts_at")
    def time(self, session):
        return "" if session.is_unscheduled else str(session.local_times)

    @admin.display(description=gettext_lazy("saved by"), ordering="save_count")
    def saved_by(self, session):
        return session.save_count

    @admin.display(description=gettext_lazy("more saves than seats"), boolean=True)
    def over_capacity(self, session):
        """More attendees saved it than its room seats: swap rooms before the day."""
        if session.room is None or session.room.capacity is None:
            return None
        return session.save_count > session.room.capacity

    @admin.display(description=gettext_lazy("speakers"))
    def speaker_names(self, session):
        return ", ".join(speaker.name for speaker in session.ordered_speakers)

    def report_status_change(self, request, change: StatusChange, action: str, status: str):
        """Say what an action moved, what it left alone and why, and what it refused and why."""
        if change.changed:
            count = len(change.changed)
            self.message_user(
                request, status_changed(action, count) % {"count": count}, messages.SUCCESS
            )
        if change.left_alone:
            by_status = {}
            for session in change.left_alone:
                by_status.setdefault(session.status, []).append(session)
            reasons = "; ".join(
                why_left_alone(left_as, status, sessions) for left_as, sessions in by_status.items()
            )
            count = len(change.left_alone)
            self.message_user(
                request,
                ngettext(
                    "%(count)s session left alone: %(reasons)s.",
                    "%(count)s sessions left alone: %(reasons)s.",
                    count,
                )
                % {"count": count, "reasons": reasons},
                messages.WARNING,
            )
        for session, reason in change.refused:
            self.message_user(
                request,
                NOT_CHANGED[action] % {"session": session, "reason": reason},
                messages.ERROR,
            )

    @admin.action(description=gettext_lazy("Publish selected drafts"), permissions=["change"])
    def publish(self, request, queryset):
        change = queryset.publish()
        self.report_status_change(request, change, "publish", Session.Status.PUBLISHED)

    @admin.action(
        description=gettext_lazy("Unpublish selected sessions (back to draft)"),
        permissions=["change"],
    )
    def unpublish(self, request, queryset):
        change = queryset.unpublish()
        self.report_status_change(request, change, "unpublish", Session.Status.DRAFT)

    @admin.action(description=gettext_lazy("Cancel selected sessions"), permissions=["change"])
    def cancel(self, request, queryset):
        change = queryset.cancel()
        self.report_status_change(request, change, "cancel", Session.Status.CANCELLED)

    @admin.action(description=gettext_lazy("Reinstate cancelled sessions"), permissions=["change"])
    def reinstate(self, request, queryset):
        """Like “Delete selected”: a page listing what would come back, acting only on confirm."""
        if request.POST.get("post"):
            change = queryset.reinstate()
            self.report_status_change(request, change, "reinstate", Session.Status.PUBLISHED)
            return None  # back to the changelist
        sessions = list(queryset.select_related("conference", "room").order_by(*SCHEDULE_ORDER))
        context = {
            **self.admin_site.each_context(request),
            "title": _("Reinstate cancelled sessions?"),
            "opts": self.opts,
            "cancelled": [session for session in sessions if session.is_cancelled],
            "not_cancelled": [session for session in sessions if not session.is_cancelled],
            "selected": sessions,
            "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
            "media": self.media,
        }
        request.current_app = self.admin_site.name
        return TemplateResponse(
            request, "admin/schedule/session/reinstate_selected_confirmation.html", context
        )


def status_changed(action: str, count: int) -> str:
    """“3 sessions published.”, with ``%(count)s`` still to fill."""
    texts = {
        "publish": ngettext("%(count)s session published.", "%(count)s sessions published.", count),
        "unpublish": ngettext(
            "%(count)s session unpublished.", "%(count)s sessions unpublished.", count
        ),
        "cancel": ngettext("%(count)s session cancelled.", "%(count)s sessions cancelled.", count),
        "reinstate": ngettext(
            "%(count)s session reinstated.", "%(count)s sessions reinstated.", count
        ),
    }
    return texts[action]


NOT_CHANGED = {
    "publish": gettext_lazy("Not published: “%(session)s”: %(reason)s"),
    "unpublish": gettext_lazy("Not unpublished: “%(session)s”: %(reason)s"),
    "cancel": gettext_lazy("Not cancelled: “%(session)s”: %(reason)s"),
    "reinstate": gettext_lazy("Not reinstated: “%(session)s”: %(reason)s"),
}


def quoted_titles(sessions: list[Session]) -> str:
    return ", ".join(_("“%(title)s”") % {"title": session} for session in sessions)


def why_left_alone(status: str, target: str, sessions: list[Session]) -> str:
    """Why ``sessions``, all in ``status``, were left alone by an action moving to ``target``."""
    titles, count = quoted_titles(sessions), len(sessions)
    if status == target:
        text = {
            Session.Status.DRAFT: ngettext(
                "%(titles)s is already a draft", "%(titles)s are already drafts", count
            ),
            Session.Status.PUBLISHED: ngettext(
                "%(titles)s is already published", "%(titles)s are already published", count
            ),
            Session.Status.CANCELLED: ngettext(
                "%(titles)s is already cancelled", "%(titles)s are already cancelled", count
            ),
        }[status]
    elif status == Session.Status.CANCELLED:
        text = ngettext(
            "%(titles)s is cancelled (bringing a session back is the action “Reinstate "
            "cancelled sessions”)",
            "%(titles)s are cancelled (bringing a session back is the action “Reinstate "
            "cancelled sessions”)",
            count,
        )
    elif status == Session.Status.DRAFT:
        text = ngettext(
            "%(titles)s is a draft, not cancelled", "%(titles)s are drafts, not cancelled", count
        )
    else:
        text = ngettext(
            "%(titles)s is published, not cancelled",
            "%(titles)s are published, not cancelled",
            count,
        )
    return text % {"titles": titles}


@admin.register(Attachment)
class AttachmentAdmin(ConferenceScopedAdmin, AutocompleteAdminMixin, admin.ModelAdmin):
    conference_lookup = "session__conference"

    list_display = ["title", "session", "file", "url", "added_by"]
    list_select_related = ["session", "added_by"]
    search_fields = ["title", "session__title"]
    autocomplete_fields = ["session"]

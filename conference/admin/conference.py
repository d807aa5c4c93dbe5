from urllib.parse import urlsplit

from axes.admin import AccessAttemptAdmin
from axes.models import AccessAttempt
from django import forms
from django.conf import settings
from django.contrib import admin
from django.contrib.admin.widgets import RelatedFieldWidgetWrapper
from django.db.models import Count
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.html import escape, format_html
from django.utils.http import urlencode
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from conference.admin.scoped import ConferenceScopedAdmin
from conference.admin.versioned_forms import VersionedModelForm
from conference.admin.widgets import KeyCheckingAutocompleteSelect
from conference.forms import named_with_conference
from conference.models import Conference, Room, Track
from conference.versioning import EditConflictError

# Failed logins, where organizers see who is locked and delete a row to unlock an account. Only
# this of axes' admin pages (settings.AXES_ENABLE_ADMIN is off): its access logs stay empty here.
admin.site.register(AccessAttempt, AccessAttemptAdmin)


# --- Choices of one conference ------------------------------------------------------------
# A session's rooms, tracks and speakers must be its conference's (Session.clean() and
# SessionSpeaker.clean() refuse others); these make the admin offer only those.


class ConferenceAutocompleteSelect(KeyCheckingAutocompleteSelect):
    """An autocomplete asking for one conference's choices: its URL forwards ``?conference=``,
    which the searched ModelAdmin's get_search_results() filters by (forwarded_conference()).

    Forwarded in the URL rather than read from the Referer: browsers, extensions and proxies
    may strip the Referer, an add form's address does not say the conference it was posted
    with, and the autocomplete would have to parse another page's URL to find it.
    """

    conference_id: int | None = None

    def get_url(self):
        url = super().get_url()
        if self.conference_id is None:
            return url
        return f"{url}?{urlencode({'conference': self.conference_id})}"


def conference_id_from(raw: str | None) -> int | None:
    """A conference id from a query parameter; None for anything an id column cannot hold."""
    return int(raw) if raw and raw.isascii() and raw.isdigit() and len(raw) <= 18 else None


def forwarded_conference(request) -> int | None:
    """The conference an autocomplete request asks choices of, if it names one."""
    match = getattr(request, "resolver_match", None)
    if match is None or match.url_name != "autocomplete":
        return None
    return conference_id_from(request.GET.get("conference"))


class ConferenceWidgetWrapper(RelatedFieldWidgetWrapper):
    """The links beside a choice (add, change, view) for one conference: the “+” popup's add
    form opens with that conference chosen, and an autocomplete inside asks for its choices."""

    def __init__(self, wrapper: RelatedFieldWidgetWrapper, conference: Conference):
        super().__init__(
            wrapper.widget,
            wrapper.rel,
            wrapper.admin_site,
            can_add_related=wrapper.can_add_related,
            can_change_related=wrapper.can_change_related,
            can_delete_related=wrapper.can_delete_related,
            can_view_related=wrapper.can_view_related,
        )
        self.conference = conference
        if isinstance(self.widget, ConferenceAutocompleteSelect):
            self.widget.conference_id = conference.pk

    def get_context(self, name, value, attrs):
        context = super().get_context(name, value, attrs)
        # The add form reads ?conference= as its initial choice (get_changeform_initial_data).
        context["url_params"] += "&" + urlencode({"conference": self.conference.pk})
        return context


def open_popups_on(field, conference: Conference | None) -> None:
    """Make a form field's related-object links (“+”) open on ``conference``."""
    if conference is not None and isinstance(field.widget, RelatedFieldWidgetWrapper):
        field.widget = ConferenceWidgetWrapper(field.widget, conference)


class ConferencePartListFilter(admin.RelatedFieldListFilter):
    """A room or track filter listing those of the conference chosen in the conference filter;
    with none chosen, every conference's, each named with its conference when there are several."""

    conference_parameter = "conference__id__exact"

    def field_choices(self, field, request, model_admin):
        parts = field.related_model.objects.select_related("conference")
        chosen = conference_id_from(request.GET.get(self.conference_parameter))
        if chosen is not None:
            return [(part.pk, str(part)) for part in parts.filter(conference_id=chosen)]
        parts = list(parts)
        if len({part.conference_id for part in parts}) > 1:
            return [(part.pk, named_with_conference(part)) for part in parts]
        return [(part.pk, str(part)) for part in parts]


class VersionedAdmin(admin.ModelAdmin):
    """Change forms that refuse to save over someone else's changes (conference/versioning.py).

    The form carries the version it was opened at; a stale save shows what changed meanwhile,
    with a link to reload and a “Save my version anyway” box (admin/versioned_change_form.html).
    """

    form = VersionedModelForm
    change_form_template = "admin/versioned_change_form.html"

    class Media:
        css = {"all": ["css/admin.css"]}  # the edit-conflict block's layout

    def get_fields(self, request, obj=None):
        # Hidden fields the template places itself, not rows of a fieldset.
        return [
            name
            for name in super().get_fields(request, obj)
            if name not in VersionedModelForm.version_fields
        ]

    def save_model(self, request, obj, form, change):
        super().save_model(request, obj, form, change)
        if form.merge is not None and form.merge.kept:
            kept = "; ".join(
                f"{change.label}: {change.loaded} → {change.now}"
                for change in form.merge.kept_changes()
            )
            self.message_user(
                request, _("Kept what someone else saved meanwhile: %(kept)s.") % {"kept": kept}
            )

    def save_related(self, request, form, formsets, change):
        # An inline whose values were kept as saved meanwhile (the organizer chose theirs) is
        # not saved; the form names it by its displayed value (``related_formsets``).
        skipped = {form.related_formsets.get(name) for name in form.kept_related}
        for formset in formsets:
            if formset.prefix in skipped:  # the change message reads what each formset saved
                formset.new_objects, formset.changed_objects, formset.deleted_objects = [], [], []
        saved = [formset for formset in formsets if formset.prefix not in skipped]
        super().save_related(request, form, saved, change)
        replaced = {form.related_formsets.get(name) for name in form.replaced_related}
        for formset in saved:
            if formset.prefix in replaced:
                shown = [row.instance.pk for row in formset.forms if row.instance.pk is not None]
                rows = formset.model._default_manager.filter(**{formset.fk.name: form.instance})
                rows.exclude(pk__in=shown).delete()

    def get_changelist_form(self, request, **kwargs):
        # list_editable rows post only their own column: that column wins, as before.
        return super().get_changelist_form(request, form=forms.ModelForm, **kwargs)

    # The form's check takes no lock, so a save can land between it and the write, which
    # save() then refuses (EditConflictError) after the whole transaction is rolled back. Running the
    # view again shows the organizer the usual conflict; a delete goes ahead on the new version.
    def changeform_view(self, request, object_id=None, form_url="", extra_context=None):
        try:
            return super().changeform_view(request, object_id, form_url, extra_context)
        except EditConflictError:
            return super().changeform_view(request, object_id, form_url, extra_context)

    def delete_view(self, request, object_id, extra_context=None):
        try:
            return super().delete_view(request, object_id, extra_context)
        except EditConflictError:
            return super().delete_view(request, object_id, extra_context)


def conference_of_form(request, obj=None) -> Conference | None:
    """The conference whose zone a change form speaks: the posted one, the object's, or the only one."""
    chosen = request.POST.get("conference") or request.GET.get("conference")
    if chosen:
        chosen_id = conference_id_from(chosen)
        return None if chosen_id is None else Conference.objects.filter(pk=chosen_id).first()
    if obj is not None:
        return obj.conference
    conferences = list(Conference.objects.all()[:2])
    return conferences[0] if len(conferences) == 1 else None


class ConferenceTimeZoneAdminMixin:
    """Change forms of a conference's objects (and their inlines) enter and show times in the
    conference's zone, whatever the server's zone (see ``conference_of_form``)."""

    def changeform_view(self, request, object_id=None, form_url="", extra_context=None):
        obj = self.get_object(request, object_id) if object_id else None
        conference = conference_of_form(request, obj)
        if conference is None:
            return super().changeform_view(request, object_id, form_url, extra_context)
        with timezone.override(conference.tz):
            response = super().changeform_view(request, object_id, form_url, extra_context)
            # Render inside the override: widgets format their times at render time.
            if hasattr(response, "render"):
                response.render()
            return response

    def get_changeform_initial_data(self, request):
        initial = super().get_changeform_initial_data(request)
        if "conference" not in initial:
            conference = conference_of_form(request)
            if conference:
                initial["conference"] = conference.pk
        return initial


class VersionedInline(admin.TabularInline):
    """Rows that refuse to save over someone else's changes, as VersionedAdmin's forms do."""

    form = VersionedModelForm

    def get_fields(self, request, obj=None):
        return [*super().get_fields(request, obj), "loaded_version", "loaded_values"]


class RoomInline(ConferenceScopedAdmin, VersionedInline):
    model = Room
    extra = 0
    prepopulated_fields = {"slug": ("name",)}
    fields = ["name", "slug", "kind", "capacity", "position", "description", "guid"]


class TrackInline(ConferenceScopedAdmin, VersionedInline):
    model = Track
    extra = 0
    prepopulated_fields = {"slug": ("name",)}
    fields = ["name", "slug", "colour", "description"]


def embed_snippet(conference) -> str:
    """What a conference's website pastes where the schedule goes: the frame, and a few lines
    that make it as tall as the schedule says it is (static/js/embed.js). Only messages from
    this site, sent by that frame, are read."""
    site = settings.SITE_URL
    origin = f"{urlsplit(site).scheme}://{urlsplit(site).netloc}"
    frame_id = f"confsched-{conference.slug}"
    # In the conference's language: the frame's title is read on the conference's website.
    with translation.override(conference.language):
        frame_title = _("Schedule of %(conference)s") % {"conference": conference.name}
    src = site + reverse("sessions:embed", kwargs={"conference_slug": conference.slug})
    return (
        f'<iframe id="{frame_id}" src="{src}" title="{escape(frame_title)}" '
        'style="width: 100%; height: 40rem; border: 0"></iframe>\n'
        "<script>\n"
        'window.addEventListener("message", function (event) {\n'
        f'  var frame = document.getElementById("{frame_id}");\n'
        f'  if (event.origin !== "{origin}" || event.source !== frame.contentWindow) return;\n'
        '  if (event.data && event.data.type === "confsched:height") {\n'
        '    frame.style.height = event.data.height + "px";\n'
        "  }\n"
        "});\n"
        "</script>"
    )


@admin.register(Conference)
class ConferenceAdmin(ConferenceScopedAdmin, admin.ModelAdmin):
    conference_lookup = "pk"

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
            gettext_lazy("When and where"),
            {
                "fields": [
                    "starts_on",
                    "ends_on",
                    "day_change",
                    "time_zone",
                    "language",
                    "venue",
                    "city",
                ]
            },
        ),
        (
            gettext_lazy("For attendees"),
            {
                "fields": [
                    "description",
                    "registration_url",
                    "help_url",
                    "contact_email",
                    "colour",
                    "logo_url",
                ]
            },
        ),
        (
            gettext_lazy("Embedding on another website"),
            {"fields": ["embed_origins", "embed_snippet"]},
        ),
        (gettext_lazy("Feedback"), {"fields": ["feedback_days_after"]}),
    ]
    readonly_fields = ["embed_snippet"]

    class Media:
        js = ["js/admin_copy.js"]

    def get_form(self, request, obj=None, change=False, **kwargs):
        form = super().get_form(request, obj, change, **kwargs)
        origins = form.base_fields.get("embed_origins")
        if origins is not None:
            # The admin prints help texts as HTML, where “/<conference>/embed/” loses its
            # placeholder as an unknown tag; the model's text is plain (the API shows it too).
            origins.help_text = escape(origins.help_text)
        return form

    def get_queryset(self, request):
        return (
            super().get_queryset(request).annotate(session_count=Count("sessions", distinct=True))
        )

    @admin.display(description=gettext_lazy("sessions"), ordering="session_count")
    def session_count(self, conference):
        return conference.session_count

    @admin.display(description=gettext_lazy("snippet for the website"))
    def embed_snippet(self, conference):
        if not conference.pk:
            return _("Save the conference first.")
        return format_html(
            '<textarea readonly rows="12" cols="90" id="embed-snippet" class="vLargeTextField">'
            "{}</textarea>"
            '<p><button type="button" data-copy="embed-snippet">{}</button> '
            '<span role="status" data-copied-for="embed-snippet" data-copied="{}" '
            'data-selected="{}"></span></p>'
            '<p class="help">{}</p>',
            embed_snippet(conference),
            _("Copy to clipboard"),
            _("Copied."),
            _("Selected: press Ctrl+C (⌘C) to copy."),
            format_html(
                _(
                    "Paste it where the schedule should show, on a website listed above. Add "
                    "{theme}, {track} or other filters to its address, or {grid} for the grid."
                ),
                theme=mark_safe("<code>?theme=dark</code>"),
                track=mark_safe("<code>?track=…</code>"),
                grid=mark_safe("<code>grid/</code>"),
            ),
        )

    def render_change_form(self, request, context, add=False, change=False, form_url="", obj=None):
        # The planner, release and import buttons, for those whose roles in this conference
        # open them (conference/permissions.py).
        user = request.user
        context.update(
            may_plan=obj is not None and user.has_perm("schedule.change_session", obj),
            may_release=obj is not None and user.has_perm("schedule.add_release", obj),
            may_import=obj is not None and user.has_perm("schedule.add_scheduleimport", obj),
        )
        return super().render_change_form(request, context, add, change, form_url, obj)


class ConferencePartAdmin(ConferenceScopedAdmin, VersionedAdmin):
    """Rooms and tracks: listed per conference with how many sessions use them."""

    list_filter = ["conference"]
    list_select_related = ["conference"]
    search_fields = ["name", "slug", "conference__name"]
    prepopulated_fields = {"slug": ("name",)}

    def get_queryset(self, request):
        return (
            super().get_queryset(request).annotate(session_count=Count("sessions", distinct=True))
        )

    @admin.display(description=gettext_lazy("sessions"), ordering="session_count")
    def session_count(self, part):
        return part.session_count


@admin.register(Room)
class RoomAdmin(ConferencePartAdmin):
    list_display = ["name", "conference", "capacity", "position", "session_count"]
    list_editable = ["position"]


@admin.register(Track)
class TrackAdmin(ConferencePartAdmin):
    list_display = ["name", "conference", "colour", "session_count"]

"""Past releases of the schedule in the admin, read only (ReleaseAdmin); new ones are made on the
release page (sessions/admin/release_views.py)."""

from django.contrib import admin
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from conference.admin.conference import ConferenceTimeZoneAdminMixin
from conference.admin.scoped import ConferenceScopedAdmin
from conference.i18n.timezones import short_moment
from conference.permissions import conferences_where
from sessions.models import Release


@admin.register(Release)
class ReleaseAdmin(ConferenceScopedAdmin, ConferenceTimeZoneAdminMixin, admin.ModelAdmin):
    """Past releases, read only: a release is what was announced, so it is never edited or
    deleted here; new ones are made on the release page (sessions/admin/release_views.py)."""

    list_display = ["version", "conference", "released", "released_by", "comment"]
    list_filter = ["conference"]
    list_select_related = ["conference", "released_by"]
    search_fields = ["version", "comment"]
    fields = ["conference", "version", "comment", "released_by", "released", "announced"]
    readonly_fields = fields

    class Media:
        css = {"all": ["css/admin.css"]}

    def get_queryset(self, request):
        # The list never shows snapshots; a release's own page loads its own when it needs it.
        return super().get_queryset(request).defer("snapshot")

    def has_add_permission(self, request):
        return False

    def has_view_permission(self, request, obj=None):
        # Whoever may release sees what was released before.
        return super().has_view_permission(request, obj) or request.user.has_perm(
            "schedule.add_release", obj
        )

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    def changelist_view(self, request, extra_context=None):
        extra_context = {
            "release_conferences": list(conferences_where(request.user, "schedule.add_release")),
            **(extra_context or {}),
        }
        return super().changelist_view(request, extra_context)

    @admin.display(description=gettext_lazy("released"), ordering="released_at")
    def released(self, release):
        """In the conference's zone, as its sessions' times are shown."""
        return short_moment(release.released_at, release.conference.tz)

    @admin.display(description=gettext_lazy("announced changes"))
    def announced(self, release):
        changes = release.changes()
        if not changes:
            return _("No changes.")
        zone = release.conference.tz
        return format_html(
            '<ul class="release-changes">{}</ul>',
            format_html_join(
                "",
                "<li><strong>{}</strong>: {}</li>",
                ((change.title, change.describe(zone)) for change in changes),
            ),
        )

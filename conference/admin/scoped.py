"""The admin, conference by conference: every list, filter, choice, autocomplete, inline, popup,
change, delete and bulk action shows and touches only the conferences the person's teams cover
with the permission it needs (conference/permissions.py). An object of another conference is a
404, as one that does not exist: its existence is not disclosed.

Every ModelAdmin and inline of a conference's content inherits ``ConferenceScopedAdmin``; each
names the way from its model to the conference (``conference_lookup``).
"""

from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.http import Http404

from conference.models import Conference
from conference.permissions import conferences_where


def holds(request, permission: str, obj=None) -> bool:
    return request.user.has_perm(permission, obj)


class ConferenceScopedAdmin:
    """A ModelAdmin (or inline) of objects that belong to a conference."""

    conference_lookup = "conference"  # from this model to its conference

    def permission(self, action: str) -> str:
        return f"{self.opts.app_label}.{action}_{self.opts.model_name}"

    def get_queryset(self, request):
        queryset = super().get_queryset(request)
        if request.user.is_superuser:
            return queryset
        reach = conferences_where(request.user, self.permission("view"))
        return queryset.filter(**{f"{self.conference_lookup}__in": reach})

    def get_object(self, request, object_id, from_field=None):
        obj = super().get_object(request, object_id, from_field)
        if obj is None:
            raise Http404("No such object in the conferences your teams cover.")
        return obj

    def get_field_queryset(self, db, db_field, request):
        """Choices of a foreign key or many-to-many field: conferences where the person may
        change this model, and the rooms, tracks, speakers and sessions of those."""
        queryset = super().get_field_queryset(db, db_field, request)
        if request.user.is_superuser:
            return queryset
        related = db_field.related_model
        if queryset is None:
            queryset = related._default_manager.using(db)
        reach = conferences_where(request.user, self.permission("change"))
        if related is Conference:
            return queryset.filter(pk__in=reach)
        if any(field.name == "conference" for field in related._meta.fields):
            return queryset.filter(conference__in=reach)
        return queryset

    def has_module_permission(self, request):
        return holds(request, self.opts.app_label)

    def has_view_permission(self, request, obj=None):
        return holds(request, self.permission("view"), obj) or holds(
            request, self.permission("change"), obj
        )

    def has_add_permission(self, request, obj=None):
        # An inline is given its parent: the new row joins the parent's conference.
        return holds(request, self.permission("add"), obj)

    def has_change_permission(self, request, obj=None):
        return holds(request, self.permission("change"), obj)

    def has_delete_permission(self, request, obj=None):
        return holds(request, self.permission("delete"), obj)


class ReachableRelatedFieldListFilter(admin.RelatedFieldListFilter):
    """A list filter on a relation offers only what the admin's choices offer
    (``get_field_queryset``): no room, track or conference of a conference out of reach."""

    def field_choices(self, field, request, model_admin):
        queryset = model_admin.get_field_queryset(None, field, request)
        if queryset is None:
            return super().field_choices(field, request, model_admin)
        ordering = self.field_admin_ordering(field, request, model_admin)
        return [(obj.pk, str(obj)) for obj in queryset.order_by(*ordering)]


admin.FieldListFilter.register(
    lambda field: field.remote_field is not None,
    ReachableRelatedFieldListFilter,
    take_priority=True,
)


def reachable(request, permission: str, conference: Conference) -> None:
    """Refuses unless the person holds ``permission`` in ``conference`` (the planner, imports,
    releases: admin pages of one conference): a 403 to a member of its teams, a 404 to others,
    to whom the conference is as unknown as one that does not exist."""
    if holds(request, permission, conference):
        return
    if holds(request, "conference.view_conference", conference):
        raise PermissionDenied
    raise Http404("No such conference among those your teams cover.")

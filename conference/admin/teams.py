"""Teams in the admin: organizers manage the teams of their conferences (conference/models/teams.py,
who may do what: conference/permissions.py)."""

from django import forms
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.db.models import Count, Q
from django.http import Http404
from django.utils.translation import gettext, gettext_lazy

from conference.models import Role, Team, reach_of
from conference.permissions import conferences_where


class TeamForm(forms.ModelForm):
    class Meta:
        model = Team
        fields = [
            "name",
            "all_conferences",
            "conferences",
            "is_organizer",
            "is_programme",
            "is_reviewer",
            "is_venue",
            "members",
        ]

    def __init__(self, *args, editor=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.editor = editor

    def clean(self):
        cleaned = super().clean()
        editor = self.editor
        if cleaned.get("all_conferences") and not (
            editor is None or editor.is_superuser or Role.ORGANIZER in reach_of(editor).everywhere
        ):
            self.add_error(
                "all_conferences",
                gettext("Only organizers of every conference make a team of every conference."),
            )
        if not cleaned.get("all_conferences") and not cleaned.get("conferences"):
            self.add_error("conferences", gettext("Choose the conferences the team covers."))
        return cleaned


@admin.register(Team)
class TeamAdmin(admin.ModelAdmin):
    form = TeamForm
    list_display = ["name", "roles_held", "covers", "member_count"]
    search_fields = ["name"]
    filter_horizontal = ["conferences", "members"]

    def get_form(self, request, obj=None, change=False, **kwargs):
        form = super().get_form(request, obj, change, **kwargs)

        class EditorTeamForm(form):
            def __init__(self, *args, **kwargs):
                super().__init__(*args, editor=request.user, **kwargs)

        return EditorTeamForm

    def get_queryset(self, request):
        teams = (
            super()
            .get_queryset(request)
            .annotate(member_count=Count("members"))
            .prefetch_related("conferences")
        )
        if request.user.is_superuser:
            return teams
        organized = conferences_where(request.user, "conference.change_conference")
        covering = Q(conferences__in=organized)
        if Role.ORGANIZER in reach_of(request.user).everywhere:
            covering |= Q(all_conferences=True)
        return teams.filter(pk__in=Team.objects.filter(covering).values("pk"))

    def get_object(self, request, object_id, from_field=None):
        obj = super().get_object(request, object_id, from_field)
        if obj is None:
            raise Http404("No such team among those you organize.")
        return obj

    def get_field_queryset(self, db, db_field, request):
        queryset = super().get_field_queryset(db, db_field, request)
        if request.user.is_superuser:
            return queryset
        if db_field.name == "conferences":
            return conferences_where(request.user, "conference.change_conference")
        if db_field.name == "members":
            # Members join by invitation; an organizer sees the members of their own teams,
            # not every account of the site.
            organized = self.get_queryset(request).values("members")
            return get_user_model().objects.filter(pk__in=organized)
        return queryset

    def has_module_permission(self, request):
        return request.user.has_perm("conference")

    def has_view_permission(self, request, obj=None):
        return request.user.has_perm("conference.view_team", obj)

    def has_add_permission(self, request):
        return request.user.has_perm("conference.add_team")

    def has_change_permission(self, request, obj=None):
        return request.user.has_perm("conference.change_team", obj)

    def has_delete_permission(self, request, obj=None):
        return request.user.has_perm("conference.delete_team", obj)

    def save_related(self, request, form, formsets, change):
        super().save_related(request, form, formsets, change)
        # Members of a team are staff: is_staff is what lets them open the admin.
        form.instance.members.filter(is_staff=False).update(is_staff=True)

    @admin.display(description=gettext_lazy("roles"))
    def roles_held(self, team):
        return ", ".join(str(Role(role).label) for role in Role.values if role in team.roles)

    @admin.display(description=gettext_lazy("conferences"))
    def covers(self, team):
        if team.all_conferences:
            return gettext("every conference")
        return ", ".join(str(conference) for conference in team.conferences.all())

    @admin.display(description=gettext_lazy("members"), ordering="member_count")
    def member_count(self, team):
        return team.member_count

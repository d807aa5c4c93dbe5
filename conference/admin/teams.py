"""Teams in the admin: organizers manage the teams of their conferences (conference/models/teams.py,
who may do what: conference/permissions.py)."""

from django import forms
from django.contrib import admin, messages
from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied
from django.db.models import Count, Q
from django.http import Http404
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import path
from django.utils.translation import gettext, gettext_lazy, ngettext

from conference.accounts.limits import Limit
from conference.models import Role, Team, TeamInvitation, reach_of
from conference.permissions import conferences_where
from conference.teams import invite_member


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


class TeamInvitationForm(forms.Form):
    """The team page's “Invite a member”: the address the link is mailed to."""

    email = forms.EmailField(
        label=gettext_lazy("Email address"),
        max_length=254,
        help_text=gettext_lazy(
            "The invitation link is mailed here; only an account that confirmed this address "
            "can accept it."
        ),
    )


class TeamInvitationInline(admin.TabularInline):
    """Who was invited, by whom, and whether they accepted (read-only: invite from the button)."""

    model = TeamInvitation
    extra = 0
    fields = ["email", "invited_by", "created_at", "expires_at", "accepted_at", "accepted_by"]
    readonly_fields = fields
    verbose_name_plural = gettext_lazy("invitations")

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        # Withdrawing an invitation: its link stops working.
        return request.user.has_perm("conference.change_team", obj)


@admin.register(Team)
class TeamAdmin(admin.ModelAdmin):
    form = TeamForm
    inlines = [TeamInvitationInline]
    change_form_template = "admin/conference/team/change_form.html"
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

    def get_inlines(self, request, obj):
        return self.inlines if obj is not None else []

    # --- Inviting members (conference/teams.py) -------------------------------------------------

    def get_urls(self):
        invite = self.admin_site.admin_view(self.invite_view)
        return [
            path("<path:object_id>/invite/", invite, name="conference_team_invite"),
            *super().get_urls(),
        ]

    def invite_view(self, request, object_id):
        """The change page's “Invite a member”: an address, then the mail."""
        team = self.get_object(request, object_id)  # 404 for a team of conferences out of reach
        if not self.has_change_permission(request, team):
            raise PermissionDenied
        form = TeamInvitationForm(request.POST or None)
        if request.method == "POST" and form.is_valid():
            email = form.cleaned_data["email"]
            sent = invite_member(team, email, request.user)
            if not isinstance(sent, Limit):
                self.log_change(request, team, f"Invited {email}.")
                self.message_user(
                    request,
                    gettext("Invited %(email)s to join %(team)s.") % {"email": email, "team": team},
                    messages.SUCCESS,
                )
                return redirect("admin:conference_team_change", team.pk)
            minutes = sent.minutes_left()
            self.message_user(
                request,
                ngettext(
                    "Not invited: you sent too many invitations lately. "
                    "Try again in %(minutes)s minute.",
                    "Not invited: you sent too many invitations lately. "
                    "Try again in %(minutes)s minutes.",
                    minutes,
                )
                % {"minutes": minutes},
                messages.WARNING,
            )
        context = {
            **self.admin_site.each_context(request),
            "title": gettext("Invite a member to %(team)s") % {"team": team},
            "opts": self.opts,
            "original": team,
            "form": form,
        }
        request.current_app = self.admin_site.name
        return TemplateResponse(request, "admin/conference/team/invite.html", context)

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

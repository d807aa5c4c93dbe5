from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import Count
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import path
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from conference.accounts.limits import Limit
from conference.admin.conference import (
    ConferenceTimeZoneAdminMixin,
    VersionedAdmin,
    conference_of_form,
    forwarded_conference,
)
from conference.admin.scoped import ConferenceScopedAdmin
from conference.admin.widgets import AutocompleteAdminMixin
from conference.i18n.timezones import time_zone_note
from speakers.forms import InvitationForm, NonOverlappingWindowsFormSet
from speakers.invitations import invite_speaker
from speakers.models import Availability, Speaker, SpeakerInvitation, SpeakerLink


class SpeakerLinkInline(ConferenceScopedAdmin, admin.TabularInline):
    conference_lookup = "speaker__conference"

    model = SpeakerLink
    extra = 0
    fields = ["title", "url", "position"]


class AvailabilityInline(ConferenceScopedAdmin, admin.TabularInline):
    conference_lookup = "speaker__conference"

    model = Availability
    formset = NonOverlappingWindowsFormSet
    extra = 0
    fields = ["starts_at", "ends_at"]
    verbose_name_plural = gettext_lazy("availability (none: available at any time)")

    def get_formset(self, request, obj=None, **kwargs):
        formset = super().get_formset(request, obj, **kwargs)
        note = time_zone_note(conference_of_form(request, obj))
        for name in ("starts_at", "ends_at"):
            formset.form.base_fields[name].help_text = note
        return formset


class SpeakerInvitationInline(ConferenceScopedAdmin, admin.TabularInline):
    """Who invited the speaker to link an account, where, and whether it was accepted."""

    conference_lookup = "speaker__conference"

    model = SpeakerInvitation
    extra = 0
    fields = ["email", "forwardable", "created_by", "created_at", "accepted_at", "accepted_by"]
    readonly_fields = fields
    verbose_name_plural = gettext_lazy("invitations to edit their own profile")

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(Speaker)
class SpeakerAdmin(
    ConferenceScopedAdmin, ConferenceTimeZoneAdminMixin, AutocompleteAdminMixin, VersionedAdmin
):
    list_display = ["name", "role", "company", "conference", "session_count"]
    list_filter = ["conference"]
    list_select_related = ["conference"]
    # Meta.ordering does not survive get_queryset()'s Count (a GROUP BY): without this the
    # session form's speaker autocomplete pages through an unordered list.
    ordering = ["conference", "name", "pk"]
    search_fields = ["name", "company", "role"]
    prepopulated_fields = {"slug": ("name",)}
    autocomplete_fields = ["user"]
    inlines = [SpeakerLinkInline, AvailabilityInline, SpeakerInvitationInline]
    actions = ["invite"]
    change_form_template = "admin/speakers/speaker/change_form.html"
    fields = [
        "conference",
        "name",
        "slug",
        "pronouns",
        "role",
        "company",
        "bio",
        "photo",
        "avatar_url",
        "user",
        "email",
        "schedule_change_mails",
        "appears_in_parallel",
        "profile_locked",
    ]

    def get_readonly_fields(self, request, obj=None):
        # An account is linked to a speaker by an invitation its owner accepts (with the invited,
        # confirmed address): a team member could otherwise link themselves and read the
        # speaker's feedback. Superusers may still set it by hand.
        readonly = super().get_readonly_fields(request, obj)
        return readonly if request.user.is_superuser else [*readonly, "user"]

    def get_inlines(self, request, obj):
        # A speaker being added has no invitations yet.
        if obj is None:
            return [inline for inline in self.inlines if inline is not SpeakerInvitationInline]
        return self.inlines

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

    @admin.display(description=gettext_lazy("sessions"), ordering="session_count")
    def session_count(self, speaker):
        return speaker.session_count

    # --- Inviting speakers to edit their own profile (speakers/invitations.py) -----------------

    def get_urls(self):
        invite = self.admin_site.admin_view(self.invite_view)
        return [
            path("<path:object_id>/invite/", invite, name="speakers_speaker_invite"),
            *super().get_urls(),
        ]

    def invite_view(self, request, object_id):
        """The change page's “Invite to edit their profile”: an address, then the mail."""
        speaker = self.get_object(request, object_id)  # 404 out of the person's conferences
        # Inviting links an account to the speaker: for those who may change this speaker.
        if not request.user.has_perm("speakers.change_speaker", speaker):
            raise PermissionDenied
        form = InvitationForm(request.POST or None, initial={"email": speaker.email})
        sent = (
            request.method == "POST"
            and form.is_valid()
            and self.send_invitation(
                request,
                speaker,
                form.cleaned_data["email"],
                forwardable=form.cleaned_data["forwardable"],
            )
        )
        if sent:
            return redirect("admin:speakers_speaker_change", speaker.pk)
        context = {
            **self.admin_site.each_context(request),
            "title": _("Invite %(speaker)s to edit their profile") % {"speaker": speaker},
            "opts": self.opts,
            "original": speaker,
            "form": form,
        }
        request.current_app = self.admin_site.name
        return TemplateResponse(request, "admin/speakers/speaker/invite.html", context)

    @admin.action(
        description=gettext_lazy("Invite selected speakers to edit their profile"),
        permissions=["change"],
    )
    def invite(self, request, queryset):
        """Each selected speaker gets an invitation at their own address (Speaker.email)."""
        for speaker in queryset.select_related("conference").order_by("name", "pk"):
            # The list shows speakers the person may only view, too (their other conferences).
            if not request.user.has_perm("speakers.change_speaker", speaker):
                self.message_user(
                    request,
                    _("Not invited: you may not change %(speaker)s.") % {"speaker": speaker},
                    messages.WARNING,
                )
            elif not speaker.email:
                self.message_user(
                    request,
                    _("Not invited: %(speaker)s has no email address.") % {"speaker": speaker},
                    messages.WARNING,
                )
            else:
                self.send_invitation(request, speaker, speaker.email)

    def send_invitation(self, request, speaker, email, *, forwardable=False) -> bool:
        try:
            sent = invite_speaker(speaker, email, request.user, forwardable=forwardable)
        except ValidationError as error:
            self.message_user(
                request,
                _("Not invited: %(reasons)s") % {"reasons": " ".join(error.messages)},
                messages.WARNING,
            )
            return False
        if isinstance(sent, Limit):
            self.message_user(
                request,
                ngettext(
                    "Not invited: %(speaker)s; too many invitations went to %(email)s lately. "
                    "Try again in %(minutes)s minute.",
                    "Not invited: %(speaker)s; too many invitations went to %(email)s lately. "
                    "Try again in %(minutes)s minutes.",
                    sent.minutes_left(),
                )
                % {"speaker": speaker, "email": email, "minutes": sent.minutes_left()},
                messages.WARNING,
            )
            return False
        forwarded = " (may be forwarded)" if forwardable else ""
        self.log_change(request, speaker, f"Invited to edit their profile at {email}{forwarded}.")
        self.message_user(
            request,
            _("Invited %(speaker)s at %(email)s.") % {"speaker": speaker, "email": email},
            messages.SUCCESS,
        )
        return True

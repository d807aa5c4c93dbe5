"""Speakers' change proposals in the admin: organizers compare the proposed title, abstract and
description with the session's, and accept or refuse with an optional message to the speaker
(speakers/proposals.py). Each team sees only its conferences' proposals."""

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.models import CHANGE, LogEntry
from django.core.exceptions import ValidationError
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.html import format_html, format_html_join
from django.utils.safestring import mark_safe
from django.utils.text import capfirst, get_text_list
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from conference.admin.conference import ConferenceTimeZoneAdminMixin
from conference.admin.scoped import ConferenceScopedAdmin
from conference.markup import render_markdown
from speakers.models import SessionChangeProposal
from speakers.proposals import decide_proposal

ACCEPT, REFUSE = "accept", "refuse"


class ProposalDecisionForm(forms.ModelForm):
    decision = forms.ChoiceField(
        label=gettext_lazy("Decision"),
        choices=[
            (ACCEPT, gettext_lazy("Accept: the session takes the proposed texts")),
            (REFUSE, gettext_lazy("Refuse: the session stays as it is")),
        ],
        widget=forms.RadioSelect,
    )

    class Meta:
        model = SessionChangeProposal
        fields = ["message"]

    def clean(self):
        cleaned_data = super().clean()
        if cleaned_data.get("decision") == ACCEPT:
            try:
                self.instance.session_as_accepted()
            except ValidationError as error:
                raise ValidationError(
                    _("The session refuses the proposed texts: %(errors)s")
                    % {"errors": " ".join(error.messages)},
                    code="session_refuses",
                ) from None
        return cleaned_data


@admin.register(SessionChangeProposal)
class SessionChangeProposalAdmin(
    ConferenceScopedAdmin, ConferenceTimeZoneAdminMixin, admin.ModelAdmin
):
    conference_lookup = "session__conference"

    form = ProposalDecisionForm
    list_display = ["original_title", "speaker", "state", "proposed", "decided"]
    list_filter = ["state", "session__conference"]
    list_select_related = ["speaker", "session__conference"]
    search_fields = ["original_title", "title", "speaker__name"]
    readonly_fields = [
        "session",
        "speaker",
        "state",
        "comparison",
        "created_at",
        "decided_at",
        "decided_by",
    ]
    fields = [*readonly_fields[:4], "decision", "message", *readonly_fields[4:]]

    def get_fields(self, request, obj=None):
        if obj is not None and not obj.is_pending:
            return [name for name in self.fields if name != "decision"]
        return self.fields

    class Media:
        css = {"all": ["css/admin.css"]}  # the comparison's table

    def change_view(self, request, object_id, form_url="", extra_context=None):
        # Not Django's “Change change proposal”: what the page is for.
        title = _("A speaker's change proposal")
        return super().change_view(
            request, object_id, form_url, extra_context={"title": title, **(extra_context or {})}
        )

    def has_add_permission(self, request, obj=None):
        return False  # speakers propose, from their own pages

    def has_change_permission(self, request, obj=None):
        # A decision is final: a decided proposal is only read.
        return super().has_change_permission(request, obj) and (obj is None or obj.is_pending)

    @admin.display(description=gettext_lazy("proposed change"))
    # The list, as the change form, says when in the conference's zone (not the server's UTC).
    @admin.display(description=gettext_lazy("proposed at"), ordering="created_at")
    def proposed(self, obj):
        return self.in_conference_zone(obj, obj.created_at)

    @admin.display(description=gettext_lazy("decided at"), ordering="decided_at")
    def decided(self, obj):
        return self.in_conference_zone(obj, obj.decided_at) if obj.decided_at else "–"

    @staticmethod
    def in_conference_zone(obj, moment):
        local = timezone.localtime(moment, obj.session.conference.tz)
        return date_format(local, "DATETIME_FORMAT")

    def comparison(self, obj):
        session = obj.session
        rows = []
        for name in obj.changed_fields:
            label = capfirst(session._meta.get_field(name).verbose_name)
            now, proposed = getattr(session, name), getattr(obj, name)
            if name != "title":  # Markdown, cleaned as the session pages clean it
                now, proposed = (
                    mark_safe(render_markdown(now)),
                    mark_safe(render_markdown(proposed)),
                )
            rows.append((label, now, proposed))
        if not rows:
            return _("The session already says what was proposed.")
        body = format_html_join("", "<tr><th>{}</th><td>{}</td><td>{}</td></tr>", rows)
        return format_html(
            '<table class="change-proposal"><thead><tr><th></th><th>{}</th><th>{}</th></tr>'
            "</thead><tbody>{}</tbody></table>",
            _("The session now"),
            _("Proposed"),
            body,
        )

    def save_model(self, request, obj, form, change):
        accept = form.cleaned_data.get("decision") == ACCEPT
        changed = obj.changed_fields
        try:
            decide_proposal(obj, accept=accept, by=request.user, message=obj.message)
        except ValidationError as error:
            messages.error(request, " ".join(error.messages))
            return
        if accept:
            names = [str(obj.session._meta.get_field(name).verbose_name) for name in changed]
            LogEntry.objects.log_actions(
                user_id=request.user.pk,
                queryset=[obj.session],
                action_flag=CHANGE,
                change_message=(
                    f"Changed {get_text_list(names, 'and')} "
                    f"(accepted the change proposed by {obj.speaker})."
                ),
                single_object=True,
            )

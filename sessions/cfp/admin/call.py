"""The admin of a conference's call for proposals: when it opens and closes (typed on the
conference's clocks, as sessions' times are), the kinds it asks for with their own deadlines,
its questions, tracks, score scale, how reviewers see each other and the speakers, and the mails
its decisions send. Those who plan a conference set its call; its other teams read it."""

from django import forms
from django.conf import settings
from django.contrib import admin
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from conference.admin.conference import (
    ConferenceTimeZoneAdminMixin,
    conference_of_form,
)
from conference.admin.scoped import ConferenceScopedAdmin
from conference.forms import ConferenceDateTimeField, named_with_conference
from conference.i18n.timezones import time_zone_note
from conference.models import Conference, Track
from sessions.models import Call, CallKind, CallQuestion, DecisionMailTemplate
from sessions.models.call import MAX_QUESTIONS


class CallAdminForm(forms.ModelForm):
    """The call's form, its times read on the clocks of ``conference`` (set per request by
    ``CallAdmin.get_form``, which renders and reads it in that zone)."""

    opens_at = ConferenceDateTimeField(label=_("Opens"))
    closes_at = ConferenceDateTimeField(label=_("Closes"))
    tracks = forms.ModelMultipleChoiceField(
        label=_("Tracks offered"),
        queryset=Track.objects.none(),
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text=_("None chosen: proposals name no track."),
    )

    conference: Conference | None = None
    reachable_tracks = Track.objects.none()

    class Meta:
        model = Call
        fields = [
            "conference",
            "opens_at",
            "closes_at",
            "text",
            "tracks",
            "max_speakers",
            "score_min",
            "score_max",
            "anonymised_review",
            "scores_hidden_until_reviewed",
        ]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        conference = self.conference
        note = time_zone_note(conference)
        self.fields["opens_at"].help_text = note
        self.fields["closes_at"].help_text = " ".join(
            [str(Call._meta.get_field("closes_at").help_text), note]
        )
        tracks = self.fields["tracks"]
        if conference is not None:
            tracks.queryset = self.reachable_tracks.filter(conference=conference)
        else:
            tracks.queryset = self.reachable_tracks.select_related("conference")
            tracks.label_from_instance = named_with_conference

    def clean(self):
        cleaned_data = super().clean()
        conference = cleaned_data.get("conference") or self.instance_conference()
        tracks = cleaned_data.get("tracks") or []
        if conference is not None and any(t.conference_id != conference.pk for t in tracks):
            self.add_error("tracks", gettext("Offer only tracks of the call's conference."))
        return cleaned_data

    def instance_conference(self) -> Conference | None:
        return self.instance.conference if self.instance.conference_id else None


class CallKindForm(forms.ModelForm):
    closes_at = ConferenceDateTimeField(label=_("Own deadline"), required=False)

    conference: Conference | None = None

    class Meta:
        model = CallKind
        fields = ["kind", "minutes", "closes_at"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["closes_at"].help_text = " ".join(
            [gettext("Empty: the call's."), time_zone_note(self.conference)]
        )


class CallKindInline(ConferenceScopedAdmin, admin.TabularInline):
    conference_lookup = "call__conference"

    model = CallKind
    form = CallKindForm
    extra = 0
    fields = ["kind", "minutes", "closes_at"]

    def get_formset(self, request, obj=None, **kwargs):
        formset = super().get_formset(request, obj, **kwargs)
        formset.form.conference = conference_of_form(request, obj)
        return formset


class CallQuestionInline(ConferenceScopedAdmin, admin.StackedInline):
    conference_lookup = "call__conference"

    model = CallQuestion
    verbose_name = _("extra question")
    verbose_name_plural = _("extra questions")
    extra = 0
    max_num = MAX_QUESTIONS
    fields = [("text", "required"), "help_text", ("answer_type", "choices"), "position"]

    def get_formset(self, request, obj=None, **kwargs):
        # Rows posted past the limit are refused, not saved (each row's own check counts only
        # the questions saved before the form).
        return super().get_formset(request, obj, validate_max=True, **kwargs)


class DecisionMailTemplateForm(forms.ModelForm):
    language = forms.ChoiceField(label=_("Language"), choices=settings.LANGUAGES)

    class Meta:
        model = DecisionMailTemplate
        fields = ["decision", "language", "subject", "body"]
        widgets = {"body": forms.Textarea(attrs={"rows": 8, "cols": 70})}

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["body"].help_text = gettext(
            "Filled in: %(placeholders)s; {confirm_url} in an acceptance only. Without a mail "
            "of its own, a decision sends the site's text."
        ) % {"placeholders": ", ".join(f"{{{name}}}" for name in DecisionMailTemplate.PLACEHOLDERS)}


class DecisionMailTemplateInline(ConferenceScopedAdmin, admin.StackedInline):
    conference_lookup = "call__conference"

    model = DecisionMailTemplate
    form = DecisionMailTemplateForm
    extra = 0
    fields = [("decision", "language"), "subject", "body"]


@admin.register(Call)
class CallAdmin(ConferenceScopedAdmin, ConferenceTimeZoneAdminMixin, admin.ModelAdmin):
    form = CallAdminForm
    list_display = ["__str__", "opens", "closes", "kinds_offered", "anonymised_review"]
    list_select_related = ["conference"]
    search_fields = ["conference__name"]
    inlines = [CallKindInline, CallQuestionInline, DecisionMailTemplateInline]
    fieldsets = [
        (None, {"fields": ["conference", ("opens_at", "closes_at"), "text"]}),
        (_("What it asks for"), {"fields": ["tracks", "max_speakers"]}),
        (
            _("Review"),
            {
                "fields": [
                    ("score_min", "score_max"),
                    "anonymised_review",
                    "scores_hidden_until_reviewed",
                ]
            },
        ),
    ]

    class Media:
        css = {"all": ["css/admin.css"]}

    def get_queryset(self, request):
        return super().get_queryset(request).prefetch_related("kinds")

    def get_readonly_fields(self, request, obj=None):
        # A call stays with its conference: its tracks, questions and proposals are that one's.
        return ["conference"] if obj is not None else []

    def get_form(self, request, obj=None, change=False, **kwargs):
        form = super().get_form(request, obj, change, **kwargs)
        form.conference = conference_of_form(request, obj)
        reach = Conference.objects.all()
        if not request.user.is_superuser:
            from_teams = self.get_field_queryset(None, Call._meta.get_field("conference"), request)
            reach = from_teams if from_teams is not None else reach
        form.reachable_tracks = Track.objects.filter(conference__in=reach)
        return form

    def local(self, call, moment) -> str:
        local = timezone.localtime(moment, call.conference.tz)
        return f"{date_format(local, 'SHORT_DATETIME_FORMAT')} {local.tzname()}"

    @admin.display(description=_("opens"), ordering="opens_at")
    def opens(self, call):
        return self.local(call, call.opens_at)

    @admin.display(description=_("closes"), ordering="closes_at")
    def closes(self, call):
        return self.local(call, call.closes_at)

    @admin.display(description=_("kinds offered"))
    def kinds_offered(self, call):
        return ", ".join(offered.label for offered in call.offered_kinds())

import datetime

from django import forms
from django.core.exceptions import ValidationError
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.translation import gettext_lazy as _

from conference.forms import AttendeeFormMixin, ConferenceDateTimeField, ConferenceDayTimeWidget
from conference.models import Conference
from conference.versioning import EditConflictError
from speakers.models import (
    MAX_AVAILABILITY_WINDOWS,
    Availability,
    SessionChangeProposal,
    Speaker,
    SpeakerLink,
    refuse_overlapping_windows,
)


class SpeakerSearchForm(forms.Form):
    # A form field, not raw GET: it trims, caps the length and refuses NUL characters, which
    # PostgreSQL cannot even compare.
    q = forms.CharField(label=_("Search speakers"), max_length=200, required=False)


class InvitationForm(forms.Form):
    """The admin's “Invite to edit their profile” page (SpeakerAdmin.invite_view)."""

    email = forms.EmailField(
        label=_("Email address"), max_length=254, help_text=_("The invitation link is mailed here.")
    )
    forwardable = forms.BooleanField(
        label=_("May be forwarded"),
        required=False,
        help_text=_(
            "Unticked, only an account that confirmed this address can accept the invitation. "
            "Ticked, anyone the mail is forwarded to can, and the mail says so: for a speaker "
            "whose assistant keeps their profile, say."
        ),
    )


class SpeakerProfileForm(AttendeeFormMixin, forms.ModelForm):
    """What a speaker edits of themselves (speakers/views/self_service.py); sessions are not here.

    The model's own validation runs (ModelForm calls ``full_clean()``): the photo gets the
    admin's upload checks, the bio is Markdown cleaned on display like the organizers'.
    """

    # The version the page was opened at: a save over an organizer's edit made meanwhile is
    # refused (conference/versioning.py).
    loaded_version = forms.IntegerField(widget=forms.HiddenInput)
    # A box of its own: Django's “Currently: <stored name> / Clear” widget shows the file's
    # random storage name, which means nothing to the speaker.
    remove_photo = forms.BooleanField(label=_("Remove my photo"), required=False)

    class Meta:
        model = Speaker
        fields = ["name", "pronouns", "role", "company", "bio", "photo"]
        # The speaker's words for the model's fields (the admin keeps the model's own).
        labels = {
            "name": _("Name"),
            "pronouns": _("Pronouns"),
            "role": _("Role or title"),
            "company": _("Company"),
            "bio": _("Bio"),
            "photo": _("Photo"),
        }
        help_texts = {
            "pronouns": _("As the speaker wants them shown, e.g. “she/her”."),
            "role": _("For example “Senior Software Engineer”."),
            "photo": _("PNG, JPEG or WebP; 5 MB at most."),
        }
        widgets = {"bio": forms.Textarea(attrs={"rows": 10}), "photo": forms.FileInput}

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["loaded_version"].initial = self.instance.version
        self.fields["bio"].help_text = _(
            "Markdown: **bold**, *italic*, [links](https://example.org) and lists."
        )

    def clean(self):
        cleaned_data = super().clean()
        seen = cleaned_data.get("loaded_version")
        if seen is not None:
            try:
                self.instance.check_version(seen)
            except EditConflictError:
                raise ValidationError(
                    _(
                        "The organizers changed your profile while you were editing it. "
                        "Reload the page to see their changes, then make yours again."
                    ),
                    code="edit_conflict",
                ) from None
        if cleaned_data.get("remove_photo") and not self.files.get(self.add_prefix("photo")):
            cleaned_data["photo"] = False  # FileField.save_form_data() empties the field
        return cleaned_data

    def changed_labels(self) -> list[str]:
        """The changed fields as the admin's history names them (the model's lower-case names)."""
        fields = [name for name in self.changed_data if name in self.Meta.fields]
        if "remove_photo" in self.changed_data and "photo" not in fields:
            fields.append("photo")
        return [str(Speaker._meta.get_field(name).verbose_name) for name in fields]


class SpeakerLinkForm(AttendeeFormMixin, forms.ModelForm):
    class Meta:
        model = SpeakerLink
        fields = ["title", "url"]
        labels = {"title": _("Title"), "url": _("URL")}
        help_texts = {"title": _("For example “Website”, “GitHub”, “Mastodon”.")}


SpeakerLinkFormSet = forms.inlineformset_factory(
    Speaker,
    SpeakerLink,
    form=SpeakerLinkForm,
    extra=2,
    max_num=10,
    validate_max=True,
    can_delete=True,
)


class AvailabilityForm(AttendeeFormMixin, forms.ModelForm):
    """One window a speaker gives on their availability page, typed on the conference's clocks
    (the view activates its zone, as the admin does). ``Availability.clean()`` keeps it within
    the conference's days."""

    starts_at = ConferenceDateTimeField(label=_("From"))
    ends_at = ConferenceDateTimeField(label=_("Until"))

    class Meta:
        model = Availability
        fields = ["starts_at", "ends_at"]

    def __init__(self, *args, conference: Conference, **kwargs):
        super().__init__(*args, **kwargs)
        days = [(day.isoformat(), date_format(day, "l j F")) for day in calendar_days(conference)]
        self.day_names = dict(days)
        for name in ("starts_at", "ends_at"):
            field = self.fields[name]
            field.widget = ConferenceDayTimeWidget(days)
            field.widget.widgets[1].attrs["aria-label"] = _("%(label)s, time") % {
                "label": field.label
            }

    @property
    def day_name(self) -> str:
        """The day chosen for the window's start (“Wednesday 8 April”), typed or preset; empty
        when none is."""
        value = self["starts_at"].value()
        day = value[0] if isinstance(value, list | tuple) and value else ""
        return self.day_names.get(str(day), "")

    def has_changed(self):
        # A new row comes with its day chosen: with no time typed it is still an empty row, left
        # alone, whatever its day says.
        if self.is_bound and self.instance.pk is None:
            times = [self.data.get(self.add_prefix(f"{name}_1"), "") for name in self.Meta.fields]
            if not any(str(time).strip() for time in times):
                return False
        return super().has_changed()


def calendar_days(conference: Conference) -> list[datetime.date]:
    """The dates a time within the conference's days can fall on: each day, and the morning
    after the last when its days change after midnight (a party until 02:00)."""
    days = conference.days
    if conference.day_change != datetime.time(0):
        days.append(conference.ends_on + datetime.timedelta(days=1))
    return days


class NonOverlappingWindowsFormSet(forms.BaseInlineFormSet):
    """A speaker's windows, saved whole or not at all: one that overlaps another, kept or new,
    is refused (``refuse_overlapping_windows()``). The admin's inline uses it as is."""

    def clean(self):
        super().clean()
        if any(self.errors):
            return  # the rows' own errors first: their times may not be read
        # The rows saved: those given or kept (an untouched empty row has no cleaned data).
        kept = [
            form.instance
            for form in self.forms
            if form.cleaned_data and not self._should_delete_form(form)
        ]
        speaker = self.instance
        zone = speaker.conference.tz if speaker.conference_id else timezone.get_current_timezone()
        refuse_overlapping_windows(kept, zone)


class BaseAvailabilityFormSet(NonOverlappingWindowsFormSet):
    """All of a speaker's windows at once on their page, with an empty row per day of the
    conference (its day chosen) to give several new ones in one save."""

    def __init__(self, *args, conference: Conference, **kwargs):
        days = [day.isoformat() for day in conference.days]
        initial = [{"starts_at": [day, None, ""], "ends_at": [day, None, ""]} for day in days]
        kwargs.setdefault("form_kwargs", {})["conference"] = conference
        kwargs["initial"] = initial  # a view's own initial (FormView's {}) means nothing here
        super().__init__(*args, **kwargs)
        # An empty row for each day, within MAX_AVAILABILITY_WINDOWS (max_num) in all.
        self.extra = len(days)


AvailabilityFormSet = forms.inlineformset_factory(
    Speaker,
    Availability,
    form=AvailabilityForm,
    formset=BaseAvailabilityFormSet,
    extra=1,
    can_delete=True,
    max_num=MAX_AVAILABILITY_WINDOWS,
    validate_max=True,
)


class SessionChangeProposalForm(AttendeeFormMixin, forms.ModelForm):
    """A speaker's proposed title, abstract and description for a session of theirs, opened with
    the session's own texts. ``SessionChangeProposal.clean()`` refuses a proposal that changes
    nothing, or a second one while the first waits."""

    class Meta:
        model = SessionChangeProposal
        fields = list(SessionChangeProposal.FIELDS)
        labels = {
            "title": _("Title"),
            "abstract": _("Abstract"),
            "description": _("Description"),
        }
        widgets = {
            "abstract": forms.Textarea(attrs={"rows": 6}),
            "description": forms.Textarea(attrs={"rows": 10}),
        }

    def __init__(self, *args, session, speaker, **kwargs):
        super().__init__(*args, instance=SessionChangeProposal.of(session, speaker), **kwargs)
        markdown = _("Markdown: **bold**, *italic*, [links](https://example.org) and lists.")
        self.fields["abstract"].help_text = _("A short summary.") + " " + markdown
        self.fields["description"].help_text = markdown

    def clean(self):
        cleaned_data = super().clean()
        # Browsers send a textarea's lines with CRLF; the session's texts have LF.
        for name in ("abstract", "description"):
            if isinstance(cleaned_data.get(name), str):
                cleaned_data[name] = cleaned_data[name].replace("\r\n", "\n")
        return cleaned_data

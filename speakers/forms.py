from django import forms
from django.core.exceptions import ValidationError

from conference.forms import AttendeeFormMixin
from conference.versioning import EditConflictError
from speakers.models import Speaker, SpeakerLink


class SpeakerSearchForm(forms.Form):
    # A form field, not raw GET: it trims, caps the length and refuses NUL characters, which
    # PostgreSQL cannot even compare.
    q = forms.CharField(label="Search speakers", max_length=200, required=False)


class InvitationForm(forms.Form):
    """The admin's “Invite to edit their profile” page (SpeakerAdmin.invite_view)."""

    email = forms.EmailField(label="Email address", help_text="The invitation link is mailed here.")


class SpeakerProfileForm(AttendeeFormMixin, forms.ModelForm):
    """What a speaker edits of themselves (speakers/self_service.py); sessions are not here.

    The model's own validation runs (ModelForm calls ``full_clean()``): the photo gets the
    admin's upload checks, the bio is Markdown cleaned on display like the organizers'.
    """

    # The version the page was opened at: a save over an organizer's edit made meanwhile is
    # refused (conference/versioning.py).
    loaded_version = forms.IntegerField(widget=forms.HiddenInput)
    # A box of its own: Django's “Currently: <stored name> / Clear” widget shows the file's
    # random storage name, which means nothing to the speaker.
    remove_photo = forms.BooleanField(label="Remove my photo", required=False)

    class Meta:
        model = Speaker
        fields = ["name", "pronouns", "role", "company", "bio", "photo"]
        widgets = {"bio": forms.Textarea(attrs={"rows": 10}), "photo": forms.FileInput}

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["loaded_version"].initial = self.instance.version
        self.fields[
            "bio"
        ].help_text = "Markdown: **bold**, *italic*, [links](https://example.org) and lists."

    def clean(self):
        cleaned_data = super().clean()
        seen = cleaned_data.get("loaded_version")
        if seen is not None:
            try:
                self.instance.check_version(seen)
            except EditConflictError:
                raise ValidationError(
                    "The organizers changed your profile while you were editing it. "
                    "Reload the page to see their changes, then make yours again.",
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


SpeakerLinkFormSet = forms.inlineformset_factory(
    Speaker,
    SpeakerLink,
    form=SpeakerLinkForm,
    extra=2,
    max_num=10,
    validate_max=True,
    can_delete=True,
)

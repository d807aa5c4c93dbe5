"""The forms of co-speakers' pages (sessions/cfp/co_speaker_views.py): an address to invite, and
how the invited speaker is named and presented in the proposal. They parse; the rules are
sessions/cfp/co_speakers.py's."""

from django import forms
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy

from conference.forms import AttendeeFormMixin
from sessions.forms import error_messages_by_field
from sessions.models import ProposalSpeaker


class RefusalMixin:
    def add_refusal(self, error: ValidationError) -> None:
        """Show a rule's refusal on the field it names, on the form if it names another."""
        for name, messages in error_messages_by_field(error).items():
            for message in messages:
                self.add_error(name if name in self.fields else None, message)


class CoSpeakerInviteForm(RefusalMixin, AttendeeFormMixin, forms.Form):
    email = forms.EmailField(
        label=gettext_lazy("Email address of the co-speaker"),
        max_length=254,
        help_text=gettext_lazy(
            "They get a link to accept, with an account whose confirmed address is this one."
        ),
    )


class CoSpeakerAcceptForm(RefusalMixin, AttendeeFormMixin, forms.ModelForm):
    class Meta:
        model = ProposalSpeaker
        fields = ["name", "bio"]
        labels = {
            "name": gettext_lazy("Your name, as the proposal shows it"),
            "bio": gettext_lazy("Your bio for this proposal"),
        }

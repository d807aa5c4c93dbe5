from django import forms


class SpeakerSearchForm(forms.Form):
    # A form field, not raw GET: it trims, caps the length and refuses NUL characters, which
    # PostgreSQL cannot even compare.
    q = forms.CharField(label="Search speakers", max_length=200, required=False)

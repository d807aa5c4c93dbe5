import datetime

from django import forms
from django.utils.formats import date_format

from conference.forms import AttendeeFormMixin, ConferenceDateTimeField, ConferenceDayTimeWidget
from conference.models import Conference
from speakers.models import Availability, Speaker
from speakers.serializers import MAX_AVAILABILITY_WINDOWS


class SpeakerSearchForm(forms.Form):
    # A form field, not raw GET: it trims, caps the length and refuses NUL characters, which
    # PostgreSQL cannot even compare.
    q = forms.CharField(label="Search speakers", max_length=200, required=False)


class AvailabilityForm(AttendeeFormMixin, forms.ModelForm):
    """One window a speaker gives on their availability page, typed on the conference's clocks
    (the view activates its zone, as the admin does). ``Availability.clean()`` keeps it within
    the conference's days."""

    starts_at = ConferenceDateTimeField(label="From")
    ends_at = ConferenceDateTimeField(label="Until")

    class Meta:
        model = Availability
        fields = ["starts_at", "ends_at"]

    def __init__(self, *args, conference: Conference, **kwargs):
        super().__init__(*args, **kwargs)
        days = [(day.isoformat(), date_format(day, "l j F")) for day in calendar_days(conference)]
        for name in ("starts_at", "ends_at"):
            field = self.fields[name]
            field.widget = ConferenceDayTimeWidget(days)
            field.widget.widgets[1].attrs["aria-label"] = f"{field.label}, time"


def calendar_days(conference: Conference) -> list[datetime.date]:
    """The dates a time within the conference's days can fall on: each day, and the morning
    after the last when its days change after midnight (a party until 02:00)."""
    days = conference.days
    if conference.day_change != datetime.time(0):
        days.append(conference.ends_on + datetime.timedelta(days=1))
    return days


AvailabilityFormSet = forms.inlineformset_factory(
    Speaker,
    Availability,
    form=AvailabilityForm,
    extra=1,
    can_delete=True,
    max_num=MAX_AVAILABILITY_WINDOWS,
    validate_max=True,
)

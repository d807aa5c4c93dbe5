import datetime

from django import forms
from django.utils import timezone

from conference.forms import ConferenceDateTimeField, VersionedModelForm, named_with_conference
from conference.models import Conference
from conference.timezones import clock_text, time_zone_note
from sessions.models import Session

# What organizers pick most; any other number of minutes can be typed.
COMMON_DURATIONS = (5, 10, 15, 20, 25, 30, 40, 45, 60, 90)
LONGEST_DURATION = 7 * 24 * 60  # a week: longer is a typo, and would overflow a date


class MinutesInput(forms.NumberInput):
    """A number of minutes, offering the common lengths as suggestions (a <datalist>)."""

    template_name = "admin/schedule/widgets/minutes.html"

    def __init__(self, suggestions, attrs=None):
        super().__init__({"class": "vMinutesField", "min": 1, "step": 1, **(attrs or {})})
        self.suggestions = suggestions

    def get_context(self, name, value, attrs):
        context = super().get_context(name, value, attrs)
        widget = context["widget"]
        widget["suggestions"] = self.suggestions
        widget["suggestions_id"] = f"{widget['attrs'].get('id', name)}_suggestions"
        widget["attrs"]["list"] = widget["suggestions_id"]
        return context


def local_clock(moment: datetime.datetime) -> str:
    """“10:45 CEST” in the zone the form speaks (the conference's)."""
    local = timezone.localtime(moment)
    return f"{clock_text(local)} {local.tzname()}"


class SessionAdminForm(VersionedModelForm):
    """The admin's session form: times typed on the conference's clocks (SessionAdmin renders
    and reads it in the conference's zone), the hour the clocks go back included, and a
    duration as well as, or instead of, an end."""

    starts_at = ConferenceDateTimeField(label="Starts", required=False)
    duration = forms.IntegerField(
        label="Duration (minutes)",
        required=False,
        min_value=1,
        max_value=LONGEST_DURATION,
        widget=MinutesInput(COMMON_DURATIONS),
        help_text="10:35 for 10 minutes ends at 10:45. Give a duration or an end; change either "
        "and the other follows.",
    )
    ends_at = ConferenceDateTimeField(label="Ends", required=False)

    # The conference the form is for (SessionAdmin.get_form sets it from the request): its
    # zone reads the times, its rooms and tracks are offered. None while one of several conferences
    # is still to be chosen: then every room and track is offered, named with its conference.
    conference: Conference | None = None

    class Meta:
        model = Session
        fields = "__all__"

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.offer_choices_of(self.conference)
        session = self.instance
        if session.pk is not None and not session.is_unscheduled:
            minutes, seconds = divmod(session.duration.total_seconds(), 60)
            if not seconds:  # an imported odd length shows no duration rather than a wrong one
                self.initial.setdefault("duration", int(minutes))

    def offer_choices_of(self, conference: Conference | None) -> None:
        note = time_zone_note(conference)
        for name in ("starts_at", "ends_at"):
            if name in self.fields:
                self.fields[name].help_text = note
        for name in ("room", "track"):
            if name not in self.fields:
                continue
            field = self.fields[name]
            if conference is not None:
                field.queryset = field.queryset.filter(conference=conference)
            else:
                field.queryset = field.queryset.select_related("conference")
                field.label_from_instance = named_with_conference

    def clean(self):
        cleaned_data = super().clean()
        minutes = cleaned_data.get("duration")
        if minutes is None or any(
            self.has_error(name) for name in ("starts_at", "ends_at", "duration")
        ):
            return cleaned_data
        starts_at, ends_at = cleaned_data.get("starts_at"), cleaned_data.get("ends_at")
        if starts_at is None:
            # Unless it is only the duration shown of a session being unscheduled.
            if "duration" in self.changed_data:
                self.add_error("duration", "Give the start too: a duration counts from it.")
            return cleaned_data
        # In UTC, where adding 60 minutes is an hour later even on the night the clocks change.
        try:
            by_duration = starts_at.astimezone(datetime.UTC) + datetime.timedelta(minutes=minutes)
        except OverflowError:
            self.add_error("duration", "That would end after the year 9999.")
            return cleaned_data
        if by_duration == ends_at:
            return cleaned_data
        edited = {"duration", "ends_at"} & set(self.changed_data)
        if ends_at is None or edited == {"duration"}:
            cleaned_data["ends_at"] = by_duration  # the end shown was the old one: it follows
        elif edited != {"ends_at"}:  # both typed, or neither while the start moved
            self.add_error(
                "duration",
                f"The end ({local_clock(ends_at)}) and the duration ({minutes} minutes) disagree: "
                f"{local_clock(starts_at)} for {minutes} minutes ends at "
                f"{local_clock(by_duration)}. Change or clear one of them.",
            )
        # Otherwise the end was changed and the duration shown is the old one: the end stands.
        return cleaned_data

    def _post_clean(self):
        # The model's rules (within the conference's days, room and speakers free) all read the
        # times: with one unreadable they would judge the old or a missing time and add wrong
        # errors (“Give the start too”). They run once both times read.
        if self.has_error("starts_at") or self.has_error("ends_at"):
            return
        super()._post_clean()

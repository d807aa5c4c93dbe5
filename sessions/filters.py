"""One FilterSet for the schedule pages, the exports and the API: they parse the same query strings."""

import datetime
from functools import cached_property

import django_filters
from django import forms
from django.utils.formats import date_format
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from conference.forms import ATTENDEE_FORM_RENDERER
from conference.models import Conference, Room, Track
from sessions.models import AUDIENCE_LEVEL_NAMES, KIND_NAMES, Session
from speakers.models import Speaker


class SessionFilterForm(forms.Form):
    """The filters as the schedule pages show them: in the pages' engine, labels without colons."""

    default_renderer = ATTENDEE_FORM_RENDERER

    def __init__(self, *args, **kwargs):
        super().__init__(*args, label_suffix="", **kwargs)


class SessionFilter(django_filters.FilterSet):
    """Filters ``queryset``, the sessions the visitor may see; it accepts only values they may see."""

    # The widget's choices, the conference's days, are set per conference in __init__.
    day = django_filters.DateFilter(method="filter_day", label=_("Day"), widget=forms.Select)
    track = django_filters.ModelMultipleChoiceFilter(
        field_name="track__slug",
        to_field_name="slug",
        queryset=Track.objects.none(),
        label=_("Track"),
        widget=forms.CheckboxSelectMultiple,
    )
    room = django_filters.ModelMultipleChoiceFilter(
        field_name="room__slug",
        to_field_name="slug",
        queryset=Room.objects.none(),
        label=_("Room"),
        widget=forms.CheckboxSelectMultiple,
    )
    kind = django_filters.ChoiceFilter(
        field_name="kind",
        choices=KIND_NAMES.items,
        label=_("Type"),
        empty_label=_("Any type"),
    )
    level = django_filters.ChoiceFilter(
        field_name="audience_level",
        choices=AUDIENCE_LEVEL_NAMES.items,
        label=_("Audience level"),
        empty_label=_("Any level"),
    )
    speaker = django_filters.ModelChoiceFilter(
        method="filter_speaker",
        to_field_name="slug",
        queryset=Speaker.objects.none(),
        label=_("Speaker"),
    )
    q = django_filters.CharFilter(
        method="filter_q",
        label=_("Search"),
        max_length=200,
        widget=forms.TextInput(
            attrs={"type": "search", "placeholder": _("Title, speaker, company…")}
        ),
    )

    class Meta:
        model = Session
        form = SessionFilterForm
        fields = ["day", "track", "room", "kind", "level", "speaker", "q"]

    def __init__(
        self,
        data=None,
        queryset=None,
        *,
        conference: Conference,
        request=None,
        prefix=None,
    ):
        super().__init__(data, queryset, request=request, prefix=prefix)
        self.conference = conference
        self.filters["track"].queryset = conference.tracks.all()
        self.filters["room"].queryset = conference.rooms.all()
        # Only speakers of the sessions on offer (``queryset``: what the visitor may see). One
        # whose sessions are all drafts must be as unknown as a slug that names nobody: same
        # 400, same message, and no chip with their name.
        self.filters["speaker"].queryset = conference.speakers.giving(self.queryset)
        # Offered: the days with sessions on offer, looked up only when the form is drawn (the
        # API and exports never draw it). Any day of the conference is still accepted.
        self.filters["day"].extra["widget"] = forms.Select(choices=self.day_choices)

    @cached_property
    def days_on_offer(self) -> list[datetime.date]:
        """The days with sessions on offer, whatever the filters: the day choices and tabs."""
        return self.queryset.start_days(self.conference)

    def day_choices(self) -> list[tuple[str, str]]:
        days = self.days_on_offer
        return [
            ("", gettext("All dates")),
            *((day.isoformat(), date_format(day, "l j F")) for day in days),
        ]

    def filter_day(self, queryset, name, value):
        if not self.conference.starts_on <= value <= self.conference.ends_on:
            return queryset.none()  # and 9999-12-31 never reaches date arithmetic
        return queryset.on_day(self.conference, value)

    def filter_speaker(self, queryset, name, value):
        return queryset.with_speaker(value)

    def filter_q(self, queryset, name, value):
        value = value.strip()
        return queryset.search(value) if value else queryset

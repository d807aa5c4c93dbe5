"""One FilterSet for the schedule pages, the exports and the API: they parse the same query strings."""

import datetime
from functools import cached_property

import django_filters
from django import forms
from django.core.exceptions import ValidationError
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


class ReadChoiceIterator(django_filters.fields.ModelChoiceIterator):
    """The choices of a ``ReadModelMultipleChoiceField``: the rows it was given, no query."""

    def __iter__(self):
        if self.field.rows is None:
            yield from super().__iter__()
            return
        for row in self.field.rows:
            yield self.choice(row)

    def __len__(self):
        return super().__len__() if self.field.rows is None else len(self.field.rows)

    def __bool__(self):
        return super().__bool__() if self.field.rows is None else bool(self.field.rows)


class ReadModelMultipleChoiceField(django_filters.fields.ModelMultipleChoiceField):
    """A choice of rows the page has read already (``rows``, in order): listed and checked
    against them, without querying its queryset again. Without ``rows``, Django's field."""

    iterator = ReadChoiceIterator

    def __init__(self, *args, rows=None, **kwargs):
        self.rows = rows
        super().__init__(*args, **kwargs)

    def _check_values(self, value):
        if self.rows is None:
            return super()._check_values(value)
        if not isinstance(value, list | tuple):
            raise ValidationError(self.error_messages["invalid_list"], code="invalid_list")
        by_key = {str(getattr(row, self.to_field_name or "pk")): row for row in self.rows}
        for item in value:
            if str(item) not in by_key:
                raise ValidationError(
                    self.error_messages["invalid_choice"],
                    code="invalid_choice",
                    params={"value": item},
                )
        return [by_key[str(item)] for item in dict.fromkeys(value)]


class ReadModelMultipleChoiceFilter(django_filters.ModelMultipleChoiceFilter):
    field_class = ReadModelMultipleChoiceField


class SessionFilter(django_filters.FilterSet):
    """Filters ``queryset``, the sessions the visitor may see; it accepts only values they may see."""

    # The widget's choices, the conference's days, are set per conference in __init__.
    day = django_filters.DateFilter(method="filter_day", label=_("Day"), widget=forms.Select)
    track = ReadModelMultipleChoiceFilter(
        field_name="track__slug",
        to_field_name="slug",
        queryset=Track.objects.none(),
        label=_("Track"),
        widget=forms.CheckboxSelectMultiple,
    )
    room = ReadModelMultipleChoiceFilter(
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
        widget=forms.TextInput(attrs={"type": "search", "placeholder": _("Title, speaker…")}),
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
        rooms=None,
        tracks=None,
    ):
        """``rooms``, ``tracks``: the conference's, when the page has read them for itself: the
        filters list them (and check the chosen ones) without reading them again."""
        super().__init__(data, queryset, request=request, prefix=prefix)
        self.conference = conference
        self.filters["track"].queryset = conference.tracks.all()
        self.filters["track"].extra["rows"] = tracks
        self.filters["room"].queryset = conference.rooms.all()
        self.filters["room"].extra["rows"] = rooms
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

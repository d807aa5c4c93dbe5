"""The admin's forms for sessions: the change form (which merges a stale save), the release form
and the schedule import form."""

import datetime

from django import forms
from django.core.exceptions import ValidationError
from django.utils import timezone
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from conference.admin.versioned_forms import VersionedModelForm, parse_version
from conference.forms import ConferenceDateTimeField, named_with_conference
from conference.i18n.timezones import clock_text, time_zone_note
from conference.models import Conference
from sessions.importers import MAX_IMPORT_BYTES
from sessions.models import Release, Session
from speakers.models import Speaker

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

    starts_at = ConferenceDateTimeField(label=_("Starts"), required=False)
    duration = forms.IntegerField(
        label=_("Duration (minutes)"),
        required=False,
        min_value=1,
        max_value=LONGEST_DURATION,
        widget=MinutesInput(COMMON_DURATIONS),
        help_text=_(
            "10:35 for 10 minutes ends at 10:45. A new start keeps the duration; change "
            "the duration or the end and the other follows."
        ),
    )
    ends_at = ConferenceDateTimeField(label=_("Ends"), required=False)

    # The conference the form is for (SessionAdmin.get_form sets it from the request): its
    # zone reads the times, its rooms and tracks are offered. None while one of several conferences
    # is still to be chosen: then every room and track is offered, named with its conference.
    conference: Conference | None = None
    related_formsets = {"speakers": "session_speakers"}

    class Meta:
        model = Session
        fields = "__all__"

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.offer_choices_of(self.conference)
        # static/js/session_times.js counts the end from the start on the same clocks.
        if "duration" in self.fields:
            zone = timezone.get_current_timezone_name()
            self.fields["duration"].widget.attrs["data-time-zone"] = zone
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
        """Reconcile the start, the duration and the end: what the organizer typed wins.

        A new start keeps the length (the end follows), a new duration moves the end, a new end
        stands (the duration shown was the old one); typed together and disagreeing, they are an
        error. Counted in UTC, where 60 minutes are an hour even on the night the clocks change.
        """
        cleaned_data = super().clean()
        if any(self.has_error(name) for name in ("starts_at", "ends_at", "duration")):
            return cleaned_data
        starts_at, ends_at = cleaned_data.get("starts_at"), cleaned_data.get("ends_at")
        minutes = cleaned_data.get("duration")
        changed = set(self.changed_data)
        session = self.instance
        if minutes is None:
            # No duration shown (unscheduled, or an imported odd length): a moved start still
            # keeps the session's own length.
            start_moved_alone = "starts_at" in changed and "ends_at" not in changed
            if starts_at is not None and start_moved_alone and not session.is_unscheduled:
                self.set_end(cleaned_data, self.end_after(starts_at, session.duration, "starts_at"))
            return cleaned_data
        if starts_at is None:
            # Unless it is only the duration shown of a session being unscheduled.
            if "duration" in changed:
                self.add_error(
                    "duration", gettext("Give the start too: a duration counts from it.")
                )
            return cleaned_data
        typed = {"duration", "ends_at"} & changed
        if ends_at is not None and typed == {"ends_at"}:
            return cleaned_data  # a new end stands: the duration shown was the old one
        by_duration = self.end_after(starts_at, datetime.timedelta(minutes=minutes), "duration")
        if ends_at is None or typed != {"duration", "ends_at"}:
            self.set_end(cleaned_data, by_duration)  # a new start or duration: the end follows
        elif by_duration is not None and by_duration != ends_at:
            self.add_error(
                "duration",
                ngettext(
                    "The end (%(end)s) and the duration (%(minutes)s minute) disagree: "
                    "%(start)s for %(minutes)s minute ends at %(by_duration)s. Change or clear "
                    "one of them.",
                    "The end (%(end)s) and the duration (%(minutes)s minutes) disagree: "
                    "%(start)s for %(minutes)s minutes ends at %(by_duration)s. Change or clear "
                    "one of them.",
                    minutes,
                )
                % {
                    "end": local_clock(ends_at),
                    "minutes": minutes,
                    "start": local_clock(starts_at),
                    "by_duration": local_clock(by_duration),
                },
            )
        return cleaned_data

    def end_after(self, starts_at, length, field) -> datetime.datetime | None:
        """``length`` after ``starts_at``; None, and an error on ``field``, past the calendar."""
        try:
            return starts_at.astimezone(datetime.UTC) + length
        except OverflowError:
            self.add_error(field, gettext("That would end after the year 9999."))
            return None

    @staticmethod
    def set_end(cleaned_data, ends_at: datetime.datetime | None) -> None:
        if ends_at is not None:
            cleaned_data["ends_at"] = ends_at

    def posted_related_values(self) -> dict[str, str]:
        """The speakers this page posts (its speakers' inline), named in billing order."""
        prefix = "session_speakers"
        total = parse_version(self.data.get(f"{prefix}-TOTAL_FORMS"))
        if total is None:
            return {}
        rows = []
        for index in range(min(total, 1000)):
            row = f"{prefix}-{index}-"
            speaker = parse_version(self.data.get(f"{row}speaker"))
            if speaker is not None and not self.data.get(f"{row}DELETE"):
                position = parse_version(self.data.get(f"{row}position")) or 0
                rows.append((position, index, speaker))
        names = Speaker.objects.in_bulk([speaker for _, _, speaker in rows])
        return {
            "speakers": ", ".join(
                names[speaker].name for _, _, speaker in sorted(rows) if speaker in names
            )
        }

    def _post_clean(self):
        # The model's rules (within the conference's days, room and speakers free) all read the
        # times: with one unreadable they would judge the old or a missing time and add wrong
        # errors (“Give the start too”). They run once both times read.
        if self.has_error("starts_at") or self.has_error("ends_at"):
            return
        super()._post_clean()


# The planner's grid resolution: starts fall on 5-minute steps (sessions/planner.py draws them).
class ReleaseForm(forms.Form):
    """The organizer's confirmation of a release (sessions/admin/release_views.py).

    It carries the fingerprint of the schedule the organizer reviewed (``shown``), so a schedule
    changed meanwhile is shown again rather than released unseen (``release_schedule``). A
    release that announces no change is easy to make by mistake (a double click, a second tab),
    so it needs its own tick: with one, organizers can still re-announce with a new comment.
    """

    version = forms.CharField(
        label=_("Version name"),
        max_length=Release._meta.get_field("version").max_length,
        help_text=_("How exports, the API and the change log name it."),
    )
    comment = forms.CharField(
        label=_("Public comment"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 3, "cols": 60}),
        help_text=_("Optional; shown with the changes on the public change log and its feed."),
    )
    shown = forms.CharField(widget=forms.HiddenInput)
    release_unchanged = forms.BooleanField(
        label=_("Release anyway, announcing no changes"),
        required=False,
    )

    def __init__(self, *args, has_changes: bool, **kwargs):
        super().__init__(*args, **kwargs)
        self.has_changes = has_changes
        if has_changes:
            del self.fields["release_unchanged"]

    def clean(self):
        cleaned_data = super().clean()
        if not self.has_changes and not cleaned_data.get("release_unchanged"):
            self.add_error(
                "release_unchanged",
                gettext("Nothing changed since the last release: tick this box to release anyway."),
            )
        return cleaned_data


class ScheduleImportForm(forms.Form):
    """The admin's import page: a schedule file and whether to hold conflicts for review."""

    file = forms.FileField(
        label=_("File"),
        help_text=_(
            "frab/c3voc schedule.xml or schedule.json, Sessionize “All Data” JSON, or a "
            "CSV table (see the example). 20 MB at most."
        ),
    )
    hold_conflicts = forms.BooleanField(
        label=_("Hold conflicts for review"),
        required=False,
        help_text=_(
            "Import every valid session; one that double-books a room or speaker or falls "
            "outside the conference's days waits unscheduled in the planner, with the reason. "
            "Unticked, any such session refuses the whole file."
        ),
    )

    def clean_file(self):
        upload = self.cleaned_data["file"]
        if upload.size > MAX_IMPORT_BYTES:
            raise ValidationError(
                gettext("The file is larger than %(size)s MB; a schedule is far smaller.")
                % {"size": MAX_IMPORT_BYTES // (1024 * 1024)},
                code="too_big",
            )
        return upload


# The c3voc kinds as speakers read them; the value stored is the c3voc name.

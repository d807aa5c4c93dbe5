"""The sessions app's forms: the admin's change form, the planner's move form, the release form,
and the form speakers add slides and links to their sessions with."""

import datetime

from django import forms
from django.core.exceptions import ValidationError
from django.db.models import Max
from django.utils import timezone
from django.utils.translation import gettext, ngettext, pgettext_lazy
from django.utils.translation import gettext_lazy as _

from conference.admin.versioned_forms import VersionedModelForm, parse_version
from conference.forms import AttendeeFormMixin, ConferenceDateTimeField, named_with_conference
from conference.i18n.timezones import clock_text, time_zone_note
from conference.models import Conference
from conference.versioning import EditConflictError
from sessions.importers import MAX_IMPORT_BYTES
from sessions.models import Attachment, Release, Session, SessionLink
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
SLOT_MINUTES = 5
WHOLE_VENUE = "venue"
# What a move writes; full_clean() checks these, and the rules of clean() that read them.
MOVED_FIELDS = ["room", "starts_at", "ends_at", "planned_minutes", "updated_at"]
UNMOVED_FIELDS = [
    field.name
    for field in Session._meta.concrete_fields
    if field.name not in (*MOVED_FIELDS, "status")
]


class SessionMoveForm(forms.Form):
    """One move on the planner: place a session in a room at a start, or take it off the schedule.

    Every way of moving (drag and drop, the keyboard, the plain “Move to…” form, Undo) posts
    this form. It carries the version of the session the organizer saw: a session changed since
    is refused (``check_version``). The session keeps its length (``Session.place()``) and the
    model's rules judge the new slot (``full_clean()``): a clash, a time outside the conference's
    days or a published session taken off the schedule is a form error naming the reason, and
    nothing is saved. Times typed without a zone are read in the conference's zone.
    """

    PLACE, UNSCHEDULE = "place", "unschedule"

    version = forms.IntegerField(widget=forms.HiddenInput, min_value=0, max_value=2**31 - 1)
    action = forms.ChoiceField(
        choices=[(PLACE, _("Move here")), (UNSCHEDULE, _("Unschedule"))], initial=PLACE
    )
    room = forms.ChoiceField(required=False)
    starts_at = forms.DateTimeField(
        label=_("Starts"),
        required=False,
        widget=forms.DateTimeInput(
            attrs={"type": "datetime-local", "step": SLOT_MINUTES * 60}, format="%Y-%m-%dT%H:%M"
        ),
    )

    def __init__(self, *args, session: Session, rooms, **kwargs):
        super().__init__(*args, **kwargs)
        self.session = session
        self.conference = session.conference
        self.rooms = {str(room.pk): room for room in rooms}
        self.fields["room"].choices = [
            ("", gettext("Choose a room")),
            *((key, room.name) for key, room in self.rooms.items()),
            (WHOLE_VENUE, gettext("Whole venue (no room)")),
        ]
        self.fields["starts_at"].help_text = gettext("In %(zone)s.") % {
            "zone": self.conference.time_zone
        }
        if not self.is_bound:
            self.initial.setdefault("version", session.version)
            if not session.is_unscheduled:
                self.initial.setdefault(
                    "room", str(session.room_id) if session.room_id else WHOLE_VENUE
                )
                self.initial.setdefault(
                    "starts_at", timezone.localtime(session.starts_at, self.conference.tz)
                )

    def full_clean(self):
        # A start typed without an offset is a time on the conference's clocks.
        with timezone.override(self.conference.tz):
            super().full_clean()

    def clean_starts_at(self):
        starts_at = self.cleaned_data["starts_at"]
        if starts_at is not None and (starts_at.minute % SLOT_MINUTES or starts_at.second):
            local = timezone.localtime(starts_at, self.conference.tz)
            raise ValidationError(
                gettext(
                    "Start on a %(step)s-minute step (%(time)s is not one): the planner's grid "
                    "has one row per %(step)s minutes."
                )
                % {"step": SLOT_MINUTES, "time": clock_text(local)},
                code="off_grid",
            )
        return starts_at

    def clean(self):
        cleaned_data = super().clean()
        if self.errors:
            return cleaned_data
        if cleaned_data["action"] == self.PLACE:
            if not cleaned_data.get("room"):
                self.add_error(
                    "room", gettext("Choose the room to move it to (or the whole venue).")
                )
            if cleaned_data.get("starts_at") is None:
                self.add_error("starts_at", gettext("Give the time it starts."))
            if self.errors:
                return cleaned_data
        self.move(cleaned_data)
        return cleaned_data

    def move(self, cleaned_data) -> None:
        """Apply the move to the session and let its rules judge it; errors name the reason."""
        session = self.session
        try:
            session.check_version(cleaned_data["version"])
            if cleaned_data["action"] == self.UNSCHEDULE:
                session.unschedule()
            else:
                room = self.rooms.get(cleaned_data["room"])  # None: the whole venue
                session.place(room, cleaned_data["starts_at"])
            # Only what a move changes, as a ModelForm validates only its fields: the rest was
            # valid when saved, and checking it again costs a move seven queries.
            session.full_clean(exclude=UNMOVED_FIELDS)
        except EditConflictError as error:
            self.add_error(None, error)  # with its code: the planner words who moved it
        except ValidationError as error:
            for field, messages in error_messages_by_field(error).items():
                self.add_error(field if field in ("room", "starts_at") else None, messages)

    @property
    def reasons(self) -> str:
        """Every error of the form as one sentence, for a message on the planner."""
        return " ".join(message for messages in self.errors.values() for message in messages)

    def save(self) -> Session:
        self.session.save(update_fields=MOVED_FIELDS)
        return self.session


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


def error_messages_by_field(error: ValidationError) -> dict[str | None, list[str]]:
    if hasattr(error, "error_dict"):
        return {
            None if field == "__all__" else field: messages
            for field, messages in error.message_dict.items()
        }
    return {None: error.messages}


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
LINK_KIND_NAMES = {
    SessionLink.Kind.RELATED: pgettext_lazy("link kind", "Related"),
    SessionLink.Kind.SLIDES: pgettext_lazy("link kind", "Slides"),
    SessionLink.Kind.PAPER: pgettext_lazy("link kind", "Paper"),
    SessionLink.Kind.WEB: pgettext_lazy("link kind", "Web"),
    SessionLink.Kind.BLOG: pgettext_lazy("link kind", "Blog"),
    SessionLink.Kind.ARTICLE: pgettext_lazy("link kind", "Article"),
    SessionLink.Kind.MEDIA: pgettext_lazy("link kind", "Media"),
    SessionLink.Kind.ACTIVITYPUB: pgettext_lazy("link kind", "ActivityPub"),
}


class SpeakerAttachmentForm(AttendeeFormMixin, forms.ModelForm):
    """A file or a link a speaker adds to their own session (speakers/views/materials.py).

    The model holds the rules the admin applies too: the kinds and size of files
    (``FileKindValidator``), and either a file or a URL, never both.
    """

    class Meta:
        model = Attachment
        fields = ["title", "kind", "file", "url"]
        labels = {"title": _("Title"), "kind": _("Type"), "file": _("File"), "url": _("Or a link")}
        help_texts = {
            "kind": "",
            "file": _("PDF, PowerPoint, OpenDocument presentation or image; 50 MB at most."),
            "url": _("To slides, a recording or code kept elsewhere."),
        }
        widgets = {
            # Offered from the c3voc list; the admin takes any text, so the model does too.
            "kind": forms.Select(choices=[("", "—"), *LINK_KIND_NAMES.items()]),
            "file": forms.FileInput,
        }

    def __init__(self, *args, session: Session, added_by, **kwargs):
        super().__init__(*args, **kwargs)
        self.instance.session = session
        self.instance.added_by = added_by

    def clean(self):
        cleaned_data = super().clean()
        # Unlike an organizer announcing slides to come, a speaker adds something to open.
        given = [name for name in ("file", "url") if cleaned_data.get(name) or self.has_error(name)]
        if not given:
            raise ValidationError(_("Choose a file to upload, or give a link."), code="empty")
        return cleaned_data

    def save(self, commit=True):
        attachment = super().save(commit=False)
        # After what the session has: the organizers' order stays as they set it.
        last = attachment.session.attachments.aggregate(last=Max("position"))["last"]
        attachment.position = 0 if last is None else min(last + 1, 32767)
        if commit:
            attachment.save()
        return attachment

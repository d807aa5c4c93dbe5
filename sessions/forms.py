"""Forms of the sessions app that are not the admin's change form."""

from django import forms
from django.core.exceptions import ValidationError
from django.utils import timezone

from sessions.models import Session

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
        choices=[(PLACE, "Move here"), (UNSCHEDULE, "Unschedule")], initial=PLACE
    )
    room = forms.ChoiceField(required=False)
    starts_at = forms.DateTimeField(
        label="Starts",
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
            ("", "Choose a room"),
            *((key, room.name) for key, room in self.rooms.items()),
            (WHOLE_VENUE, "Whole venue (no room)"),
        ]
        self.fields["starts_at"].help_text = f"In {self.conference.time_zone}."
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
                f"Start on a {SLOT_MINUTES}-minute step ({local:%H:%M} is not one): "
                "the planner's grid has one row per 5 minutes.",
                code="off_grid",
            )
        return starts_at

    def clean(self):
        cleaned_data = super().clean()
        if self.errors:
            return cleaned_data
        if cleaned_data["action"] == self.PLACE:
            if not cleaned_data.get("room"):
                self.add_error("room", "Choose the room to move it to (or the whole venue).")
            if cleaned_data.get("starts_at") is None:
                self.add_error("starts_at", "Give the time it starts.")
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


def error_messages_by_field(error: ValidationError) -> dict[str | None, list[str]]:
    if hasattr(error, "error_dict"):
        return {
            None if field == "__all__" else field: messages
            for field, messages in error.message_dict.items()
        }
    return {None: error.messages}

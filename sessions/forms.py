"""Forms of the sessions app that any door may use: the planner's move of one session, and the
form speakers add slides and links to their sessions with."""

from django import forms
from django.core.exceptions import ValidationError
from django.db.models import Max
from django.utils import timezone
from django.utils.translation import gettext, pgettext_lazy
from django.utils.translation import gettext_lazy as _

from conference.forms import AttendeeFormMixin
from conference.i18n.timezones import clock_text
from conference.versioning import EditConflictError
from sessions.models import Attachment, Session, SessionLink
from sessions.models.material import check_speaker_upload

SLOT_MINUTES = 5
WHOLE_VENUE = "venue"
# What a move writes; full_clean() checks these, and the rules of clean() that read them.
# Status too: taking a published session off the schedule unpublishes it, and its Undo
# publishes it again.
MOVED_FIELDS = ["room", "starts_at", "ends_at", "planned_minutes", "status", "updated_at"]
UNMOVED_FIELDS = [
    field.name for field in Session._meta.concrete_fields if field.name not in MOVED_FIELDS
]


def error_messages_by_field(error: ValidationError) -> dict[str | None, list[str]]:
    if hasattr(error, "error_dict"):
        return {
            None if field == "__all__" else field: messages
            for field, messages in error.message_dict.items()
        }
    return {None: error.messages}


class SessionMoveForm(forms.Form):
    """One move on the planner: place a session in a room at a start, or take it off the schedule.

    Every way of moving (drag and drop, the keyboard, the plain “Move to…” form, Undo) posts
    this form. It carries the version of the session the organizer saw: a session changed since
    is refused (``check_version``). The session keeps its length (``Session.place()``) and the
    model's rules judge the new slot (``full_clean()``): a clash, a time outside the conference's
    days, or a published session taken off the schedule without ``unpublish`` (the organizer's
    confirmation that it goes back to draft), is a form error naming the reason, and nothing is
    saved. Times typed without a zone are read in the conference's zone.
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

    unpublish = forms.BooleanField(
        required=False,
        label=_("Unpublish it"),
        help_text=_(
            "It is published: taking it off the schedule makes it a draft again, and the next "
            "release lists it as removed."
        ),
    )
    # Undo of an unschedule that unpublished: put back, published again.
    publish = forms.BooleanField(required=False, widget=forms.HiddenInput)

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
                session.unschedule(unpublish=cleaned_data["unpublish"])
            else:
                room = self.rooms.get(cleaned_data["room"])  # None: the whole venue
                session.place(room, cleaned_data["starts_at"], publish=cleaned_data["publish"])
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

    def _post_clean(self):
        super()._post_clean()  # the model's rules: the file's kind and size
        upload = self.cleaned_data.get("file")
        if upload and not self.errors:  # judged last: a refused file counts against no limit
            try:
                check_speaker_upload(self.instance.session, self.instance.added_by, upload.size)
            except ValidationError as refusal:
                self.add_error("file", refusal)

    def save(self, commit=True):
        attachment = super().save(commit=False)
        # After what the session has: the organizers' order stays as they set it.
        last = attachment.session.attachments.aggregate(last=Max("position"))["last"]
        attachment.position = 0 if last is None else min(last + 1, 32767)
        if commit:
            attachment.save()
        return attachment

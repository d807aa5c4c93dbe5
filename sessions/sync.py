"""What an API client syncing with ``updated_since`` must learn (docs/api.md, “Syncing”).

A session or speaker counts as changed when the API would show it differently: its own fields,
and also its speakers or sessions, a speaker's name or links shown in a session, its room or
track. Those writes move ``updated_at`` of the rows that show them (``touch()``). A session or
speaker that is deleted, or stops being public, leaves a Removal. Signals, so the admin, the
API, the planner and the importer all record it; ``QuerySet.update()`` and ``bulk_create()``
send none, and code using them on these models must touch the rows itself.
"""

import contextvars
from collections.abc import Iterable, Iterator
from contextlib import contextmanager

from django.db import models
from django.db.models.signals import post_delete, post_save, pre_delete, pre_save
from django.dispatch import receiver

from conference.models import Conference, Room, Track
from sessions.models import Attachment, Removal, Session, SessionLink, SessionSpeaker
from speakers.models import Availability, Speaker, SpeakerLink

# While a bulk writer (the importer) runs: what to touch once it ends, by model and lookup.
_touched_at_end: contextvars.ContextVar[dict | None] = contextvars.ContextVar(
    "touched_at_end", default=None
)


def touch(model: type[models.Model], lookup: str, values: Iterable[int]) -> None:
    """Mark the rows of ``model`` whose ``lookup`` is one of ``values`` changed, now or, inside
    touched_at_end(), once when it ends."""
    deferred = _touched_at_end.get()
    if deferred is None:
        model.objects.filter(**{f"{lookup}__in": list(values)}).touch()
    else:
        deferred.setdefault((model, lookup), set()).update(values)


@contextmanager
def touched_at_end() -> Iterator[None]:
    """For a writer of thousands of rows (the importer): one UPDATE per kind and 500 rows at
    the end instead of some per row written; none if it fails."""
    deferred: dict = {}
    token = _touched_at_end.set(deferred)
    try:
        yield
    finally:
        _touched_at_end.reset(token)
    for (model, lookup), values in deferred.items():
        values = sorted(values)
        for start in range(0, len(values), 500):
            touch(model, lookup, values[start : start + 500])


def deleted_from(origin) -> type[models.Model]:
    """The model a delete started from: one instance or a queryset of them."""
    return origin.model if isinstance(origin, models.QuerySet) else type(origin)


def deleting_conference(origin) -> bool:
    """Whether a delete started from a whole conference: its removals go with it."""
    return deleted_from(origin) is Conference


def is_public(session_id: int) -> bool:
    return Session.objects.public().filter(pk=session_id).exists()


def not_public(speakers):
    """Those of ``speakers`` who give no public session (attendees no longer see them)."""
    public_links = SessionSpeaker.objects.filter(session__in=Session.objects.public())
    return speakers.exclude(pk__in=public_links.values("speaker"))


def record(kind: str, reason: str, conference_id: int, ids, *, was_public: bool) -> None:
    Removal.objects.bulk_create(
        Removal(
            conference_id=conference_id,
            kind=kind,
            object_id=pk,
            reason=reason,
            was_public=was_public,
        )
        for pk in ids
    )


# --- Sessions --------------------------------------------------------------------------------


@receiver(pre_save, sender=Session)
@receiver(pre_delete, sender=Session)
def remember_whether_session_was_public(sender, instance, raw=False, **kwargs):
    instance._was_public = not raw and instance.pk is not None and is_public(instance.pk)


@receiver(post_save, sender=Session)
def session_saved(sender, instance, created, raw=False, **kwargs):
    if raw:
        return
    if not created:  # a new one has no speakers yet
        # A speaker is shown with their sessions, and is public while one of them is.
        touch(Speaker, "sessions", [instance.pk])
    if instance._was_public and not is_public(instance.pk):
        record(
            Removal.Kind.SESSION,
            Removal.Reason.HIDDEN,
            instance.conference_id,
            [instance.pk],
            was_public=True,
        )
        hidden = not_public(instance.speakers.all()).values_list("pk", flat=True)
        record(
            Removal.Kind.SPEAKER,
            Removal.Reason.HIDDEN,
            instance.conference_id,
            hidden,
            was_public=True,
        )


@receiver(post_delete, sender=Session)
def session_deleted(sender, instance, origin=None, **kwargs):
    if not deleting_conference(origin):
        record(
            Removal.Kind.SESSION,
            Removal.Reason.DELETED,
            instance.conference_id,
            [instance.pk],
            was_public=instance._was_public,
        )


@receiver([post_save, post_delete], sender=Attachment)
@receiver([post_save, post_delete], sender=SessionLink)
def session_part_changed(sender, instance, raw=False, origin=None, **kwargs):
    if not raw and not deleting_conference(origin):
        touch(Session, "pk", [instance.session_id])


@receiver(post_save, sender=SessionSpeaker)
def speaker_added(sender, instance, raw=False, **kwargs):
    if not raw:
        touch(Session, "pk", [instance.session_id])
        touch(Speaker, "pk", [instance.speaker_id])


@receiver(post_delete, sender=SessionSpeaker)
def speaker_taken_off(sender, instance, origin=None, **kwargs):
    if deleting_conference(origin):
        return
    touch(Session, "pk", [instance.session_id])
    touch(Speaker, "pk", [instance.speaker_id])
    # Deleting the session runs this first, while the session is still there to ask.
    if deleted_from(origin) is Speaker:  # deleted: speaker_deleted records that
        return
    public = Session.objects.public().filter(pk=instance.session_id)
    conference_id = public.values_list("conference_id", flat=True).first()
    if conference_id is not None:
        speaker = Speaker.objects.filter(pk=instance.speaker_id)
        hidden = not_public(speaker).values_list("pk", flat=True)
        record(Removal.Kind.SPEAKER, Removal.Reason.HIDDEN, conference_id, hidden, was_public=True)


# --- Speakers, rooms and tracks: shown inside sessions ---------------------------------------


@receiver(pre_delete, sender=Speaker)
def remember_whether_speaker_was_public(sender, instance, **kwargs):
    instance._was_public = not not_public(Speaker.objects.filter(pk=instance.pk)).exists()


SHOWN_IN_SESSIONS_AS = {Speaker: "speakers", Room: "room", Track: "track"}


@receiver(post_save, sender=Speaker)
@receiver(post_save, sender=Room)
@receiver(post_save, sender=Track)
def shown_in_sessions_changed(sender, instance, created, raw=False, **kwargs):
    if not raw and not created:
        touch(Session, SHOWN_IN_SESSIONS_AS[sender], [instance.pk])


@receiver(post_delete, sender=Speaker)
def speaker_deleted(sender, instance, origin=None, **kwargs):
    if not deleting_conference(origin):
        record(
            Removal.Kind.SPEAKER,
            Removal.Reason.DELETED,
            instance.conference_id,
            [instance.pk],
            was_public=instance._was_public,
        )


@receiver([post_save, post_delete], sender=SpeakerLink)
@receiver([post_save, post_delete], sender=Availability)
def speaker_part_changed(sender, instance, raw=False, origin=None, **kwargs):
    if raw or deleting_conference(origin):
        return
    touch(Speaker, "pk", [instance.speaker_id])
    # Sessions show their speakers' links when asked to (?expand=speakers).
    touch(Session, "speakers", [instance.speaker_id])

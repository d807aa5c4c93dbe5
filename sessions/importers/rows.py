"""What the schedule writer asks of each row: which stored row a record matches (GUIDs, slugs),
what saving it does (created, updated, unchanged), what full_clean() checks of it, which of its
problems an import may hold for review, and how those problems are named for the report."""

from collections.abc import Sequence

from django.core.exceptions import NON_FIELD_ERRORS, ValidationError
from django.db import models
from django.utils.translation import gettext as _

from sessions.frab import FILE_KEYS, export_guid
from sessions.models import Session, SessionSpeaker
from speakers.models import Speaker


def validation_problems(
    where: str, error: ValidationError, file_keys: dict[str, str] = FILE_KEYS
) -> list[str]:
    # Translators: where names the record (Room “Hall”, an event and its line); message is
    # the reason it is refused.
    about_record = _("%(where)s: %(message)s")
    # Translators: where names the record; key is the file's (title, start…); message is the
    # reason it is refused.
    about_field = _("%(where)s: %(key)s: %(message)s")
    if not hasattr(error, "error_dict"):
        return [about_record % {"where": where, "message": message} for message in error.messages]
    return [
        about_record % {"where": where, "message": message}
        if name == NON_FIELD_ERRORS
        else about_field % {"where": where, "key": file_keys.get(name, name), "message": message}
        for name, messages in error.message_dict.items()
        for message in messages
    ]


def in_record(where: str, key: str) -> str:
    """Where a problem is: a part of a record, by the file's key (``links[0]``)."""
    # Translators: where names a record (an event and its line); key is the file's (links[0]).
    return _("%(where)s: %(key)s") % {"where": where, "key": key}


def unique_slug(base: str, fallback: str, taken: set[str], max_length: int) -> str:
    base = base[: max_length - 8].strip("-_") or fallback
    slug, number = base, 2
    while slug in taken:
        slug, number = f"{base}-{number}", number + 1
    taken.add(slug)
    return slug


# What the writer vouches for itself, so that full_clean() need not ask the database row by row
# (each of these would be a query per row): every foreign key it sets holds an object
# it loaded from, or saved into, this conference; GUIDs and slugs are unique by its own indexes
# (guid_index(), unique_slug()); a session lists each speaker once (try_link()). The check
# constraints are what Session.clean() and the fields' validators already state with field
# errors. clean() still runs every rule; the database keeps every constraint behind it.
VOUCHED_FOR = {
    Session: ["conference", "room", "track"],
    Speaker: ["conference"],
    SessionSpeaker: ["session", "speaker"],
}


def full_clean(instance: models.Model) -> None:
    """``instance.full_clean()``, less the checks the writer vouches for (VOUCHED_FOR)."""
    vouched = VOUCHED_FOR.get(type(instance))
    if vouched is None:
        instance.full_clean()  # rooms and tracks: a few per file
    else:
        instance.full_clean(exclude=vouched, validate_constraints=False)


# A session refused only for these reasons can wait unscheduled: nothing about it is wrong but
# where and when the file puts it. Any other problem (a title too long) refuses the file.
CONFLICT_CODES = {"room_double_booked", "speaker_double_booked", "outside_conference_days"}


# What holding a session takes away, and a re-import tries again while it is held.
HELD_FIELDS = ("room", "starts_at", "ends_at", "status")


def is_conflict(error: ValidationError) -> bool:
    """Whether ``error`` is only about booking rules (CONFLICT_CODES), which holding resolves."""
    errors = (
        error.error_list
        if not hasattr(error, "error_dict")
        else [item for items in error.error_dict.values() for item in items]
    )
    return bool(errors) and all(item.code in CONFLICT_CODES for item in errors)


def outcome(instance: models.Model, fields: Sequence) -> str:
    if instance.pk is None:
        return "created"
    return "updated" if fields else "unchanged"


def guid_index(objects: list[Session] | list[Speaker]) -> dict:
    """Objects by stored GUID and by the GUID our exports publish for it (legacy ones differ)."""
    index = {obj.guid: obj for obj in objects}
    for obj in objects:
        index.setdefault(export_guid(obj.guid), obj)
    return index

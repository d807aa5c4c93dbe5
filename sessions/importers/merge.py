"""Re-importing over edits made here: which of the file's values to apply, field by field.

What the file said at the last import (ImportedValues) tells an organizer's edit from a change in
the file. A field the file still gives as it did then keeps its current value: the organizer may
have changed it here since. A field the file changed since then takes the file's value, even over
an edit made here, and the report says so. Without a record of an earlier import (an object the
admin created, or one imported before imports were remembered) the file's value applies.
"""

import datetime
import zoneinfo
from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from conference.i18n.timezones import short_moment
from conference.models import Room, Track
from speakers.models import Speaker

_NOT_RECORDED = object()


@dataclass
class FieldDecision:
    """One field of a session or speaker whose value here differs from the file's."""

    field: str  # the model's field, or "speakers"
    name: str  # as organizers read it: the field's verbose name
    current: Any
    from_file: Any
    applied: bool
    # Why it is applied or kept, as the report prints it.
    reason: str
    overrides_edit: bool = False

    def describe(self, kind: str, label: str, zone: zoneinfo.ZoneInfo) -> str:
        """`update session “T”: room Central Room → Junior Stage (changed in the file)`."""
        current, from_file = shown_value(self.current, zone), shown_value(self.from_file, zone)
        line = UPDATE_LINES[kind] if self.applied else KEEP_LINES[kind]
        return str(line) % {
            "title": label,
            "name": label,
            "field": self.name,
            "current": current,
            "from_file": from_file,
            "reason": self.reason,
        }


# A decision's line, one whole sentence per kind (French words take gender: “la session”,
# “l’intervenant”). Only sessions and speakers are merged field by field.
UPDATE_LINES = {
    # Translators: field is the field's name (room, starts…), current its value here, from_file
    # the file's; reason why the file's value applies (“changed in the file”).
    "session": gettext_lazy(
        "update session “%(title)s”: %(field)s %(current)s → %(from_file)s (%(reason)s)"
    ),
    # Translators: name is the speaker's; field the field's name, current its value here,
    # from_file the file's; reason why the file's value applies (“changed in the file”).
    "speaker": gettext_lazy(
        "update speaker “%(name)s”: %(field)s %(current)s → %(from_file)s (%(reason)s)"
    ),
}
KEEP_LINES = {
    # Translators: field is the field's name (room, starts…), current its value here, kept;
    # reason why (“edited here after the last import”); from_file the file's value.
    "session": gettext_lazy(
        "keep session “%(title)s”: %(field)s %(current)s "
        "(%(reason)s; the file still says %(from_file)s)"
    ),
    # Translators: name is the speaker's; field the field's name, current its value here, kept;
    # reason why (“edited here after the last import”); from_file the file's value.
    "speaker": gettext_lazy(
        "keep speaker “%(name)s”: %(field)s %(current)s "
        "(%(reason)s; the file still says %(from_file)s)"
    ),
}


def decide(
    current: dict[str, Any],
    from_file: dict[str, Any],
    last_import: dict[str, Any] | None,
    names: dict[str, str],
) -> list[FieldDecision]:
    """What a re-import does with each field whose value here differs from the file's.

    ``current`` and ``from_file`` hold model values by field name; ``last_import`` the JSON values
    (see remembered()) of the last import, or None; ``names`` what to call each field.
    """
    decisions = []
    for field, file_value in from_file.items():
        value = current[field]
        if value == file_value:
            continue
        last = (last_import or {}).get(field, _NOT_RECORDED)
        overrides_edit = False
        if last is _NOT_RECORDED:
            applied, reason = True, _("no earlier import recorded")
        elif remembered(file_value) == last:
            applied, reason = False, _("edited here after the last import")
        elif remembered(value) == last:
            applied, reason = True, _("changed in the file")
        else:
            applied, overrides_edit = True, True
            reason = _("changed in the file, overriding an edit made here after the last import")
        decisions.append(
            FieldDecision(field, names[field], value, file_value, applied, reason, overrides_edit)
        )
    return decisions


def remembered(value: Any) -> Any:
    """``value`` as ImportedValues keeps it: JSON, in the file's terms."""
    if isinstance(value, Room | Track):
        return value.name  # how the file names them; the writer matches them by name
    if isinstance(value, datetime.datetime):
        return value.astimezone(datetime.UTC).isoformat()
    if isinstance(value, list):  # speakers in billing order by GUID; links as [url, title, type]
        return [item.guid if isinstance(item, Speaker) else list(item) for item in value]
    return value


def remembered_values(from_file: dict[str, Any]) -> dict[str, Any]:
    return {name: remembered(value) for name, value in from_file.items()}


def shown_value(value: Any, zone: zoneinfo.ZoneInfo) -> str:
    """A field's value in one line of the report: times in the conference's zone, text shortened."""
    if value is None or value == "" or value == []:
        return _("(none)")
    if isinstance(value, datetime.datetime):
        return short_moment(value, zone)
    if isinstance(value, list):
        return ", ".join(item.name if isinstance(item, Speaker) else item[0] for item in value)
    text = " ".join(str(value).split())
    return text if len(text) <= 60 else f"{text[:59]}…"

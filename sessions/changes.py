"""What changed for the public between two snapshots of a schedule, and how each change reads.

A snapshot (``releases.public_snapshot``) maps each public session's id to what attendees see of
it; a release keeps one. ``Release.changes()`` compares a release with the one before, so this
module reads snapshots only, never the models: models.py imports it.
"""

import datetime
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from django.utils.formats import date_format
from django.utils.translation import gettext as _
from django.utils.translation import ngettext, pgettext

from conference.i18n.timezones import local_clock

# The kinds of change a release announces, in the order a session's changes are listed.
CHANGE_KINDS = (
    "new",
    "reinstated",
    "moved",
    "room",
    "retitled",
    "speakers",
    "cancelled",
    "removed",
)

# Session.Status.CANCELLED as a snapshot stores it (this module cannot import the models;
# tests/sessions/test_releases.py checks that the two agree).
CANCELLED = "cancelled"

Snapshot = dict[str, dict]


@dataclass(frozen=True)
class SessionChange:
    """One change of one session between two snapshots; ``before`` and ``after`` are its
    snapshot entries (None where it was not, or is no longer, public)."""

    kind: str
    session_id: int
    title: str
    slug: str
    before: dict | None
    after: dict | None

    @property
    def sort_key(self) -> tuple:
        """Where the session is (or was) in the schedule, then the kind's place in CHANGE_KINDS."""
        entry = self.after or self.before
        return (entry["starts_at"], entry["room_name"], self.title, self.session_id, self.order)

    @property
    def order(self) -> int:
        return CHANGE_KINDS.index(self.kind)

    def describe(self, zone: datetime.tzinfo) -> str:
        """The change in words, times in ``zone``: “moved from Wed 10:35 Central Room to
        Wed 14:00 Junior Stage”."""
        before, after = self.before, self.after
        if self.kind == "new":
            return _("new: %(place)s") % {"place": place(after, zone)}
        if self.kind == "reinstated":
            return _("back on the schedule: %(place)s") % {"place": place(after, zone)}
        if self.kind == "cancelled":  # where the public last saw it, if it saw it before
            return _("cancelled (was %(place)s)") % {"place": place(before or after, zone)}
        if self.kind == "removed":
            return _("removed from the schedule (was %(place)s)") % {"place": place(before, zone)}
        if self.kind == "retitled":
            return _("retitled from “%(old)s” to “%(new)s”") % {
                "old": before["title"],
                "new": after["title"],
            }
        if self.kind == "room":
            return _("changed room from %(old)s to %(new)s") % {
                "old": room_name(before),
                "new": room_name(after),
            }
        if self.kind == "speakers":
            return speaker_change_text(before, after)
        return move_text(before, after, zone)


def changes_between(old: Snapshot, new: Snapshot) -> list[SessionChange]:
    """What changed for the public from snapshot ``old`` to ``new``, in schedule order.

    A session that became public is new (or, public but cancelled from the start, cancelled);
    one no longer public (deleted, back to draft) is removed. Of a session cancelled in both,
    nothing is announced: it does not take place, wherever it would have. A session reinstated
    is announced with any move, new room, title or speakers since it was cancelled.
    """
    changes = []
    for key in old.keys() | new.keys():
        before, after = old.get(key), new.get(key)
        changes.extend(session_changes(before, after))
    changes.sort(key=lambda change: change.sort_key)
    return changes


def speakers_sessions(changes: Iterable[SessionChange]) -> dict[int, set[int]]:
    """Speaker id to their changed sessions: those they give, or gave before the release.
    Every one of them is told (sessions/notifications.py), as the release preview shows."""
    sessions = defaultdict(set)
    for change in changes:
        for entry in (change.before, change.after):
            for speaker_id in entry["speaker_ids"] if entry else ():
                sessions[speaker_id].add(change.session_id)
    return sessions


def session_changes(before: dict | None, after: dict | None) -> list[SessionChange]:
    cancelled = CANCELLED
    if before is None:
        return [change("cancelled" if after["status"] == cancelled else "new", before, after)]
    if after is None:
        return [change("removed", before, after)]
    if after["status"] == cancelled:
        return [change("cancelled", before, after)] if before["status"] != cancelled else []
    kinds = ["reinstated"] if before["status"] == cancelled else []
    if before["starts_at"] != after["starts_at"] or before["ends_at"] != after["ends_at"]:
        kinds.append("moved")
    elif before["room_id"] != after["room_id"]:
        kinds.append("room")
    if before["title"] != after["title"]:
        kinds.append("retitled")
    if set(before["speaker_ids"]) != set(after["speaker_ids"]):
        kinds.append("speakers")
    return [change(kind, before, after) for kind in kinds]


def change(kind: str, before: dict | None, after: dict | None) -> SessionChange:
    entry = after or before
    return SessionChange(kind, entry["id"], entry["title"], entry["slug"], before, after)


def local(entry: dict, field: str, zone: datetime.tzinfo) -> datetime.datetime:
    return datetime.datetime.fromisoformat(entry[field]).astimezone(zone)


def day_and_clock(moment: datetime.datetime, *, with_zone: bool) -> str:
    text = f"{date_format(moment, 'D')} {local_clock(moment)}"
    return f"{text} {moment.tzname()}" if with_zone else text


def room_name(entry: dict) -> str:
    return entry["room_name"] or _("the whole venue")


def place(entry: dict, zone: datetime.tzinfo) -> str:
    """“Wed 10:35–11:00 CEST, Central Room”."""
    starts_at, ends_at = local(entry, "starts_at", zone), local(entry, "ends_at", zone)
    start = day_and_clock(starts_at, with_zone=starts_at.tzname() != ends_at.tzname())
    return f"{start}–{local_clock(ends_at)} {ends_at.tzname()}, {room_name(entry)}"


def move_text(before: dict, after: dict, zone: datetime.tzinfo) -> str:
    """A new time (and maybe room). Each time carries its zone's abbreviation only when the two
    differ, as across a change of the clocks; otherwise it is said once at the end."""
    old_start, new_start = local(before, "starts_at", zone), local(after, "starts_at", zone)
    old_end, new_end = local(before, "ends_at", zone), local(after, "ends_at", zone)
    apart = old_start.tzname() != new_start.tzname()
    abbreviation = "" if apart else f" ({new_start.tzname()})"
    if old_start == new_start:
        text = _("now ends at %(new)s instead of %(old)s (%(zone)s)") % {
            "new": local_clock(new_end),
            "old": local_clock(old_end),
            "zone": new_end.tzname(),
        }
        if before["room_id"] != after["room_id"]:
            text += _(", in %(new)s instead of %(old)s") % {
                "new": room_name(after),
                "old": room_name(before),
            }
        return text
    old_text = day_and_clock(old_start, with_zone=apart)
    new_text = day_and_clock(new_start, with_zone=apart)
    if before["room_id"] == after["room_id"]:
        return _("moved from %(old)s to %(new)s%(zone)s, %(room)s") % {
            "old": old_text,
            "new": new_text,
            "zone": abbreviation,
            "room": room_name(after),
        }
    return _("moved from %(old)s %(old_room)s to %(new)s %(new_room)s%(zone)s") % {
        "old": old_text,
        "old_room": room_name(before),
        "new": new_text,
        "new_room": room_name(after),
        "zone": abbreviation,
    }


def speaker_change_text(before: dict, after: dict) -> str:
    old = dict(zip(before["speaker_ids"], before["speaker_names"], strict=True))
    new = dict(zip(after["speaker_ids"], after["speaker_names"], strict=True))
    parts = []
    added = [name for pk, name in new.items() if pk not in old]
    removed = [name for pk, name in old.items() if pk not in new]
    if added:
        added_text = ngettext("%(names)s added", "%(names)s added", len(added))
        parts.append(added_text % {"names": ", ".join(added)})
    if removed:
        removed_text = ngettext("%(names)s removed", "%(names)s removed", len(removed))
        parts.append(removed_text % {"names": ", ".join(removed)})
    # Translators: between “Ann Lee added” and “Bob Roe removed” (French: “ ; ”).
    separator = pgettext("between speakers added and removed", "; ")
    return _("speakers changed: %(changes)s") % {"changes": separator.join(parts)}

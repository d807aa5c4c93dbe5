"""What an import did or would do, as the command prints it and the admin's import page lists it.

``ImportReport`` counts each room, track, speaker and session by outcome and keeps a line per
change, in the language active while the import runs (the uploader's, sessions/importers/runs.py).
"""

import datetime
import zoneinfo
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext

from conference.i18n.timezones import short_date, time_range
from sessions.importers.merge import FieldDecision, shown_value

if TYPE_CHECKING:
    from sessions.models import Session

KINDS = ("room", "track", "speaker", "session")

# The report's lines, one whole sentence per kind (French words take gender: “la salle”,
# “l’intervenant”). Sessions and speakers list their changes field by field (merge.py).
CREATE_LINES = {
    "room": gettext_lazy("create room “%(name)s”"),
    "track": gettext_lazy("create track “%(name)s”"),
    "speaker": gettext_lazy("create speaker “%(name)s”"),
    "session": gettext_lazy("create session “%(title)s”"),
}
UPDATE_LINES = {
    # Translators: fields lists the room's fields that change (name, capacity…).
    "room": gettext_lazy("update room “%(name)s”: %(fields)s"),
    # Translators: fields lists the track's fields that change (name, colour…).
    "track": gettext_lazy("update track “%(name)s”: %(fields)s"),
}
# Each kind's counts: created, updated and unchanged.
SUMMARY_LINES = {
    "room": gettext_lazy(
        "rooms: %(created)s created, %(updated)s updated, %(unchanged)s unchanged"
    ),
    "track": gettext_lazy(
        "tracks: %(created)s created, %(updated)s updated, %(unchanged)s unchanged"
    ),
    "speaker": gettext_lazy(
        "speakers: %(created)s created, %(updated)s updated, %(unchanged)s unchanged"
    ),
    "session": gettext_lazy(
        "sessions: %(created)s created, %(updated)s updated, %(unchanged)s unchanged"
    ),
}


@dataclass
class ImportReport:
    dry_run: bool = False
    # The conference's zone, in which changes show times.
    zone: zoneinfo.ZoneInfo = datetime.UTC
    created: Counter = field(default_factory=Counter)
    updated: Counter = field(default_factory=Counter)
    unchanged: Counter = field(default_factory=Counter)
    # Fields edited here since the last import: kept, or overridden by a change in the file.
    kept: Counter = field(default_factory=Counter)
    overridden: Counter = field(default_factory=Counter)
    changes: list[str] = field(default_factory=list)
    # The changes that overrode an edit made here: the command prints them even when not asked.
    overrides: list[str] = field(default_factory=list)
    # Sessions left unscheduled for review (hold_conflicts), each with why.
    held: list[str] = field(default_factory=list)
    # The lines of ``changes`` by what they do (note()): "created", "updated" or "kept"; the
    # sessions created or updated are in ``sessions`` instead, with their day, time and room.
    sections: dict[str, list[str]] = field(default_factory=dict)
    sessions: list[dict[str, Any]] = field(default_factory=list)

    def record(
        self,
        kind: str,
        outcome: str,
        label: str,
        fields: Sequence[str] = (),
        decisions: Sequence[FieldDecision] = (),
        session: "Session | None" = None,
    ) -> None:
        """Count one object; list what changes, by field name or, with ``decisions``, field by
        field. A ``session`` created or updated is also listed where and when it takes place."""
        getattr(self, outcome)[kind] += 1
        listed = session is not None and outcome in ("created", "updated")
        if listed:
            self.sessions.append(self.session_entry(session, outcome, label, decisions))
        if outcome == "created":
            line = str(CREATE_LINES[kind]) % {"name": label, "title": label}
            self.note("created", line, in_section=not listed)
        elif outcome == "updated" and fields:
            names = ", ".join(fields)
            self.note("updated", str(UPDATE_LINES[kind]) % {"name": label, "fields": names})
        for decision in decisions:
            line = decision.describe(kind, label, self.zone)
            self.note(
                "updated" if decision.applied else "kept",
                line,
                in_section=not (listed and decision.applied),
            )
            if not decision.applied:
                self.kept[kind] += 1
            elif decision.overrides_edit:
                self.overridden[kind] += 1
                self.overrides.append(line)

    def note(self, section: str, line: str, *, in_section: bool = True) -> None:
        """List a change in ``changes`` and, for the import page, in its section: created,
        updated or kept (the lines are in the uploader's language, so their words cannot say)."""
        self.changes.append(line)
        if in_section:
            self.sections.setdefault(section, []).append(line)

    def session_entry(
        self, session: "Session", outcome: str, label: str, decisions: Sequence[FieldDecision]
    ) -> dict[str, Any]:
        """A session as the import page lists it: its day, times and room once imported, in
        the conference's zone, and each field the import changes, from its value here to the
        file's."""
        if session.starts_at and session.ends_at:
            local_start = session.starts_at.astimezone(self.zone)
            day = short_date(local_start.date(), weekday=True)
            times = str(time_range(session.starts_at, session.ends_at, self.zone))
        else:
            day, times = _("unscheduled"), ""
        if session.room_id:
            room = session.room.name
        elif session.held_reason:
            room = _("none: held for review")
        elif session.starts_at:
            room = _("whole venue")  # a break for everyone: Session.room says so
        else:
            room = ""
        return {
            "outcome": outcome,
            "title": label,
            "day": day,
            "times": times,
            "room": room,
            "changes": [
                {
                    # “start:”, the colon as the uploader's language writes it (“début :”),
                    # as the rest of the report.
                    "field": _("%(field)s:") % {"field": decision.name},
                    "old": shown_value(decision.current, self.zone),
                    "new": shown_value(decision.from_file, self.zone),
                    "reason": decision.reason,
                }
                for decision in decisions
                if decision.applied
            ],
        }

    def summary(self) -> list[str]:
        lines = []
        for kind in KINDS:
            parts = [
                str(SUMMARY_LINES[kind])
                % {
                    "created": self.created[kind],
                    "updated": self.updated[kind],
                    "unchanged": self.unchanged[kind],
                }
            ]
            if self.kept[kind] or self.overridden[kind]:
                parts.append(
                    _("fields edited here: %(kept)s kept, %(overridden)s overridden by the file")
                    % {"kept": self.kept[kind], "overridden": self.overridden[kind]}
                )
            if kind == "session" and self.held:
                parts.append(
                    _("%(count)s held for review (unscheduled, in the planner)")
                    % {"count": len(self.held)}
                )
            # Translators: between the parts of a line of an import's summary (“rooms: 2
            # created, …; fields edited here: …”).
            lines.append(pgettext("separator in an import's summary", "; ").join(parts))
        return lines

    def hold(self, label: str, reason: str) -> None:
        # Translators: reason is why the session cannot be placed (its room is taken then…).
        self.held.append(
            _("hold session “%(title)s”: %(reason)s") % {"title": label, "reason": reason}
        )

    def as_json(self) -> dict[str, Any]:
        """What an import page shows of it, for ScheduleImport.report: plain JSON."""
        return {
            "dry_run": self.dry_run,
            "summary": self.summary(),
            "counts": {
                outcome: dict(getattr(self, outcome))
                for outcome in ("created", "updated", "unchanged", "kept", "overridden")
            },
            "changes": self.changes,
            "sections": self.sections,
            "sessions": self.sessions,
            "overrides": self.overrides,
            "held": self.held,
        }

"""The schedule planner's day: rooms as columns, 5-minute rows, each session a block of its length.

The admin's planner page (sessions/admin/planner.py) draws one conference day from this; every
move goes through ``SessionMoveForm`` (sessions/forms.py). Rows count real time from the local
midnight, so a day on which the clocks change has 23 or 25 hours of rows, labelled as the
conference's clocks read.
"""

import datetime
import json
import math
from dataclasses import dataclass, field

from django.contrib.admin.models import CHANGE, LogEntry
from django.contrib.contenttypes.models import ContentType
from django.db.models.functions import Lower
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.translation import gettext

from conference.i18n.timezones import clock_text, local_clock
from conference.models import Conference, Room
from sessions.filters import SessionFilter
from sessions.forms import SLOT_MINUTES, WHOLE_VENUE, SessionMoveForm
from sessions.models import Session
from sessions.warnings import schedule_warnings

MINUTE = datetime.timedelta(minutes=1)
SLOT = datetime.timedelta(minutes=SLOT_MINUTES)
# Hours drawn on every day, after local midnight, so an empty day still has slots to drop on.
DAY_DRAWN_FROM, DAY_DRAWN_UNTIL = 8 * 60, 19 * 60
# A time label every quarter of an hour.
LABEL_ROWS = 15 // SLOT_MINUTES
# The most rows a day can have (25 hours, when the clocks go back): the rows stylesheet's size.
MOST_ROWS = 25 * 60 // SLOT_MINUTES


@dataclass
class PlannerColumn:
    key: str  # the room's pk, or WHOLE_VENUE: what a move to this column posts as ``room``
    name: str
    sessions: list[Session] = field(default_factory=list)


@dataclass
class TimeLabel:
    row: int
    text: str
    on_the_hour: bool


@dataclass
class PlannerDay:
    date: datetime.date
    first_row_at: datetime.datetime  # the instant row 1 starts
    rows: int
    columns: list[PlannerColumn]
    labels: list[TimeLabel]
    # The clocks change on this day: every time label names its zone (02:00 CEST, 02:00 CET).
    names_zones: bool = False

    label_rows = LABEL_ROWS
    slot_minutes = SLOT_MINUTES
    most_rows = MOST_ROWS


def build_planner_day(
    conference: Conference, date: datetime.date, sessions: list[Session], rooms: list[Room]
) -> PlannerDay:
    """Lay out ``sessions`` (placed, starting on ``date``) in columns of ``rooms``.

    Each session gets ``planner_row`` (its first row, from 1) and ``planner_span`` (its rows):
    a start off the 5-minute grid is drawn from the row it falls in, an end past the rows drawn
    is cut there. A “Whole venue” column comes first when the day has sessions without a room.
    """
    midnight, next_midnight = conference.day_bounds(date)  # at the day change, if not 00:00
    day_minutes = minutes_between(midnight, next_midnight)
    starts = [minutes_between(midnight, session.starts_at) for session in sessions]
    ends = [minutes_between(midnight, session.ends_at) for session in sessions]
    # The usual hours are wall-clock times; the rows count from the day change.
    change = conference.day_change.hour * 60 + conference.day_change.minute
    first = max(0, min([DAY_DRAWN_FROM - change, *starts])) // 60 * 60
    last = min(day_minutes, math.ceil(max([DAY_DRAWN_UNTIL - change, *ends]) / 60) * 60)
    columns = [PlannerColumn(str(room.pk), room.name) for room in rooms]
    if any(session.room_id is None for session in sessions):
        columns.insert(0, PlannerColumn(WHOLE_VENUE, gettext("Whole venue")))
    column_of = {column.key: column for column in columns}
    for session, start, end in zip(sessions, starts, ends, strict=True):
        first_slot = (start - first) // SLOT_MINUTES
        last_slot = math.ceil((min(end, last) - first) / SLOT_MINUTES)
        session.planner_row = first_slot + 1
        session.planner_span = max(1, last_slot - first_slot)
        session.planner_shared = False
        key = str(session.room_id) if session.room_id else WHOLE_VENUE
        column_of[key].sessions.append(session)
    for column in columns:
        mark_sessions_beside_cancelled(column.sessions)
    first_row_at = midnight + first * MINUTE
    rows = (last - first) // SLOT_MINUTES
    zone = conference.tz
    names_zones = (
        timezone.localtime(midnight, zone).utcoffset()
        != timezone.localtime(next_midnight, zone).utcoffset()
    )
    labels = []
    for row in range(1, rows + 1, LABEL_ROWS):
        local = timezone.localtime(first_row_at + (row - 1) * SLOT, zone)
        text = f"{clock_text(local)} {local.tzname()}" if names_zones else clock_text(local)
        labels.append(TimeLabel(row, text, local.minute == 0))
    return PlannerDay(date, first_row_at, rows, columns, labels, names_zones)


def planner_context(
    conference: Conference, day: datetime.date, side_list_query, move_url_prefix: str
) -> dict:
    """What the planner page shows of ``day``: its grid, the side list, warnings.

    ``side_list_query`` holds the side list's filters (q, track, kind) for ``SessionFilter``;
    ``move_url_prefix`` is the move URL of a session without its pk.
    """
    rooms = list(conference.rooms.all())
    sessions = list(
        conference.sessions.placed().on_day(conference, day).for_planner().order_by("starts_at")
    )
    side_list = SessionFilter(
        side_list_query, conference.sessions.unscheduled(), conference=conference
    )
    unscheduled = list(side_list.qs.for_planner().order_by(Lower("title"), "pk"))
    warnings = schedule_warnings(conference, sessions)
    planner = build_planner_day(conference, day, sessions, rooms)
    describe_blocks([*sessions, *unscheduled], warnings, move_url_prefix)
    return {
        "day": day,
        "day_query": f"?day={day.isoformat()}",
        "planner": planner,
        "side_list": side_list,
        "unscheduled": unscheduled,
        "unscheduled_total": conference.sessions.unscheduled().count(),
        "warned": [session for session in sessions if session.planner_warnings],
        "tracks": list(conference.tracks.all()),
        "kinds": Session.Kind.choices,
    }


def first_busy_day(conference: Conference) -> datetime.date:
    """The first day with a session placed on it, else the conference's first day."""
    first_start = (
        conference.sessions.placed()
        .order_by("starts_at")
        .values_list("starts_at", flat=True)
        .first()
    )
    if first_start is None:
        return conference.starts_on
    return conference.day_of(first_start)


def mark_sessions_beside_cancelled(sessions: list[Session]) -> None:
    """A cancelled session keeps its slot on the grid, and its room may be booked again then:
    those sharing rows with one get ``planner_shared``, drawn narrower, so both stay in view."""
    cancelled = [session for session in sessions if session.is_cancelled]
    for session in sessions:
        if not session.is_cancelled:
            end = session.planner_row + session.planner_span
            session.planner_shared = any(
                other.planner_row < end
                and session.planner_row < other.planner_row + other.planner_span
                for other in cancelled
            )


def minutes_between(earlier: datetime.datetime, later: datetime.datetime) -> int:
    return (later - earlier) // MINUTE


def describe_blocks(
    sessions: list[Session], warnings: dict[int, list[str]], move_url_prefix: str
) -> None:
    """Give each session what its block prints (admin/schedule/session/planner_blocks.html).

    Prepared here, once per session, rather than decided in the template: a busy day has over
    300 blocks, and each lookup in a Django template costs. Placed sessions read “10:35–11:00”
    (the page names the zone), unscheduled ones their planned length, “30 min”.
    """
    for session in sessions:
        minutes = session.planned_length // MINUTE
        if session.is_unscheduled:
            session.planner_when = gettext("%(minutes)s min") % {"minutes": minutes}
            classes = ["planner-block"]
        else:
            zone = session.conference.tz
            start = timezone.localtime(session.starts_at, zone)
            end = timezone.localtime(session.ends_at, zone)
            session.planner_when = f"{clock_text(start)}–{clock_text(end)}"
            classes = ["planner-block", f"r{session.planner_row}", f"s{session.planner_span}"]
            if session.planner_shared:
                classes.append("is-shared")
        track = session.track
        if track is not None:
            classes.append(f"track-{track.slug}")
        classes.append(f"is-{session.status}")
        session.planner_warnings = warnings.get(session.pk, [])
        if session.planner_warnings:
            classes.append("has-warnings")
        session.planner_classes = " ".join(classes)
        session.planner_minutes = minutes
        session.planner_move_url = f"{move_url_prefix}{session.pk}/"
        session.planner_badge = "" if session.is_published else session.get_status_display()
        session.planner_speakers = ", ".join(speaker.name for speaker in session.ordered_speakers)
        session.planner_track = track.name if track is not None else ""
        # “Lightning Talk: …” already says its kind; a plain talk's title does not.
        session.planner_kind = "" if session.kind_prefix else session.kind_label


# Undo: the placement before the last move, per conference, kept in the organizer's session.

UNDO_KEY = "planner_undo"


def placement_of(session: Session) -> dict:
    """Where a session is, as SessionMoveForm data that puts it back there."""
    if session.is_unscheduled:
        return {"action": SessionMoveForm.UNSCHEDULE}
    placement = {
        "action": SessionMoveForm.PLACE,
        "room": str(session.room_id) if session.room_id else WHOLE_VENUE,
        # With its offset: a local time would be ambiguous in the hour the clocks go back.
        "starts_at": session.starts_at.isoformat(),
    }
    if session.is_published:  # taken off the schedule, it was unpublished: Undo publishes it
        placement["publish"] = "on"
    return placement


def remember_undo(store, session: Session, before: dict) -> None:
    """Keep, in ``store`` (request.session), how to undo the move ``session`` just made."""
    undo = store.get(UNDO_KEY, {})
    undo[str(session.conference_id)] = {
        "session": session.pk,
        "title": session.title,
        "version": session.version,
        **before,
    }
    store[UNDO_KEY] = undo


def undo_of(store, conference: Conference) -> dict | None:
    return store.get(UNDO_KEY, {}).get(str(conference.pk))


def forget_undo(store, conference: Conference) -> None:
    undo = store.get(UNDO_KEY, {})
    if undo.pop(str(conference.pk), None) is not None:
        store[UNDO_KEY] = undo


def placement_text(session: Session) -> str:
    """“Central Room, Wednesday 8 April 2026 10:40–11:05 CEST”, or “the unscheduled list”."""
    if session.is_unscheduled:
        return gettext("the unscheduled list")
    where = session.room.name if session.room_id else gettext("the whole venue")
    return f"{where}, {session.local_time_range}"


# Who moved what, and when: the admin's history (LogEntry), where its forms already write.

# The fields a planner move changes, as the history names them; an entry changing these alone
# is a move, whether the planner or the session's admin form wrote it.
MOVE_LABELS = {"Room", "Starts", "Ends"}


def record_move(user, session: Session, slot_before: tuple) -> None:
    """Write the move into the session's admin history, as its change form would."""
    room_id, starts_at, ends_at, status = slot_before
    changed = [
        label
        for label, before, after in (
            ("Room", room_id, session.room_id),
            ("Starts", starts_at, session.starts_at),
            ("Ends", ends_at, session.ends_at),
            ("Status", status, session.status),
        )
        if before != after
    ]
    LogEntry.objects.log_actions(
        user.pk,
        [session],
        CHANGE,
        change_message=json.dumps([{"changed": {"fields": changed}}]),
        single_object=True,
    )


def last_change_text(session: Session, viewer) -> str:
    """Who last changed ``session``, what and when, in words, and where it is now: “Ann Lee moved
    “Graphs” to Master Stage, Wednesday 8 April 2026 14:00–14:30 CEST at 23:41 CET.”

    From the admin's history when its latest entry is the session's latest change (written
    after the save, so no older than ``updated_at``); imports, the API and bulk actions write
    none, and are named as such. Three queries.
    """
    current = Session.objects.select_related("conference", "room").filter(pk=session.pk).first()
    if current is None:
        return gettext("Someone deleted “%(session)s” meanwhile.") % {"session": session}
    session = current
    entry = (
        LogEntry.objects.filter(
            content_type=ContentType.objects.get_for_model(Session),
            object_id=str(session.pk),
            action_time__gte=session.updated_at,
        )
        .select_related("user")
        .order_by("-action_time", "-pk")
        .first()
    )
    where = placement_text(session)
    if entry is None:  # and its updated_at may be older than the change: bulk updates skip it
        return gettext(
            "Someone changed “%(session)s” meanwhile, outside the planner and the admin's forms "
            "(an import, the API or an action on the session list); it is in %(where)s."
        ) % {"session": session, "where": where}
    who = name_of(entry.user, viewer)
    when = moment_text(entry.action_time, session.conference)
    fields = changed_fields(entry)
    if fields and fields <= MOVE_LABELS:
        return gettext("%(who)s moved “%(session)s” to %(where)s %(when)s.") % {
            "who": who,
            "session": session,
            "where": where,
            "when": when,
        }
    what = entry.get_change_message().rstrip(".").lower() or gettext("changed it")
    return gettext("%(who)s changed “%(session)s” (%(what)s) %(when)s; it is in %(where)s.") % {
        "who": who,
        "session": session,
        "what": what,
        "when": when,
        "where": where,
    }


def name_of(user, viewer) -> str:
    if user.pk == viewer.pk:
        return gettext("You (in another window)")
    return user.get_full_name() or user.get_username()


def changed_fields(entry: LogEntry) -> set[str]:
    try:
        parts = json.loads(entry.change_message)
    except ValueError:
        return set()
    if not isinstance(parts, list):
        return set()
    return {
        str(name)
        for part in parts
        if isinstance(part, dict) and isinstance(part.get("changed"), dict)
        for name in part["changed"].get("fields", ())
    }


def moment_text(moment: datetime.datetime, conference: Conference) -> str:
    """“at 23:41 CET” today on the conference's clocks, else “on Thursday 3 December at 23:41 CET”."""
    local = timezone.localtime(moment, conference.tz)
    clock = {"time": local_clock(local), "zone": local.tzname()}
    if local.date() == timezone.localtime(timezone.now(), conference.tz).date():
        return gettext("at %(time)s %(zone)s") % clock
    return gettext("on %(day)s at %(time)s %(zone)s") % {
        **clock,
        "day": date_format(local, "l j F"),
    }

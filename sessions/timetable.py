"""Shapes a list of loaded sessions into what the schedule pages draw, in the active time zone."""

import datetime
from dataclasses import dataclass, field
from itertools import groupby

from django.utils import timezone

from conference.models import Room
from sessions.models import Session


@dataclass
class TimeSlot:
    starts_at: datetime.datetime
    sessions: list[Session]


@dataclass
class Day:
    date: datetime.date
    slots: list[TimeSlot]


def group_by_day_and_slot(sessions: list[Session]) -> list[Day]:
    """Days, then start times, as the schedule list shows them; sessions must be ordered by start."""
    days = []
    zone = timezone.get_current_timezone()
    by_day = groupby(
        sessions, key=lambda session: session.conference.day_of(session.starts_at, zone)
    )
    for date, day_sessions in by_day:
        slots = [
            TimeSlot(starts_at=starts_at, sessions=list(slot_sessions))
            for starts_at, slot_sessions in groupby(
                day_sessions, key=lambda session: session.starts_at
            )
        ]
        days.append(Day(date=date, slots=slots))
    return days


@dataclass
class GridCell:
    session: Session | None = None
    rows: int = 1


@dataclass
class GridRow:
    starts_at: datetime.datetime
    cells: list[GridCell] = field(default_factory=list)


@dataclass
class Grid:
    columns: list[Room | None]
    rows: list[GridRow]


def build_grid(sessions: list[Session], rooms: list[Room]) -> Grid:
    """A table with rooms as columns and time as rows; a session spans the rows of its duration.

    Rows run between consecutive start or end instants, so any slot length lays out exactly.
    Sessions without a room (venue-wide breaks) get a first column of their own when present.
    Overlapping sessions in one room cannot exist (the model forbids it) except cancelled
    ones; those are skipped here and still shown in the list view.
    """
    columns: list[Room | None] = list(rooms)
    if any(session.room_id is None for session in sessions):
        columns.insert(0, None)
    column_of = {room.pk if room else None: index for index, room in enumerate(columns)}
    instants = sorted(
        {session.starts_at for session in sessions} | {session.ends_at for session in sessions}
    )
    row_of = {instant: index for index, instant in enumerate(instants)}
    rows = [GridRow(starts_at=instant) for instant in instants[:-1]]
    placed: dict[tuple[int, int], GridCell] = {}
    covered: set[tuple[int, int]] = set()
    for session in sessions:
        column = column_of.get(session.room_id)
        first, last = row_of[session.starts_at], row_of[session.ends_at]
        span = {(row, column) for row in range(first, last)}
        if column is None or span & covered:
            continue
        placed[(first, column)] = GridCell(session=session, rows=last - first)
        covered |= span
    for index, row in enumerate(rows):
        for column in range(len(columns)):
            if (index, column) in placed:
                row.cells.append(placed[(index, column)])
            elif (index, column) not in covered:
                row.cells.append(GridCell())
    return Grid(columns=columns, rows=rows)


def mark_clashes(sessions: list[Session]) -> None:
    """Give each session ``clashes_with``: the other (not cancelled) sessions it overlaps.

    ``sessions`` are ordered by start, so each one is compared only with those starting before
    it ends: linear for a normal schedule.
    """
    for session in sessions:
        session.clashes_with = []
    active = [session for session in sessions if not session.is_cancelled]
    for index, session in enumerate(active):
        for other in active[index + 1 :]:
            if other.starts_at >= session.ends_at:
                break
            session.clashes_with.append(other)
            other.clashes_with.append(session)


def happening_now_and_next(
    sessions: list[Session], now: datetime.datetime
) -> tuple[list[Session], list[Session]]:
    """Sessions running at ``now``, and those starting next (all at the same, earliest, time)."""
    active = [session for session in sessions if not session.is_cancelled]
    running = [session for session in active if session.starts_at <= now < session.ends_at]
    upcoming = [session for session in active if session.starts_at > now]
    if not upcoming:
        return running, []
    soonest = upcoming[0].starts_at
    return running, [session for session in upcoming if session.starts_at == soonest]


@dataclass
class NowAndNext:
    """One room's now and next (``room`` None: the whole venue); lists, as two may coincide."""

    room: Room | None
    running: list[Session]
    up_next: list[Session]


@dataclass
class NowBoard:
    """The now page: every room's now and next at ``moment``, and the whole venue's.

    The whole venue's next session is shown only when it is later the same day: tomorrow's
    lunch announced above tomorrow's first talks would read as coming first.
    """

    moment: datetime.datetime
    rooms: list[NowAndNext]
    venue: NowAndNext

    @property
    def venue_today(self) -> NowAndNext:
        today = timezone.localdate(self.moment)
        up_next = [s for s in self.venue.up_next if timezone.localdate(s.starts_at) == today]
        return NowAndNext(room=None, running=self.venue.running, up_next=up_next)

    @property
    def everything(self) -> list[NowAndNext]:
        return [self.venue, *self.rooms]

    @property
    def running_anywhere(self) -> bool:
        return any(entry.running for entry in self.everything)

    @property
    def next_start(self) -> datetime.datetime | None:
        """When the next session starts, anywhere: None when nothing is left."""
        starts = [entry.up_next[0].starts_at for entry in self.everything if entry.up_next]
        return min(starts, default=None)


def build_now_board(
    sessions: list[Session], rooms: list[Room], moment: datetime.datetime
) -> NowBoard:
    """``sessions`` (``running_or_next(moment)``, ordered by start) by room, in room order."""
    by_room: dict[int | None, list[Session]] = {}
    for session in sessions:
        by_room.setdefault(session.room_id, []).append(session)

    def now_and_next(room: Room | None) -> NowAndNext:
        running, up_next = happening_now_and_next(
            by_room.get(room.pk if room else None, []), moment
        )
        return NowAndNext(room=room, running=running, up_next=up_next)

    return NowBoard(
        moment=moment, rooms=[now_and_next(room) for room in rooms], venue=now_and_next(None)
    )


@dataclass
class DoorSign:
    """A room's door sign at ``moment``: now, next, and the rest of ``day`` (its local date)."""

    moment: datetime.datetime
    day: datetime.date | None
    running: list[Session]
    up_next: list[Session]
    later: list[Session]


def build_door_sign(sessions: list[Session], moment: datetime.datetime) -> DoorSign:
    """From ``rest_of_day(moment)``, ordered by start. Cancelled sessions are only listed later,
    marked as such: the room is free then."""
    running, up_next = happening_now_and_next(sessions, moment)
    shown = {session.pk for session in running + up_next}
    after = up_next[0].starts_at if up_next else moment
    later = [
        session for session in sessions if session.pk not in shown and session.starts_at >= after
    ]
    first = moment if running else (up_next[0].starts_at if up_next else None)
    day = timezone.localtime(first).date() if first else None
    return DoorSign(moment=moment, day=day, running=running, up_next=up_next, later=later)

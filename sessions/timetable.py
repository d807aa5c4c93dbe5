"""Shapes a list of loaded sessions into what the schedule pages draw, in the active time zone."""

import datetime
from dataclasses import dataclass, field
from itertools import groupby
from typing import ClassVar

from django.utils import timezone

from conference.models import Conference, Room
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


# The grid's resolution: one row per 5 minutes, so a block's height is proportional to its length.
GRID_MINUTES = 5
GRID_SLOT = datetime.timedelta(minutes=GRID_MINUTES)
QUARTER_HOUR = datetime.timedelta(minutes=15)
HALF_HOUR = datetime.timedelta(minutes=30)
# A stretch this long with no session anywhere folds into one marked band of the grid.
GRID_FOLD_FROM = datetime.timedelta(hours=1)
# The most rows and columns the grid stylesheet (sessions/grid_rows.css) places: 25 hours, the
# longest day, and a time column plus the whole venue plus 298 rooms (a 10,000-session festival has
# 278; beyond the last class a block loses its column). Rules a column: 10 KB more, cached a day.
GRID_MOST_ROWS = 25 * 60 // GRID_MINUTES
GRID_MOST_COLUMNS = 300


@dataclass
class GridBlock:
    """A session in the grid: its column (the time column is 1), first row and rows spanned."""

    session: Session
    column: int
    row: int
    span: int


@dataclass
class GridTime:
    """A start time, its row, and the blocks starting then (left to right)."""

    starts_at: datetime.datetime
    row: int
    blocks: list[GridBlock] = field(default_factory=list)
    kind: ClassVar[str] = "time"


@dataclass
class GridTick:
    """A half hour on the time axis where no session starts: a label, nothing else."""

    at: datetime.datetime
    row: int
    kind: ClassVar[str] = "tick"


@dataclass
class GridGap:
    """An hour or more with no session anywhere, folded into a band of ``span`` rows (1 to 3,
    so that the rows after it still start on the quarter hour)."""

    starts_at: datetime.datetime
    ends_at: datetime.datetime
    row: int
    span: int
    kind: ClassVar[str] = "gap"


@dataclass
class Grid:
    """One day's grid. ``columns``: the rooms across, after the time column; the header and the
    body both lay out exactly these (``rooms_class``), so a block stands under its room's name."""

    columns: list[Room | None]
    times: list[GridTime]
    rows: int
    # Start times, half-hour ticks and folded gaps, by time: the order the page lists them in.
    axis: list[GridTime | GridTick | GridGap] = field(default_factory=list)

    @property
    def headings(self) -> list[tuple[int, Room | None]]:
        """(grid column, room) of each room heading: the time column is column 1."""
        return [(index + 2, room) for index, room in enumerate(self.columns)]

    @property
    def rooms_class(self) -> str:
        """The class giving the header and the body their columns: the time column, then one
        per room (sessions/grid_rows.css). Explicit, so an empty last column cannot go missing
        from the body and shift every block under its neighbour's heading."""
        return f"rooms{len(self.columns)}"

    @property
    def width(self) -> int:
        """Grid columns across, the time column included: what a band across the grid spans."""
        return len(self.columns) + 1

    @property
    def gaps(self) -> list[GridGap]:
        return [item for item in self.axis if item.kind == "gap"]

    @property
    def ticks(self) -> list[GridTick]:
        return [item for item in self.axis if item.kind == "tick"]


def grid_row(instant: datetime.datetime, origin: datetime.datetime) -> int:
    """The 5-minute row an instant falls on, counted from 1 at ``origin`` (rounded to the nearest)."""
    return round((instant - origin) / GRID_SLOT) + 1


def quiet_stretches(
    sessions: list[Session],
) -> list[tuple[datetime.datetime, datetime.datetime]]:
    """(start, end) of each stretch of GRID_FOLD_FROM or more in which no session runs."""
    stretches = []
    covered_until = None
    for session in sorted(sessions, key=lambda session: session.starts_at):
        if covered_until is not None and session.starts_at - covered_until >= GRID_FOLD_FROM:
            stretches.append((covered_until, session.starts_at))
        if covered_until is None or session.ends_at > covered_until:
            covered_until = session.ends_at
    return stretches


class FoldedRows:
    """Rows of real time from ``origin``, but for quiet stretches, each folded into 1 to 3 rows:
    as many as keep the rows removed a multiple of 3, so quarter hours stay on the grid's lines."""

    def __init__(self, origin: datetime.datetime, stretches) -> None:
        self.origin = origin
        self.folds = []  # (start, end, rows kept, rows removed before its end)
        removed = 0
        for start, end in stretches:
            real = grid_row(end, origin) - grid_row(start, origin)
            kept = (real - 1) % 3 + 1
            removed += real - kept
            self.folds.append((start, end, kept, removed))

    def row(self, instant: datetime.datetime) -> int:
        """The row of an instant outside the quiet stretches (or at their start)."""
        removed = 0
        for _start, end, _kept, removed_by_end in self.folds:
            if end > instant:
                break
            removed = removed_by_end
        return grid_row(instant, self.origin) - removed

    def gaps(self) -> list[GridGap]:
        return [
            GridGap(starts_at=start, ends_at=end, row=self.row(start), span=kept)
            for start, end, kept, _removed in self.folds
        ]

    def folded(self, instant: datetime.datetime) -> bool:
        return any(start <= instant < end for start, end, _kept, _removed in self.folds)


def half_hours(
    first: datetime.datetime, last: datetime.datetime, zone: datetime.tzinfo
) -> list[datetime.datetime]:
    """Every half hour on ``zone``'s clocks from ``first`` until before ``last``."""
    local = timezone.localtime(first, zone)
    past = datetime.timedelta(minutes=local.minute % 30, seconds=local.second)
    at = first - past + HALF_HOUR if past else first
    marks = []
    while at < last:
        marks.append(at)
        at += HALF_HOUR
    return marks


def build_grid(sessions: list[Session], rooms: list[Room]) -> Grid:
    """One day as rooms × 5-minute rows; each session a block as tall as it is long.

    Rows count real time from the first start (rounded down to the quarter hour), so a 20-minute
    talk is twice as tall as a 10-minute one; an hour or more with no session anywhere folds into
    one marked band (GridGap). The time axis labels each start time and every half hour between
    (in the active zone).

    Columns are the ``rooms`` (in their order) that hold a session of ``sessions``, as Sched
    lays out a day: a room with nothing that day (a workshop room used only on the first day),
    or nothing the filters let through, would be an empty column narrowing every other and
    pushing the day off a laptop's screen. Sessions without a room (venue-wide breaks) get a
    first column of their own when present. Overlapping sessions in one room cannot exist (the
    model forbids it) except cancelled ones; those are skipped here and still shown in the list
    view.
    """
    used = {session.room_id for session in sessions}
    columns: list[Room | None] = [room for room in rooms if room.pk in used]
    if None in used:
        columns.insert(0, None)
    if not sessions:
        return Grid(columns=columns, times=[], rows=0)
    column_of = {room.pk if room else None: index + 2 for index, room in enumerate(columns)}
    placed = [session for session in sessions if session.room_id in column_of]
    if not placed:
        return Grid(columns=columns, times=[], rows=0)
    first = min(session.starts_at for session in placed)
    # Row 1 starts on the quarter hour, so the grid's quarter-hour lines fall on the clock's.
    origin = first - (first - first.replace(minute=0, second=0, microsecond=0)) % QUARTER_HOUR
    rows = FoldedRows(origin, quiet_stretches(placed))
    times: dict[datetime.datetime, GridTime] = {}
    taken: dict[int, set[int]] = {}
    last_row = 1
    for session in placed:
        column = column_of[session.room_id]
        row = rows.row(session.starts_at)
        span = max(rows.row(session.ends_at) - row, 1)
        cells = set(range(row, row + span))
        if cells & taken.setdefault(column, set()):
            continue
        taken[column] |= cells
        slot = times.setdefault(session.starts_at, GridTime(starts_at=session.starts_at, row=row))
        slot.blocks.append(GridBlock(session=session, column=column, row=row, span=span))
        last_row = max(last_row, row + span - 1)
    ordered = sorted(times.values(), key=lambda time: time.starts_at)
    for time in ordered:
        time.blocks.sort(key=lambda block: block.column)
    last = max(session.ends_at for session in placed)
    start_rows = {time.row for time in ordered}
    ticks = [
        GridTick(at=at, row=rows.row(at))
        for at in half_hours(origin, last, timezone.get_current_timezone())
        if not rows.folded(at) and rows.row(at) not in start_rows
    ]
    moments = [(time.starts_at, 1, time) for time in ordered]
    moments += [(tick.at, 0, tick) for tick in ticks]
    moments += [(gap.starts_at, 0, gap) for gap in rows.gaps()]
    axis = [item for _at, _order, item in sorted(moments, key=lambda moment: moment[:2])]
    return Grid(columns=columns, times=ordered, rows=last_row, axis=axis)


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

    The whole venue's next session is shown only when it is later the same conference day (on
    ``zone``'s clocks): tomorrow's lunch announced above tomorrow's first talks would read as
    coming first, while a midnight snack at 00:30 is tonight's when days change at 04:00.
    """

    moment: datetime.datetime
    rooms: list[NowAndNext]
    venue: NowAndNext
    conference: Conference
    zone: datetime.tzinfo

    @property
    def venue_today(self) -> NowAndNext:
        today = self.conference.day_of(self.moment, self.zone)
        up_next = [
            s for s in self.venue.up_next if self.conference.day_of(s.starts_at, self.zone) == today
        ]
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
    sessions: list[Session],
    rooms: list[Room],
    moment: datetime.datetime,
    conference: Conference,
    zone: datetime.tzinfo,
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

    entries = [now_and_next(room) for room in rooms]
    return NowBoard(
        moment=moment,
        rooms=rooms_of_the_day(entries, moment, conference, zone),
        venue=now_and_next(None),
        conference=conference,
        zone=zone,
    )


def rooms_of_the_day(
    entries: list["NowAndNext"],
    moment: datetime.datetime,
    conference: Conference,
    zone: datetime.tzinfo,
) -> list["NowAndNext"]:
    """The rooms a now board lists: those with a session running, or coming later on the
    board's day. That day is today while some room still has a session today; after the day's
    last session, the next day with sessions (an evening's board shows tomorrow's rooms). A
    room used only on other days would only say “Nothing now”."""

    def day_of(session: Session) -> datetime.date:
        return conference.day_of(session.starts_at, zone)

    today = conference.day_of(moment, zone)
    coming = sorted(day_of(s) for entry in entries for s in entry.up_next if day_of(s) >= today)
    running = any(entry.running for entry in entries)
    board_day = today if running or today in coming else (coming[0] if coming else today)
    return [
        entry
        for entry in entries
        if entry.running or any(day_of(s) == board_day for s in entry.up_next)
    ]


@dataclass
class DoorSign:
    """A room's door sign at ``moment``: now, next, and the rest of ``day`` (a conference day)."""

    moment: datetime.datetime
    day: datetime.date | None
    running: list[Session]
    up_next: list[Session]
    later: list[Session]


def build_door_sign(
    sessions: list[Session],
    moment: datetime.datetime,
    conference: Conference,
    zone: datetime.tzinfo,
) -> DoorSign:
    """From ``rest_of_day(moment)``, ordered by start. Cancelled sessions are only listed later,
    marked as such: the room is free then. Its day is the conference day on ``zone``'s clocks:
    a session at 00:30 is still “later today” at 23:00 when days change at 04:00."""
    running, up_next = happening_now_and_next(sessions, moment)
    shown = {session.pk for session in running + up_next}
    after = up_next[0].starts_at if up_next else moment
    later = [
        session for session in sessions if session.pk not in shown and session.starts_at >= after
    ]
    first = moment if running else (up_next[0].starts_at if up_next else None)
    day = conference.day_of(first, zone) if first else None
    return DoorSign(moment=moment, day=day, running=running, up_next=up_next, later=later)

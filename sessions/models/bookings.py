"""Bookings of rooms and speakers stay consistent under concurrent writers: each writer locks
what it books, and a writer that moves many sessions at once checks the rooms when it is done."""

import contextvars
from collections.abc import Iterator
from contextlib import contextmanager

from django.db import models, transaction

from conference.models import Conference, Room
from speakers.models import Speaker

# PostgreSQL's exclusion constraint on room bookings (migrations 0003 and 0008).
ROOM_BOOKING_CONSTRAINT = "session_room_not_double_booked"


@contextmanager
def room_bookings_checked_at_end() -> Iterator[None]:
    """Let the rows written in this block overlap in a room until it ends, then check them all.

    On PostgreSQL an exclusion constraint (migrations 0003, 0008) refuses each overlapping row as
    it is written; a writer that moves several sessions at once, like an import swapping two
    talks' slots, passes through such states. Its rows must each pass full_clean() (which sees
    the final slots); the constraint checks them once more when the block ends without error.
    Use inside a transaction; on SQLite, which has no such constraint, this does nothing.
    """
    connection = transaction.get_connection()
    if connection.vendor != "postgresql":
        yield
        return
    with connection.cursor() as cursor:
        cursor.execute(f"SET CONSTRAINTS {ROOM_BOOKING_CONSTRAINT} DEFERRED")
    yield
    # Back to immediate: PostgreSQL checks the deferred rows now (after an error, the
    # transaction is rolled back instead, which undoes the deferral too).
    with connection.cursor() as cursor:
        cursor.execute(f"SET CONSTRAINTS {ROOM_BOOKING_CONSTRAINT} IMMEDIATE")


def lock_while_saving(model: type[models.Model], pk: int) -> None:
    """Serialize bookings of one room or speaker: lock its row until the transaction ends.

    Two organizers saving overlapping sessions at once would otherwise both pass the clash
    check. Inside a transaction (the admin, the API and the importer all write in one) the second
    waits here, then sees the first's session and gets the usual clear message. Outside one
    there is nothing to hold a lock; SQLite, which serializes writers anyway, ignores it.
    """
    if (model, pk) in _locked_in_bulk.get():
        return  # locked already, with all its conference's rooms or speakers (locking_all())
    if transaction.get_connection().in_atomic_block:
        list(model.objects.select_for_update().filter(pk=pk).values_list("pk", flat=True))


# Rooms and speakers locked at once by locking_all(), which lock_while_saving() need not lock again.
_locked_in_bulk: contextvars.ContextVar[set | frozenset] = contextvars.ContextVar(
    "locked_in_bulk", default=frozenset()
)


@contextmanager
def locking_all(conference: Conference) -> Iterator[set]:
    """Lock every room and speaker of ``conference`` now, for a writer booking many of them.

    The importer checks hundreds of bookings in one transaction: two queries here instead of
    one lock per session and speaker. Rooms and speakers it creates meanwhile are new rows of
    its own transaction, which no one else can book until it commits: it adds them to the set
    this yields, ``(model, pk)`` pairs. Must run inside a transaction.
    """
    locked = {
        (model, pk)
        for model, queryset in ((Room, conference.rooms), (Speaker, conference.speakers))
        for pk in queryset.select_for_update().values_list("pk", flat=True)
    }
    token = _locked_in_bulk.set(locked)
    try:
        yield locked
    finally:
        _locked_in_bulk.reset(token)

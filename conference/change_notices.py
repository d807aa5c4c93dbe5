"""Which conferences changed, as PostgreSQL tells each worker: the anonymous early path's check
without a query.

An anonymous visitor's repeated request is answered from the worker's copy once one query
finds the conference unchanged (``conference.page_cache.early_response``). On PostgreSQL that
query is a round trip to the server, half of what such an answer costs under load. Instead, a
trigger (migration conference 0008) sends a notification on the channel ``conference_changed``
whenever a conference row is updated or deleted, and each worker's connection LISTENs to it:
once a query run while listening found a conference unchanged, later requests take that as
still true until a notification about it arrives, for at most ``TRUSTED_FOR`` seconds (a
notification lost with a dropped connection costs no more than that). A notification reaches
every listening connection when the writing transaction commits; the next request's check reads
it from the socket without waiting.

It needs persistent connections (``CONN_MAX_AGE`` above 0, as ``make run`` and docs/deploy.md
set it). Nothing is trusted inside a transaction (notifications wait for its end: the test suite's
requests always query), on a connection that is not listening yet, on another database, or
behind a pooler in transaction mode (PgBouncer), where a LISTEN does not stay with the worker's
connection: Django's ``DISABLE_SERVER_SIDE_CURSORS``, set for such poolers, turns this off.
"""

from __future__ import annotations

import datetime
import time
from dataclasses import dataclass, field

from django.db import connections

CHANNEL = "conference_changed"
# The longest a confirmation stands without a query: bounds what a lost notification can cost.
TRUSTED_FOR = 1.0  # seconds


@dataclass
class Notices:
    """What one database connection (its driver's connection ``listening_on``) was told."""

    listening_on: object
    # By conference id: the changed_at a query found while listening, and when.
    confirmed: dict[int, tuple[datetime.datetime, float]] = field(default_factory=dict)


def vouch_for(using: str, conference_pk: int, changed_at: datetime.datetime) -> bool:
    """Whether ``conference_pk`` is known, without a query, to still have ``changed_at``."""
    notices = listening_notices(using)
    if notices is None:
        return False
    connection = connections[using]
    try:
        for notice in notices.listening_on.notifies(timeout=0):
            forget(notices, notice.payload)
    except connection.Database.Error:  # it broke: the next query finds out, and reconnects
        connection.conference_notices = None
        return False
    confirmed = notices.confirmed.get(conference_pk)
    return (
        confirmed is not None
        and confirmed[0] == changed_at
        and time.monotonic() - confirmed[1] < TRUSTED_FOR
    )


def confirm(using: str, conference_pk: int, changed_at: datetime.datetime) -> None:
    """A query just found ``conference_pk`` with ``changed_at``: trusted from now on if the
    connection was already listening when it ran; else it starts listening (the next query's
    finding will be trusted)."""
    connection = connections[using]
    if (
        connection.vendor != "postgresql"
        or connection.in_atomic_block
        or connection.settings_dict.get("DISABLE_SERVER_SIDE_CURSORS")
        # Closed at the end of each request (Django's default): listening would cost a query
        # and serve no later request.
        or connection.settings_dict.get("CONN_MAX_AGE") == 0
    ):
        return
    notices = listening_notices(using)
    if notices is not None:
        notices.confirmed[conference_pk] = (changed_at, time.monotonic())
        return
    with connection.cursor() as cursor:
        cursor.execute(f"LISTEN {CHANNEL}")
    connection.conference_notices = Notices(listening_on=connection.connection)


def listening_notices(using: str) -> Notices | None:
    """The notices of this thread's connection, if it is open, listening and outside a
    transaction."""
    connection = connections[using]
    notices = getattr(connection, "conference_notices", None)
    if (
        notices is None
        or connection.connection is None
        or notices.listening_on is not connection.connection  # a new connection since
        or connection.in_atomic_block
    ):
        return None
    return notices


def forget(notices: Notices, payload: str) -> None:
    try:
        notices.confirmed.pop(int(payload), None)
    except ValueError:  # not one conference's id: forget them all
        notices.confirmed.clear()

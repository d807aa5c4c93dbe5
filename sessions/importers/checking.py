"""A check (a dry run) on SQLite runs on a copy of the database: it never takes the write lock.

The writer checks a file by writing it, every row through full_clean() and save(), and rolling
back (writer.py). SQLite has one writer at a time: on the live file a check of thousands of
sessions would hold the write lock for its whole length, and every other write (an attendee
logging in) would wait behind it, then fail past its timeout. So on SQLite the check writes into
a copy made just now with SQLite's online backup, a read, which in WAL mode waits for no writer;
what the check finds is what an import of the file finds, unless the data changes meanwhile, and
the import checks everything again anyway. PostgreSQL's writers lock only the rows they write:
there the check runs in place.

Inside a transaction already open (a test, an organizer's own atomic block) the check runs in
place too: the copy would not see that transaction's writes.
"""

import sqlite3
import tempfile
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path

from django.db import DEFAULT_DB_ALIAS, connections


@contextmanager
def on_a_copy_of_sqlite() -> Iterator[bool]:
    """Within, this thread's default database is a copy of the live SQLite file, if it is one;
    whether it is a copy."""
    live = connections[DEFAULT_DB_ALIAS]
    if live.vendor != "sqlite" or live.in_atomic_block or live.is_in_memory_db():
        yield False
        return
    with tempfile.TemporaryDirectory(prefix="import-check-") as folder:
        path = Path(folder) / "check.sqlite3"
        live.ensure_connection()
        with closing(sqlite3.connect(path)) as copy:
            live.connection.backup(copy)
        checking = type(live)({**live.settings_dict, "NAME": str(path)}, DEFAULT_DB_ALIAS)
        # This thread's connection only (Django keeps one per thread): others keep the live one.
        connections[DEFAULT_DB_ALIAS] = checking
        try:
            yield True
        finally:
            checking.close()
            connections[DEFAULT_DB_ALIAS] = live

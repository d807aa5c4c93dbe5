"""Queries compiled once per process, for the lookups every logged-in page makes, and read
ahead together when the same request comes again.

Django compiles a queryset's SQL each time it runs it: for a one-row lookup about 0.15 ms,
where SQLite answers in 0.02 ms. A logged-in visitor's cached page makes four such lookups
(their session and account, the conference, the sessions they saved) and little else, so
compiling was most of its cost. ``CompiledQuery`` keeps the SQL the ORM compiled for a
queryset built from example values, and runs it with others: the queryset stays the one place
that says what is looked up (``Conference.objects.visible_to``, ``SavedSession.objects.of``).

On PostgreSQL each lookup is also a round trip to the server. ``ReadAheadMiddleware``
remembers which compiled lookups a logged-in visitor's request made; when the same request
comes again, they are sent together as one query before the middleware and the view run, and
each lookup takes its rows from there when it asks. The rows are read for this request, so
nothing is ever stale; a lookup that was not foreseen runs as usual, and one foreseen but not
made costs a few rows read for nothing. It also leaves on the request a record of what was
read (``Record``): the lookups with their rows, and whether anything else was queried. The early
path of logged-in pages (conference.page_cache) answers a repeated request when the same lookups
read the same rows again (``read_again``).

Speed: a logged-in schedule at N=1,000 costs about 0.5 ms less in-process, and on PostgreSQL
makes one round trip instead of four (bench/README.md, Throughput).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, DatabaseError, connections
from django.db.models import Model, QuerySet
from django.http import HttpRequest, HttpResponse

T = TypeVar("T")
K = TypeVar("K")
V = TypeVar("V")


def as_health_check(using: str, lookup: Callable[[], T]) -> T:
    """Runs a request's first ``lookup`` as its connection's health check too.

    With CONN_HEALTH_CHECKS, Django checks a connection kept from an earlier request with a
    "SELECT 1" before its first query; on PostgreSQL that is a round trip of its own. Here the
    lookup is the check: if the server dropped the connection, the lookup fails, and runs again
    on a new one. Only a lookup that reads and runs outside a transaction may be run twice.
    Speed: a logged-in page on PostgreSQL makes one round trip less (bench/README.md).
    """
    connection = connections[using]
    if (
        connection.connection is None
        or connection.health_check_done
        or not connection.health_check_enabled
        or connection.in_atomic_block
    ):
        return lookup()
    connection.health_check_done = True
    try:
        return lookup()
    except DatabaseError:
        connection.close()  # the next query connects anew
    return lookup()


class CompiledQuery:
    """A queryset's SQL, compiled on first use per database, run with new values.

    ``build(**examples)`` makes the queryset; each example value must reach the SQL as a
    parameter of its own, unchanged (a string or a number: not a date, which the database's
    adapter would rewrite), and no other parameter may equal one.
    """

    def __init__(self, build: Callable[..., QuerySet], **examples: str | int):
        self.build = build
        self.examples = examples
        self.compiled: dict[str, Compiled] = {}

    def sql(self, using: str = "default", **values) -> tuple[str, list]:
        """The SQL and its parameters for ``values`` (named as the examples were)."""
        compiled = self.compiled_for(using)
        params = [
            values[name] if name is not None else constant
            for name, constant in zip(compiled.names, compiled.constants, strict=True)
        ]
        return compiled.sql, params

    def compiled_for(self, using: str) -> Compiled:
        compiled = self.compiled.get(using)
        if compiled is None:
            compiled = self.compiled[using] = self.compile(using)
        return compiled

    def compile(self, using: str) -> Compiled:
        compiler = self.build(**self.examples).query.get_compiler(using)
        sql, params = compiler.as_sql()
        by_value = {value: name for name, value in self.examples.items()}
        names = [by_value.get(param) if isinstance(param, str | int) else None for param in params]
        missing = set(self.examples) - set(names)
        if missing:
            raise ValueError(f"{sorted(missing)} did not reach the SQL as parameters: {sql}")
        # As the ORM reads a row of this query (ModelIterable): each column's converters, and
        # which model field each selected column fills.
        columns = [expression for expression, _sql, _alias in compiler.select]
        converters = compiler.get_converters(columns)
        klass_info = compiler.klass_info or {}
        attnames = [columns[index].target.attname for index in klass_info.get("select_fields", ())]
        return Compiled(sql, names, list(params), converters, attnames)

    def rows(self, using: str = "default", **values) -> list[tuple]:
        """The rows for ``values``: read ahead for this request (ReadAheadMiddleware), or
        read now."""
        lookup = (self, using, tuple(sorted(values.items())))
        read = rows_read_ahead.get()
        if read is not None and lookup in read:
            rows = read.pop(lookup)  # once, as the query would have run once
        else:
            rows = self.rows_now(using, values)
        if (record := current_record.get()) is not None:
            record.reads.append((lookup, rows))
        return rows

    def rows_now(self, using: str, values: dict[str, Any]) -> list[tuple]:
        with running_compiled(), connections[using].cursor() as cursor:
            cursor.execute(*self.sql(using, **values))
            return cursor.fetchall()

    def first(self, model: type[Model], using: str = "default", **values) -> Model | None:
        """The first row as a ``model`` instance (fields converted as the ORM does), or None.

        Speed: building it as Django's ModelIterable does, with converters found once, costs a
        third of what a raw() query's instance did."""
        compiled = self.compiled_for(using)
        rows = self.rows(using, **values)
        if not rows:
            return None
        row = rows[0]
        if compiled.converters:  # as SQLCompiler.apply_converters, with this thread's connection
            row = list(row)
            for position, (converters, expression) in compiled.converters.items():
                for converter in converters:
                    row[position] = converter(row[position], expression, connections[using])
        return model.from_db(using, compiled.attnames, row[: len(compiled.attnames)])


@dataclass
class Compiled:
    sql: str
    names: list[str | None]  # each parameter's example name, None for a constant
    constants: list[Any]
    converters: dict
    attnames: list[str]


# Read ahead: a logged-in visitor's repeated request ---------------------------------------------

# A compiled query, the database it runs on, and its values (sorted by name).
Lookup = tuple[CompiledQuery, str, tuple[tuple[str, Any], ...]]


@dataclass
class Record:
    """What a request read: each compiled lookup with its rows, in order, and how many other
    queries it made (``other_queries``: none means the lookups were all it read)."""

    reads: list[tuple[Lookup, list[tuple]]] = field(default_factory=list)
    other_queries: int = 0

    @property
    def lookups(self) -> list[Lookup]:
        return [lookup for lookup, _rows in self.reads]


# While a request is recorded: what it reads. While it runs: the rows read ahead for it.
current_record: ContextVar[Record | None] = ContextVar("current_record", default=None)
rows_read_ahead: ContextVar[dict[Lookup, list[tuple]] | None] = ContextVar(
    "rows_read_ahead", default=None
)
# True while compiled lookups run: the queries a record does not count as others.
compiled_running: ContextVar[bool] = ContextVar("compiled_running", default=False)


@contextmanager
def running_compiled() -> Iterator[None]:
    token = compiled_running.set(True)
    try:
        yield
    finally:
        compiled_running.reset(token)


# Requests remembered by ReadAheadMiddleware (a few lookups each).
READ_AHEAD_REQUESTS_KEPT = 5_000


def can_read_ahead(using: str) -> bool:
    """Whether lookups on this database can be sent together, as one query of several
    statements: on PostgreSQL, whose client-side binding cursors (Django's default) send it as
    one message. Elsewhere (SQLite, in the process) there is nothing to gain."""
    connection = connections[using]
    return connection.vendor == "postgresql" and not connection.settings_dict["OPTIONS"].get(
        "server_side_binding"
    )


@contextmanager
def reading_ahead(using: str, lookups: Sequence[Lookup]) -> Iterator[None]:
    """Runs those of ``lookups`` made on database ``using`` together, in one round trip, and
    lets each lookup made inside this block that is one of them take its rows from there."""
    ahead = list(dict.fromkeys(lookup for lookup in lookups if lookup[1] == using))
    token = rows_read_ahead.set(dict(zip(ahead, read_again(ahead), strict=True)))
    try:
        yield
    finally:
        rows_read_ahead.reset(token)


def run_together(using: str, statements: Sequence[tuple[str, list]]) -> list[list[tuple]]:
    """The rows of each statement, sent as one query and answered in one round trip."""
    with running_compiled(), connections[using].cursor() as cursor:
        cursor.execute(
            "; ".join(sql for sql, _params in statements),
            [param for _sql, params in statements for param in params],
        )
        results = [cursor.fetchall()]
        while cursor.nextset():
            results.append(cursor.fetchall())
    return results


def read_again(lookups: Sequence[Lookup]) -> list[list[tuple]]:
    """The rows of ``lookups`` now (all on one database): together in one round trip where the
    database can (``can_read_ahead``), else one by one. The first query of a request."""
    using = lookups[0][1]

    def read() -> list[list[tuple]]:
        if can_read_ahead(using):
            statements = [query.sql(using, **dict(values)) for query, _using, values in lookups]
            return run_together(using, statements)
        return [query.rows_now(using, dict(values)) for query, _using, values in lookups]

    return as_health_check(using, read)


@contextmanager
def recording() -> Iterator[Record]:
    """What is read inside this block: the compiled lookups with their rows, and how many other
    queries ran on the default database."""
    record = Record()

    def count_others(execute, sql, params, many, context):
        if not compiled_running.get():
            record.other_queries += 1
        return execute(sql, params, many, context)

    token = current_record.set(record)
    try:
        with connections[DEFAULT_DB_ALIAS].execute_wrapper(count_others):
            yield record
    finally:
        current_record.reset(token)


class Remembered(Generic[K, V]):
    """At most ``max_entries`` values by key, the least recently set going first; shared by a
    worker's threads."""

    def __init__(self, max_entries: int):
        self.max_entries = max_entries
        self.entries: OrderedDict[K, V] = OrderedDict()
        self.lock = threading.Lock()

    def get(self, key: K) -> V | None:
        with self.lock:
            return self.entries.get(key)

    def set(self, key: K, value: V) -> None:
        with self.lock:
            self.entries[key] = value
            self.entries.move_to_end(key)
            if len(self.entries) > self.max_entries:
                self.entries.popitem(last=False)

    def forget(self, key: K) -> None:
        with self.lock:
            self.entries.pop(key, None)

    def clear(self) -> None:
        with self.lock:
            self.entries.clear()


read_ahead_requests: Remembered[tuple, list[Lookup]] = Remembered(READ_AHEAD_REQUESTS_KEPT)


class ReadAheadMiddleware:
    """Records what a logged-in visitor's request reads, and reads it ahead, together, when
    they repeat the request.

    A request with a session cookie (the visitor's, so their session, account and saved
    sessions are the same rows as last time) for the same address makes the same lookups as
    the last one did, usually: on PostgreSQL those are read before sessions, authentication
    and the view ask for them. Placed before SessionMiddleware, whose lookup comes first. The
    record is left on the request (``compiled_record``) for the early path of logged-in pages
    (conference.page_cache.EarlyPersonalPageMiddleware), which runs these lookups again instead
    of the request.
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        signature = read_ahead_signature(request)
        if signature is None:
            return self.get_response(request)
        foreseen = read_ahead_requests.get(signature) if can_read_ahead(DEFAULT_DB_ALIAS) else None
        with recording() as record:
            if foreseen:
                with reading_ahead(DEFAULT_DB_ALIAS, foreseen):
                    response = self.get_response(request)
            else:
                response = self.get_response(request)
        request.compiled_record = record
        if record.reads and can_read_ahead(DEFAULT_DB_ALIAS):  # the next one foresees them
            read_ahead_requests.set(signature, record.lookups)
        return response


def read_ahead_signature(request: HttpRequest) -> tuple | None:
    """What names a request's lookups: its address and the visitor's session (None when it has
    none)."""
    session_key = request.COOKIES.get(settings.SESSION_COOKIE_NAME)
    if request.method not in ("GET", "HEAD") or not session_key:
        return None
    return (
        request.path,
        request.META.get("QUERY_STRING", ""),
        session_key,
        "HTTP_HX_REQUEST" in request.META,
    )

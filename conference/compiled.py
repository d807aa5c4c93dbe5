"""Queries compiled once per process, for the lookups every logged-in page makes.

Django compiles a queryset's SQL each time it runs it: for a one-row lookup about 0.15 ms,
where SQLite answers in 0.02 ms. A logged-in visitor's cached page makes four such lookups
(their session and account, the conference, the sessions they saved) and little else, so
compiling was most of its cost. ``CompiledQuery`` keeps the SQL the ORM compiled for a
queryset built from example values, and runs it with others: the queryset stays the one place
that says what is looked up (``Conference.objects.visible_to``, ``SavedSession.objects.of``).

Speed: a logged-in schedule at N=1,000 costs about 0.5 ms less in-process (bench/README.md,
Throughput).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from django.db import DatabaseError, connections
from django.db.models import Model, QuerySet

T = TypeVar("T")


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
        with connections[using].cursor() as cursor:
            cursor.execute(*self.sql(using, **values))
            return cursor.fetchall()

    def first(self, model: type[Model], using: str = "default", **values) -> Model | None:
        """The first row as a ``model`` instance (fields converted as the ORM does), or None.

        Speed: building it as Django's ModelIterable does, with converters found once, costs a
        third of what a raw() query's instance did."""
        compiled = self.compiled_for(using)
        with connections[using].cursor() as cursor:
            cursor.execute(*self.sql(using, **values))
            row = cursor.fetchone()
        if row is None:
            return None
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

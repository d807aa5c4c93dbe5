"""Related rows read as exports read them: only the loaded columns, grouped by their owner."""

from collections import defaultdict

from django.db.models import QuerySet


def loaded_columns(queryset: QuerySet) -> list[str]:
    """The columns ``queryset`` loads, as only() or defer() left them, its primary key first."""
    names, deferred = queryset.query.deferred_loading
    return [
        field.attname
        for field in queryset.model._meta.concrete_fields
        if field.primary_key or ((field.name in names or field.attname in names) != deferred)
    ]


def grouped_rows(rows: QuerySet, owner: str = "session_id") -> dict[int, list[tuple]]:
    """Every row of ``rows`` as a named tuple of its columns, by its owner, in the order exports
    list them: for links, of which the exports read columns only.

    A tuple instead of a model object and its four dictionaries: an export holds a link row
    per link of every session, and each dictionary is one more object for the garbage
    collector to go through.
    """
    groups = defaultdict(list)
    columns = loaded_columns(rows)
    for row in rows.order_by(owner, "position", "pk").values_list(*columns, named=True):
        groups[getattr(row, owner)].append(row)
    return groups

"""The version of a conference's public content (``Conference.changed_at``) moved by bulk
writes, which send no signals: ``ChangesConferenceQuerySet``, the QuerySet of every model whose
rows its pages and exports show (rooms, tracks, sessions, speakers and their parts)."""

import contextvars
from collections.abc import Iterable

from django.db import models, transaction

# While a bulk writer (the schedule importer) marks its conference changed once, at the end
# (``Conference.changes_marked_at_end``): a list that holds True once something asked to mark it.
deferred_marks: contextvars.ContextVar[list | None] = contextvars.ContextVar(
    "changes_marked_at_end", default=None
)

# Fields every write moves that no page shows: an update of these alone changes no content.
BOOKKEEPING_FIELDS = frozenset({"version", "updated_at"})


class ChangesConferenceQuerySet(models.QuerySet):
    """Rows whose writes change what their conference's pages and exports show.

    ``save()`` and ``delete()`` move ``Conference.changed_at`` through signals (conference/,
    sessions/ and speakers/signals.py); bulk writes send none, so these move it themselves, in
    the same transaction as the write: ``update()``, and so ``bulk_update()`` (which Django runs
    as ``update()``), and ``bulk_create()``. A queryset's ``delete()`` sends ``post_delete`` for
    each row (Django does not fast-delete rows that have receivers), so the signals move it.
    Inside ``changes_marked_at_end`` the mark waits for the end of the block, as a signal's does.
    """

    # The lookup from a row to its conference: its first step is a foreign key.
    conference_path = "conference"
    # Fields no page or export shows (a speaker's ``talks_seen_at``): writing only these, and
    # BOOKKEEPING_FIELDS, leaves changed_at where it is.
    unpublished_fields: frozenset[str] = frozenset()

    def shows(self, fields: Iterable[str]) -> bool:
        return not set(fields) <= BOOKKEEPING_FIELDS | self.unpublished_fields

    def update(self, **values):
        if not self.shows(values) or mark_deferred():
            return super().update(**values)
        rows = self.order_by()
        with transaction.atomic(using=self.db, savepoint=False):
            if self.parent_field.name in values:  # rows moved: the old and the new conferences
                pks = list(rows.values_list("pk", flat=True))
                conferences = self.conferences_of_rows(pks)
                count = super().update(**values)
                conferences |= self.conferences_of_rows(pks)
            else:
                conferences = set(rows.values_list(self.conference_path, flat=True).distinct())
                count = super().update(**values)
            conferences.discard(None)
            if conferences:
                self.conference_model.objects.filter(pk__in=conferences).mark_changed()
        return count

    def bulk_create(self, objs, *args, **kwargs):
        with transaction.atomic(using=self.db, savepoint=False):
            created = super().bulk_create(objs, *args, **kwargs)
            self.parents_changed(created)
        return created

    @property
    def conference_model(self) -> type[models.Model]:
        """Conference, found at the end of ``conference_path`` (conference.models imports this
        module, so this module cannot import it)."""
        model = self.model
        for name in self.conference_path.split("__"):
            model = model._meta.get_field(name).related_model
        return model

    @property
    def parent_field(self) -> models.ForeignKey:
        return self.model._meta.get_field(self.conference_path.split("__")[0])

    def conferences_of_rows(self, pks: list) -> set[int]:
        rows = self.model._base_manager.using(self.db).filter(pk__in=pks)
        return set(rows.values_list(self.conference_path, flat=True))

    def parents_changed(self, objs: list) -> None:
        """Mark the conferences of ``objs``' parents (their conference, session or speaker)."""
        field = self.parent_field
        parents = {getattr(obj, field.attname) for obj in objs} - {None}
        if not parents:
            return
        if field.related_model is self.conference_model:
            conferences = self.conference_model.objects.filter(pk__in=parents)
        else:
            rest = self.conference_path.split("__", 1)[1]
            parent_rows = field.related_model._base_manager.using(self.db).filter(pk__in=parents)
            conferences = self.conference_model.objects.filter(pk__in=parent_rows.values(rest))
        conferences.mark_changed()


def mark_deferred() -> bool:
    """Inside ``changes_marked_at_end``, ask for its mark at the end and say so (True): that
    block names its conference, so a bulk write need not look its conferences up."""
    deferred = deferred_marks.get()
    if deferred is not None:
        deferred.append(True)
    return deferred is not None

"""Optimistic concurrency for what organizers edit: sessions, speakers, rooms and tracks.

Each row carries a ``version`` that every write moves on (``save()``, ``delete()`` and
``queryset.update()`` alike). A writer's data is based on the instance's own ``version``: the one
it loaded, or the one a form or an ``If-Match`` header says the user saw, set through
``check_version()``. ``save()`` and ``delete()`` first move the row on from that version with
``UPDATE ... WHERE pk = %s AND version = %s`` and write only if that matched the row, in the same
transaction: of two writers starting from one version exactly one wins, and the other gets
``EditConflictError`` with nothing written.
"""

import dataclasses
import datetime
from dataclasses import dataclass

from django.core.exceptions import FieldDoesNotExist, ValidationError
from django.db import models, router, transaction
from django.db.models import F
from django.utils import timezone
from django.utils.text import capfirst

from conference.i18n.timezones import short_moment


class EditConflictError(ValidationError):
    """A write based on a version of a row that is no longer the stored one.

    A ValidationError, so forms and writers that already report validation problems (the
    importer, a plain form's ``clean()``) report this one too, naming the object.
    """

    def __init__(self, instance: "Versioned", seen_version: int, current_version: int | None):
        self.instance = instance
        self.seen_version = seen_version
        self.current_version = current_version  # None: deleted meanwhile
        kind = instance._meta.verbose_name
        if current_version is None:
            message = f"Someone else deleted this {kind} meanwhile."
        else:
            message = (
                f"Someone else saved this {kind} after the version this change is based on "
                f"(version {seen_version}; it is now at version {current_version})."
            )
        super().__init__(message, code="edit_conflict")

    def current(self) -> "Versioned | None":
        """The row as it is stored now, or None if it was deleted."""
        return type(self.instance)._base_manager.filter(pk=self.instance.pk).first()


@dataclass(frozen=True)
class FieldChange:
    label: str
    loaded: str
    now: str
    name: str = dataclasses.field(default="", compare=False)


@dataclass(frozen=True)
class Overlap:
    """A field both organizers changed, to different values: one of them must choose."""

    name: str
    label: str
    loaded: str
    theirs: str
    mine: str


@dataclass
class MergePlan:
    """How a change based on an older version lays over what was saved since (three_way_merge)."""

    # Their value stays: changed only meanwhile, and once the form applied the organizer's
    # answers (choose_kept()), the overlaps they kept theirs for.
    kept: set[str] = dataclasses.field(default_factory=set)
    overlaps: list[Overlap] = dataclasses.field(default_factory=list)
    # What saving the organizer's page whole (“Save my version anyway”) would undo.
    undone: list[FieldChange] = dataclasses.field(default_factory=list)
    # Changed meanwhile, but not something the organizer's values say (e.g. an inline posted
    # row by row): nothing can tell whether their page keeps or undoes it, so no merge.
    unmerged: list[str] = dataclasses.field(default_factory=list)

    def kept_changes(self) -> list[FieldChange]:
        return [change for change in self.undone if change.name in self.kept]


def three_way_merge(row: "Versioned", loaded: dict[str, str], mine: dict[str, str]) -> MergePlan:
    """Plan how ``mine`` (an organizer's values, as displayed) lays over ``row`` as stored now.

    ``loaded`` is ``displayed_values()`` of the version the organizer started from, ``mine``
    what they want now of the fields they may have changed. Field by field:

    - changed only by the organizer, or by nobody: their value goes through, nothing to plan;
    - changed only meanwhile (``mine`` is still as loaded): theirs stays, in ``kept``;
    - changed by both alike: nothing to plan;
    - changed by both differently: an overlap, for the organizer to choose (``choose_kept()``);
    - changed meanwhile but not in ``mine``: ``unmerged``, as nothing tells who should win;
    - missing from ``loaded``: ``unmerged`` too. Nothing says what the organizer saw, so
      their value cannot count as unchanged, whatever was saved meanwhile.

    What saving ``mine`` whole would undo (``undone``) is every change meanwhile it differs from.
    """
    plan = MergePlan()
    for name, now in row.displayed_values().items():
        if name not in loaded:
            plan.unmerged.append(name)
            continue
        if loaded[name] == now:
            continue  # not changed meanwhile
        if name not in mine:
            plan.unmerged.append(name)
        elif mine[name] != now:
            label = row.field_label(name)
            plan.undone.append(FieldChange(label, loaded[name], now, name))
            if mine[name] == loaded[name]:
                plan.kept.add(name)
            else:
                plan.overlaps.append(Overlap(name, label, loaded[name], now, mine[name]))
    return plan


# An organizer's answer for an overlap, posted as keep_<field> (admin/includes/edit_conflict.html).
THEIRS, MINE = "theirs", "mine"


@dataclass(frozen=True)
class MergeChoice:
    """Whose value a merged save keeps of each field changed meanwhile (``choose_kept()``)."""

    theirs: set[str]  # stays as saved meanwhile
    mine: set[str]  # overlaps the organizer's value replaces
    unresolved: list[Overlap]  # overlaps with no answer yet: nothing may be saved


def choose_kept(plan: MergePlan, choices: dict[str, str | None]) -> MergeChoice:
    """Choose whose value each field changed meanwhile keeps, from the organizer's ``choices``.

    Theirs stays where only they changed it (``plan.kept``) and for each overlap the
    organizer answered THEIRS; the organizer's value replaces theirs where they answered
    MINE. An overlap with neither answer is unresolved: the save waits for one.
    """
    answers = {overlap.name: choices.get(overlap.name) for overlap in plan.overlaps}
    return MergeChoice(
        theirs=plan.kept | {name for name, keep in answers.items() if keep == THEIRS},
        mine={name for name, keep in answers.items() if keep == MINE},
        unresolved=[o for o in plan.overlaps if answers[o.name] not in (THEIRS, MINE)],
    )


class VersionedQuerySet(models.QuerySet):
    def update(self, **values):
        """Every bulk UPDATE moves the rows' versions too, so what was loaded before it is stale.

        Admin actions and any other ``queryset.update()`` go through here without knowing.
        """
        values.setdefault("version", F("version") + 1)
        return super().update(**values)


class ChangeTrackedQuerySet(VersionedQuerySet):
    """Rows whose ``updated_at`` says when an API client last saw them change (docs/api.md, sync)."""

    def changed_since(self, moment: datetime.datetime):
        """Rows changed at or after ``moment``: what a syncing client must fetch again."""
        return self.filter(updated_at__gte=moment)

    def touch(self) -> int:
        """Mark these rows changed for syncing clients, as something shown inside them changed
        (a speaker's name in a session): ``updated_at`` moves, the version does not, so no
        organizer's edit of the row itself is refused for it."""
        return self.update(updated_at=timezone.now(), version=F("version"))


class Versioned(models.Model):
    """A row that refuses writes based on a version other than the stored one (module docstring)."""

    # db_default too: app servers still running the code from before this column (during a rolling
    # deploy, docs/deploy.md) insert rows without it.
    version = models.PositiveIntegerField(
        default=1,
        db_default=1,
        editable=False,
        help_text="Moves on with every write; a change based on an older version is refused.",
    )

    class Meta:
        abstract = True

    def save(self, *args, **kwargs):
        update_fields = kwargs.get("update_fields")
        inserting = self._state.adding or self.pk is None or kwargs.get("force_insert")
        if inserting or (update_fields is not None and not update_fields):
            return super().save(*args, **kwargs)
        seen = self.version
        using = kwargs.get("using") or router.db_for_write(type(self), instance=self)
        # No savepoint: a refused claim changes nothing, and the error is raised outside the block.
        with transaction.atomic(using=using, savepoint=False):
            claimed = self.claim_version(seen, using)
            if claimed:
                self.version = seen + 1
                try:
                    super().save(*args, **kwargs)
                except BaseException:
                    self.version = seen
                    raise
        if not claimed:
            raise EditConflictError(self, seen, self.stored_version())

    def delete(self, *args, **kwargs):
        using = kwargs.get("using") or router.db_for_write(type(self), instance=self)
        with transaction.atomic(using=using):
            if not self.claim_version(self.version, using):
                raise EditConflictError(self, self.version, self.stored_version())
            return super().delete(*args, **kwargs)

    def check_version(self, seen_version: int) -> None:
        """Refuse to go on from ``seen_version`` if the row has moved on since: raise EditConflictError.

        One line for any writer that got the version from a user (a form's hidden field, an
        If-Match header): call it, then ``full_clean()`` and ``save()`` as usual. This check only
        gives an early, clear answer; ``save()`` itself writes only if the row is still at
        ``seen_version``, so a write landing between the two is refused too.
        """
        self.version = seen_version
        current = self.stored_version()
        if current != seen_version:
            raise EditConflictError(self, seen_version, current)

    def stored_version(self) -> int | None:
        return type(self)._base_manager.filter(pk=self.pk).values_list("version", flat=True).first()

    def claim_version(self, seen: int, using: str) -> bool:
        """Move the row from ``seen`` to the next version, in one UPDATE; False if it is not at ``seen``.

        The UPDATE holds the row (PostgreSQL locks it, SQLite the database) until the
        transaction ends, so nobody else writes it between this claim and the save that follows.
        """
        rows = type(self)._base_manager.using(using).filter(pk=self.pk, version=seen)
        return rows.update(version=seen + 1) == 1

    # --- How a conflict is shown: each field as an organizer reads it ---------------------------

    def displayed_values(self) -> dict[str, str]:
        """Each field an organizer edits, as they read it: names, choice labels, local times.

        A form keeps these from when it was opened, so a refused save can show what changed.
        Models add what their change form edits besides their own fields (e.g. speakers).
        """
        return {
            field.name: self.displayed_value(field)
            for field in self._meta.concrete_fields
            if field.editable and not field.primary_key
        }

    def displayed_value(self, field: models.Field) -> str:
        if field.is_relation:
            related = getattr(self, field.name)
            return "" if related is None else str(related)
        value = getattr(self, field.attname)
        if value is None:
            return ""
        if field.choices:
            return str(dict(field.flatchoices).get(value, value))
        if isinstance(value, datetime.datetime):
            return self.local_time(value)
        if isinstance(field, models.FileField):
            return value.name or ""
        # Browsers post a textarea's lines ending in \r\n: a save that changed nothing else must
        # not report the text as changed.
        return str(value).replace("\r\n", "\n")

    def local_time(self, value: datetime.datetime) -> str:
        """“Wed 8 Apr 2026 10:35 CEST”, in the conference's zone."""
        return short_moment(value, self.conference.tz)

    def field_label(self, name: str) -> str:
        try:
            field = self._meta.get_field(name)
        except FieldDoesNotExist:
            return capfirst(name)
        if field.auto_created and not field.concrete:  # a reverse relation, e.g. a speaker's links
            return str(capfirst(field.related_model._meta.verbose_name_plural))
        return str(capfirst(field.verbose_name))

    def changes_since(self, loaded: dict[str, str]) -> list[FieldChange]:
        """What differs between ``loaded`` (``displayed_values()`` of an older version) and now."""
        return [
            FieldChange(self.field_label(name), loaded[name], now, name)
            for name, now in self.displayed_values().items()
            if name in loaded and loaded[name] != now
        ]

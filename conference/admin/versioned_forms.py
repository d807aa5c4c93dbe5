"""The admin's change form for Versioned models: it merges a save into changes made since the
page was opened, or says why it cannot (conference/versioning.py holds the rule)."""

import copy
import json

from django import forms
from django.core.exceptions import NON_FIELD_ERRORS, ValidationError
from django.forms.models import construct_instance
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from conference.versioning import (
    EditConflictError,
    MergeChoice,
    MergePlan,
    Overlap,
    choose_kept,
    three_way_merge,
)


def parse_version(raw: str | None) -> int | None:
    return int(raw) if raw and raw.isascii() and raw.isdigit() and len(raw) <= 18 else None


def parse_displayed_values(raw: str | None) -> dict[str, str]:
    """What ``Versioned.displayed_values()`` gave when the form was opened; {} if unreadable."""
    try:
        values = json.loads(raw or "")
    except ValueError:
        return {}
    if not isinstance(values, dict):
        return {}
    return {name: value for name, value in values.items() if isinstance(value, str)}


class VersionedModelForm(forms.ModelForm):
    """A change form for a Versioned model that merges a save into changes made since it was
    opened, and refuses what it cannot merge (conference/versioning.py).

    It carries the version it was opened at and what it showed then (``loaded_values``). If
    someone saved meanwhile, ``three_way_merge()`` lays this page's changes over theirs: fields
    only they changed keep their value, fields only this page changed take its value, and the
    model's rules (``full_clean()``) judge the merged row. Fields both changed differently are
    refused with both values (``merge.overlaps``, for the admin's edit_conflict.html): the
    organizer picks one per field (``keep_<field>``, valid for the version they were shown,
    ``merge_version``) and saves again. ``overwrite_version`` is the “Save my version anyway”
    box: it names the version the user was shown (and what saving over it undoes,
    ``merge.undone``), so a third save arriving after that is refused again.
    """

    loaded_version = forms.CharField(
        label=gettext_lazy("Loaded version"), widget=forms.HiddenInput, required=False
    )
    loaded_values = forms.CharField(
        label=gettext_lazy("Loaded values"), widget=forms.HiddenInput, required=False
    )
    overwrite_version = forms.CharField(widget=forms.HiddenInput, required=False)
    version_fields = ("loaded_version", "loaded_values", "overwrite_version")
    # Inlines by the displayed value they edit ({"speakers": "session_speakers"}).
    related_formsets: dict[str, str] = {}

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.edit_conflict: EditConflictError | None = None
        self.changed_meanwhile = []
        self.merge: MergePlan | None = None
        self.merging_from: int | None = None  # the version this page was opened at
        # Values of related rows (inlines) kept as saved meanwhile: their formsets are not saved.
        self.kept_related: set[str] = set()
        # Related rows this page replaces whole (mine chosen, or “Save my version anyway”):
        # rows added meanwhile that it does not show are deleted too.
        self.replaced_related: set[str] = set()
        self.chosen: dict[str, str | None] = {}
        if self.instance.pk is not None and not self.is_bound:
            self.fields["loaded_version"].initial = self.instance.version
            self.fields["loaded_values"].initial = json.dumps(self.instance.displayed_values())

    @property
    def overwrite_offer(self) -> int | None:
        """The version “Save my version anyway” would replace, when the box is to be shown."""
        if self.edit_conflict is not None:
            return self.edit_conflict.current_version
        return self.overwrite_chosen

    @property
    def overwrite_checked(self) -> bool:
        """Ticked before and still current: the page came back for another error."""
        return self.edit_conflict is None and self.overwrite_chosen is not None

    @property
    def overwrite_chosen(self) -> int | None:
        return parse_version(self.data.get(self.add_prefix("overwrite_version")))

    @property
    def loaded_displayed_values(self) -> dict[str, str]:
        return parse_displayed_values(self.data.get(self.add_prefix("loaded_values")))

    def clean(self):
        cleaned_data = super().clean()
        if self.instance.pk is None:
            return cleaned_data
        seen = self.overwrite_chosen or parse_version(cleaned_data.get("loaded_version"))
        if seen is None:
            raise ValidationError(
                _(
                    "This page does not say which version it was opened at, so nothing was "
                    "saved. Reload it to edit the current version."
                ),
                code="version_missing",
            )
        loaded_at = self.instance.version
        if self.overwrite_chosen is not None:
            self.replaced_related = set(self.related_formsets)
        try:
            self.instance.check_version(seen)
        except EditConflictError as conflict:
            mergeable = (
                self.overwrite_chosen is None
                and conflict.current_version is not None
                and self.loaded_displayed_values
            )
            if not mergeable:
                self.edit_conflict = conflict
                raise self.conflict_error(conflict) from conflict
            # Merged in _post_clean(), once the subclass has cleaned too; the save goes on
            # from the version loaded with the instance, whose values are “theirs”.
            self.instance.version = loaded_at
            self.merging_from = seen
        return cleaned_data

    def _post_clean(self):
        if self.merging_from is not None and not self._errors:
            self.merge_into_saved()
        super()._post_clean()
        if self.merge is not None and self.merge.kept and self.has_error_from_merge():
            kept = "; ".join(
                f"{change.label}: {change.loaded} → {change.now}"
                for change in self.merge.kept_changes()
            )
            self.edit_conflict = self.stale_conflict()
            self.add_error(
                None,
                ValidationError(
                    _(
                        "Someone else saved “%(object)s” after you opened this page (%(kept)s). "
                        "Together with theirs, your changes break a rule (marked on this page), "
                        "so nothing was saved."
                    )
                    % {"object": self.instance, "kept": kept},
                    code="edit_conflict",
                ),
            )

    def has_error_from_merge(self) -> bool:
        return bool(self._errors) and not self.has_error(NON_FIELD_ERRORS, "edit_conflict")

    def merge_into_saved(self) -> None:
        """Lay this page's changes over the row as saved meanwhile, in three steps: plan what
        changed on each side (``plan_merge()``), choose whose value each field keeps
        (``choose_kept()``), and apply that to cleaned_data (``apply_merge()``)."""
        missing = [
            name
            for name in self.instance.displayed_values()
            if name not in self.loaded_displayed_values
        ]
        if missing:  # a tampered or truncated page: its values cannot count as unchanged
            self.add_error(None, self.values_missing_error(missing))
            return
        plan = self.plan_merge()
        if plan.unmerged:  # changed meanwhile where this page says nothing to compare with
            self.edit_conflict = self.stale_conflict()
            self.add_error(None, self.conflict_error(self.edit_conflict))
            return
        self.merge = plan
        self.chosen = self.posted_choices(plan)
        self.apply_merge(choose_kept(plan, self.chosen))

    def plan_merge(self) -> MergePlan:
        """What this page and the save meanwhile each changed since the page was opened.

        This page's values are compared as displayed (``three_way_merge()``), so a value that
        reads the same (a time, a choice's label) is the same change whoever made it.
        """
        mine_row = copy.copy(self.instance)
        construct_instance(self, mine_row, self._meta.fields, self._meta.exclude)
        mine = {
            field.name: mine_row.displayed_value(field)
            for field in self.instance._meta.concrete_fields
            if field.name in self.cleaned_data
        }
        mine.update(self.posted_related_values())
        return three_way_merge(self.instance, self.loaded_displayed_values, mine)

    def posted_choices(self, plan: MergePlan) -> dict[str, str | None]:
        """The organizer's ``keep_<field>`` answer for each overlap; none if they answered for
        another version than the current one (``merge_version``): what they chose between
        may have changed again since."""
        if parse_version(self.data.get(self.add_prefix("merge_version"))) != self.instance.version:
            return {}
        return {
            overlap.name: self.data.get(self.add_prefix(f"keep_{overlap.name}"))
            for overlap in plan.overlaps
        }

    def apply_merge(self, choice: MergeChoice) -> None:
        """Save this page's values except where theirs stays, or refuse while an overlap waits.

        A field kept as theirs leaves cleaned_data, so the instance keeps the value saved
        meanwhile; an inline kept as theirs is not saved (``kept_related``), and one the
        organizer answered MINE for replaces the saved rows whole (``replaced_related``).
        """
        self.merge.kept = choice.theirs
        # What this page changed, for the admin's history: not the fields it leaves as theirs,
        # nor the version it was opened at.
        self.changed_data = [
            name
            for name in self.changed_data
            if name not in choice.theirs and name not in self.version_fields
        ]
        for name in choice.theirs:
            if name in self.fields:
                # Left out of cleaned_data, the field keeps the instance's value: theirs.
                self.cleaned_data.pop(name, None)
            else:
                self.kept_related.add(name)
        self.replaced_related = {name for name in choice.mine if name not in self.fields}
        if choice.unresolved:
            self.edit_conflict = self.stale_conflict()
            self.add_error(None, self.unresolved_error(choice.unresolved))

    def unresolved_error(self, unresolved: list[Overlap]) -> ValidationError:
        """Nothing saved: the fields both changed differently that still need an answer."""
        # The main form's conflict block shows both values; an inline row has only this.
        both = "; ".join(
            _("%(field)s (theirs: “%(theirs)s”, yours: “%(mine)s”)")
            % {"field": o.label, "theirs": o.theirs, "mine": o.mine}
            if self.prefix
            else str(o.label)
            for o in unresolved
        )
        return ValidationError(
            _(
                "Someone else saved “%(object)s” after you opened this page and changed "
                "%(fields)s too, so nothing was saved."
            )
            % {"object": self.instance, "fields": both}
            + " "
            + (
                _("Reload the page to edit the current version.")
                if self.prefix  # an inline row: its own change form offers the choice
                else _("Choose whose value to keep for each, then save again.")
            ),
            code="edit_conflict",
        )

    def values_missing_error(self, missing: list[str]) -> ValidationError:
        """Nothing saved: the page does not say what it showed of ``missing`` fields."""
        labels = ", ".join(str(self.instance.field_label(name)) for name in missing)
        return ValidationError(
            _(
                "Someone else saved “%(object)s” after you opened this page, and this page "
                "does not say what it showed of %(fields)s, so nothing was saved. Reload it to "
                "edit the current version."
            )
            % {"object": self.instance, "fields": labels},
            code="values_missing",
        )

    def stale_conflict(self) -> EditConflictError:
        """This page was opened at ``merging_from``; the row is at the instance's version now."""
        return EditConflictError(self.instance, self.merging_from, self.instance.version)

    def posted_related_values(self) -> dict[str, str]:
        """Displayed values of related rows this page posts (inlines), for ``three_way_merge()``.

        None by default: a related value (``displayed_values()``) changed meanwhile then
        refuses the merge (``MergePlan.unmerged``) rather than let a stale inline save over it.
        """
        return {}

    @property
    def overlap_choices(self) -> list[tuple[Overlap, str | None]]:
        """Each field both changed, with whose value the organizer chose to keep, if they did."""
        if self.merge is None:
            return []
        return [(overlap, self.chosen.get(overlap.name)) for overlap in self.merge.overlaps]

    def conflict_error(self, conflict: EditConflictError) -> ValidationError:
        current = conflict.current()
        if current is None:
            return conflict
        self.changed_meanwhile = current.changes_since(self.loaded_displayed_values)
        message = _(
            "Someone else saved “%(object)s” after you opened this page, so nothing was saved."
        ) % {"object": current}
        if self.changed_meanwhile:
            labels = ", ".join(str(change.label) for change in self.changed_meanwhile)
            message += " " + _("Changed meanwhile: %(fields)s.") % {"fields": labels}
        return ValidationError(
            message,
            code="edit_conflict",
        )

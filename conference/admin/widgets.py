"""Django's admin autocomplete, minus a 500: for every ModelAdmin and inline of ours with
``autocomplete_fields`` (conference/, sessions/ and speakers/ admin modules)."""

from django.contrib.admin.widgets import AutocompleteSelect
from django.core.exceptions import ValidationError


class KeyCheckingAutocompleteSelect(AutocompleteSelect):
    """Django's autocomplete widget, minus a 500. After a form error it looks the submitted value
    up to show it again, and a value that cannot be a key ("abc" for a number, or a number beyond
    the column) made that query fail. Such a value is simply not shown; the form says why."""

    def optgroups(self, name, value, attr=None):
        return super().optgroups(name, [item for item in value if self.could_be_key(item)], attr)

    def could_be_key(self, item) -> bool:
        remote = self.field.remote_field
        key = remote.model._meta.get_field(remote.field_name)
        try:
            key.run_validators(key.to_python(item))
        except ValidationError:
            return False
        return True


class AutocompleteAdminMixin:
    """For a ModelAdmin or inline with ``autocomplete_fields``: they use the widget above."""

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        if db_field.name in self.get_autocomplete_fields(request):
            kwargs.setdefault(
                "widget",
                KeyCheckingAutocompleteSelect(db_field, self.admin_site, using=kwargs.get("using")),
            )
        return super().formfield_for_foreignkey(db_field, request, **kwargs)

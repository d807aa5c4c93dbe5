"""The admin's change forms as an organizer's browser posts them."""

from django.db.models.fields.files import FieldFile


def opened_change_form(admin_client, url: str) -> dict:
    """What the change form at ``url``, opened now, posts back if nothing is changed on it.

    Reads the values the page shows from its form and inline formsets (hidden fields
    included), so a test can open a page, let someone else save, and post the page later.
    Widgets that split a value in parts (date and time) are not handled.
    """
    response = admin_client.get(url)
    forms = [response.context["adminform"].form]
    for inline in response.context["inline_admin_formsets"]:
        forms.extend([inline.formset.management_form, *inline.formset.forms])
    data = {}
    for form in forms:
        for field in form:
            value = field.value()
            if value is None or value is False or isinstance(value, FieldFile):
                continue
            data[field.html_name] = "on" if value is True else str(value)
    return data

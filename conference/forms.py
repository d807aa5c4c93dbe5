import json

from django import forms
from django.contrib.auth import forms as auth_forms
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import AuthenticationForm, UserCreationForm
from django.core.cache import cache
from django.core.exceptions import ValidationError
from django.forms.renderers import Jinja2

from conference.versioning import EditConflictError

# Attendee pages render in Jinja2 (conference/jinja2.py), and so do their forms' widgets; the
# admin keeps Django's renderer.
ATTENDEE_FORM_RENDERER = Jinja2()


class AttendeeFormMixin:
    default_renderer = ATTENDEE_FORM_RENDERER


# Failed logins are counted in Django's cache (Redis when REDIS_URL is set, so every app server
# sees the same counts): no extra dependency, and it fails open only if the cache is down.
LOGIN_FAILURE_WINDOW = 15 * 60
LOGIN_FAILURES_PER_ACCOUNT_AND_ADDRESS = 5
LOGIN_FAILURES_PER_ACCOUNT = 20


def login_failure_keys(username: str, address: str) -> dict[str, int]:
    account = username.strip().lower()[:150]
    return {
        f"login-failures:{account}:{address}": LOGIN_FAILURES_PER_ACCOUNT_AND_ADDRESS,
        f"login-failures:{account}": LOGIN_FAILURES_PER_ACCOUNT,
    }


class RateLimitedAuthenticationForm(AttendeeFormMixin, AuthenticationForm):
    """Django's login form, refusing further tries after repeated failures for a while."""

    error_messages = {
        **AuthenticationForm.error_messages,
        "rate_limited": (
            "Too many failed logins for this account. Wait 15 minutes, or reset your password."
        ),
    }

    def clean(self):
        address = self.request.META.get("REMOTE_ADDR", "") if self.request else ""
        keys = login_failure_keys(self.cleaned_data.get("username") or "", address)
        if any(cache.get(key, 0) >= limit for key, limit in keys.items()):
            raise ValidationError(self.error_messages["rate_limited"], code="rate_limited")
        try:
            return super().clean()
        except ValidationError:
            for key in keys:
                cache.add(key, 0, LOGIN_FAILURE_WINDOW)
                cache.incr(key)
            raise


class SignupForm(AttendeeFormMixin, UserCreationForm):
    email = forms.EmailField(help_text="Only used to reset your password.")

    class Meta(UserCreationForm.Meta):
        model = get_user_model()
        fields = ["username", "email"]


class PasswordChangeForm(AttendeeFormMixin, auth_forms.PasswordChangeForm):
    pass


class PasswordResetForm(AttendeeFormMixin, auth_forms.PasswordResetForm):
    pass


class SetPasswordForm(AttendeeFormMixin, auth_forms.SetPasswordForm):
    pass


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
    """A change form for a Versioned model that refuses to save over changes made since it was
    opened (conference/versioning.py).

    It carries the version it was opened at and what it showed then, so a refused save can say
    what changed meanwhile (``changed_meanwhile``, for the admin's versioned_change_form.html). ``overwrite_version`` is the “Save my version
    anyway” box, offered with a conflict: it names the version the user was shown, so a third
    save arriving after that is refused again.
    """

    loaded_version = forms.CharField(widget=forms.HiddenInput, required=False)
    loaded_values = forms.CharField(widget=forms.HiddenInput, required=False)
    overwrite_version = forms.CharField(widget=forms.HiddenInput, required=False)
    version_fields = ("loaded_version", "loaded_values", "overwrite_version")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.edit_conflict: EditConflictError | None = None
        self.changed_meanwhile = []
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

    def clean(self):
        cleaned_data = super().clean()
        if self.instance.pk is None:
            return cleaned_data
        seen = self.overwrite_chosen or parse_version(cleaned_data.get("loaded_version"))
        if seen is None:
            raise ValidationError(
                "This page does not say which version it was opened at, so nothing was saved. "
                "Reload it to edit the current version.",
                code="version_missing",
            )
        try:
            self.instance.check_version(seen)
        except EditConflictError as conflict:
            self.edit_conflict = conflict
            raise self.conflict_error(conflict) from conflict
        return cleaned_data

    def conflict_error(self, conflict: EditConflictError) -> ValidationError:
        current = conflict.current()
        if current is None:
            return conflict
        loaded = parse_displayed_values(self.data.get(self.add_prefix("loaded_values")))
        self.changed_meanwhile = current.changes_since(loaded)
        changed = (
            f" Changed meanwhile: {', '.join(change.label for change in self.changed_meanwhile)}."
            if self.changed_meanwhile
            else ""
        )
        return ValidationError(
            f"Someone else saved “{current}” after you opened this page, so nothing was "
            f"saved.{changed}",
            code="edit_conflict",
        )

import hashlib

from django import forms
from django.contrib.auth import forms as auth_forms
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import AuthenticationForm, UserCreationForm
from django.core.cache import cache
from django.core.exceptions import ValidationError
from django.forms.renderers import Jinja2

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
    # A digest: a typed username may hold spaces or control characters, which cache keys may not.
    account = hashlib.sha256(username.strip().lower()[:150].encode()).hexdigest()
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

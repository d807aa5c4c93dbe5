from axes import utils as axes_utils
from django import forms
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth import forms as auth_forms
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import AuthenticationForm, UserCreationForm
from django.core.exceptions import NON_FIELD_ERRORS, ValidationError
from django.forms.renderers import Jinja2

from conference.limits import (
    PASSWORD_RESETS_PER_CLIENT,
    PASSWORD_RESETS_PER_EMAIL,
    client_address,
    login_is_locked,
    login_locked_message,
)

# Attendee pages render in Jinja2 (conference/jinja2.py), and so do their forms' widgets; the
# admin keeps Django's renderer.
ATTENDEE_FORM_RENDERER = Jinja2()


class AttendeeFormMixin:
    default_renderer = ATTENDEE_FORM_RENDERER


class LoginLimitMixin:
    """Says why when the login limit refused a login (conference.limits, django-axes): the
    account is locked, even to the right password, rather than the password being wrong."""

    def clean(self):
        try:
            return super().clean()
        except ValidationError:
            if login_is_locked(self.request):
                message = login_locked_message(self.cleaned_data["username"])
                raise ValidationError(message, code="locked_out") from None
            raise


class LoginForm(LoginLimitMixin, AttendeeFormMixin, AuthenticationForm):
    pass


class AdminLoginForm(LoginLimitMixin, AdminAuthenticationForm):
    pass


class SignupForm(AttendeeFormMixin, UserCreationForm):
    email = forms.EmailField(help_text="Only used to reset your password.")

    class Meta(UserCreationForm.Meta):
        model = get_user_model()
        fields = ["username", "email"]


class PasswordChangeForm(AttendeeFormMixin, auth_forms.PasswordChangeForm):
    pass


class PasswordResetForm(AttendeeFormMixin, auth_forms.PasswordResetForm):
    """Django's reset form, sending a limited number of mails per address and per client.

    Every valid request counts, whether or not an account uses the address, so the answer (sent,
    or too many) never tells whether one does.
    """

    def __init__(self, *args, request, **kwargs):
        super().__init__(*args, **kwargs)
        self.request = request

    def clean(self):
        cleaned_data = super().clean()
        email = cleaned_data.get("email")
        if email:
            for limit, key in [
                (PASSWORD_RESETS_PER_CLIENT, client_address(self.request)),
                (PASSWORD_RESETS_PER_EMAIL, email.strip().lower()),
            ]:
                if not limit.allows(key):
                    raise ValidationError(
                        "Too many password reset requests. "
                        f"Try again in {limit.minutes_left()} minutes.",
                        code="rate_limited",
                    )
        return cleaned_data

    @property
    def is_rate_limited(self) -> bool:
        return self.has_error(NON_FIELD_ERRORS, code="rate_limited")


class SetPasswordForm(AttendeeFormMixin, auth_forms.SetPasswordForm):
    """A new password from a reset link; proving the mailbox also lifts a login lock."""

    def save(self, commit=True):
        user = super().save(commit=commit)
        axes_utils.reset(username=user.get_username())
        return user

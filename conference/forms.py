import datetime

from axes import utils as axes_utils
from django import forms
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.admin.widgets import (
    AdminSplitDateTime,
    BaseAdminDateWidget,
    BaseAdminTimeWidget,
)
from django.contrib.auth import forms as auth_forms
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import AuthenticationForm, UserCreationForm
from django.core.exceptions import NON_FIELD_ERRORS, ValidationError
from django.core.validators import MaxLengthValidator
from django.forms.renderers import Jinja2
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from conference.accounts.limits import (
    PASSWORD_RESETS_PER_CLIENT,
    PASSWORD_RESETS_PER_EMAIL,
    client_address,
    login_is_locked,
    login_locked_message,
)
from conference.i18n.timezones import WallClock, local_clock, read_wall_clock
from conference.models import Conference, confirmed_address

# Attendee pages render in Jinja2 (conference/site/jinja2.py), and so do their forms' widgets; the
# admin keeps Django's renderer.
ATTENDEE_FORM_RENDERER = Jinja2()


class AttendeeFormMixin:
    default_renderer = ATTENDEE_FORM_RENDERER


class LoginLimitMixin:
    """Says why when the login limit refused a login (conference.accounts.limits, django-axes): the
    account is locked, even to the right password, rather than the password being wrong."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # AuthenticationForm sets the username's max_length after the field has built its
        # validators, so an overlong name reached authenticate() and axes, whose table refuses
        # it on PostgreSQL (a 500). No account has a longer name: refuse it as the form would.
        username = self.fields["username"]
        username.validators.append(MaxLengthValidator(username.max_length))

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


def account_email_field(**kwargs) -> forms.EmailField:
    """The account's address as a form field, required and no longer than its column: Django's
    own EmailField allows 320 characters, the column 254, and PostgreSQL refuses the rest."""
    return get_user_model()._meta.get_field("email").formfield(required=True, **kwargs)


class SignupForm(AttendeeFormMixin, UserCreationForm):
    email = account_email_field(
        help_text=_(
            "Once you confirm it, for password resets and schedule changes to sessions "
            "you saved (you can turn those off)."
        )
    )

    class Meta(UserCreationForm.Meta):
        model = get_user_model()
        fields = ["username", "email"]


class AccountSettingsForm(AttendeeFormMixin, forms.Form):
    """The account's address and whether it gets schedule-change mails.

    A new address starts unverified (``AccountEmail.is_verified``); mails wait until it is.
    """

    email = account_email_field(
        help_text=_("Schedule changes and password resets are mailed here once you confirm it.")
    )
    schedule_changes = forms.BooleanField(
        label=_(
            "Email me when a schedule release moves, cancels or changes the room of a "
            "session I saved"
        ),
        required=False,
    )

    def __init__(self, *args, user, account_email, **kwargs):
        kwargs["initial"] = {
            "email": user.email,
            "schedule_changes": account_email.schedule_changes,
            **(kwargs.get("initial") or {}),
        }
        super().__init__(*args, **kwargs)
        self.user, self.account_email = user, account_email

    @property
    def email_changed(self) -> bool:
        return self.cleaned_data["email"] != self.user.email

    def save(self) -> None:
        if self.email_changed:
            self.user.email = self.cleaned_data["email"]
            self.user.save(update_fields=["email"])
        self.account_email.schedule_changes = self.cleaned_data["schedule_changes"]
        self.account_email.save(update_fields=["schedule_changes"])


class PasswordChangeForm(AttendeeFormMixin, auth_forms.PasswordChangeForm):
    pass


class PasswordResetForm(AttendeeFormMixin, auth_forms.PasswordResetForm):
    """Django's reset form, mailing only a confirmed address, a limited number of times per
    address and per client.

    An unconfirmed address may be a typo or someone else's, so it gets no link: the pages say
    resets go to confirmed addresses only. Every valid request counts, whether or not an account
    has confirmed the address, so the answer (sent, or too many) never tells whether one has.
    """

    def __init__(self, *args, request, **kwargs):
        super().__init__(*args, **kwargs)
        self.request = request

    def get_users(self, email):
        """Django's choice of accounts (active, a usable password, the address alike however
        written) among those whose address is confirmed, in one read: the link goes to the
        address that read found confirmed, never to one it became since an earlier read."""
        user_model = get_user_model()
        email_field = user_model.get_email_field_name()
        accounts = user_model._default_manager.filter(
            confirmed_address(), is_active=True, **{f"{email_field}__iexact": email}
        )
        return (
            user
            for user in accounts
            if user.has_usable_password()
            and auth_forms._unicode_ci_compare(email, getattr(user, email_field))
        )

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
                        gettext(
                            "Too many password reset requests. Try again in %(minutes)s minutes."
                        )
                        % {"minutes": limit.minutes_left()},
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


def named_with_conference(part) -> str:
    """“Central Room (PyCon 2026)”: a room or track offered among several conferences' ones."""
    return f"{part} ({part.conference})"


# --- Times typed on a conference's clocks ----------------------------------------------------

# Which of the two instants a time names on the night the clocks go back: PEP 495's fold.
FIRST, SECOND = "0", "1"


def read_typed_time(day, time) -> tuple[datetime.datetime, WallClock] | None:
    """The typed date and time as the current zone's clocks read them; None if unreadable, or
    at the very edge of the calendar (1 January of year 1 east of UTC, 31 December 9999 west of
    it), where the instant in UTC falls outside what Python's dates hold."""
    try:
        day = day if isinstance(day, datetime.date) else forms.DateField().to_python(day)
        time = time if isinstance(time, datetime.time) else forms.TimeField().to_python(time)
    except ValidationError:
        return None
    if day is None or time is None:
        return None
    local = datetime.datetime.combine(day, time.replace(fold=0))
    try:
        return local, read_wall_clock(local, timezone.get_current_timezone())
    except OverflowError:
        return None


def fold_choices(local: datetime.datetime) -> list[tuple[str, str]]:
    """“02:30 CEST (first)”, “02:30 CET (second)”: the two readings of a time that happens twice."""
    zone = timezone.get_current_timezone()
    return [
        (
            fold,
            f"{local_clock(local)} {local.replace(tzinfo=zone, fold=int(fold)).tzname()} ({which})",
        )
        for fold, which in ((FIRST, gettext("first")), (SECOND, gettext("second")))
    ]


class ConferenceDateTimeWidget(AdminSplitDateTime):
    """The admin's date and time inputs, plus, when the time happens twice that night (the
    clocks go back), a choice between its two instants. It renders inside the conference's zone
    (``timezone.override``), as the field reads it."""

    template_name = "admin/widgets/conference_split_datetime.html"

    class Media:
        css = {"all": ["css/admin.css"]}

    def __init__(self, attrs=None):
        widgets = {"0": BaseAdminDateWidget, "1": BaseAdminTimeWidget, "fold": forms.Select}
        forms.MultiWidget.__init__(self, widgets, attrs)

    def decompress(self, value):
        if value is None:
            return [None, None, ""]
        local = timezone.localtime(value)
        typed = read_typed_time(local.date(), local.time())
        twice = typed is not None and len(typed[1].instants) == 2
        return [local.date(), local.time().replace(fold=0), str(local.fold) if twice else ""]

    def get_context(self, name, value, attrs):
        if not isinstance(value, list | tuple):
            value = self.decompress(value)
        typed = read_typed_time(value[0], value[1])
        offers_fold = typed is not None and len(typed[1].instants) == 2
        if offers_fold:
            which = gettext("Which %(time)s?") % {"time": local_clock(typed[0])}
            self.widgets[2].choices = [("", which), *fold_choices(typed[0])]
            self.widgets[2].attrs["aria-label"] = which
        context = super().get_context(name, value, attrs)
        context["widget"]["offers_fold"] = offers_fold
        return context


class ConferenceDayTimeWidget(ConferenceDateTimeWidget):
    """The same three parts for attendee pages: a day of the conference from a list, a time, and
    the choice between two instants only when the time happens twice. Rendered by Django's
    own multi-widget template, so it needs no template of its own in either engine."""

    template_name = "django/forms/widgets/multiwidget.html"

    def __init__(self, days: list[tuple[str, str]] = (), attrs=None):
        widgets = {
            "0": forms.Select(choices=[("", "Day"), *days]),
            "1": forms.TimeInput(format="%H:%M", attrs={"type": "time"}),
            "fold": forms.HiddenInput,
        }
        forms.MultiWidget.__init__(self, widgets, attrs)

    def get_context(self, name, value, attrs):
        if not isinstance(value, list | tuple):
            value = self.decompress(value)
        typed = read_typed_time(value[0], value[1])
        twice = typed is not None and len(typed[1].instants) == 2
        self.widgets[2] = forms.Select() if twice else forms.HiddenInput()
        return super().get_context(name, value, attrs)

    def id_for_label(self, id_):
        # The field's label names the day; the form names the time beside it (aria-label).
        return f"{id_}_0" if id_ else id_


class ConferenceDateTimeField(forms.MultiValueField):
    """A date and time typed on the clocks of the current zone (the admin overrides it with the
    conference's), cleaned to an instant in UTC.

    Django's SplitDateTimeField refuses both a time the clocks skip and one they pass twice, with
    one message (“may be ambiguous or may not exist”), so a session in the hour the clocks go
    back could not be saved at all. This field says which it is: a skipped time is refused with
    the change of clocks that skips it; a time that happens twice asks which of its two instants
    is meant (the widget's choice, preselected for a saved session).
    """

    widget = ConferenceDateTimeWidget

    def __init__(self, **kwargs):
        fields = (
            forms.DateField(error_messages={"incomplete": _("Enter a date.")}),
            forms.TimeField(error_messages={"incomplete": _("Enter a time.")}),
            forms.ChoiceField(choices=[(FIRST, _("first")), (SECOND, _("second"))], required=False),
        )
        super().__init__(fields, require_all_fields=False, **kwargs)

    def clean(self, value):
        # The choice between two instants means nothing once the date and time are cleared.
        if isinstance(value, list | tuple) and len(value) == 3 and not (value[0] or value[1]):
            value = [value[0], value[1], ""]
        return super().clean(value)

    def compress(self, data_list):
        if not data_list:
            return None
        day, time, fold = data_list
        typed = read_typed_time(day, time)
        if typed is None:
            raise ValidationError(
                gettext("Enter a date between the years 1 and 9999."), code="out_of_range"
            )
        local, reading = typed
        zone = timezone.get_current_timezone()
        if not reading.instants:
            raise ValidationError(reading.refusal(local, zone), code="nonexistent_time")
        if len(reading.instants) == 1:
            return reading.instants[0]
        if fold not in (FIRST, SECOND):
            raise ValidationError(
                reading.refusal(local, zone)
                + " "
                + gettext("Choose which %(time)s you mean, next to the time.")
                % {"time": local_clock(local)},
                code="ambiguous_time",
            )
        return reading.instants[int(fold)]


class PreviewTimeForm(AttendeeFormMixin, forms.Form):
    """The moment an organizer chooses to see the pages about the present at
    (conference/views/preview_time.py), typed on the clocks of the zone the pages show."""

    moment = ConferenceDateTimeField(label=_("Day and time"))

    def __init__(self, *args, conference: Conference, **kwargs):
        super().__init__(*args, **kwargs)
        days = [(day.isoformat(), date_format(day, "l j F")) for day in conference.days]
        widget = self.fields["moment"].widget = ConferenceDayTimeWidget(days)
        widget.widgets[1].attrs["aria-label"] = _("Time")

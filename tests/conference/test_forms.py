"""Every form field that is saved to a column is bounded as the column is: a longer value is a
form error, not a database error (PostgreSQL refuses it with a 500; SQLite would keep it)."""

import importlib

import pytest
from django import forms
from django.contrib.auth import get_user_model

from conference.forms import AccountSettingsForm, SignupForm
from conference.models import TeamInvitation
from sessions.models import CoSpeakerInvitation, ProposalSpeaker, Release, Review
from speakers.models import SpeakerInvitation

PROJECT_APPS = ("conference", "sessions", "speakers")

# Fields of plain forms (and fields a ModelForm declares under a name its model does not have)
# that are saved to a column: the form that saves them says where.
SAVED_TO = {
    "conference.forms.AccountSettingsForm.email": get_user_model()._meta.get_field("email"),
    "sessions.admin.forms.ReleaseForm.version": Release._meta.get_field("version"),
    "sessions.admin.forms.ReleaseForm.comment": Release._meta.get_field("comment"),
    "speakers.forms.InvitationForm.email": SpeakerInvitation._meta.get_field("email"),
    "conference.admin.teams.TeamInvitationForm.email": TeamInvitation._meta.get_field("email"),
    "sessions.cfp.admin.review_page.ReviewForm.comment": Review._meta.get_field("comment"),
    "sessions.cfp.co_speaker_forms.CoSpeakerInviteForm.email": CoSpeakerInvitation._meta.get_field(
        "email"
    ),
    "sessions.cfp.forms.ProposalForm.speaker_name": ProposalSpeaker._meta.get_field("name"),
    "sessions.cfp.forms.ProposalForm.speaker_bio": ProposalSpeaker._meta.get_field("bio"),
}
# Fields no column receives: searches, lookups, passwords (saved hashed), hidden form state.
NOT_SAVED = {
    "conference.forms.LoginForm.username",
    "conference.forms.LoginForm.password",
    "conference.forms.AdminLoginForm.username",
    "conference.forms.AdminLoginForm.password",
    "conference.forms.SignupForm.password1",
    "conference.forms.SignupForm.password2",
    "conference.forms.PasswordChangeForm.old_password",
    "conference.forms.PasswordChangeForm.new_password1",
    "conference.forms.PasswordChangeForm.new_password2",
    "conference.forms.PasswordResetForm.email",
    "conference.forms.SetPasswordForm.new_password1",
    "conference.forms.SetPasswordForm.new_password2",
    "conference.admin.versioned_forms.VersionedModelForm.loaded_version",
    "conference.admin.versioned_forms.VersionedModelForm.loaded_values",
    "conference.admin.versioned_forms.VersionedModelForm.overwrite_version",
    "sessions.admin.forms.SessionAdminForm.loaded_version",
    "sessions.admin.forms.SessionAdminForm.loaded_values",
    "sessions.admin.forms.SessionAdminForm.overwrite_version",
    "sessions.admin.forms.ReleaseForm.shown",
    "speakers.forms.SpeakerSearchForm.q",
}


def project_forms() -> list[type[forms.BaseForm]]:
    for app in PROJECT_APPS:
        for module in ("forms", "filters", "admin"):
            try:
                importlib.import_module(f"{app}.{module}")
            except ModuleNotFoundError as missing:
                if missing.name != f"{app}.{module}":
                    raise
    found, pending = [], [forms.BaseForm]
    while pending:
        for subclass in pending.pop().__subclasses__():
            pending.append(subclass)
            if subclass.__module__.split(".")[0] in PROJECT_APPS:
                found.append(subclass)
    return sorted(set(found), key=lambda form: f"{form.__module__}.{form.__qualname__}")


def text_fields():
    for form in project_forms():
        for name, field in form.base_fields.items():
            if isinstance(field, forms.CharField):
                yield pytest.param(
                    form, name, field, id=f"{form.__module__}.{form.__name__}.{name}"
                )


def column_of(form, name):
    """The model field ``name`` of ``form`` is saved to, or None if it is saved nowhere."""
    key = f"{form.__module__}.{form.__name__}.{name}"
    if key in SAVED_TO:
        return SAVED_TO[key]
    if key in NOT_SAVED:
        return None
    model = getattr(getattr(form, "_meta", None), "model", None)
    if model is not None:
        return model._meta.get_field(name)
    raise AssertionError(f"{key}: say in SAVED_TO or NOT_SAVED where it is saved")


def test_the_walk_finds_the_forms_of_every_app():
    modules = {form.__module__ for form in project_forms()}
    assert {"conference.forms", "sessions.forms", "speakers.forms"} <= modules


@pytest.mark.parametrize(("form", "name", "field"), list(text_fields()))
def test_a_text_field_is_no_longer_than_its_column(form, name, field):
    column = column_of(form, name)
    if column is not None:
        assert field.max_length == column.max_length


@pytest.mark.django_db
def test_settings_refuse_an_address_longer_than_the_column(client, django_user_model):
    ada = django_user_model.objects.create_user("ada", "ada@example.org", "x")
    client.force_login(ada)
    address = f"{'a' * 60}@{'b' * 60}.{'c' * 60}.{'d' * 60}.{'e' * 52}.org"
    assert len(address) == 300

    response = client.post("/accounts/settings/", {"email": address})

    assert response.status_code == 200
    assert response.context["form"].errors["email"] == [
        "Ensure this value has at most 254 characters (it has 300)."
    ]
    ada.refresh_from_db()
    assert ada.email == "ada@example.org"


@pytest.mark.parametrize("form", [SignupForm, AccountSettingsForm])
def test_the_account_address_is_required_and_as_long_as_the_column(form):
    field = form.base_fields["email"]
    assert (field.required, field.max_length) == (True, 254)

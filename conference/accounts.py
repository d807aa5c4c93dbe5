"""Sign-up, the account page and the URL set of Django's own auth views, in the site's templates.

Account pages live outside any conference's URLs, yet wear the header and footer of the
conference the visitor came from (``account_conference``), so they never feel like another site.
"""

from urllib.parse import urlsplit

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.mixins import LoginRequiredMixin
from django.http import QueryDict
from django.urls import Resolver404, path, resolve, reverse_lazy
from django.utils import timezone
from django.views.generic import FormView, TemplateView

from conference.forms import (
    LoginForm,
    PasswordChangeForm,
    PasswordResetForm,
    SetPasswordForm,
    SignupForm,
)
from conference.models import Conference
from conference.views import safe_next


def account_conference(request) -> Conference | None:
    """The conference of the page named by ?next= (where the visitor came from), else the only
    one published; None when neither names one."""
    conferences = Conference.objects.visible_to(request.user)
    next_path = urlsplit(safe_next(request, "")).path
    try:
        slug = resolve(next_path).kwargs.get("conference_slug") if next_path else None
    except Resolver404:
        slug = None
    if slug:
        conference = conferences.filter(slug=slug).first()
        if conference is not None:
            return conference
    published = list(Conference.objects.published()[:2])
    return published[0] if len(published) == 1 else None


class AccountPageMixin:
    """An account page in the navigation and footer of its conference (registration/base_account.html)."""

    def get_context_data(self, **kwargs):
        conference = account_conference(self.request)
        home = conference.get_absolute_url() if conference else "/"
        context = {
            "conference": conference,
            "next": self.request.GET.get("next", ""),
            # The header's links lead back where the visitor came from, not to this page.
            "next_url": safe_next(self.request, home),
        }
        if conference is not None:
            if not self.request.chosen_time_zone:
                timezone.activate(conference.tz)
            # What the conference's footer reads: the time zone picker keeps no other parameter.
            context.update(
                page_query=QueryDict(), display_zone=timezone.get_current_timezone_name()
            )
        return super().get_context_data(**{**context, **kwargs})


class SignupView(AccountPageMixin, FormView):
    template_name = "registration/signup.html"
    form_class = SignupForm

    def form_valid(self, form):
        user = form.save()
        login(self.request, user, backend="django.contrib.auth.backends.ModelBackend")
        messages.success(
            self.request,
            f"Welcome, {user.get_username()}! Your account is ready: "
            "press Save on any session to add it to your schedule.",
        )
        return super().form_valid(form)

    def get_success_url(self):
        return safe_next(self.request, "/")


class AccountView(LoginRequiredMixin, AccountPageMixin, TemplateView):
    """The visitor's account: who they are, their password, and their settings."""

    template_name = "registration/account.html"
    extra_context = {"nav": "account"}


class LoginView(AccountPageMixin, auth_views.LoginView):
    authentication_form = LoginForm


class PasswordChangeView(AccountPageMixin, auth_views.PasswordChangeView):
    form_class = PasswordChangeForm
    success_url = reverse_lazy("password_change_done")


class PasswordChangeDoneView(AccountPageMixin, auth_views.PasswordChangeDoneView):
    pass


class PasswordResetView(AccountPageMixin, auth_views.PasswordResetView):
    """Django's view; its form counts requests per client, so it is given the request."""

    form_class = PasswordResetForm

    def get_form_kwargs(self):
        return {**super().get_form_kwargs(), "request": self.request}

    def form_invalid(self, form):
        response = super().form_invalid(form)
        if form.is_rate_limited:
            response.status_code = 429
        return response


class PasswordResetDoneView(AccountPageMixin, auth_views.PasswordResetDoneView):
    pass


class PasswordResetConfirmView(AccountPageMixin, auth_views.PasswordResetConfirmView):
    form_class = SetPasswordForm


class PasswordResetCompleteView(AccountPageMixin, auth_views.PasswordResetCompleteView):
    pass


urlpatterns = [
    path("", AccountView.as_view(), name="account"),
    path("signup/", SignupView.as_view(), name="signup"),
    path("login/", LoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("password/change/", PasswordChangeView.as_view(), name="password_change"),
    path("password/change/done/", PasswordChangeDoneView.as_view(), name="password_change_done"),
    path("password/reset/", PasswordResetView.as_view(), name="password_reset"),
    path("password/reset/sent/", PasswordResetDoneView.as_view(), name="password_reset_done"),
    path(
        "password/reset/<uidb64>/<token>/",
        PasswordResetConfirmView.as_view(),
        name="password_reset_confirm",
    ),
    path(
        "password/reset/done/",
        PasswordResetCompleteView.as_view(),
        name="password_reset_complete",
    ),
]

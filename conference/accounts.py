"""Sign-up and the URL set of Django's own auth views, in the site's templates."""

from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.urls import path, reverse_lazy
from django.views.generic import FormView

from conference.forms import (
    LoginForm,
    PasswordChangeForm,
    PasswordResetForm,
    SetPasswordForm,
    SignupForm,
)
from conference.views import safe_next


class SignupView(FormView):
    template_name = "registration/signup.html"
    form_class = SignupForm

    def form_valid(self, form):
        user = form.save()
        login(self.request, user, backend="django.contrib.auth.backends.ModelBackend")
        return super().form_valid(form)

    def get_success_url(self):
        return safe_next(self.request, "/")

    def get_context_data(self, **kwargs):
        return super().get_context_data(next=self.request.GET.get("next", ""), **kwargs)


class LogoutView(auth_views.LogoutView):
    """Django's view; the browser also drops what it cached of the visitor's pages.

    The service worker forgets its copies itself when it sees the log-out (conference/
    service_worker.js); this covers the browser's own HTTP cache (the back button).
    """

    def post(self, request, *args, **kwargs):
        response = super().post(request, *args, **kwargs)
        response.headers["Clear-Site-Data"] = '"cache"'
        return response


class PasswordResetView(auth_views.PasswordResetView):
    """Django's view; its form counts requests per client, so it is given the request."""

    form_class = PasswordResetForm

    def get_form_kwargs(self):
        return {**super().get_form_kwargs(), "request": self.request}

    def form_invalid(self, form):
        response = super().form_invalid(form)
        if form.is_rate_limited:
            response.status_code = 429
        return response


urlpatterns = [
    path("signup/", SignupView.as_view(), name="signup"),
    path(
        "login/",
        auth_views.LoginView.as_view(authentication_form=LoginForm),
        name="login",
    ),
    path("logout/", LogoutView.as_view(), name="logout"),
    path(
        "password/change/",
        auth_views.PasswordChangeView.as_view(
            form_class=PasswordChangeForm, success_url=reverse_lazy("password_change_done")
        ),
        name="password_change",
    ),
    path(
        "password/change/done/",
        auth_views.PasswordChangeDoneView.as_view(),
        name="password_change_done",
    ),
    path(
        "password/reset/",
        PasswordResetView.as_view(),
        name="password_reset",
    ),
    path(
        "password/reset/sent/",
        auth_views.PasswordResetDoneView.as_view(),
        name="password_reset_done",
    ),
    path(
        "password/reset/<uidb64>/<token>/",
        auth_views.PasswordResetConfirmView.as_view(form_class=SetPasswordForm),
        name="password_reset_confirm",
    ),
    path(
        "password/reset/done/",
        auth_views.PasswordResetCompleteView.as_view(),
        name="password_reset_complete",
    ),
]

"""The account pages, under /accounts/ (conference/accounts/views.py): never stored by a cache."""

from django.contrib.auth import views as auth_views
from django.urls import URLPattern, path
from django.views.decorators.cache import never_cache

from conference.accounts.views import (
    AccountSettingsView,
    AccountView,
    LoginView,
    PasswordChangeDoneView,
    PasswordChangeView,
    PasswordResetCompleteView,
    PasswordResetConfirmView,
    PasswordResetDoneView,
    PasswordResetView,
    SendVerificationView,
    SignupView,
    TeamInvitationView,
    UnsubscribeView,
    forgets_the_visitor,
    verify_email,
)


def never_stored(patterns: list[URLPattern]) -> list[URLPattern]:
    """``patterns`` with every answer marked ``Cache-Control: no-store`` (Django's never_cache).

    Account pages name their visitor and carry CSRF tokens: no browser cache, proxy or service
    worker may keep them, however their address is spelt (the worker's list of paths it never
    keeps is a second guard, not the only one).
    """
    return [
        URLPattern(
            pattern.pattern, never_cache(pattern.callback), pattern.default_args, pattern.name
        )
        for pattern in patterns
    ]


urlpatterns = never_stored(
    [
        path("", AccountView.as_view(), name="account"),
        path("signup/", SignupView.as_view(), name="signup"),
        path("settings/", AccountSettingsView.as_view(), name="account-settings"),
        path("settings/verify/", SendVerificationView.as_view(), name="send-verification"),
        path("verify/<str:token>/", verify_email, name="verify-email"),
        path("unsubscribe/<str:token>/", UnsubscribeView.as_view(), name="unsubscribe"),
        path("team-invitation/<str:token>/", TeamInvitationView.as_view(), name="team-invitation"),
        path("login/", LoginView.as_view(), name="login"),
        # Django's view; the browser also drops what it kept of the visitor's pages.
        path("logout/", forgets_the_visitor(auth_views.LogoutView.as_view()), name="logout"),
        path("password/change/", PasswordChangeView.as_view(), name="password_change"),
        path(
            "password/change/done/", PasswordChangeDoneView.as_view(), name="password_change_done"
        ),
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
)

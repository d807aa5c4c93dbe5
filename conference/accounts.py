"""Sign-up, account settings, the mailed links (verify, unsubscribe) and the URL set of Django's
own auth views, in the site's templates."""

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.mixins import LoginRequiredMixin
from django.db import transaction
from django.shortcuts import redirect, render
from django.urls import path, reverse_lazy
from django.utils.decorators import method_decorator
from django.views import View
from django.views.decorators.csrf import csrf_exempt
from django.views.generic import FormView

from conference import mail
from conference.forms import (
    AccountSettingsForm,
    LoginForm,
    PasswordChangeForm,
    PasswordResetForm,
    SetPasswordForm,
    SignupForm,
)
from conference.models import AccountEmail
from conference.views import safe_next


class SignupView(FormView):
    template_name = "registration/signup.html"
    form_class = SignupForm

    def form_valid(self, form):
        user = form.save()
        login(self.request, user, backend="django.contrib.auth.backends.ModelBackend")
        queue_verification_mail(user)
        return super().form_valid(form)

    def get_success_url(self):
        return safe_next(self.request, "/")

    def get_context_data(self, **kwargs):
        return super().get_context_data(next=self.request.GET.get("next", ""), **kwargs)


def queue_verification_mail(user) -> None:
    """Mail the account's address its verification link, from the task worker once committed."""
    transaction.on_commit(lambda: mail.send_verification_mail.enqueue(user.pk))


class AccountSettingsView(LoginRequiredMixin, FormView):
    template_name = "registration/account_settings.html"
    form_class = AccountSettingsForm
    success_url = reverse_lazy("account-settings")

    def get_form_kwargs(self):
        user = self.request.user
        account_email = AccountEmail.objects.for_user(user)
        return {**super().get_form_kwargs(), "user": user, "account_email": account_email}

    def form_valid(self, form):
        email_changed = form.email_changed
        form.save()
        if email_changed:
            queue_verification_mail(self.request.user)
            messages.success(
                self.request,
                f"Saved. We sent a confirmation link to {form.cleaned_data['email']}: "
                "no mail goes there until you follow it.",
            )
        else:
            messages.success(self.request, "Saved.")
        return super().form_valid(form)

    def get_context_data(self, **kwargs):
        account_email = AccountEmail.objects.for_user(self.request.user)
        return super().get_context_data(account_email=account_email, **kwargs)


class SendVerificationView(LoginRequiredMixin, View):
    """“Send the link again” on account settings."""

    def post(self, request):
        if request.user.email:
            queue_verification_mail(request.user)
            messages.success(request, f"We sent a confirmation link to {request.user.email}.")
        return redirect("account-settings")


def verify_email(request, token):
    account_email = mail.verify_email(token)
    if account_email is None:
        return render(request, "registration/verify_email_invalid.html", status=400)
    context = {"address": account_email.verified_address}
    return render(request, "registration/verify_email_done.html", context)


@method_decorator(csrf_exempt, name="dispatch")
class UnsubscribeView(View):
    """A mail's unsubscribe link. Following it shows one button; pressing it (a POST) stops the
    mails. Mail programs POST to the same address themselves (List-Unsubscribe-Post, RFC 8058).

    A GET changes nothing because mail scanners and link previews fetch every link of a mail
    (RFC 8058, section 1). The POST needs no CSRF token: the signed token in the address is what
    authorizes it, and a mail program's one-click request carries no other.
    """

    def get(self, request, token):
        if mail.read_unsubscribe_token(token) is None:
            return self.invalid()
        return render(request, "registration/unsubscribe.html", {"done": False})

    def post(self, request, token):
        if not mail.unsubscribe(token):
            return self.invalid()
        return render(request, "registration/unsubscribe.html", {"done": True})

    def invalid(self):
        return render(self.request, "registration/unsubscribe_invalid.html", status=400)


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
    path("settings/", AccountSettingsView.as_view(), name="account-settings"),
    path("settings/verify/", SendVerificationView.as_view(), name="send-verification"),
    path("verify/<str:token>/", verify_email, name="verify-email"),
    path("unsubscribe/<str:token>/", UnsubscribeView.as_view(), name="unsubscribe"),
    path(
        "login/",
        auth_views.LoginView.as_view(authentication_form=LoginForm),
        name="login",
    ),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
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

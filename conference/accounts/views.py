"""Sign-up, the account page and settings, the mailed links (verify, unsubscribe), log-out that
clears what the browser kept, and Django's own auth views in the site's templates (their URLs:
conference/accounts/urls.py).

Account pages live outside any conference's URLs, yet wear the header and footer of the
conference the visitor came from (``account_conference``), so they never feel like another site.
"""

import functools
from urllib.parse import urlsplit

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.mixins import LoginRequiredMixin
from django.contrib.auth.views import redirect_to_login
from django.http import QueryDict
from django.shortcuts import redirect, render
from django.urls import Resolver404, resolve, reverse_lazy
from django.utils import timezone
from django.utils.decorators import method_decorator
from django.utils.translation import gettext as _
from django.views import View
from django.views.decorators.csrf import csrf_exempt
from django.views.generic import FormView, TemplateView

from conference import teams
from conference.accounts import mail
from conference.forms import (
    AccountSettingsForm,
    LoginForm,
    PasswordChangeForm,
    PasswordResetForm,
    SetPasswordForm,
    SignupForm,
)
from conference.i18n.languages import activate_conference_language
from conference.invitations import InvitationError
from conference.models import AccountEmail, Conference
from conference.views.conferences import safe_next


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


def account_context(request) -> dict:
    """What registration/base_account.html reads: the conference whose navigation and footer an
    account page wears, and where its links lead back to."""
    conference = account_conference(request)
    home = conference.get_absolute_url() if conference else "/"
    context = {
        "conference": conference,
        "next": request.GET.get("next", ""),
        # The header's links lead back where the visitor came from, not to this page.
        "next_url": safe_next(request, home),
    }
    if conference is not None:
        if not request.chosen_time_zone:
            timezone.activate(conference.tz)
        activate_conference_language(request, conference.language)
        # What the conference's footer reads: the time zone picker keeps no other parameter.
        context.update(page_query=QueryDict(), display_zone=timezone.get_current_timezone_name())
    return context


class AccountPageMixin:
    """An account page in the navigation and footer of its conference (registration/base_account.html)."""

    def get_context_data(self, **kwargs):
        return super().get_context_data(**{**account_context(self.request), **kwargs})


class SignupView(AccountPageMixin, FormView):
    template_name = "registration/signup.html"
    form_class = SignupForm

    def form_valid(self, form):
        user = form.save()
        login(self.request, user, backend="conference.permissions.AccountBackend")
        mail.queue_verification_mail(user)
        messages.success(
            self.request,
            _(
                "Welcome, %(username)s! Your account is ready: "
                "press Save on any session to add it to your schedule."
            )
            % {"username": user.get_username()},
        )
        return super().form_valid(form)

    def get_success_url(self):
        return safe_next(self.request, "/")


class AccountView(LoginRequiredMixin, AccountPageMixin, TemplateView):
    """The visitor's account: who they are, their password, and their settings."""

    template_name = "registration/account.html"
    extra_context = {"nav": "account"}

    def get_context_data(self, **kwargs):
        # The speakers this account is, one per conference (speakers/views/self_service.py).
        speakers = self.request.user.speaker_profiles.select_related("conference")
        # The conferences this account proposed sessions to (sessions/cfp/views.py).
        proposed_to = Conference.objects.filter(
            proposals__proposal_speakers__user=self.request.user
        ).distinct()
        return super().get_context_data(
            speaker_profiles=list(speakers.order_by("-conference__starts_on", "pk")),
            proposed_to=list(proposed_to.order_by("-starts_on", "pk")),
            **kwargs,
        )


def too_many_links(limit) -> str:
    return _(
        "We sent too many confirmation links for this account or address lately. "
        "Try “Send the link again” in %(minutes)s minutes."
    ) % {"minutes": limit.minutes_left()}


class AccountSettingsView(LoginRequiredMixin, AccountPageMixin, FormView):
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
            refused = mail.queue_verification_mail(self.request.user)
            if refused:
                messages.warning(
                    self.request, _("Saved. %(why)s") % {"why": too_many_links(refused)}
                )
            else:
                messages.success(
                    self.request,
                    _(
                        "Saved. We sent a confirmation link to %(address)s: "
                        "no mail goes there until you follow it."
                    )
                    % {"address": form.cleaned_data["email"]},
                )
        else:
            messages.success(self.request, _("Saved."))
        return super().form_valid(form)

    def get_context_data(self, **kwargs):
        account_email = AccountEmail.objects.for_user(self.request.user)
        return super().get_context_data(account_email=account_email, **kwargs)


class SendVerificationView(LoginRequiredMixin, View):
    """“Send the link again” on account settings."""

    def post(self, request):
        if request.user.email:
            refused = mail.queue_verification_mail(request.user)
            if refused:
                messages.warning(request, too_many_links(refused))
            else:
                messages.success(
                    request,
                    _("We sent a confirmation link to %(address)s.")
                    % {"address": request.user.email},
                )
        return redirect("account-settings")


def verify_email(request, token):
    account_email = mail.verify_email(token)
    if account_email is None:
        return render(
            request, "registration/verify_email_invalid.html", account_context(request), status=400
        )
    context = {**account_context(request), "address": account_email.verified_address}
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
        return render(
            request, "registration/unsubscribe.html", {**account_context(request), "done": False}
        )

    def post(self, request, token):
        if not mail.unsubscribe(token):
            return self.invalid()
        return render(
            request, "registration/unsubscribe.html", {**account_context(request), "done": True}
        )

    def invalid(self):
        return render(
            self.request,
            "registration/unsubscribe_invalid.html",
            account_context(self.request),
            status=400,
        )


class TeamInvitationView(View):
    """A team invitation's link (conference/teams.py). A GET only shows it (mail scanners fetch
    every link); the invited account accepts with a button (a POST). Logged out, the visitor is
    sent to log in (or sign up from there) and comes back here."""

    def dispatch(self, request, token):
        if not request.user.is_authenticated:
            messages.info(
                request,
                _(
                    "You are invited to join a team. Log in, or create an account with the "
                    "address the invitation was sent to and confirm it; then open the link again."
                ),
            )
            return redirect_to_login(request.path)
        try:
            self.invitation = teams.read_team_invitation(token)
        except InvitationError as refused:
            return self.refused(refused)
        return super().dispatch(request, token)

    def get(self, request, token):
        refused = teams.wrong_account(self.invitation, request.user)
        if refused is not None:
            return self.refused(refused)
        team = self.invitation.team
        context = {
            **account_context(request),
            "team": team,
            "conferences": teams.conferences_of(team),
            "roles": teams.roles_of(team),
        }
        return render(request, "registration/team_invitation.html", context)

    def post(self, request, token):
        try:
            team = teams.accept_team_invitation(self.invitation, request.user)
        except InvitationError as refused:
            return self.refused(refused)
        messages.success(request, _("Welcome to the team “%(team)s”.") % {"team": team})
        return redirect("admin:index")

    def refused(self, refused: InvitationError):
        context = {**account_context(self.request), "title": refused.title}
        context["message"] = refused.message
        return render(
            self.request,
            "registration/team_invitation_invalid.html",
            context,
            status=refused.status,
        )


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


# What a log-out tells the browser to drop (Clear-Site-Data, for every logout door):
# - "cache": its HTTP cache, which the back button reads;
# - "storage": the kept pages (Cache API) and the worker's registration with them, for a worker
#   that missed the log-out (a page it did not control yet, an older version); the next page
#   registers the worker again. No other storage holds anything of ours.
# Not "cookies": the session is already ended on our side, and the page the log-out leads to
# reads the CSRF and time-zone cookies (and a message, if any). Not "executionContexts": it
# would reload every open tab of the site.
LOGGED_OUT_CLEARS = '"cache", "storage"'


def forgets_the_visitor(view):
    """A log-out view whose answer, once no one is logged in, clears what the browser kept."""

    @functools.wraps(view)
    def logout(request, *args, **kwargs):
        response = view(request, *args, **kwargs)
        if request.method == "POST" and not request.user.is_authenticated:
            response.headers["Clear-Site-Data"] = LOGGED_OUT_CLEARS
        return response

    return logout

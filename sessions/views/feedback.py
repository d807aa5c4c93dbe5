"""Feedback pages: an attendee rates a session, a speaker reads their sessions' feedback.

Both pages are personal, never shared (``shared = False``): the session page, which is shared,
only links to the attendee's. Without JavaScript the form posts and redirects with a message.
"""

from django import forms
from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import ValidationError
from django.http import Http404
from django.shortcuts import redirect
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from django.views.generic import TemplateView

from conference.pages.views import visitor_messages
from conference.views.conferences import ConferencePageMixin
from conference.views.preview_time import FollowsTheClockMixin, now_for
from sessions.models.feedback import (
    COMMENT_MAX_LENGTH,
    RATINGS,
    Feedback,
    feedback_refusal,
    save_feedback,
    sessions_with_feedback_for_speaker,
)
from sessions.views.my_schedule import PublicSessionMixin
from speakers.models import Speaker


class LogInFirstMixin:
    """A visitor not logged in gets a page saying why feedback needs an account, with links to
    log in or sign up, rather than a bare redirect to the login form. (It was first chosen to
    avoid a CSRF mismatch after the offline worker's second fetch of a redirect; the worker now
    makes that fetch without cookies, conference/site/service_worker.js.) Subclasses give
    ``own_context()``: the page's own context for a logged-in visitor."""

    login_template_name = "sessions/feedback_log_in.html"

    def dispatch(self, request, *args, **kwargs):
        if not request.user.is_authenticated and request.method not in ("GET", "HEAD"):
            return redirect_to_login(request.get_full_path())
        return super().dispatch(request, *args, **kwargs)

    def get_template_names(self):
        if not self.request.user.is_authenticated:
            return [self.login_template_name]
        return super().get_template_names()

    def get_context_data(self, **kwargs):
        if self.request.user.is_authenticated:
            kwargs = {**self.own_context(), **kwargs}
        else:
            kwargs["next"] = self.request.get_full_path()
        return super().get_context_data(messages=visitor_messages(self.request), **kwargs)

    def own_context(self) -> dict:
        raise NotImplementedError("each feedback page says what it shows")


class FeedbackForm(forms.ModelForm):
    rating = forms.TypedChoiceField(
        choices=RATINGS,
        coerce=int,
        widget=forms.RadioSelect,
        label=_("Your rating"),
        error_messages={"required": _("Choose a rating from 1 to 5 stars.")},
    )

    class Meta:
        model = Feedback
        fields = ["rating", "comment"]
        labels = {"comment": _("Comment (optional)")}
        widgets = {"comment": forms.Textarea(attrs={"rows": 5, "maxlength": COMMENT_MAX_LENGTH})}


class SessionFeedbackView(
    FollowsTheClockMixin, LogInFirstMixin, PublicSessionMixin, ConferencePageMixin, TemplateView
):
    """``/<conf>/sessions/<slug>/feedback/``: the visitor's rating of one session, to give or edit."""

    template_name = "sessions/feedback_form.html"
    shared = False

    def dispatch(self, request, *args, **kwargs):
        self.session = self.get_session(kwargs["slug"])
        if request.user.is_authenticated:
            self.feedback = Feedback.objects.filter(
                session=self.session, user=request.user
            ).first() or Feedback(session=self.session, user=request.user)
        return super().dispatch(request, *args, **kwargs)

    def post(self, request, *args, **kwargs):
        # The window as this visitor's clock says (an organizer's preview time, else now):
        # judged by the form's full_clean() and again by save_feedback().
        self.feedback.given_at = now_for(request, self.conference)
        form = FeedbackForm(request.POST, instance=self.feedback)
        if form.is_valid():
            try:
                save_feedback(form.instance)
            except ValidationError as error:
                form.add_error(None, error.messages)
            else:
                messages.success(
                    request, gettext("Thank you: your feedback is saved. You can still edit it.")
                )
                return redirect(request.path)
        return self.render_to_response(self.get_context_data(form=form), status=400)

    def own_context(self):
        return {
            "form": FeedbackForm(instance=self.feedback),
            "session": self.session,
            "existing": self.feedback if self.feedback.pk else None,
            "refusal": feedback_refusal(self.session, now_for(self.request, self.conference)),
            "comment_max_length": COMMENT_MAX_LENGTH,
        }


class SpeakerFeedbackView(LogInFirstMixin, ConferencePageMixin, TemplateView):
    """``/<conf>/speaker/feedback/``: ratings and comments on the visitor's own sessions, without
    who wrote them; hidden comments left out."""

    template_name = "speakers/speaker_feedback.html"
    shared = False

    def own_context(self):
        user = self.request.user
        speaker = (
            Speaker.objects.filter(conference=self.conference, user=user)
            .select_related("conference")
            .first()
        )
        if speaker is None:  # as the speakers' other pages (speakers/views/self_service.py)
            raise Http404("You are not a speaker of this conference.")
        return {
            "speaker": speaker,
            "sessions": sessions_with_feedback_for_speaker(user, self.conference),
        }

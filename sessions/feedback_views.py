"""Feedback pages: an attendee rates a session, a speaker reads their sessions' feedback.

Both pages are personal, never shared (``shared = False``): the session page, which is shared,
only links to the attendee's. Without JavaScript the form posts and redirects with a message.
"""

from django import forms
from django.contrib import messages
from django.contrib.auth.mixins import LoginRequiredMixin
from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import Prefetch
from django.shortcuts import redirect
from django.utils import timezone
from django.views.generic import TemplateView

from conference.pages.views import visitor_messages
from conference.views import ConferencePageMixin
from sessions.feedback import (
    COMMENT_MAX_LENGTH,
    RATINGS,
    Feedback,
    Tally,
    feedback_refusal,
    save_feedback,
)
from sessions.models import Session
from sessions.my_schedule import PublicSessionMixin
from speakers.models import Speaker


class FeedbackForm(forms.ModelForm):
    rating = forms.TypedChoiceField(
        choices=RATINGS,
        coerce=int,
        widget=forms.RadioSelect,
        label="Your rating",
        error_messages={"required": "Choose a rating from 1 to 5 stars."},
    )

    class Meta:
        model = Feedback
        fields = ["rating", "comment"]
        labels = {"comment": "Comment (optional)"}
        widgets = {"comment": forms.Textarea(attrs={"rows": 5, "maxlength": COMMENT_MAX_LENGTH})}


class SessionFeedbackView(
    LoginRequiredMixin, PublicSessionMixin, ConferencePageMixin, TemplateView
):
    """``/<conf>/sessions/<slug>/feedback/``: the visitor's rating of one session, to give or edit."""

    template_name = "sessions/feedback_form.html"
    shared = False

    def dispatch(self, request, *args, **kwargs):
        if request.user.is_authenticated:
            self.session = self.get_session(kwargs["slug"])
            self.feedback = Feedback.objects.filter(
                session=self.session, user=request.user
            ).first() or Feedback(session=self.session, user=request.user)
        return super().dispatch(request, *args, **kwargs)

    def post(self, request, *args, **kwargs):
        form = FeedbackForm(request.POST, instance=self.feedback)
        if form.is_valid():
            try:
                save_feedback(form.instance)
            except ValidationError as error:
                form.add_error(None, error.messages)
            else:
                messages.success(
                    request, "Thank you: your feedback is saved. You can still edit it."
                )
                return redirect(request.path)
        return self.render_to_response(self.get_context_data(form=form), status=400)

    def get_context_data(self, **kwargs):
        kwargs.setdefault("form", FeedbackForm(instance=self.feedback))
        return super().get_context_data(
            session=self.session,
            existing=self.feedback if self.feedback.pk else None,
            refusal=feedback_refusal(self.session, timezone.now()),
            messages=visitor_messages(self.request),
            comment_max_length=COMMENT_MAX_LENGTH,
            **kwargs,
        )


class SpeakerFeedbackView(LoginRequiredMixin, ConferencePageMixin, TemplateView):
    """``/<conf>/speaker/feedback/``: ratings and comments on the visitor's own sessions, without
    who wrote them; hidden comments left out."""

    template_name = "speakers/speaker_feedback.html"
    shared = False

    def get_context_data(self, **kwargs):
        user = self.request.user
        if not Speaker.objects.filter(conference=self.conference, user=user).exists():
            raise PermissionDenied("This page is for the conference's speakers.")
        sessions = list(
            self.conference.sessions.public()
            .filter(status=Session.Status.PUBLISHED, speakers__user=user)
            .distinct()
            .prefetch_related(
                Prefetch(
                    "feedback",
                    queryset=Feedback.objects.order_by("-rating", "comment", "pk").only(
                        "session_id", "rating", "comment", "hidden"
                    ),
                    to_attr="feedback_list",
                )
            )
            .in_schedule_order()
        )
        for session in sessions:
            session.tally = Tally()
            for feedback in session.feedback_list:
                session.tally.add(1, feedback.rating)
            session.comments = [
                item for item in session.feedback_list if item.comment and not item.hidden
            ]
        return super().get_context_data(
            sessions=sessions, messages=visitor_messages(self.request), **kwargs
        )

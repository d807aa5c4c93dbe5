"""A speaker proposes a new title, abstract or description for a session of theirs, and sees
what became of their proposals (``SessionChangeProposal``; the organizers decide in the admin).
"""

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.shortcuts import get_object_or_404, redirect
from django.utils.translation import gettext as _
from django.views.generic import FormView

from sessions.models import Session
from speakers.forms import SessionChangeProposalForm
from speakers.models import SessionChangeProposal
from speakers.views.materials import OwnSessionsMixin


class ProposeChangeView(OwnSessionsMixin, FormView):
    template_name = "speakers/propose_change.html"
    form_class = SessionChangeProposalForm

    def dispatch(self, request, *args, **kwargs):
        self.session = None
        return super().dispatch(request, *args, **kwargs)

    def get_session(self) -> Session:
        if self.session is None:
            sessions = self.own_sessions().select_related("conference")
            self.session = get_object_or_404(sessions, slug=self.kwargs["slug"])
        return self.session

    def get_form_kwargs(self):
        return {**super().get_form_kwargs(), "session": self.get_session(), "speaker": self.speaker}

    def form_valid(self, form):
        try:
            with transaction.atomic():
                form.save()
        except IntegrityError:
            # Two saves at once: the constraint kept the second, as clean() keeps any other.
            message = SessionChangeProposal._meta.constraints[0].violation_error_message
            form.add_error(None, ValidationError(message, code="pending"))
            return self.form_invalid(form)
        messages.success(
            self.request,
            _("Your proposal is sent to the organizers. This page shows their answer."),
        )
        return redirect(self.request.path)

    def get_context_data(self, **kwargs):
        session = self.get_session()
        proposals = list(
            SessionChangeProposal.objects.filter(session=session, speaker=self.speaker)
        )
        return super().get_context_data(
            session=session,
            proposals=proposals,
            pending=next((proposal for proposal in proposals if proposal.is_pending), None),
            **kwargs,
        )

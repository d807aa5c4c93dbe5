"""A speaker's answer to an acceptance: confirm that they will give the session, or decline
(``/<conference>/call/<code>/answer/``, the link of the decision mails; sessions/cfp/decisions.py
takes the step).

Only a speaker of the proposal gets in, once logged in; any other account gets “not found”, as
for a proposal that does not exist, and so does a conference not yet published to those who
speak in none of its proposals. Answers come after the call's deadline, so none applies here.
The buttons carry the version of the proposal the page showed: a second click, or a click on a
page the organizers have decided on again since, is told so and shown the proposal as it is.
"""

from django import forms
from django.contrib import messages
from django.contrib.auth.mixins import LoginRequiredMixin
from django.core.exceptions import ValidationError
from django.http import Http404
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views import View

from conference.versioning import EditConflictError
from conference.views.preview_time import now_for
from sessions.cfp import decisions
from sessions.models import Proposal
from speakers.views.self_service import SpeakerConferenceMixin

State = Proposal.State
CONFIRM, DECLINE = "confirm", "decline"


class DecisionAnswerForm(forms.Form):
    answer = forms.ChoiceField(
        choices=[(CONFIRM, gettext_lazy("Confirm")), (DECLINE, gettext_lazy("Decline"))]
    )
    # The proposal's version the page showed (conference/versioning.py).
    version = forms.IntegerField(min_value=1, max_value=2**31 - 1, widget=forms.HiddenInput)


class DecisionAnswerView(LoginRequiredMixin, SpeakerConferenceMixin, View):
    template_name = "cfp/decision_answer.html"

    def get_proposal(self) -> Proposal:
        proposal = (
            Proposal.objects.of_conference(self.conference)
            .of_speaker(self.request.user)
            .filter(code=self.kwargs["code"])
            .select_related("conference__call", "session")
            .prefetch_related("proposal_speakers", "conference__call__kinds")
            .first()
        )
        if proposal is None:
            raise Http404("No proposal of yours by that code.")
        return proposal

    def get(self, request, *args, **kwargs):
        return self.show(self.get_proposal())

    def post(self, request, *args, **kwargs):
        proposal = self.get_proposal()
        form = DecisionAnswerForm(request.POST)
        if not form.is_valid():
            return self.show(proposal, _("Choose Confirm or Decline."), status=400)
        answer, now = form.cleaned_data["answer"], now_for(request, self.conference)
        try:
            proposal.check_version(form.cleaned_data["version"])
            if answer == CONFIRM:
                decisions.confirm(proposal, by=request.user, now=now)
            else:
                decisions.decline(proposal, by=request.user, now=now)
        except EditConflictError:
            error = _(
                "This proposal changed since you opened the page (an answer already given, "
                "perhaps in another tab, or a new decision): here it is as it is now."
            )
            return self.show(self.get_proposal(), error, status=409)
        except ValidationError as refusal:
            return self.show(self.get_proposal(), " ".join(refusal.messages), status=409)
        messages.success(request, answered_message(answer, proposal))
        return redirect(request.path)

    def show(self, proposal: Proposal, error: str = "", status: int = 200):
        now = now_for(self.request, self.conference)
        call = getattr(proposal.conference, "call", None)
        offered = {kind.kind: kind for kind in call.offered_kinds()} if call else {}
        context = self.page_context(
            proposal=proposal,
            kind=offered.get(proposal.kind),
            error=error,
            may_decline=(
                proposal.state == State.CONFIRMED
                and not proposal.step_refusal(State.DECLINED, now, by_speaker=True)
            ),
        )
        return render(self.request, self.template_name, context, status=status)


def answered_message(answer: str, proposal: Proposal) -> str:
    if answer == CONFIRM:
        return _(
            "Thank you: you confirmed “%(title)s”. The organizers will now place it in the "
            "schedule; you are mailed when it is published."
        ) % {"title": proposal.title}
    return _("You declined “%(title)s”. The organizers see your answer.") % {
        "title": proposal.title
    }

"""The speaker's side of a call for proposals: the call's page, “My proposals”, and a proposal
from its first draft to its withdrawal (docs/speakers.md, "Proposing a session").

The pages open for a conference whose schedule is not published yet, which is when its call
runs: any conference with a call, and a 404 for one without. “Now”, for every rule of a call,
is ``now_for`` (organizers previewing another time see the call as it will be then). Each page
is about its visitor: never shared or cached (``never_cache`` in speaker_urls.py). Every rule is
the models' (``Proposal.move_to``, ``writing_refusal``, ``deletion_refusal``): a refusal is
shown as they word it.
"""

import datetime

from django.contrib import messages
from django.contrib.auth.mixins import LoginRequiredMixin
from django.core.exceptions import ValidationError
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views import View
from django.views.generic import TemplateView

from conference.i18n.languages import activate_conference_language
from conference.i18n.timezones import short_moment
from conference.models import Conference
from conference.pages.versions import page_query
from conference.versioning import EditConflictError
from conference.views.preview_time import now_for, preview_time_context
from sessions.cfp.forms import EDITED_ELSEWHERE, ConfirmStepForm, ProposalForm
from sessions.cfp.steps import take_speaker_step
from sessions.models import KIND_NAMES, Proposal

State = Proposal.State


class CallMixin:
    """The conference named in the URL and its call (a 404 without one), published or not; times
    in the zone the visitor chose, else the conference's."""

    def setup(self, request, *args, **kwargs):
        super().setup(request, *args, **kwargs)
        self.conference = (
            Conference.objects.filter(slug=kwargs["conference_slug"], call__isnull=False)
            .select_related("call")
            .first()
        )
        if self.conference is None:
            raise Http404("This conference has no call for proposals.")
        self.call = self.conference.call
        if not request.chosen_time_zone:
            timezone.activate(self.conference.tz)
        activate_conference_language(request, self.conference.language)
        self.now = now_for(request, self.conference)

    def page_context(self, **kwargs) -> dict:
        return {
            "conference": self.conference,
            "call": self.call,
            "now": self.now,
            "display_zone": timezone.get_current_timezone_name(),
            "page_query": page_query(self.request, ("tz",)),
            "in_zones": self.in_zones,
            **preview_time_context(self.request, self.conference),
            **kwargs,
        }

    def in_zones(self, moment: datetime.datetime) -> list[str]:
        """``moment`` in the visitor's zone, then in the conference's if it is another."""
        shown = timezone.get_current_timezone()
        texts = [short_moment(moment, shown)]
        if timezone.get_current_timezone_name() != self.conference.time_zone:
            texts.append(short_moment(moment, self.conference.tz))
        return texts


class CallView(CallMixin, TemplateView):
    """The call: what it asks for, until when, and the way in."""

    template_name = "cfp/call.html"

    def get_context_data(self, **kwargs):
        call = self.call
        kinds = [
            (
                KIND_NAMES[offered.kind],
                offered.minutes,
                call.deadline_for(offered.kind),
                call.is_open_for(offered.kind, self.now),
            )
            for offered in call.offered_kinds()
        ]
        return super().get_context_data(
            **self.page_context(
                kinds=kinds,
                tracks=list(call.tracks.all()),
                questions=list(call.questions.all()),
                call_state=call_state(call, self.now),
                propose_url=reverse(
                    "proposal-new", kwargs={"conference_slug": self.conference.slug}
                ),
            ),
            **kwargs,
        )


def call_state(call, now) -> str:
    if not call.has_opened(now):
        return "not-yet-open"
    return "open" if call.is_open(now) else "closed"


class SpeakerMixin(LoginRequiredMixin, CallMixin):
    """A page of the logged-in visitor's own proposals in the conference."""

    def own_proposals(self):
        return Proposal.objects.of_conference(self.conference).of_speaker(self.request.user)

    def get_proposal(self, code: str) -> Proposal:
        """The visitor's proposal ``code``; 404 for anyone who does not speak in it."""
        proposal = (
            self.own_proposals().filter(code=code).prefetch_related("proposal_speakers").first()
        )
        if proposal is None:
            raise Http404("No proposal of yours by that code.")
        proposal.conference = self.conference  # its call, read once for every rule below
        return proposal


class MyProposalsView(SpeakerMixin, TemplateView):
    template_name = "cfp/my_proposals.html"

    def get_context_data(self, **kwargs):
        proposals = list(self.own_proposals().order_by("-created_at", "-pk"))
        rows = []
        for proposal in proposals:
            proposal.conference = self.conference
            rows.append((proposal, *state_in_words(proposal, self.now)))
        return super().get_context_data(
            **self.page_context(rows=rows, call_open=self.call.is_open(self.now)), **kwargs
        )


def state_in_words(proposal: Proposal, now) -> tuple[str, str]:
    """What a proposal's speaker reads of its state, and what comes next for them."""
    call = proposal.conference.call
    editable = proposal.can_be_edited(now)
    deadline = short_moment(call.deadline_for(proposal.kind), timezone.get_current_timezone())
    if proposal.state == State.DRAFT:
        if editable:
            return _("Draft"), _("Finish it and submit it before %(deadline)s.") % {
                "deadline": deadline
            }
        return _("Draft, not submitted"), proposal.writing_refusal(now)
    if proposal.state == State.SUBMITTED:
        if editable:
            return _("Submitted"), _(
                "The organizers will review it. You can still edit it until %(deadline)s."
            ) % {"deadline": deadline}
        return _("Submitted"), _("The organizers are reviewing it.")
    return {
        State.ACCEPTED: (
            _("Accepted — confirm or decline"),
            _("Tell the organizers whether you will give it."),
        ),
        State.WAITLISTED: (
            _("On the waiting list"),
            _("The organizers will tell you if a place opens."),
        ),
        State.REJECTED: (_("Not accepted"), _("Thank you for proposing it.")),
        State.CONFIRMED: (_("Confirmed"), _("It waits for its place in the schedule.")),
        State.DECLINED: (_("Declined"), ""),
        State.WITHDRAWN: (_("Withdrawn"), ""),
    }[proposal.state]


class ProposalView(SpeakerMixin, View):
    """A new proposal (no ``code``) or one of the visitor's: its form while it may be written,
    else what it says and why it can no longer change."""

    template_name = "cfp/proposal.html"

    def get(self, request, conference_slug, code=None):
        proposal = self.get_proposal(code) if code else None
        refusal = self.writing_refusal(proposal)
        form = None if refusal else self.form(proposal)
        return self.show(proposal, form, refusal)

    def post(self, request, conference_slug, code=None):
        proposal = self.get_proposal(code) if code else None
        refusal = self.writing_refusal(proposal)
        if refusal:
            return self.show(proposal, None, refusal, status=409)
        form = self.form(proposal, data=request.POST)
        if not form.is_valid():
            return self.show(proposal, form, "")
        try:
            proposal = form.save()
        except ValidationError as error:
            form.add_error(None, error)
            return self.show(proposal, form, "", status=409)
        if request.POST.get("action") == "submit" and proposal.state == State.DRAFT:
            self.submit(proposal)
        else:
            messages.success(request, _("Your proposal is saved."))
        return redirect(proposal_url(proposal))

    def submit(self, proposal: Proposal) -> None:
        """Submit the saved ``proposal``, or say why not (it stays saved as it is)."""
        request = self.request
        try:
            take_speaker_step(proposal, State.SUBMITTED, by=request.user, now=self.now)
        except EditConflictError:
            refusal = str(EDITED_ELSEWHERE)
        except ValidationError as error:
            refusal = " ".join(error.messages)
        else:
            messages.success(
                request, _("Your proposal is submitted: the organizers will review it.")
            )
            return
        messages.error(request, _("Saved, but not submitted: %(reason)s") % {"reason": refusal})

    def writing_refusal(self, proposal: Proposal | None) -> str:
        if proposal is not None:
            return proposal.writing_refusal(self.now)
        if self.call.is_open(self.now):
            return ""
        return self.call.closed_message(None, self.now)

    def form(self, proposal: Proposal | None, data=None) -> ProposalForm:
        return ProposalForm(
            data, instance=proposal, call=self.call, user=self.request.user, now=self.now
        )

    def show(self, proposal, form, refusal: str, status: int = 200):
        context = self.page_context(proposal=proposal, form=form, refusal=refusal)
        if proposal is not None:
            user = self.request.user
            label, next_step = state_in_words(proposal, self.now)
            context.update(
                state_label=label,
                next_step=next_step,
                # A draft is deleted, not withdrawn: the organizers never saw it.
                may_withdraw=proposal.state != State.DRAFT
                and not proposal.step_refusal(State.WITHDRAWN, self.now, by_speaker=True),
                may_delete=not proposal.deletion_refusal(user),
                answers=list(proposal.answers.select_related("question")),
                speakers=list(proposal.proposal_speakers.all()),
            )
        return render(self.request, self.template_name, context, status=status)


def proposal_url(proposal: Proposal, name: str = "proposal") -> str:
    return reverse(
        name, kwargs={"conference_slug": proposal.conference.slug, "code": proposal.code}
    )


class ConfirmStepView(SpeakerMixin, View):
    """A step that asks “are you sure?” first: GET shows the question, POST takes the step.
    Each step (``WithdrawView``, ``DeleteDraftView``) says why it is refused, takes itself and
    words its question (``refusal``, ``take_step``, ``texts``)."""

    template_name = "cfp/confirm_step.html"

    def refusal(self, proposal: Proposal) -> str:
        raise NotImplementedError("each step says why it is refused")

    def take_step(self, proposal: Proposal) -> str:
        """Takes the step; the message that says it was taken."""
        raise NotImplementedError("each step takes itself")

    def get(self, request, conference_slug, code):
        proposal = self.get_proposal(code)
        return self.show(proposal, ConfirmStepForm(proposal=proposal))

    def post(self, request, conference_slug, code):
        proposal = self.get_proposal(code)
        form = ConfirmStepForm(request.POST, proposal=proposal)
        if not form.is_valid():
            return self.show(proposal, form, status=409)
        refusal = self.refusal(proposal)
        if refusal:
            return self.show(proposal, form, status=409)
        try:
            done = self.take_step(proposal)
        except EditConflictError:
            form.add_error(None, EDITED_ELSEWHERE)
            return self.show(proposal, form, status=409)
        except ValidationError as error:
            form.add_error(None, error)
            return self.show(proposal, form, status=409)
        messages.success(request, done)
        return redirect(self.after(proposal))

    def after(self, proposal: Proposal) -> str:
        return proposal_url(proposal)

    def show(self, proposal, form, status=200):
        context = self.page_context(proposal=proposal, form=form, refusal=self.refusal(proposal))
        return render(self.request, self.template_name, {**context, **self.texts()}, status=status)

    def texts(self) -> dict:
        raise NotImplementedError("each step words its question")


class WithdrawView(ConfirmStepView):
    """Withdraw a proposal: before or after the deadline, until the speaker has confirmed it."""

    def refusal(self, proposal):
        return proposal.step_refusal(State.WITHDRAWN, self.now, by_speaker=True)

    def take_step(self, proposal):
        take_speaker_step(proposal, State.WITHDRAWN, by=self.request.user, now=self.now)
        return _("Your proposal is withdrawn.")

    def texts(self):
        return {
            "heading": _("Withdraw this proposal?"),
            "explanation": _(
                "The organizers will no longer consider it, and it cannot be submitted again. "
                "You can propose it anew while the call is open."
            ),
            "button": _("Withdraw the proposal"),
        }


class DeleteDraftView(ConfirmStepView):
    """Delete a draft: it goes, with its answers; the organizers never saw it."""

    def refusal(self, proposal):
        return proposal.deletion_refusal(self.request.user)

    def take_step(self, proposal):
        proposal.delete()
        return _("The draft “%(title)s” is deleted.") % {"title": proposal.title}

    def after(self, proposal):
        return reverse("my-proposals", kwargs={"conference_slug": self.conference.slug})

    def texts(self):
        return {
            "heading": _("Delete this draft?"),
            "explanation": _("The draft and your answers go for good."),
            "button": _("Delete the draft"),
        }

"""Deciding from the review list: “Accept”, “Wait-list” and “Reject” the selected proposals.

Like Django's “Delete selected”, an action first shows what it would do to each proposal (move
it, leave it as it is, or refuse it and why), and acts only once confirmed. Each proposal is
decided in its own conference by ``decisions.decide()``, which checks every step; proposals of
conferences where the person does not decide are refused here, named."""

from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.template.response import TemplateResponse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from sessions.cfp import decisions
from sessions.models import Proposal

State = Proposal.State


def moved_message(state: str, count: int) -> str:
    """“3 proposals accepted.”"""
    text = {
        State.ACCEPTED: ngettext(
            "%(count)s proposal accepted.", "%(count)s proposals accepted.", count
        ),
        State.WAITLISTED: ngettext(
            "%(count)s proposal wait-listed.", "%(count)s proposals wait-listed.", count
        ),
        State.REJECTED: ngettext(
            "%(count)s proposal rejected.", "%(count)s proposals rejected.", count
        ),
    }[state]
    return text % {"count": count}


def not_deciding_reason(proposal: Proposal) -> str:
    return _("you do not decide on the proposals of %(conference)s") % {
        "conference": proposal.conference
    }


def report_outcome(model_admin, request, state: str, outcome, left_alone=(), not_yours=()):
    """Say how many proposals moved, which were already so, and why the others did not."""
    if outcome.moved:
        model_admin.message_user(
            request, moved_message(state, len(outcome.moved)), messages.SUCCESS
        )
    if left_alone:
        model_admin.message_user(
            request,
            ngettext(
                "%(count)s proposal was %(state)s already: %(titles)s.",
                "%(count)s proposals were %(state)s already: %(titles)s.",
                len(left_alone),
            )
            % {
                "count": len(left_alone),
                "state": State(state).label.lower(),
                "titles": ", ".join(f"“{proposal}”" for proposal in left_alone),
            },
            messages.INFO,
        )
    refused = [*outcome.refused, *((p, not_deciding_reason(p)) for p in not_yours)]
    for proposal, reason in refused:
        model_admin.message_user(
            request,
            _("Not moved to %(state)s: “%(title)s”: %(reason)s")
            % {"state": State(state).label.lower(), "title": proposal, "reason": reason},
            messages.ERROR,
        )


class DecisionActionsMixin:
    """The decision actions of ProposalAdmin, for those who decide in some conference."""

    actions = ["accept", "waitlist", "reject"]

    def has_decide_permission(self, request):
        return request.user.has_perm("schedule.decide_proposal")

    @admin.action(description=gettext_lazy("Accept selected proposals"), permissions=["decide"])
    def accept(self, request, queryset):
        return self.decide_selected(request, queryset, State.ACCEPTED, "accept")

    @admin.action(description=gettext_lazy("Wait-list selected proposals"), permissions=["decide"])
    def waitlist(self, request, queryset):
        return self.decide_selected(request, queryset, State.WAITLISTED, "waitlist")

    @admin.action(description=gettext_lazy("Reject selected proposals"), permissions=["decide"])
    def reject(self, request, queryset):
        return self.decide_selected(request, queryset, State.REJECTED, "reject")

    def decide_selected(self, request, queryset, state: str, action: str):
        user = request.user
        selected = list(
            queryset.select_related("conference__call", "session").order_by("title", "pk")
        )
        yours = [p for p in selected if user.has_perm("schedule.decide_proposal", p)]
        not_yours = [p for p in selected if p not in yours]
        if request.POST.get("post"):
            to_decide = [p for p in yours if p.state != state]
            outcome = decisions.decide(to_decide, state, by=user)
            left_alone = [p for p in yours if p.state == state and p not in outcome.moved]
            report_outcome(self, request, state, outcome, left_alone, not_yours)
            return None  # back to the list
        now = timezone.now()
        plan = []
        for proposal in yours:
            if proposal.state == state:
                plan.append((proposal, "same", ""))
                continue
            refusal = proposal.step_refusal(state, now, by_speaker=False)
            plan.append((proposal, "refused" if refusal else "moves", refusal))
        plan += [(proposal, "refused", not_deciding_reason(proposal)) for proposal in not_yours]
        context = {
            **self.admin_site.each_context(request),
            "title": _("%(decision)s the selected proposals?") % {"decision": ACTION_NAMES[state]},
            "decision": ACTION_NAMES[state],
            "state": State(state).label.lower(),
            "opts": self.opts,
            "plan": plan,
            "moving": sum(1 for step in plan if step[1] == "moves"),
            "selected": selected,
            "action": action,
            "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
            "media": self.media,
        }
        request.current_app = self.admin_site.name
        return TemplateResponse(
            request, "admin/schedule/proposal/decide_confirmation.html", context
        )


ACTION_NAMES = {
    State.ACCEPTED: gettext_lazy("Accept"),
    State.WAITLISTED: gettext_lazy("Wait-list"),
    State.REJECTED: gettext_lazy("Reject"),
}

"""Co-speakers' pages (sessions/cfp/co_speakers.py has the rules): a proposal's speakers invite,
remove and withdraw from the proposal's page (templates/cfp/includes/co_speakers.html posts
here, then comes back), and the invited accept from the mailed link.

They open for conferences not yet published too, as speakers' own pages do: a proposal is its
speakers', and a link is its holder's. Anyone else gets a 404, as for a proposal that does not
exist.
"""

from django.contrib import messages
from django.contrib.auth.mixins import LoginRequiredMixin
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import ValidationError
from django.http import Http404
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views import View

from conference.accounts.limits import Limit
from conference.invitations import INVITATION_LIFETIME, InvitationError
from conference.models import Conference
from conference.views.conferences import safe_next
from conference.views.preview_time import now_for
from sessions.cfp.co_speaker_forms import CoSpeakerAcceptForm, CoSpeakerInviteForm
from sessions.cfp.co_speakers import (
    accept_co_speaker_invitation,
    co_speaker_panel,
    invite_co_speaker,
    joining_refusal,
    read_co_speaker_invitation,
    remove_co_speaker,
    speaker_name,
    withdraw_co_speaker_invitation,
    wrong_account,
)
from sessions.models import Proposal
from speakers.views.self_service import SpeakerConferenceMixin


def co_speaker_panel_for(proposal: Proposal, request):
    """What the include shows of ``proposal``'s speakers to ``request``'s visitor (a template
    global, conference/site/jinja2.py): as at the visitor's "now" of its conference."""
    return co_speaker_panel(proposal, request.user, now_for(request, proposal.conference))


class OwnProposalMixin(LoginRequiredMixin, SpeakerConferenceMixin):
    """Actions on a proposal the visitor speaks in, named by its code; a 404 for anyone else.
    Each answers a POST, and goes back to the page it was posted from."""

    http_method_names = ["post"]

    def dispatch(self, request, *args, **kwargs):
        if request.user.is_authenticated:
            self.proposal = (
                Proposal.objects.of_conference(self.conference)
                .of_speaker(request.user)
                .filter(code=kwargs["code"])
                .select_related("conference")
                .first()
            )
            if self.proposal is None:
                raise Http404("You speak in no proposal of this code.")
        return super().dispatch(request, *args, **kwargs)

    def back(self):
        """To the page the form was posted from (the include sends it), else the conference's."""
        return redirect(safe_next(self.request, self.conference.get_absolute_url()))


class InviteView(OwnProposalMixin, View):
    def post(self, request, conference_slug, code):
        form = CoSpeakerInviteForm(request.POST)
        if form.is_valid():
            try:
                sent = invite_co_speaker(
                    self.proposal,
                    form.cleaned_data["email"],
                    request.user,
                    now=now_for(request, self.conference),
                )
            except ValidationError as refusal:
                form.add_refusal(refusal)
            else:
                if isinstance(sent, Limit):
                    form.add_error(None, limit_message(sent))
                    return self.show(form, status=429)
                messages.success(
                    request,
                    _("Invitation sent to %(address)s: its link works for %(days)d days.")
                    % {"address": sent.email, "days": INVITATION_LIFETIME.days},
                )
                return self.back()
        return self.show(form, status=400)

    def show(self, form, status):
        context = self.page_context(
            proposal=self.proposal, form=form, next_url=safe_next(self.request, "")
        )
        return render(self.request, "cfp/co_speaker_invite.html", context, status=status)


def limit_message(limit: Limit) -> str:
    minutes = limit.minutes_left()
    return ngettext(
        "You sent many invitations this hour. Try again in %(minutes)d minute.",
        "You sent many invitations this hour. Try again in %(minutes)d minutes.",
        minutes,
    ) % {"minutes": minutes}


class RemoveView(OwnProposalMixin, View):
    """The proposer removes a co-speaker, or a co-speaker leaves."""

    def post(self, request, conference_slug, code, pk):
        speaker = self.proposal.proposal_speakers.filter(pk=pk).first()
        if speaker is None:
            raise Http404("No such speaker in this proposal.")
        try:
            remove_co_speaker(
                self.proposal, speaker, request.user, now_for(request, self.conference)
            )
        except ValidationError as refusal:
            messages.error(request, " ".join(refusal.messages))
            return self.back()
        if speaker.user_id == request.user.pk:
            messages.success(request, _("You left “%(title)s”.") % {"title": self.proposal})
            # The proposal's page is its speakers' alone: they leave it too.
            return redirect(self.conference.get_absolute_url())
        messages.success(
            request, _("%(name)s no longer speaks in this proposal.") % {"name": speaker.name}
        )
        return self.back()


class WithdrawView(OwnProposalMixin, View):
    def post(self, request, conference_slug, code, pk):
        invitation = self.proposal.invitations.filter(pk=pk, accepted_at__isnull=True).first()
        if invitation is None:
            raise Http404("No such open invitation in this proposal.")
        try:
            withdraw_co_speaker_invitation(invitation, request.user)
        except ValidationError as refusal:
            messages.error(request, " ".join(refusal.messages))
        else:
            messages.success(
                request,
                _("The invitation of %(address)s is withdrawn: its link no longer works.")
                % {"address": invitation.email},
            )
        return self.back()


class InvitationView(SpeakerConferenceMixin, View):
    """A co-speaker invitation's link. A GET only shows it (mail scanners fetch every link); the
    invited account says how it is named in the proposal and accepts (a POST). Logged out, the
    visitor is sent to log in (or sign up from there) and comes back here."""

    template_name = "cfp/co_speaker_invitation.html"

    def dispatch(self, request, conference_slug, token):
        if not request.user.is_authenticated:
            messages.info(
                request,
                _(
                    "You are invited to speak in a proposal. Log in, or create an account with "
                    "the address the invitation was sent to and confirm it; you come back here."
                ),
            )
            return redirect_to_login(request.get_full_path())
        try:
            self.invitation = read_co_speaker_invitation(token, conference_slug)
        except InvitationError as refused:
            return self.refused(refused)
        refused = wrong_account(self.invitation, request.user)
        if refused is not None:
            return self.refused(refused)
        self.proposal = self.invitation.proposal
        refusal = joining_refusal(self.proposal, request.user)
        if refusal:
            return self.refused(InvitationError(_("You cannot join this proposal"), refusal, 409))
        return super().dispatch(request, conference_slug, token)

    def get(self, request, conference_slug, token):
        name = request.user.get_full_name() or request.user.get_username()
        return self.show(CoSpeakerAcceptForm(initial={"name": name}))

    def post(self, request, conference_slug, token):
        form = CoSpeakerAcceptForm(request.POST)
        if not form.is_valid():
            return self.show(form, status=400)
        try:
            speaker = accept_co_speaker_invitation(
                self.invitation, request.user, form.cleaned_data["name"], form.cleaned_data["bio"]
            )
        except InvitationError as refused:
            return self.refused(refused)
        except ValidationError as refusal:
            form.add_refusal(refusal)
            return self.show(form, status=400)
        return self.show(None, accepted=speaker)

    def show(self, form, status=200, accepted=None):
        context = self.page_context(
            proposal=self.proposal,
            inviter=speaker_name(self.proposal, self.invitation.invited_by),
            form=form,
            accepted=accepted,
            refusal=None,
        )
        return render(self.request, self.template_name, context, status=status)

    def refused(self, refused: InvitationError):
        # A link that opens no invitation tells nothing of a conference the visitor may not
        # see: a 404, as for a conference that does not exist.
        visible = Conference.objects.visible_to(self.request.user).filter(pk=self.conference.pk)
        if refused.status == 404 and not visible:
            raise Http404("No conference by that name.")
        context = self.page_context(refusal=refused, accepted=None)
        return render(self.request, self.template_name, context, status=refused.status)

"""A proposal's review page: ``ProposalAdmin.change_view``. What the speakers wrote (read-only,
Markdown rendered and cleaned), their answers, the speakers themselves unless the call hides
them from this reader, the proposal's steps, the reader's own score and comment (written through
``Review.full_clean()`` by ``write_review``), the other reviewers' when the call lets this reader
see them, and, for those who decide, the three decisions."""

from django import forms
from django.contrib import messages
from django.contrib.admin.utils import unquote
from django.core.exceptions import PermissionDenied, ValidationError
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from conference.i18n.timezones import short_moment
from conference.markup import render_markdown
from sessions.cfp import decisions
from sessions.cfp.admin.decisions import report_outcome
from sessions.cfp.reviewing import next_unreviewed, write_review
from sessions.forms import error_messages_by_field
from sessions.models import Proposal, Review
from sessions.models.proposals import DECISIONS, reads_scores
from sessions.models.reviews import COMMENT_MAX_LENGTH

State = Proposal.State
DECISION_BUTTONS = [
    (State.ACCEPTED, gettext_lazy("Accept")),
    (State.WAITLISTED, gettext_lazy("Wait-list")),
    (State.REJECTED, gettext_lazy("Reject")),
]


class ReviewForm(forms.Form):
    """A score on the call's scale and a comment; the review's own rules judge the rest."""

    score = forms.TypedChoiceField(
        label=gettext_lazy("Your score"), coerce=int, widget=forms.RadioSelect
    )
    comment = forms.CharField(
        label=gettext_lazy("Your comment"),
        required=False,
        # The review's own validator bounds its length (Review.full_clean()); the browser too.
        widget=forms.Textarea(attrs={"rows": 5, "maxlength": COMMENT_MAX_LENGTH}),
        help_text=Review._meta.get_field("comment").help_text,
    )

    def __init__(self, *args, scale: list[int], **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["score"].choices = [(value, str(value)) for value in scale]


def review_page(model_admin, request, object_id):
    proposal = model_admin.get_object(request, unquote(object_id))
    if not model_admin.has_view_permission(request, proposal):
        raise PermissionDenied
    user = request.user
    reviews = list(proposal.reviews.select_related("reviewer").order_by("created_at", "pk"))
    mine = next((review for review in reviews if review.reviewer_id == user.pk), None)
    scale = proposal.conference.call.score_choices()
    initial = {"score": mine.score, "comment": mine.comment} if mine else {}
    form = ReviewForm(initial=initial, scale=scale)
    if request.method == "POST":
        if "decision" in request.POST:
            return decide_one(model_admin, request, proposal)
        if not user.has_perm("schedule.review_proposal", proposal):
            raise PermissionDenied
        form = ReviewForm(request.POST, scale=scale)
        if form.is_valid():
            try:
                write_review(proposal, user, **form.cleaned_data)
            except ValidationError as error:
                for field, problems in error_messages_by_field(error).items():
                    form.add_error(field if field in form.fields else None, problems)
            else:
                messages.success(request, _("Your review is saved."))
                return after_saving(model_admin, request, proposal)
    return TemplateResponse(
        request,
        "admin/schedule/proposal/review.html",
        {
            **model_admin.admin_site.each_context(request),
            **page_context(model_admin, request, proposal, reviews, mine),
            "form": form,
        },
    )


def page_context(model_admin, request, proposal, reviews, mine) -> dict:
    user = request.user
    decides = user.has_perm("schedule.decide_proposal", proposal)
    speakers = list(proposal.proposal_speakers.all())
    speaker_ids = {speaker.user_id for speaker in speakers}
    shows_speakers = user.has_perm("schedule.see_proposal_speakers", proposal)
    sees_others = reads_scores(
        speaks=user.pk in speaker_ids,
        decides=decides,
        has_scored=mine is not None,
        hidden_until_scored=proposal.conference.call.scores_hidden_until_reviewed,
    )
    answers = {answer.question_id: answer.value for answer in proposal.answers.all()}
    zone = proposal.conference.tz
    steps = [
        (
            step,
            # Under an anonymised review, a speaker's own step (submitting) names nobody.
            step.changed_by if shows_speakers or step.changed_by_id not in speaker_ids else None,
            short_moment(step.changed_at, zone),  # in the conference's zone, as its times are
        )
        for step in proposal.state_changes.select_related("changed_by")
    ]
    return {
        "title": _("Review of “%(title)s”") % {"title": proposal.title},
        "opts": model_admin.opts,
        "is_nav_sidebar_enabled": False,  # the text and the scores need the width
        "proposal": proposal,
        "media": model_admin.media,
        "abstract": mark_safe(render_markdown(proposal.abstract)),  # cleaned by nh3
        "description": mark_safe(render_markdown(proposal.description)),
        "shows_speakers": shows_speakers,
        "speakers": [(speaker, mark_safe(render_markdown(speaker.bio))) for speaker in speakers]
        if shows_speakers
        else [],
        "speaker_count": len(speakers),
        "answers": [
            (question, answers.get(question.pk, ""))
            for question in proposal.conference.call.questions.all()
        ],
        "steps": steps,
        "mine": mine,
        "may_review": user.has_perm("schedule.review_proposal", proposal)
        and user.pk not in speaker_ids,
        "speaks": user.pk in speaker_ids,
        "sees_others": sees_others,
        "others": [review for review in reviews if review.reviewer_id != user.pk],
        "decides": decides,
        "decision_buttons": [
            (state, label) for state, label in DECISION_BUTTONS if state != proposal.state
        ],
        "list_url": reverse("admin:schedule_proposal_changelist")
        + f"?conference__id__exact={proposal.conference_id}",
    }


def after_saving(model_admin, request, proposal):
    if "_next" not in request.POST:
        return redirect(request.path)
    following = next_unreviewed(request.user, proposal)
    if following is None:
        messages.info(request, _("You have reviewed every proposal of this conference."))
        return redirect(
            reverse("admin:schedule_proposal_changelist")
            + f"?conference__id__exact={proposal.conference_id}"
        )
    return redirect("admin:schedule_proposal_change", following.pk)


def decide_one(model_admin, request, proposal):
    if not request.user.has_perm("schedule.decide_proposal", proposal):
        raise PermissionDenied
    state = request.POST.get("decision")
    if state not in DECISIONS:
        messages.error(request, _("Choose one of the decisions."))
        return redirect(request.path)
    if proposal.state == state:
        report_outcome(model_admin, request, state, decisions.Outcome(), left_alone=[proposal])
        return redirect(request.path)
    outcome = decisions.decide([proposal], state, by=request.user)
    report_outcome(model_admin, request, state, outcome)
    return redirect(request.path)

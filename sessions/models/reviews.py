"""Reviews: a reviewer's score and comment on a proposal (docs/organizers.md, "Reviewing").

Who may review is a permission (``schedule.review_proposal``: the reviewer, programme and
organizer roles of the proposal's conference, conference/permissions.py). What a review may say
is checked here, whoever writes it: the score lies on the call's scale, the proposal was sent to
the organizers, and nobody reviews a proposal they speak in.
"""

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxLengthValidator
from django.db import models
from django.utils.translation import gettext, gettext_lazy

from sessions.models.proposals import REVIEWABLE, Proposal

COMMENT_MAX_LENGTH = 5_000


class ReviewQuerySet(models.QuerySet):
    def of_conference(self, conference):
        return self.filter(proposal__conference=conference)

    def by(self, user):
        return self.filter(reviewer=user)

    def visible_to(self, user, proposal):
        """The reviews of ``proposal`` that ``user`` may read, with their scores and comments:
        all of them, unless its call hides the others' scores from a reviewer who has not
        scored it yet (``Proposal.shows_scores_to``); then none. The admin and the API list
        reviews through this."""
        reviews = self.filter(proposal=proposal)
        has_scored = user.is_authenticated and reviews.filter(reviewer=user).exists()
        return reviews if proposal.shows_scores_to(user, has_scored=has_scored) else reviews.none()


class Review(models.Model):
    proposal = models.ForeignKey(
        Proposal,
        on_delete=models.CASCADE,
        related_name="reviews",
        verbose_name=gettext_lazy("proposal"),
    )
    reviewer = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="proposal_reviews",
        verbose_name=gettext_lazy("reviewer"),
    )
    score = models.SmallIntegerField(gettext_lazy("score"))
    comment = models.TextField(
        gettext_lazy("comment"),
        blank=True,
        validators=[MaxLengthValidator(COMMENT_MAX_LENGTH)],
        help_text=gettext_lazy(
            "Seen by the organizers and the other reviewers, never by speakers."
        ),
    )
    created_at = models.DateTimeField(gettext_lazy("created at"), auto_now_add=True)
    updated_at = models.DateTimeField(gettext_lazy("updated at"), auto_now=True)

    objects = ReviewQuerySet.as_manager()

    class Meta:
        verbose_name = gettext_lazy("review")
        verbose_name_plural = gettext_lazy("reviews")
        ordering = ["proposal", "created_at", "pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["proposal", "reviewer"],
                name="one_review_per_reviewer",
                violation_error_message=gettext_lazy("You reviewed this proposal already."),
            ),
        ]

    def __str__(self):
        return gettext("%(reviewer)s on “%(proposal)s”: %(score)s") % {
            "reviewer": self.reviewer,
            "proposal": self.proposal,
            "score": self.score,
        }

    def clean(self):
        errors = {}
        if self.proposal_id:
            proposal = self.proposal
            call = proposal.conference.call
            if self.score is not None and not call.score_min <= self.score <= call.score_max:
                errors["score"] = gettext("Score from %(low)d to %(high)d.") % {
                    "low": call.score_min,
                    "high": call.score_max,
                }
            if proposal.state not in REVIEWABLE:
                errors["proposal"] = gettext("Only submitted proposals are reviewed.")
            if (
                self.reviewer_id
                and proposal.proposal_speakers.filter(user_id=self.reviewer_id).exists()
            ):
                errors["proposal"] = gettext("You speak in this proposal: you cannot review it.")
        if errors:
            raise ValidationError(errors)

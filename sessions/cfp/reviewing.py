"""Reviewing proposals: writing one's score, what a reviewer sees of the others', which
proposal comes next, and how far each reviewer of a conference has got (docs/organizers.md,
"Reviewing"). What a review may say is ``Review.clean()``'s; who may review is a permission
(``schedule.review_proposal``, conference/permissions.py).
"""

from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Count, Q

from conference.models import Team
from sessions.models import Proposal, ProposalSpeaker, Review

REVIEWING_ROLES = Q(is_reviewer=True) | Q(is_programme=True) | Q(is_organizer=True)


def write_review(proposal: Proposal, reviewer, *, score: int, comment: str) -> Review:
    """``reviewer``'s score and comment on ``proposal``, new or changed, through the review's
    own validation (ValidationError saying what is wrong)."""
    with transaction.atomic():
        review = (
            Review.objects.select_for_update().filter(proposal=proposal, reviewer=reviewer).first()
        )
        if review is None:
            review = Review(proposal=proposal, reviewer=reviewer)
        review.score, review.comment = score, comment
        review.full_clean()
        review.save()
    return review


def next_unreviewed(user, proposal: Proposal) -> Proposal | None:
    """The proposal of the same conference ``user`` should score after ``proposal``: the next
    one sent after it that they have not scored (nor speak in), else the first such one."""
    waiting = (
        Proposal.objects.for_reviewer(user)
        .not_reviewed_by(user)
        .filter(conference_id=proposal.conference_id)
        .exclude(pk=proposal.pk)
        .order_by("submitted_at", "pk")
    )
    if proposal.submitted_at is not None:
        after = waiting.filter(
            Q(submitted_at__gt=proposal.submitted_at)
            | Q(submitted_at=proposal.submitted_at, pk__gt=proposal.pk)
        ).first()
        if after is not None:
            return after
    return waiting.first()


@dataclass(frozen=True)
class Progress:
    """How far one reviewer has got in one conference."""

    reviewer: object
    reviewed: int
    to_review: int  # the conference's proposals sent for review, less those they speak in


def review_progress(conference_ids: list[int]) -> dict[int, list[Progress]]:
    """Per conference, each person who may review there (by their teams) or has reviewed
    there: how many of the proposals they may score they have scored. A fixed number of
    queries, whatever the number of conferences, reviewers and proposals."""
    if not conference_ids:
        return {}
    reviewers: dict[int, set[int]] = {pk: set() for pk in conference_ids}
    every_conference: set[int] = set()
    teams = Team.objects.filter(REVIEWING_ROLES, members__isnull=False).filter(
        Q(all_conferences=True) | Q(conferences__in=conference_ids)
    )
    for all_conferences, conference_id, member in teams.values_list(
        "all_conferences", "conferences", "members"
    ).distinct():
        if all_conferences:
            every_conference.add(member)
        elif conference_id in reviewers:
            reviewers[conference_id].add(member)
    sent = Proposal.objects.reviewable().filter(conference_id__in=conference_ids)
    reviewed = {
        (row["proposal__conference"], row["reviewer"]): row["count"]
        for row in Review.objects.filter(proposal__in=sent)
        .values("proposal__conference", "reviewer")
        .annotate(count=Count("pk"))
    }
    for conference_id, reviewer in reviewed:
        reviewers[conference_id].add(reviewer)
    for members in reviewers.values():
        members |= every_conference
    totals = dict(
        sent.values("conference").annotate(count=Count("pk")).values_list("conference", "count")
    )
    own = {
        (row["proposal__conference"], row["user"]): row["count"]
        for row in ProposalSpeaker.objects.filter(proposal__in=sent)
        .values("proposal__conference", "user")
        .annotate(count=Count("proposal", distinct=True))
    }
    people = get_user_model().objects.filter(
        pk__in=set().union(*reviewers.values()), is_active=True, is_staff=True
    )
    by_pk = {person.pk: person for person in people}
    return {
        conference_id: sorted(
            (
                Progress(
                    reviewer=by_pk[pk],
                    reviewed=reviewed.get((conference_id, pk), 0),
                    to_review=totals.get(conference_id, 0) - own.get((conference_id, pk), 0),
                )
                for pk in members
                if pk in by_pk
            ),
            key=lambda progress: (
                (progress.reviewer.get_full_name() or progress.reviewer.get_username()).lower(),
                progress.reviewer.pk,
            ),
        )
        for conference_id, members in reviewers.items()
    }

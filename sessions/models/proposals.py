"""Proposals: what speakers send to a call, from a first draft to a session in the planner
(docs/speakers.md, "Proposing a session"; docs/organizers.md, "Call for proposals").

A proposal moves through ``Proposal.State`` one step at a time, each step checked here
(``Proposal.move_to``) whoever asks: a speaker's page, the admin, the API. Speakers draft, submit
and withdraw; organizers accept, wait-list or reject; an accepted speaker confirms or declines,
and a confirmed proposal gets its ``Session`` (sessions/cfp/decisions.py). Each step is recorded
(``ProposalStateChange``: who, when, from what). A proposal is ``Versioned``: a step or an edit
based on what another person or tab has changed since is refused, so two steps never cross.
"""

import secrets

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxLengthValidator
from django.db import models, transaction
from django.db.models import Avg, Case, Count, Exists, F, OuterRef, Q, When
from django.utils import timezone, translation
from django.utils.translation import gettext, gettext_lazy

from conference.models import Conference, Track
from conference.versioning import Versioned, VersionedQuerySet
from sessions.models.call import ANSWER_MAX_LENGTH, CallQuestion
from sessions.models.choices import AudienceLevel, Kind
from sessions.models.session import Session

TEXT_MAX_LENGTH = 20_000
NOTES_MAX_LENGTH = 5_000
BIO_MAX_LENGTH = 5_000
# Drafts one account may keep per conference: enough for every idea, too few to fill a table.
MAX_DRAFTS_PER_ACCOUNT = 10
CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # nothing read twice: no 0/O, 1/I


def new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(6))


class State(models.TextChoices):
    DRAFT = "draft", gettext_lazy("Draft")
    SUBMITTED = "submitted", gettext_lazy("Submitted")
    ACCEPTED = "accepted", gettext_lazy("Accepted")
    WAITLISTED = "waitlisted", gettext_lazy("Wait-listed")
    REJECTED = "rejected", gettext_lazy("Rejected")
    CONFIRMED = "confirmed", gettext_lazy("Confirmed")
    DECLINED = "declined", gettext_lazy("Declined")
    WITHDRAWN = "withdrawn", gettext_lazy("Withdrawn")


# What each step may follow. Organizers' decisions stay reversible (any decision to another)
# until the proposal's session is published; speakers withdraw at any time before confirming,
# and decline before or after.
DECISIONS = frozenset({State.ACCEPTED, State.WAITLISTED, State.REJECTED})
STEPS: dict[str, frozenset[str]] = {
    State.DRAFT: frozenset({State.SUBMITTED, State.WITHDRAWN}),
    State.SUBMITTED: frozenset({*DECISIONS, State.WITHDRAWN}),
    State.ACCEPTED: frozenset({*DECISIONS, State.CONFIRMED, State.DECLINED, State.WITHDRAWN}),
    State.WAITLISTED: frozenset({*DECISIONS, State.WITHDRAWN}),
    State.REJECTED: frozenset({*DECISIONS}),
    State.CONFIRMED: frozenset({*DECISIONS, State.DECLINED}),
    State.DECLINED: frozenset(),
    State.WITHDRAWN: frozenset(),
}
# Who takes each step: a speaker of the proposal, or the organizers.
SPEAKER_STEPS = frozenset({State.SUBMITTED, State.WITHDRAWN, State.CONFIRMED, State.DECLINED})
REVIEWABLE = (State.SUBMITTED, State.ACCEPTED, State.WAITLISTED, State.REJECTED, State.CONFIRMED)


def scores_hidden_from(user, conference) -> bool:
    """Whether the call of ``conference`` hides the others' scores from ``user`` until they
    have scored a proposal: it says so (``Call.scores_hidden_until_reviewed``), and ``user``
    reviews without deciding (those who decide read every score)."""
    call = getattr(conference, "call", None)  # none yet: no proposal to hide scores of
    return (
        call is not None
        and call.scores_hidden_until_reviewed
        and not user.has_perm("schedule.decide_proposal", conference)
    )


def reads_scores(*, speaks: bool, decides: bool, has_scored: bool, hidden_until_scored: bool):
    """Who reads the scores and comments of a proposal's reviews (and its mean score): never its
    own speakers; those who decide on it always; a reviewer once they have scored it, or at once
    when the call does not hide scores until then (``Call.scores_hidden_until_reviewed``), so
    the others' opinions do not sway their own. The one rule of the admin and the API."""
    if speaks:
        return False
    return decides or has_scored or not hidden_until_scored


class ProposalQuerySet(VersionedQuerySet):
    def of_conference(self, conference):
        return self.filter(conference=conference)

    def of_speaker(self, user):
        """The proposals ``user`` is a speaker of (drafts included)."""
        if not user.is_authenticated:
            return self.none()
        return self.filter(proposal_speakers__user=user)

    def reviewable(self):
        """Sent to the organizers: what reviewers see (not drafts, not withdrawn)."""
        return self.filter(state__in=REVIEWABLE)

    def for_reviewer(self, user):
        """What ``user`` may score: reviewable, and none they are a speaker of."""
        return self.reviewable().exclude(proposal_speakers__user=user)

    def not_reviewed_by(self, user):
        return self.exclude(reviews__reviewer=user)

    def with_scores(self):
        """Each proposal's mean score (``mean_score``, None before any) and review count."""
        return self.annotate(mean_score=Avg("reviews__score"), review_count=Count("reviews"))

    def with_scores_for(self, user, conference):
        """``with_scores()`` as ``user`` may read them in ``conference``: whether they scored
        each proposal (``scored_by_user``), and the mean score they may see (``shown_score``,
        None where ``Proposal.shows_scores_to`` would hide it), to show and to sort by in one
        query for a whole list."""
        speaks = Exists(ProposalSpeaker.objects.filter(proposal=OuterRef("pk"), user_id=user.pk))
        shown = ~Q(speaks=True)
        if scores_hidden_from(user, conference):
            shown &= Q(scored_by_user__gt=0)
        return self.annotate(
            mean_score=Avg("reviews__score"),
            review_count=Count("reviews"),
            scored_by_user=Count("reviews", filter=Q(reviews__reviewer_id=user.pk)),
            speaks=speaks,
        ).annotate(shown_score=Case(When(shown, then=F("mean_score")), default=None))

    def drafts_of(self, user, conference):
        return self.filter(created_by=user, conference=conference, state=State.DRAFT)


class Proposal(Versioned):
    State = State

    conference = models.ForeignKey(
        Conference,
        on_delete=models.CASCADE,
        related_name="proposals",
        verbose_name=gettext_lazy("conference"),
    )
    # In links and mails instead of the row's id, which would tell how many proposals there are.
    code = models.CharField(
        gettext_lazy("code"), max_length=12, unique=True, default=new_code, editable=False
    )
    title = models.CharField(gettext_lazy("title"), max_length=300)
    abstract = models.TextField(
        gettext_lazy("abstract"),
        blank=True,
        validators=[MaxLengthValidator(TEXT_MAX_LENGTH)],
        help_text=gettext_lazy("A short summary, shown in the schedule. Markdown."),
    )
    description = models.TextField(
        gettext_lazy("description"),
        blank=True,
        validators=[MaxLengthValidator(TEXT_MAX_LENGTH)],
        help_text=gettext_lazy("Markdown."),
    )
    kind = models.CharField(gettext_lazy("kind"), max_length=20, choices=Kind.choices)
    track = models.ForeignKey(
        Track,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="proposals",
        verbose_name=gettext_lazy("track"),
    )
    audience_level = models.CharField(
        gettext_lazy("audience level"),
        max_length=20,
        choices=AudienceLevel.choices,
        default=AudienceLevel.ANY,
    )
    language = models.CharField(
        gettext_lazy("language"),
        max_length=10,
        blank=True,
        help_text=gettext_lazy("The language of the talk, e.g. en or fr."),
    )
    notes = models.TextField(
        gettext_lazy("notes for the organizers"),
        blank=True,
        validators=[MaxLengthValidator(NOTES_MAX_LENGTH)],
        help_text=gettext_lazy(
            "Never published: needs, constraints, anything the organizers should know."
        ),
    )
    state = models.CharField(
        gettext_lazy("state"), max_length=12, choices=State.choices, default=State.DRAFT
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        related_name="+",
        verbose_name=gettext_lazy("created by"),
    )
    session = models.OneToOneField(
        Session,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="proposal",
        verbose_name=gettext_lazy("session"),
    )
    created_at = models.DateTimeField(gettext_lazy("created at"), auto_now_add=True)
    updated_at = models.DateTimeField(gettext_lazy("updated at"), auto_now=True)
    submitted_at = models.DateTimeField(gettext_lazy("submitted at"), null=True, blank=True)

    objects = ProposalQuerySet.as_manager()

    class Meta:
        verbose_name = gettext_lazy("proposal")
        verbose_name_plural = gettext_lazy("proposals")
        ordering = ["-created_at", "-pk"]
        permissions = [
            ("review_proposal", "Can score proposals"),
            ("decide_proposal", "Can accept, wait-list and reject proposals"),
        ]
        indexes = [models.Index(fields=["conference", "state"])]

    def __str__(self):
        return self.title

    # --- rules --------------------------------------------------------------------------------

    def clean(self):
        errors = {}
        call = getattr(self.conference, "call", None) if self.conference_id else None
        if call is None and self.conference_id:
            errors["conference"] = gettext("This conference has no call for proposals.")
        elif call is not None:
            if self.kind and self.kind not in dict(call.kind_choices()):
                errors["kind"] = gettext("The call does not ask for this kind of session.")
            offered_tracks = {track.pk for track in call.tracks.all()}
            if self.track_id and self.track_id not in offered_tracks:
                errors["track"] = gettext("The call does not offer this track.")
        if self._state.adding and self.created_by_id and self.conference_id:
            drafts = Proposal.objects.drafts_of(self.created_by, self.conference).count()
            if drafts >= MAX_DRAFTS_PER_ACCOUNT:
                errors["title"] = gettext(
                    "You have %(count)d drafts for this conference already: submit or delete "
                    "some before starting another."
                ) % {"count": drafts}
        if errors:
            raise ValidationError(errors)

    def writing_refusal(self, now) -> str:
        """Why the proposal's texts cannot be changed at ``now``; empty while they can."""
        if self.state not in (State.DRAFT, State.SUBMITTED):
            return gettext("This proposal is %(state)s: it can no longer be edited.") % {
                "state": self.get_state_display().lower()
            }
        return self.conference.call.closed_message(self.kind, now)

    def can_be_edited(self, now) -> bool:
        return not self.writing_refusal(now)

    def deletion_refusal(self, user) -> str:
        """Why ``user`` cannot delete the proposal; empty when they can. Only a draft goes, and
        only by whom started it: what the organizers have seen is withdrawn, and kept."""
        if self.state != State.DRAFT:
            return gettext("Only a draft can be deleted: withdraw this proposal instead.")
        if self.created_by_id != user.pk:
            return gettext("Only the speaker who started this draft can delete it.")
        return ""

    def step_refusal(self, state: str, now, *, by_speaker: bool) -> str:
        """Why the proposal cannot move to ``state`` at ``now``; empty when it can."""
        if state not in STEPS[self.state]:
            return gettext("A proposal that is %(now)s cannot become %(then)s.") % {
                "now": self.get_state_display().lower(),
                "then": State(state).label.lower(),
            }
        if by_speaker and state not in SPEAKER_STEPS:
            return gettext("Only the organizers decide on proposals.")
        if not by_speaker and state in SPEAKER_STEPS:
            return gettext("Only the proposal's speakers take this step.")
        if state == State.SUBMITTED:
            closed = self.conference.call.closed_message(self.kind, now)
            if closed:
                return closed
            missing = self.unanswered_questions()
            if missing:
                return gettext("Answer every required question before submitting: %(q)s") % {
                    "q": "; ".join(question.text for question in missing)
                }
        if state in DECISIONS and self.session_is_published():
            return gettext("Its session is published: change the session in the schedule instead.")
        if state == State.DECLINED and self.session_is_published():
            return gettext(
                "Your session is in the published schedule: write to the organizers to cancel it."
            )
        return ""

    def move_to(self, state: str, *, by, now=None, by_speaker: bool, note: str = ""):
        """Take one step, record it, or raise ValidationError saying why not; EditConflictError
        when the proposal changed since it was loaded (another step came first)."""
        now = now or timezone.now()
        refusal = self.step_refusal(state, now, by_speaker=by_speaker)
        if refusal:
            raise ValidationError(refusal, code="step_refused")
        with transaction.atomic():
            previous = self.state
            self.state = state
            if state == State.SUBMITTED and self.submitted_at is None:
                self.submitted_at = now
            self.save(update_fields=["state", "submitted_at", "updated_at", "version"])
            ProposalStateChange.objects.create(
                proposal=self,
                from_state=previous,
                to_state=state,
                changed_by=by if by is not None and by.is_authenticated else None,
                changed_at=now,
                note=note[:500],
            )

    def unanswered_questions(self) -> list[CallQuestion]:
        answered = {answer.question_id for answer in self.answers.all() if answer.value.strip()}
        return [
            question
            for question in self.conference.call.questions.all()
            if question.required and question.pk not in answered
        ]

    def session_is_published(self) -> bool:
        return self.session_id is not None and self.session.status != Session.Status.DRAFT

    def shows_scores_to(self, user, *, has_scored: bool) -> bool:
        """Whether ``user`` may read the scores and comments of this proposal's reviews (and
        its mean score): never its own speakers; those who decide on it always; a reviewer
        once ``has_scored`` it, or at once if the call does not hide scores until then.
        (``ProposalQuerySet.with_scores_for`` is the same rule for a list.)"""
        return reads_scores(
            speaks=self.is_spoken_by(user),
            decides=user.has_perm("schedule.decide_proposal", self.conference),
            has_scored=has_scored,
            hidden_until_scored=self.conference.call.scores_hidden_until_reviewed,
        )

    def is_spoken_by(self, user) -> bool:
        return user.is_authenticated and any(
            speaker.user_id == user.pk for speaker in self.proposal_speakers.all()
        )


class ProposalSpeaker(models.Model):
    """A speaker of a proposal: an account, and how they want to be presented in it."""

    proposal = models.ForeignKey(
        Proposal,
        on_delete=models.CASCADE,
        related_name="proposal_speakers",
        verbose_name=gettext_lazy("proposal"),
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="proposal_speakers",
        verbose_name=gettext_lazy("account"),
    )
    name = models.CharField(gettext_lazy("name"), max_length=200)
    bio = models.TextField(
        gettext_lazy("bio"),
        blank=True,
        validators=[MaxLengthValidator(BIO_MAX_LENGTH)],
        help_text=gettext_lazy("Markdown."),
    )
    position = models.PositiveSmallIntegerField(gettext_lazy("position"), default=0)
    # The site's language when they joined it (drafted, accepted the invitation): their mails'.
    language = models.CharField(
        gettext_lazy("language"), max_length=10, blank=True, default="", db_default=""
    )
    joined_at = models.DateTimeField(gettext_lazy("joined at"), auto_now_add=True)

    class Meta:
        verbose_name = gettext_lazy("speaker")
        verbose_name_plural = gettext_lazy("speakers")
        ordering = ["position", "pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["proposal", "user"],
                name="one_proposal_speaker_per_account",
                violation_error_message=gettext_lazy(
                    "This account speaks in the proposal already."
                ),
            ),
        ]

    def __str__(self):
        return self.name

    @staticmethod
    def active_language() -> str:
        """The site's language now (a request's): what a speaker joining reads the site in."""
        active = translation.get_language() or ""
        return active if active in dict(settings.LANGUAGES) else ""


class ProposalAnswer(models.Model):
    proposal = models.ForeignKey(
        Proposal,
        on_delete=models.CASCADE,
        related_name="answers",
        verbose_name=gettext_lazy("proposal"),
    )
    question = models.ForeignKey(
        CallQuestion,
        on_delete=models.CASCADE,
        related_name="answers",
        verbose_name=gettext_lazy("question"),
    )
    value = models.TextField(
        gettext_lazy("answer"), blank=True, validators=[MaxLengthValidator(ANSWER_MAX_LENGTH)]
    )

    class Meta:
        verbose_name = gettext_lazy("answer")
        verbose_name_plural = gettext_lazy("answers")
        ordering = ["question__position", "question_id"]
        constraints = [
            models.UniqueConstraint(
                fields=["proposal", "question"], name="one_answer_per_question"
            ),
        ]

    def __str__(self):
        return self.value


class ProposalStateChange(models.Model):
    """One step of a proposal: from what to what, by whom, when."""

    proposal = models.ForeignKey(
        Proposal,
        on_delete=models.CASCADE,
        related_name="state_changes",
        verbose_name=gettext_lazy("proposal"),
    )
    from_state = models.CharField(gettext_lazy("from"), max_length=12, choices=State.choices)
    to_state = models.CharField(gettext_lazy("to"), max_length=12, choices=State.choices)
    changed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=gettext_lazy("by"),
    )
    changed_at = models.DateTimeField(gettext_lazy("at"), default=timezone.now)
    note = models.CharField(gettext_lazy("note"), max_length=500, blank=True)
    # When the speakers were mailed about this step (sessions/cfp/mails.py): a mail task run
    # twice for one step finds it set and sends nothing more.
    mailed_at = models.DateTimeField(gettext_lazy("speakers mailed at"), null=True, blank=True)

    class Meta:
        verbose_name = gettext_lazy("state change")
        verbose_name_plural = gettext_lazy("state changes")
        ordering = ["changed_at", "pk"]

    def __str__(self):
        return f"{self.get_from_state_display()} → {self.get_to_state_display()}"

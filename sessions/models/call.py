"""A conference's call for proposals: when it is open, what it asks for and how proposals are
reviewed (docs/organizers.md, "Call for proposals").

One ``Call`` per conference. It offers session kinds (``CallKind``: each with its length and an
optional deadline of its own) and tracks, asks up to ``MAX_QUESTIONS`` extra questions
(``CallQuestion``), sets the review's score scale and whether reviewers see speakers' names and
each other's scores, and holds the mails a decision sends (``DecisionMailTemplate``). Times are
stored in UTC and entered and shown in the conference's zone, as every time of a conference.
"""

import datetime
import string

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.utils.translation import gettext, gettext_lazy

from conference.models import Conference, Track
from sessions.models.choices import KIND_NAMES, Kind

MAX_QUESTIONS = 10  # "a few": more, and a call reads like a tax return
MAX_CHOICES = 20
QUESTION_TEXT_MAX_LENGTH = 500
ANSWER_MAX_LENGTH = 5000


class Call(models.Model):
    conference = models.OneToOneField(
        Conference,
        on_delete=models.CASCADE,
        related_name="call",
        verbose_name=gettext_lazy("conference"),
    )
    opens_at = models.DateTimeField(gettext_lazy("opens"))
    closes_at = models.DateTimeField(
        gettext_lazy("closes"),
        help_text=gettext_lazy("The deadline for every kind without a deadline of its own."),
    )
    text = models.TextField(
        gettext_lazy("text of the call"),
        blank=True,
        max_length=20_000,
        help_text=gettext_lazy(
            "What the conference looks for, shown on the call's page. Markdown."
        ),
    )
    tracks = models.ManyToManyField(
        Track,
        blank=True,
        related_name="+",
        verbose_name=gettext_lazy("tracks offered"),
        help_text=gettext_lazy("None chosen: proposals name no track."),
    )
    max_speakers = models.PositiveSmallIntegerField(
        gettext_lazy("speakers per proposal"),
        default=3,
        validators=[MinValueValidator(1), MaxValueValidator(10)],
        help_text=gettext_lazy("The speaker who proposes and their co-speakers, at most."),
    )
    score_min = models.SmallIntegerField(
        gettext_lazy("lowest score"),
        default=0,
        validators=[MinValueValidator(-10), MaxValueValidator(10)],
    )
    score_max = models.SmallIntegerField(
        gettext_lazy("highest score"),
        default=3,
        validators=[MinValueValidator(-10), MaxValueValidator(10)],
    )
    anonymised_review = models.BooleanField(
        gettext_lazy("hide speakers from reviewers"),
        default=False,
        help_text=gettext_lazy("Reviewers see neither the speakers' names nor their biographies."),
    )
    scores_hidden_until_reviewed = models.BooleanField(
        gettext_lazy("hide other reviewers' scores until one has scored"),
        default=True,
        help_text=gettext_lazy(
            "A reviewer sees the others' scores and comments on a proposal once they have "
            "scored it themselves."
        ),
    )
    created_at = models.DateTimeField(gettext_lazy("created at"), auto_now_add=True)
    updated_at = models.DateTimeField(gettext_lazy("updated at"), auto_now=True)

    class Meta:
        verbose_name = gettext_lazy("call for proposals")
        verbose_name_plural = gettext_lazy("calls for proposals")
        ordering = ["-opens_at", "pk"]

    def __str__(self):
        return gettext("Call for proposals of %(conference)s") % {"conference": self.conference}

    def clean(self):
        errors = {}
        if self.opens_at and self.closes_at and self.closes_at <= self.opens_at:
            errors["closes_at"] = gettext("The call must close after it opens.")
        if None not in (self.score_min, self.score_max) and self.score_max <= self.score_min:
            errors["score_max"] = gettext("The highest score must be above the lowest.")
        if errors:
            raise ValidationError(errors)

    # --- when ---------------------------------------------------------------------------------

    def deadline_for(self, kind: str | None) -> datetime.datetime:
        """When proposals of ``kind`` stop being written: its own deadline, else the call's."""
        for offered in self.offered_kinds():
            if offered.kind == kind and offered.closes_at is not None:
                return offered.closes_at
        return self.closes_at

    def last_deadline(self) -> datetime.datetime:
        """The latest deadline of any kind: the call is open until then."""
        own = [offered.closes_at for offered in self.offered_kinds() if offered.closes_at]
        return max([self.closes_at, *own])

    def has_opened(self, now: datetime.datetime) -> bool:
        return now >= self.opens_at

    def is_open(self, now: datetime.datetime) -> bool:
        """Open for some kind at ``now``."""
        return self.opens_at <= now < self.last_deadline()

    def is_open_for(self, kind: str | None, now: datetime.datetime) -> bool:
        return self.opens_at <= now < self.deadline_for(kind)

    def closed_message(self, kind: str | None, now: datetime.datetime) -> str:
        """Why proposals of ``kind`` cannot be written at ``now``; empty while they can."""
        if now < self.opens_at:
            return gettext("The call for proposals is not open yet.")
        if now >= self.deadline_for(kind):
            if kind and self.deadline_for(kind) != self.closes_at:
                return gettext("The deadline for this kind of session has passed.")
            return gettext("The call for proposals is closed.")
        return ""

    # --- what ---------------------------------------------------------------------------------

    def offered_kinds(self) -> list["CallKind"]:
        """The kinds offered, in the order of ``Kind``; read once per call object."""
        if not hasattr(self, "_offered_kinds"):
            order = list(Kind.values)
            self._offered_kinds = sorted(self.kinds.all(), key=lambda k: order.index(k.kind))
        return self._offered_kinds

    def kind_choices(self) -> list[tuple[str, str]]:
        return [(offered.kind, offered.label) for offered in self.offered_kinds()]

    def score_choices(self) -> list[int]:
        return list(range(self.score_min, self.score_max + 1))


class CallKind(models.Model):
    """A kind of session the call asks for: its length, and maybe a deadline of its own."""

    call = models.ForeignKey(
        Call, on_delete=models.CASCADE, related_name="kinds", verbose_name=gettext_lazy("call")
    )
    kind = models.CharField(
        gettext_lazy("kind"),
        max_length=20,
        choices=[choice for choice in Kind.choices if choice[0] != Kind.BREAK],
    )
    minutes = models.PositiveSmallIntegerField(
        gettext_lazy("minutes"), validators=[MinValueValidator(5), MaxValueValidator(24 * 60)]
    )
    closes_at = models.DateTimeField(
        gettext_lazy("own deadline"),
        null=True,
        blank=True,
        help_text=gettext_lazy("Empty: the call's."),
    )

    class Meta:
        verbose_name = gettext_lazy("kind offered")
        verbose_name_plural = gettext_lazy("kinds offered")
        ordering = ["call", "pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["call", "kind"],
                name="one_call_kind_per_kind",
                violation_error_message=gettext_lazy("This kind is offered once already."),
            ),
        ]

    def __str__(self):
        return self.label

    @property
    def label(self) -> str:
        return gettext("%(kind)s, %(minutes)s min") % {
            "kind": KIND_NAMES[self.kind],
            "minutes": self.minutes,
        }


class CallQuestion(models.Model):
    """An extra question of the call, answered in each proposal (``ProposalAnswer``)."""

    class AnswerType(models.TextChoices):
        TEXT = "text", gettext_lazy("Text")
        CHOICE = "choice", gettext_lazy("One of a list")
        YES_NO = "yes-no", gettext_lazy("Yes or no")

    call = models.ForeignKey(
        Call, on_delete=models.CASCADE, related_name="questions", verbose_name=gettext_lazy("call")
    )
    text = models.CharField(gettext_lazy("question"), max_length=QUESTION_TEXT_MAX_LENGTH)
    help_text = models.CharField(gettext_lazy("help text"), max_length=500, blank=True)
    answer_type = models.CharField(
        gettext_lazy("answer"), max_length=10, choices=AnswerType.choices, default=AnswerType.TEXT
    )
    choices = models.TextField(
        gettext_lazy("choices"),
        blank=True,
        max_length=5000,
        help_text=gettext_lazy("For “One of a list”: one choice per line."),
    )
    required = models.BooleanField(gettext_lazy("required"), default=False)
    position = models.PositiveSmallIntegerField(gettext_lazy("position"), default=0)

    class Meta:
        verbose_name = gettext_lazy("question")
        verbose_name_plural = gettext_lazy("questions")
        ordering = ["call", "position", "pk"]

    def __str__(self):
        return self.text

    def choice_list(self) -> list[str]:
        return [line.strip() for line in self.choices.splitlines() if line.strip()]

    def clean(self):
        errors = {}
        if self.answer_type == self.AnswerType.CHOICE:
            listed = self.choice_list()
            if len(listed) < 2:
                errors["choices"] = gettext("List at least two choices, one per line.")
            elif len(listed) > MAX_CHOICES:
                errors["choices"] = gettext("At most %(count)d choices.") % {"count": MAX_CHOICES}
            elif len(set(listed)) != len(listed):
                errors["choices"] = gettext("Each choice once.")
        elif self.choices.strip():
            errors["choices"] = gettext("Only a question answered from a list has choices.")
        adding = self.call_id and self._state.adding
        if adding and CallQuestion.objects.filter(call_id=self.call_id).count() >= MAX_QUESTIONS:
            errors["text"] = gettext("A call asks at most %(count)d questions.") % {
                "count": MAX_QUESTIONS
            }
        if errors:
            raise ValidationError(errors)

    def check_answer(self, value: str) -> str:
        """``value`` as kept, or ValidationError saying what is wrong with it."""
        value = (value or "").strip()
        if not value:
            if self.required:
                raise ValidationError(gettext("This question must be answered."), code="required")
            return ""
        if self.answer_type == self.AnswerType.CHOICE and value not in self.choice_list():
            raise ValidationError(gettext("Choose one of the listed answers."), code="invalid")
        if self.answer_type == self.AnswerType.YES_NO and value not in ("yes", "no"):
            raise ValidationError(gettext("Answer yes or no."), code="invalid")
        if len(value) > ANSWER_MAX_LENGTH:
            raise ValidationError(
                gettext("At most %(count)d characters.") % {"count": ANSWER_MAX_LENGTH},
                code="max_length",
            )
        return value


class DecisionMailTemplate(models.Model):
    """The mail a decision sends a proposal's speakers, in one language, as organizers wrote it.

    Without one, the site's own text for that decision and language is sent
    (``sessions/cfp/decisions.py``). Placeholders in braces are filled in:
    ``{speaker}``, ``{title}``, ``{conference}``, ``{proposal_url}`` and, for an acceptance,
    ``{confirm_url}``.
    """

    class Decision(models.TextChoices):
        ACCEPTED = "accepted", gettext_lazy("Accepted")
        REJECTED = "rejected", gettext_lazy("Rejected")
        WAITLISTED = "waitlisted", gettext_lazy("Wait-listed")

    PLACEHOLDERS = ("speaker", "title", "conference", "proposal_url", "confirm_url")

    call = models.ForeignKey(
        Call,
        on_delete=models.CASCADE,
        related_name="mail_templates",
        verbose_name=gettext_lazy("call"),
    )
    decision = models.CharField(gettext_lazy("decision"), max_length=12, choices=Decision.choices)
    language = models.CharField(gettext_lazy("language"), max_length=10)
    subject = models.CharField(gettext_lazy("subject"), max_length=200)
    body = models.TextField(gettext_lazy("text"), max_length=10_000)

    class Meta:
        verbose_name = gettext_lazy("decision mail")
        verbose_name_plural = gettext_lazy("decision mails")
        ordering = ["call", "decision", "language"]
        constraints = [
            models.UniqueConstraint(
                fields=["call", "decision", "language"],
                name="one_decision_mail_per_language",
                violation_error_message=gettext_lazy(
                    "There is a mail for this decision in this language already."
                ),
            ),
        ]

    def __str__(self):
        return f"{self.get_decision_display()} ({self.language})"

    def clean(self):
        errors = {}
        if self.language and self.language not in dict(settings.LANGUAGES):
            errors["language"] = gettext("Choose one of the site's languages.")
        for field in ("subject", "body"):
            problem = unknown_placeholder(getattr(self, field) or "", self.decision)
            if problem:
                errors[field] = problem
        if errors:
            raise ValidationError(errors)


def unknown_placeholder(text: str, decision: str) -> str:
    """What is wrong with the placeholders of ``text``, in words; empty when they all fit."""
    allowed = set(DecisionMailTemplate.PLACEHOLDERS)
    if decision != DecisionMailTemplate.Decision.ACCEPTED:
        allowed.discard("confirm_url")
    try:
        names = {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}
    except ValueError:
        return gettext("A brace is not closed: write {{ and }} for a brace itself.")
    unknown = sorted(names - allowed)
    if unknown:
        return gettext("Unknown placeholder {%(name)s}; these are filled in: %(allowed)s.") % {
            "name": unknown[0],
            "allowed": ", ".join(f"{{{name}}}" for name in sorted(allowed)),
        }
    return ""


def call_of(conference_id: int) -> Call | None:
    return Call.objects.filter(conference_id=conference_id).first()

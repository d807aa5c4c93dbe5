"""A speaker's proposal of new texts for a session of theirs (SessionChangeProposal), and how it
is accepted or refused; the decision's mail is in speakers/proposals.py."""

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxLengthValidator
from django.db import models, transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext, gettext_lazy

from speakers.models.speaker import Speaker

# A cap on what one proposal may carry: longer than any abstract or description a schedule shows.
PROPOSAL_TEXT_MAX_LENGTH = 20_000


def same_text(text: str) -> str:
    """``text`` as compared: its line endings as ``\n``, without the spaces around it."""
    return text.replace("\r\n", "\n").replace("\r", "\n").strip()


class ChangeProposalQuerySet(models.QuerySet):
    def pending(self):
        return self.filter(state=SessionChangeProposal.State.PENDING)

    def of_conference(self, conference):
        return self.filter(session__conference=conference)


class SessionChangeProposal(models.Model):
    """A speaker's proposal of a new title, abstract or description for a session of theirs.

    The organizers accept it, which writes the proposed texts into the session through its own
    ``full_clean()`` and ``save()`` (its version, the pages, the next release and the webhooks
    follow as for any edit), or refuse it, with a message if they like. A speaker has at most one
    pending proposal per session. The texts are kept as typed; Markdown is cleaned where shown
    (conference/markup.py), as the session's own.

    What the session said when the proposal was made is kept beside it (``original_*``): only
    the fields the speaker changed are written on acceptance, so an organizer's edit of the
    others meanwhile stays.
    """

    class State(models.TextChoices):
        PENDING = "pending", gettext_lazy("waiting for the organizers")
        ACCEPTED = "accepted", gettext_lazy("accepted")
        REFUSED = "refused", gettext_lazy("refused")

    # The session's texts a speaker may propose, in the order shown.
    FIELDS = ("title", "abstract", "description")

    session = models.ForeignKey(
        "schedule.Session",
        on_delete=models.CASCADE,
        related_name="change_proposals",
        verbose_name=gettext_lazy("session"),
    )
    speaker = models.ForeignKey(
        Speaker,
        on_delete=models.CASCADE,
        related_name="change_proposals",
        verbose_name=gettext_lazy("speaker"),
    )
    title = models.CharField(gettext_lazy("proposed title"), max_length=300)
    abstract = models.TextField(
        gettext_lazy("proposed abstract"),
        blank=True,
        validators=[MaxLengthValidator(PROPOSAL_TEXT_MAX_LENGTH)],
    )
    description = models.TextField(
        gettext_lazy("proposed description"),
        blank=True,
        validators=[MaxLengthValidator(PROPOSAL_TEXT_MAX_LENGTH)],
    )
    original_title = models.CharField(
        gettext_lazy("title when proposed"), max_length=300, blank=True
    )
    original_abstract = models.TextField(gettext_lazy("abstract when proposed"), blank=True)
    original_description = models.TextField(gettext_lazy("description when proposed"), blank=True)
    state = models.CharField(
        gettext_lazy("state"), max_length=10, choices=State.choices, default=State.PENDING
    )
    message = models.TextField(
        gettext_lazy("message to the speaker"),
        blank=True,
        max_length=2000,
        validators=[MaxLengthValidator(2000)],
        help_text=gettext_lazy("Optional; mailed to the speaker with your decision."),
    )
    created_at = models.DateTimeField(gettext_lazy("proposed at"), auto_now_add=True)
    decided_at = models.DateTimeField(gettext_lazy("decided at"), null=True, blank=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=gettext_lazy("decided by"),
    )

    objects = ChangeProposalQuerySet.as_manager()

    class Meta:
        verbose_name = gettext_lazy("change proposal")
        verbose_name_plural = gettext_lazy("change proposals")
        ordering = ["-created_at", "-pk"]
        constraints = [
            # The backstop of clean()'s rule, for two saves at once.
            models.UniqueConstraint(
                fields=["session", "speaker"],
                condition=Q(state="pending"),
                name="one_pending_change_proposal_per_session_and_speaker",
                violation_error_message=gettext_lazy(
                    "You already proposed a change to this session: wait for the organizers' "
                    "answer before proposing another."
                ),
            ),
        ]

    def __str__(self):
        return gettext("%(speaker)s on “%(session)s”") % {
            "speaker": self.speaker,
            "session": self.original_title or self.session,
        }

    @property
    def conference(self):
        """The conference of its session: the admin shows its times in that zone."""
        return self.session.conference

    @classmethod
    def of(cls, session, speaker) -> "SessionChangeProposal":
        """A new proposal for ``session`` by ``speaker``, starting from the session's texts."""
        texts = {name: getattr(session, name) for name in cls.FIELDS}
        return cls(
            session=session,
            speaker=speaker,
            **texts,
            **{f"original_{name}": value for name, value in texts.items()},
        )

    @property
    def changed_fields(self) -> list[str]:
        """The fields the speaker changed, of ``FIELDS``: a text that differs only in the spaces
        around it or in its line endings (a browser sends CRLF) is unchanged."""
        return [
            name
            for name in self.FIELDS
            if same_text(getattr(self, name)) != same_text(getattr(self, f"original_{name}"))
        ]

    @property
    def is_pending(self) -> bool:
        return self.state == self.State.PENDING

    def clean(self):
        if not self.session_id or not self.speaker_id:
            return
        if not self._state.adding:
            return  # being decided: what held when it was made needs no asking again
        if not self.changed_fields:
            raise ValidationError(
                gettext("Nothing is changed: change the title, abstract or description first."),
                code="unchanged",
            )
        if not self.session.speakers.filter(pk=self.speaker_id).exists():
            raise ValidationError(
                gettext("Only a speaker of a session may propose changes to it."),
                code="not_a_speaker",
            )
        if self.is_pending:
            others = SessionChangeProposal.objects.pending().filter(
                session=self.session_id, speaker=self.speaker_id
            )
            if others.exists():
                raise ValidationError(
                    gettext(
                        "You already proposed a change to this session: wait for the "
                        "organizers' answer before proposing another."
                    ),
                    code="pending",
                )

    def session_as_accepted(self, *, lock: bool = False):
        """The session as stored, with the changed texts in, checked by its ``full_clean()``
        (a ValidationError when it refuses them); not saved."""
        sessions = type(self.session)._default_manager.select_related("conference")
        if lock:
            sessions = sessions.select_for_update()
        session = sessions.get(pk=self.session_id)
        for name in self.changed_fields:
            setattr(session, name, getattr(self, name))
        session.full_clean()
        return session

    def accept(self, by, message: str = "") -> list[str]:
        """Write the changed texts into the session, through its validation and save (its
        version, pages, release and webhooks follow); returns the changed fields. Refused
        (ValidationError) when no longer pending, or when the session refuses the texts; then
        nothing is written."""
        with transaction.atomic():
            proposal = self.decidable()
            proposal.session_as_accepted(lock=True).save()
            self.decide(proposal, self.State.ACCEPTED, by, message)
        return proposal.changed_fields

    def refuse(self, by, message: str = "") -> None:
        """Refuse it, leaving the session as it is. Refused when no longer pending."""
        with transaction.atomic():
            self.decide(self.decidable(), self.State.REFUSED, by, message)

    def decidable(self) -> "SessionChangeProposal":
        """This proposal locked, as stored; a ValidationError if it was decided meanwhile."""
        proposal = SessionChangeProposal.objects.select_for_update().get(pk=self.pk)
        if not proposal.is_pending:
            raise ValidationError(
                gettext("This proposal was already %(state)s.")
                % {"state": proposal.get_state_display()},
                code="decided",
            )
        return proposal

    def decide(self, proposal, state: str, by, message: str) -> None:
        proposal.state, proposal.message = state, message
        proposal.decided_at, proposal.decided_by = timezone.now(), by
        proposal.full_clean()
        proposal.save()
        for name in ("state", "message", "decided_at", "decided_by"):
            setattr(self, name, getattr(proposal, name))

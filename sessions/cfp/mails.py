"""What a decision mails a proposal's speakers (docs/organizers.md, "Deciding").

One mail per speaker of the proposal, to their account's confirmed address: the only addresses
the site mails (``confirmed_address``, conference/models/accounts.py); a speaker without one
reads the decision on the proposal's page. The mail is in the conference's language: the site
keeps no language of an account's own (the visitor's choice lives in their browser's cookie),
so it writes as the release mails do. Its text is the organizers' ``DecisionMailTemplate`` for
that decision and language, its placeholders filled in, when there is one; else the site's own
(templates/cfp/mail/decision_<decision>.*).

Each step mails once. The task claims the step (``ProposalStateChange.mailed_at``) before
sending, so running it again sends nothing; a proposal that has moved on meanwhile sends
nothing either: its newer step is the news, and mails on its own.
"""

import logging
import re
import string

from django.core.mail import get_connection
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django_tasks import task

from conference.accounts.mail import absolute, templated_mail
from conference.models import confirmed_address
from sessions.models import DecisionMailTemplate, Proposal, ProposalSpeaker, ProposalStateChange
from sessions.models.call import unknown_placeholder
from sessions.models.proposals import DECISIONS

logger = logging.getLogger(__name__)

State = Proposal.State


@task()
def send_decision_mails(proposal_id: int, state: str) -> int:
    """Mail each speaker of the proposal the decision ``state``, in their language; the number
    of mails sent. Nothing when the proposal is no longer in ``state`` or its step was mailed.

    A mail that fails gives the step back (``mailed_at`` empty again) and fails the task, so
    running it again sends the step's mails: a speaker mailed before the failure gets theirs
    twice, rather than one after it none.
    """
    if state not in DECISIONS:
        return 0
    proposal = Proposal.objects.select_related("conference").filter(pk=proposal_id).first()
    if proposal is None or proposal.state != state:
        return 0
    step = proposal.state_changes.order_by("-pk").first()
    if step is None or step.to_state != state or not claim(step):
        return 0
    writer = DecisionMailWriter(proposal)
    try:
        with get_connection() as connection:
            messages = [
                writer.message(speaker, connection) for speaker in reachable_speakers(proposal)
            ]
            for message in messages:
                message.send()
    except Exception:
        ProposalStateChange.objects.filter(pk=step.pk).update(mailed_at=None)
        raise
    return len(messages)


def claim(step: ProposalStateChange) -> bool:
    """Take the step's mails for sending; False if another run of the task took them first."""
    claimed = ProposalStateChange.objects.filter(pk=step.pk, mailed_at__isnull=True).update(
        mailed_at=timezone.now()
    )
    return claimed == 1


def reachable_speakers(proposal: Proposal) -> list[ProposalSpeaker]:
    """The proposal's speakers whose account is active and has a confirmed address, in order."""
    return list(
        proposal.proposal_speakers.filter(confirmed_address("user__"), user__is_active=True)
        .select_related("user")
        .order_by("position", "pk")
    )


def proposal_url(proposal: Proposal) -> str:
    """The proposal's own page for its speakers: its texts, state and co-speakers."""
    return absolute(
        reverse(
            "proposal",
            kwargs={"conference_slug": proposal.conference.slug, "code": proposal.code},
        )
    )


def answer_url(proposal: Proposal) -> str:
    """The proposal's page for its speakers: its decision, and the buttons that answer one."""
    return absolute(
        reverse(
            "cfp-decision-answer",
            kwargs={"conference_slug": proposal.conference.slug, "code": proposal.code},
        )
    )


class PlaceholderFormatter(string.Formatter):
    """Fills the ``{name}`` placeholders of an organizers' text, and does nothing else a format
    string can ask: no attribute or item of a value (``{title.__class__}``), no conversion
    (``!r``), no format spec (``{title!s:>99999999}`` would pad the mail to megabytes; plain
    ``str.format_map`` applies a spec after a conversion whatever the value). A name it does not
    hold is left as written: ``DecisionMailTemplate.clean()`` refuses those, but a row written
    around it (a shell, an old row) must still not break the mail."""

    def get_field(self, field_name, args, kwargs):
        return kwargs.get(field_name, "{" + field_name + "}"), field_name

    def convert_field(self, value, conversion):
        return value

    def format_field(self, value, format_spec):
        return str(value)


def fill(text: str, values: dict[str, str]) -> str:
    return PlaceholderFormatter().vformat(text, (), values)


class DecisionMailWriter:
    """Writes the mails of one proposal's decision, one per speaker."""

    def __init__(self, proposal: Proposal):
        self.proposal = proposal
        self.conference = proposal.conference
        self.decision = proposal.state
        self.url = answer_url(proposal)
        self.proposal_url = proposal_url(proposal)
        # The organizers' texts of this decision, by language (the first of each).
        self.organizers_texts: dict[str, DecisionMailTemplate] = {}
        for template in DecisionMailTemplate.objects.filter(
            call__conference=self.conference, decision=self.decision
        ).order_by("-pk"):
            self.organizers_texts[template.language] = template

    def language_of(self, speaker: ProposalSpeaker) -> str:
        """The speaker's language (the site's when they joined the proposal), else the
        conference's."""
        return speaker.language or self.conference.language

    def placeholders(self, speaker: ProposalSpeaker) -> dict[str, str]:
        values = {
            "speaker": speaker.name,
            "title": self.proposal.title,
            "conference": self.conference.name,
            "proposal_url": self.proposal_url,
        }
        if self.decision == State.ACCEPTED:
            values["confirm_url"] = self.url
        return values

    def message(self, speaker: ProposalSpeaker, connection):
        language = self.language_of(speaker)
        with translation.override(language):
            template = self.organizers_texts.get(language)
            if template is not None and self.fits(template):
                return self.organizers_message(template, speaker, connection)
            return self.site_message(speaker, connection)

    def fits(self, template: DecisionMailTemplate) -> bool:
        """Whether the organizers' text fills in; if not, the site's own is sent, and the log
        says why."""
        for text in (template.subject, template.body):
            problem = unknown_placeholder(text, template.decision)
            if problem:
                logger.warning("Decision mail %s not used: %s", template.pk, problem)
                return False
        return True

    def organizers_message(self, template: DecisionMailTemplate, speaker, connection):
        values = self.placeholders(speaker)
        text = fill(template.body, values).replace("\r\n", "\n").strip()
        return templated_mail(
            to=speaker.user.email,
            subject=fill(template.subject, values),
            template="cfp/mail/decision_organizers",
            context={
                "text": text,
                "paragraphs": paragraphs_of(text),
                "conference": self.conference.name,
            },
            connection=connection,
        )

    def site_message(self, speaker: ProposalSpeaker, connection):
        subjects = {
            State.ACCEPTED: _("%(conference)s: your proposal is accepted"),
            State.WAITLISTED: _("%(conference)s: your proposal is on the waiting list"),
            State.REJECTED: _("%(conference)s: your proposal was not accepted"),
        }
        return templated_mail(
            to=speaker.user.email,
            subject=subjects[self.decision] % {"conference": self.conference.name},
            template=f"cfp/mail/decision_{self.decision}",
            context={
                "name": speaker.name,
                "title": self.proposal.title,
                "conference": self.conference.name,
                "proposal_url": self.proposal_url,
                "confirm_url": self.url,
            },
            connection=connection,
        )


def paragraphs_of(text: str) -> list[list[str]]:
    """``text``'s paragraphs (apart by a blank line), each as its lines: the HTML part's."""
    return [
        paragraph.strip("\n").split("\n")
        for paragraph in re.split(r"\n[ \t]*\n", text)
        if paragraph.strip()
    ]

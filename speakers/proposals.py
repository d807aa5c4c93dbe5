"""Deciding a speaker's change proposal (``SessionChangeProposal`` in
speakers/models/change_proposals.py) and mailing them the decision.

The mail goes out through the task worker once the decision is committed, like the invitations'
(speakers/invitations.py), to the speaker's address as release mails reach it
(``SpeakerQuerySet.with_reach()``), in the conference's language; without one the speaker reads
the decision on their proposal page. It answers what they asked, so it goes out even when they
turned the schedule-change mails off.
"""

from django.conf import settings
from django.db import transaction
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext as _
from django_tasks import task

from conference.accounts.mail import absolute, templated_mail
from speakers.models import SessionChangeProposal, Speaker


def decide_proposal(proposal: SessionChangeProposal, *, accept: bool, by, message: str = ""):
    """Accept (the session takes the proposed texts) or refuse ``proposal``, and queue the
    speaker's mail once committed. A ValidationError, with nothing written, when it was decided
    meanwhile or the session refuses the texts."""
    with transaction.atomic():
        if accept:
            proposal.accept(by, message)
        else:
            proposal.refuse(by, message)
        transaction.on_commit(lambda: send_decision_mail.enqueue(proposal.pk))


def proposal_page_url(proposal: SessionChangeProposal) -> str:
    return reverse(
        "speaker-pages:propose-change",
        kwargs={
            "conference_slug": proposal.session.conference.slug,
            "slug": proposal.session.slug,
        },
    )


@task()
def send_decision_mail(proposal_id: int) -> bool:
    """Mail the speaker the organizers' decision on their proposal (in the background)."""
    proposal = (
        SessionChangeProposal.objects.exclude(state=SessionChangeProposal.State.PENDING)
        .select_related("session__conference")
        .filter(pk=proposal_id)
        .first()
    )
    if proposal is None:
        return False
    speaker = Speaker.objects.with_reach().get(pk=proposal.speaker_id)
    if not speaker.reach_address:
        return False
    conference = proposal.session.conference
    with translation.override(conference.language):  # we know no other of the speaker's
        accepted = proposal.state == SessionChangeProposal.State.ACCEPTED
        subject = (
            _("%(conference)s: your proposed change to “%(title)s” is accepted")
            if accepted
            else _("%(conference)s: your proposed change to “%(title)s” is refused")
        ) % {"conference": conference.name, "title": proposal.original_title}
        templated_mail(
            to=speaker.reach_address,
            subject=subject,
            template="speakers/mail/proposal_decision",
            context={
                "proposal": proposal,
                "accepted": accepted,
                "speaker": speaker,
                "conference": conference,
                "page_url": absolute(proposal_page_url(proposal)),
                "site_url": settings.SITE_URL,
            },
        ).send()
    return True

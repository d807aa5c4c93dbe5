"""Mails about a schedule release, to the attendees who saved a changed session and to the
speakers of changed sessions.

Nothing is sent in the organizer's request: ``schedule_released`` (sent once the release is
committed) enqueues ``plan_release_mails``, which writes one ``ReleaseMail`` per recipient and
enqueues ``send_release_mails`` for batches of them. Each mail is claimed before it is sent, so
a task run again never mails anyone twice for one release.
"""

import datetime
import logging
from collections import defaultdict
from collections.abc import Iterable

from django.core.mail import get_connection
from django.db import transaction
from django.dispatch import receiver
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.formats import date_format
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django_tasks import task

from conference.accounts.mail import absolute, templated_mail, unsubscribe_url
from conference.i18n.timezones import time_range
from conference.models import mailable_accounts
from sessions.changes import SessionChange, room_name, speakers_sessions
from sessions.models import Release, ReleaseMail, SavedSession, Session
from sessions.releases import schedule_released
from speakers.models import Speaker

logger = logging.getLogger(__name__)

# The changes an attendee who saved the session is told about: every change of it. Only "new"
# is left out: no earlier release placed the session, so there is nothing it changed from.
ATTENDEE_KINDS = frozenset(
    {"moved", "room", "retitled", "speakers", "cancelled", "removed", "reinstated"}
)
# Mails per send task: enqueueing one task per mail took most of the time of a large release.
MAILS_PER_TASK = 100


class MailNotSentError(Exception):
    """Some mails of a batch failed; they are queued again for the next run of the task."""


@receiver(schedule_released)
def queue_release_mails(sender, release: Release, **kwargs) -> None:
    plan_release_mails.enqueue(release.pk)


@task()
def plan_release_mails(release_id: int) -> int:
    """Write the release's mails, one per recipient, and enqueue their sending in batches.

    Run again, it adds no second mail for anyone and enqueues only mails still queued.
    """
    release = Release.objects.filter(pk=release_id).first()
    if release is None:  # deleted meanwhile: nothing to announce
        return 0
    changes = release.changes()
    users = (
        SavedSession.objects.filter(session__in=attendee_sessions(changes))
        .filter(mailable_accounts("user__"))
        .values_list("user", flat=True)
        .order_by()
        .distinct()
    )
    speakers = Speaker.objects.filter(pk__in=speakers_sessions(changes)).mailable()
    mails = [ReleaseMail(release_id=release_id, user_id=user_id) for user_id in users] + [
        ReleaseMail(release_id=release_id, speaker_id=speaker_id)
        for speaker_id in speakers.values_list("pk", flat=True)
    ]
    with transaction.atomic():  # one commit, not one per thousand rows
        # A second run meets the unique constraints and adds nothing.
        ReleaseMail.objects.bulk_create(mails, batch_size=1000, ignore_conflicts=True)
        queued = list(
            release.mails.filter(status=ReleaseMail.Status.QUEUED)
            .order_by("pk")
            .values_list("pk", flat=True)
        )
        # Once committed: a worker of another backend could otherwise look for the rows first.
        transaction.on_commit(lambda: enqueue_sending(release_id, queued))
    return len(queued)


def attendee_sessions(changes: Iterable[SessionChange]) -> set[int]:
    """The sessions whose attendees are told: those with a change of ATTENDEE_KINDS."""
    return {change.session_id for change in changes if change.kind in ATTENDEE_KINDS}


def enqueue_sending(release_id: int, mail_ids: list[int]) -> None:
    # In one transaction, the database backend's task rows take one commit, not one each.
    with transaction.atomic():
        for start in range(0, len(mail_ids), MAILS_PER_TASK):
            send_release_mails.enqueue(release_id, mail_ids[start : start + MAILS_PER_TASK])


@task()
def send_release_mails(release_id: int, mail_ids: list[int]) -> int:
    """Send these mails of a release, each claimed first; the number sent.

    Each tells of the sessions concerned when it is sent: an attendee's saved ones (one no
    longer saved is left out), a speaker's own. Whoever turned mails off, lost their verified
    address or has nothing left to be told meanwhile is skipped. A mail that fails goes back to
    queued and the task fails naming them, so running it again sends those.
    """
    release = Release.objects.select_related("conference").filter(pk=release_id).first()
    if release is None:
        return 0
    mails = list(
        ReleaseMail.objects.filter(release=release, pk__in=mail_ids, status="queued")
        .select_related("user", "speaker")
        .order_by("pk")
    )
    if not mails:
        return 0
    changes = release.changes()
    sessions_of = recipients_sessions(mails, changes)
    writer = ReleaseMailWriter(release, changes)
    sent, failed = 0, []
    with get_connection() as connection:  # one connection to the mail server for the batch
        for mail in mails:
            if not claim(mail):
                continue  # another run of this batch has it
            session_ids = sessions_of.get((mail.user_id, mail.speaker_id))
            if not session_ids:
                set_status(mail, ReleaseMail.Status.SKIPPED)
                continue
            try:
                # In the conference's language: we know no other of the recipient's.
                with translation.override(release.conference.language):
                    writer.message(mail, session_ids, connection).send()
            except Exception:
                logger.exception("Release mail %s was not sent; it is queued again.", mail.pk)
                set_status(mail, ReleaseMail.Status.QUEUED)
                failed.append(mail.pk)
                continue
            set_status(mail, ReleaseMail.Status.SENT, sent_at=timezone.now())
            sent += 1
    if failed:
        raise MailNotSentError(f"Release mails {failed} were not sent; run the task again.")
    return sent


def recipients_sessions(
    mails: list[ReleaseMail], changes: list[SessionChange]
) -> dict[tuple[int | None, int | None], set[int]]:
    """(user id, speaker id) of each mail still to be sent to what it tells of: three queries
    for a batch. Recipients no longer to be mailed are left out; each speaker's mail gets their
    ``reach_address`` (``SpeakerQuerySet.with_reach``)."""
    users = {mail.user_id for mail in mails if mail.user_id}
    speakers = {mail.speaker_id for mail in mails if mail.speaker_id}
    sessions_of = defaultdict(set)
    saves = SavedSession.objects.filter(
        mailable_accounts("user__"), user__in=users, session__in=attendee_sessions(changes)
    )
    for user_id, session_id in saves.values_list("user", "session").order_by():
        sessions_of[user_id, None].add(session_id)
    talks = speakers_sessions(changes)
    reached = Speaker.objects.filter(pk__in=speakers).mailable()
    addresses = dict(reached.values_list("pk", "reach_address"))
    for mail in mails:
        if mail.speaker_id in addresses:
            sessions_of[None, mail.speaker_id] = talks[mail.speaker_id]
            mail.speaker.reach_address = addresses[mail.speaker_id]
    return sessions_of


def claim(mail: ReleaseMail) -> bool:
    """Take a queued mail for sending; False if someone else took it first."""
    claimed = ReleaseMail.objects.filter(pk=mail.pk, status=ReleaseMail.Status.QUEUED).update(
        status=ReleaseMail.Status.SENDING
    )
    return claimed == 1


def set_status(mail: ReleaseMail, status: str, **fields) -> None:
    ReleaseMail.objects.filter(pk=mail.pk).update(status=status, **fields)


class ReleaseMailWriter:
    """Writes the mails of one release: what changed in each session, in the conference's zone.

    Attendees' own zone is known only to their browser (a cookie, conference/i18n/timezones.py), so
    mails give the conference's times and say so.
    """

    def __init__(self, release: Release, changes: Iterable[SessionChange]):
        self.release = release
        self.conference = release.conference
        self.zone = self.conference.tz
        self.changes_of = defaultdict(list)
        for change in changes:
            self.changes_of[change.session_id].append(change)

    def message(self, mail: ReleaseMail, session_ids: Iterable[int], connection):
        if mail.user_id:
            return self.attendee_message(mail, session_ids, connection)
        return self.speaker_message(mail, session_ids, connection)

    def attendee_message(self, mail: ReleaseMail, session_ids: Iterable[int], connection):
        sessions = self.sessions(session_ids, kinds=ATTENDEE_KINDS)
        count = ngettext(
            "%(count)d session you saved", "%(count)d sessions you saved", len(sessions)
        ) % {"count": len(sessions)}
        my_schedule = reverse(
            "sessions:my-schedule", kwargs={"conference_slug": self.conference.slug}
        )
        return templated_mail(
            to=mail.user.email,
            subject=ngettext(
                "%(conference)s: %(count)s changed",
                "%(conference)s: %(count)s changed",
                len(sessions),
            )
            % {"conference": self.conference.name, "count": count},
            template="sessions/mail/release_attendee",
            context={
                **self.context(sessions),
                "name": mail.user.get_username(),
                "count": count,
                "my_schedule_url": absolute(my_schedule),
            },
            unsubscribe=unsubscribe_url("account", mail.user_id),
            connection=connection,
        )

    def speaker_message(self, mail: ReleaseMail, session_ids: Iterable[int], connection):
        sessions = self.sessions(session_ids)
        count = ngettext("your session", "your sessions", len(sessions))
        return templated_mail(
            to=mail.speaker.reach_address,
            subject=_("%(conference)s: schedule changes to %(count)s")
            % {"conference": self.conference.name, "count": count},
            template="sessions/mail/release_speaker",
            context={**self.context(sessions), "name": mail.speaker.name, "count": count},
            unsubscribe=unsubscribe_url("speaker", mail.speaker_id),
            connection=connection,
        )

    def context(self, sessions: list[dict]) -> dict:
        schedule = reverse("sessions:schedule", kwargs={"conference_slug": self.conference.slug})
        return {
            "conference": self.conference.name,
            "version": self.release.version,
            "comment": self.release.comment,
            "sessions": sessions,
            "zone": self.conference.time_zone,
            "schedule_url": absolute(schedule),
        }

    def sessions(self, session_ids: Iterable[int], kinds: frozenset | None = None) -> list[dict]:
        """Each session's title, link, changes in words and where and when it is now, in
        schedule order; only those with a change of ``kinds``, when given."""
        found = []
        for session_id in session_ids:
            changes = self.changes_of.get(session_id, [])
            if not changes or (kinds and not any(change.kind in kinds for change in changes)):
                continue
            last = changes[-1]
            after = last.after
            cancelled = after is None or after["status"] == Session.Status.CANCELLED
            session = {
                "title": last.title,
                "url": "" if after is None else self.session_url(after["slug"]),
                "changes": [change.describe(self.zone) for change in changes],
                "now": "" if cancelled else self.place(after),
            }
            found.append((min(change.sort_key for change in changes), session))
        return [session for _, session in sorted(found, key=lambda pair: pair[0])]

    def session_url(self, slug: str) -> str:
        return absolute(
            reverse(
                "sessions:session-detail",
                kwargs={"conference_slug": self.conference.slug, "slug": slug},
            )
        )

    def place(self, entry: dict) -> str:
        """“Wednesday 8 April, 14:00–14:30 CEST, Junior Stage”."""
        starts_at = datetime.datetime.fromisoformat(entry["starts_at"]).astimezone(self.zone)
        ends_at = datetime.datetime.fromisoformat(entry["ends_at"]).astimezone(self.zone)
        day = date_format(starts_at, "l j F")
        return f"{day}, {time_range(starts_at, ends_at, self.zone)}, {room_name(entry)}"

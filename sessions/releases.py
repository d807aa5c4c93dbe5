"""Schedule releases: the announced checkpoints of a conference's public schedule.

The public pages show the schedule live; a release records what was public when organizers
announced it (``public_snapshot``) and what changed since the previous release
(``changes_between``, in sessions/changes.py). Releasing stores the snapshot, then sends
``schedule_released`` once the transaction has committed, for whoever tells attendees and
speakers.

A conference's first public schedule is its baseline (``baseline_schedule``): stored as its
first release when the conference is published, unannounced, so that the first release an
organizer makes tells what changed since the public first saw the schedule, not "all new".
"""

import datetime
import hashlib
import json
from dataclasses import dataclass

import django.dispatch
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext, npgettext_lazy

from conference.models import Conference
from conference.routing import reverse_slugs
from sessions.changes import (
    CHANGE_KINDS,
    SessionChange,
    Snapshot,
    changes_between,
    speakers_sessions,
)
from sessions.models import Release, Session, SessionSpeaker
from speakers.models import Speaker

# Sent with ``release=`` after a release is stored and its transaction committed.
schedule_released = django.dispatch.Signal()

# How a count of each kind reads: “3 new, 2 moved, 1 changed room”; in French each with its
# plural (“1 renommée, 2 renommées”), the number given when formatted ({"count": n}).
CHANGE_LABELS = {
    "new": npgettext_lazy("changes counted", "%(count)s new", "%(count)s new", "count"),
    "reinstated": npgettext_lazy(
        "changes counted", "%(count)s reinstated", "%(count)s reinstated", "count"
    ),
    "moved": npgettext_lazy("changes counted", "%(count)s moved", "%(count)s moved", "count"),
    "room": npgettext_lazy(
        "changes counted", "%(count)s changed room", "%(count)s changed room", "count"
    ),
    "retitled": npgettext_lazy(
        "changes counted", "%(count)s retitled", "%(count)s retitled", "count"
    ),
    "speakers": npgettext_lazy(
        "changes counted", "%(count)s speakers changed", "%(count)s speakers changed", "count"
    ),
    "cancelled": npgettext_lazy(
        "changes counted", "%(count)s cancelled", "%(count)s cancelled", "count"
    ),
    "removed": npgettext_lazy("changes counted", "%(count)s removed", "%(count)s removed", "count"),
}

# For forms and the API's schema (its enum is named in SPECTACULAR_SETTINGS).
CHANGE_KIND_CHOICES = [(kind, kind) for kind in CHANGE_KINDS]


def public_snapshot(conference: Conference) -> Snapshot:
    """The conference's public schedule as a release keeps it: session id (a string, as JSON
    keys are) to what attendees see of the session. Cancelled sessions stay, marked cancelled.

    Two queries whatever the size: the sessions with their room and track names, then the
    speakers of all of them in billing order.
    """
    sessions = (
        Session.objects.filter(conference=conference)
        .public()
        .order_by("pk")
        .values(
            "id",
            "guid",
            "slug",
            "title",
            "kind",
            "status",
            "starts_at",
            "ends_at",
            "room_id",
            "room__name",
            "track__name",
        )
    )
    snapshot: Snapshot = {}
    for row in sessions:
        snapshot[str(row["id"])] = {
            "id": row["id"],
            "guid": row["guid"],
            "slug": row["slug"],
            "title": row["title"],
            "kind": row["kind"],
            "status": row["status"],
            "starts_at": utc_iso(row["starts_at"]),
            "ends_at": utc_iso(row["ends_at"]),
            "room_id": row["room_id"],
            "room_name": row["room__name"] or "",
            "track_name": row["track__name"] or "",
            "speaker_ids": [],
            "speaker_names": [],
        }
    if snapshot:
        links = (
            SessionSpeaker.objects.filter(session__in=sessions.values("id"))
            .order_by("session_id", "position", "pk")
            .values_list("session_id", "speaker_id", "speaker__name")
        )
        for session_id, speaker_id, name in links:
            entry = snapshot[str(session_id)]
            entry["speaker_ids"].append(speaker_id)
            entry["speaker_names"].append(name)
    return snapshot


def utc_iso(moment: datetime.datetime) -> str:
    return moment.astimezone(datetime.UTC).isoformat()


def review_digest(previous: Release | None, snapshot: Snapshot) -> str:
    """A short fingerprint of what a release would announce: the schedule and the release it is
    compared with. The release form carries the one it showed, so a schedule changed, or a
    release made by someone else, between showing and confirming is noticed before anything is
    announced."""
    text = json.dumps(
        [previous.pk if previous else None, snapshot], sort_keys=True, separators=(",", ":")
    )
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def change_summary(changes: list[SessionChange]) -> str:
    """“3 new, 2 moved, 1 cancelled”, kinds in CHANGE_KINDS order; “no changes” for none."""
    counts = dict.fromkeys(CHANGE_KINDS, 0)
    for session_change in changes:
        counts[session_change.kind] += 1
    parts = [CHANGE_LABELS[kind] % {"count": count} for kind, count in counts.items() if count]
    return ", ".join(parts) or gettext("no changes")


@dataclass(frozen=True)
class ReleasePreview:
    """What releasing the conference now would announce, as the organizer reviews it."""

    previous: Release | None
    snapshot: Snapshot
    changes: list[SessionChange]

    @property
    def digest(self) -> str:
        return review_digest(self.previous, self.snapshot)

    @property
    def summary(self) -> str:
        return change_summary(self.changes)


def preview_release(conference: Conference) -> ReleasePreview:
    """The public schedule now, against the latest release (against nothing before the first)."""
    previous = conference.releases.first()
    snapshot = public_snapshot(conference)
    changes = changes_between(previous.snapshot if previous else {}, snapshot)
    return ReleasePreview(previous, snapshot, changes)


@dataclass(frozen=True)
class SpeakerReach:
    """Whom the speakers' mails of a release reach: each speaker of a changed session, by name."""

    mailed: list[Speaker]  # each with ``reach_address``
    unreachable: list[Speaker]  # no address of theirs is known
    unsubscribed: list[Speaker]  # turned these mails off


def speaker_reach(changes: list[SessionChange]) -> SpeakerReach:
    """Who of the speakers of ``changes`` a release mails, by the rule the mails follow
    (``SpeakerQuerySet.with_reach``), and who it cannot reach; one query."""
    speakers = (
        Speaker.objects.filter(pk__in=speakers_sessions(changes))
        .with_reach()
        .order_by("name", "pk")
    )
    reach = SpeakerReach([], [], [])
    for speaker in speakers:
        if not speaker.reach_address:
            reach.unreachable.append(speaker)
        elif not speaker.schedule_change_mails:
            reach.unsubscribed.append(speaker)
        else:
            reach.mailed.append(speaker)
    return reach


def prefetch_changes(releases: list[Release]) -> list[Release]:
    """Give each of ``releases`` what it announced, so ``Release.changes()`` makes no query.

    ``releases`` are one conference's, newest first and consecutive, as a page of
    ``conference.releases`` is: each is compared with the next in the list, the oldest with
    the release before it (one query).
    """
    if not releases:
        return releases
    before = releases[-1].previous()
    snapshots = [release.snapshot for release in releases] + [before.snapshot if before else {}]
    for index, release in enumerate(releases):
        release.prefetched_changes = changes_between(snapshots[index + 1], snapshots[index])
    return releases


@dataclass(frozen=True)
class AnnouncedChange:
    """A change as the change log and its feed show it: in words, linking to the session."""

    change: SessionChange
    words: str
    url: str  # empty when the session is no longer public


def change_log(conference: Conference, zone: datetime.tzinfo) -> list[tuple[Release, list]]:
    """Every release of the conference, newest first, with its changes in words in ``zone``.

    A fixed number of queries: the releases, and the sessions public now (those get a link,
    under their current slug).
    """
    releases = prefetch_changes(list(conference.releases.all()))
    public = conference.sessions.public().values_list("pk", "slug")
    urls = {
        pk: reverse_slugs("sessions:session-detail", conference_slug=conference.slug, slug=slug)
        for pk, slug in public
    }
    return [
        (
            release,
            [
                AnnouncedChange(change, change.describe(zone), urls.get(change.session_id, ""))
                for change in release.changes()
            ],
        )
        for release in releases
    ]


def suggested_version(conference: Conference) -> str:
    """The next free name of the form v1, v2, …: one more than the releases so far."""
    taken = set(conference.releases.values_list("version", flat=True))
    number = len(taken) + 1
    while f"v{number}" in taken:
        number += 1
    return f"v{number}"


# The public comment of a baseline release (the change log shows it).
BASELINE_COMMENT = "The schedule as first published."


def baseline_schedule(conference: Conference) -> Release | None:
    """Store the conference's public schedule as its first release, without announcing it.

    Called whenever a published conference is saved (sessions/signals.py) and by ``load_demo``;
    it stores something only the first time the public sees sessions of a conference without
    releases, so each later release is compared with what the public saw. None when nothing
    was stored. No mail: the public saw this schedule as it was published.
    """
    if not conference.is_published or conference.releases.exists():
        return None
    snapshot = public_snapshot(conference)
    if not snapshot:  # nothing public yet: comparing with nothing is the truth
        return None
    release = Release(
        conference=conference,
        version=suggested_version(conference),
        comment=BASELINE_COMMENT,
        released_at=timezone.now(),
        snapshot=snapshot,
    )
    release.full_clean()
    release.save()
    Conference.mark_changed(conference.pk)  # exports name the latest release
    return release


def release_schedule(
    conference: Conference,
    *,
    version: str,
    comment: str,
    user,
    expected_digest: str | None = None,
) -> Release:
    """Store a release of the conference's public schedule as it is now, and announce it.

    ``expected_digest``: the ``review_digest`` of what the organizer was shown; if the
    schedule changed since, or another release was made, nothing is stored and a
    ValidationError says so. The conference
    row is locked meanwhile, so two organizers releasing at once get two releases one after
    the other, each against the one before.
    """
    with transaction.atomic():
        conference = Conference.objects.select_for_update().get(pk=conference.pk)
        if not conference.is_published:
            raise ValidationError(
                "This conference is not published: the public sees none of its schedule yet. "
                "Publish it first, then release.",
                code="conference_not_published",
            )
        version = version.strip()
        if conference.releases.filter(version=version).exists():
            raise ValidationError(
                {"version": f"There is already a release “{version}”: choose another name."},
                code="duplicate_version",
            )
        snapshot = public_snapshot(conference)
        shown = expected_digest
        if shown is not None and review_digest(conference.releases.first(), snapshot) != shown:
            raise ValidationError(
                "The schedule or its releases changed while you were reviewing this release. "
                "Look over the changes again before releasing.",
                code="schedule_changed",
            )
        # Its pages and exports name the latest release, so they change with it (before
        # released_at is read: an export newer than its release says so, see exports).
        Conference.mark_changed(conference.pk)
        release = Release(
            conference=conference,
            version=version,
            comment=comment.strip(),
            released_by=user if user is not None and user.is_authenticated else None,
            released_at=timezone.now(),
            snapshot=snapshot,
        )
        release.full_clean()
        release.save()
        transaction.on_commit(lambda: schedule_released.send(sender=Release, release=release))
    return release

"""A published conference without a release gets its public schedule as it is now as its
baseline, the first release (unannounced), as publishing one does from now on
(sessions.releases.baseline_schedule): its first announced release then lists real changes.

Self-contained, on the historical models: the snapshot is built as public_snapshot() builds it
today, so a later change of that function does not change what this migration did.
"""

import datetime

from django.db import migrations
from django.utils import timezone

PUBLIC_STATUSES = ["published", "cancelled"]


def utc_iso(moment):
    return moment.astimezone(datetime.UTC).isoformat()


def snapshot_of(apps, conference):
    Session = apps.get_model("schedule", "Session")
    SessionSpeaker = apps.get_model("schedule", "SessionSpeaker")
    sessions = (
        Session.objects.filter(
            conference=conference, status__in=PUBLIC_STATUSES, starts_at__isnull=False
        )
        .order_by("pk")
        .values(
            "id", "guid", "slug", "title", "kind", "status", "starts_at", "ends_at",
            "room_id", "room__name", "track__name",
        )
    )
    snapshot = {}
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
    links = (
        SessionSpeaker.objects.filter(session__in=sessions.values("id"))
        .order_by("session_id", "position", "pk")
        .values_list("session_id", "speaker_id", "speaker__name")
    )
    for session_id, speaker_id, name in links:
        snapshot[str(session_id)]["speaker_ids"].append(speaker_id)
        snapshot[str(session_id)]["speaker_names"].append(name)
    return snapshot


def baseline_published_conferences(apps, schema_editor):
    Conference = apps.get_model("conference", "Conference")
    Release = apps.get_model("schedule", "Release")
    for conference in Conference.objects.filter(is_published=True, releases__isnull=True):
        snapshot = snapshot_of(apps, conference)
        if snapshot:
            Release.objects.create(
                conference=conference,
                version="v1",
                comment="The schedule as first published.",
                released_at=timezone.now(),
                snapshot=snapshot,
            )


class Migration(migrations.Migration):
    dependencies = [
        ("schedule", "0018_schedule_import"),
    ]

    operations = [
        migrations.RunPython(baseline_published_conferences, migrations.RunPython.noop),
    ]

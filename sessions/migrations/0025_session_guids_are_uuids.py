"""One GUID per session: a session imported with a GUID that is no UUID (a CSV id such as
``csv-701``, a legacy frab guid) stored it as given, while schedule.xml and schedule.json
published a UUID made from it. It now stores that UUID, which the API then shows too; a re-import
of the same file still finds it (sessions/importers/rows.py, ``guid_index``)."""

import re
import uuid

from django.db import migrations
from django.utils import timezone

# sessions.frab.export_guid as it is now, copied so that the migration never changes.
CANONICAL_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def published_guid(value: str) -> str:
    if CANONICAL_UUID.fullmatch(value):
        return value
    try:
        return str(uuid.UUID(value))
    except ValueError:
        return str(uuid.uuid5(uuid.NAMESPACE_URL, f"urn:confsched:legacy-guid:{value}"))


def store_published_guids(apps, schema_editor):
    Session = apps.get_model("schedule", "Session")
    now = timezone.now()
    for session in Session.objects.only("pk", "conference_id", "guid").iterator():
        guid = published_guid(session.guid)
        if guid == session.guid:
            continue
        taken = Session.objects.filter(conference_id=session.conference_id, guid=guid).exists()
        if not taken:
            # updated_at moves: a syncing API client (updated_since) learns the GUID it shows.
            Session.objects.filter(pk=session.pk).update(guid=guid, updated_at=now)


class Migration(migrations.Migration):
    dependencies = [
        ("schedule", "0024_import_language"),
    ]

    operations = [
        migrations.RunPython(store_published_guids, migrations.RunPython.noop),
    ]

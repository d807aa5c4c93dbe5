from django.db import migrations, models


def continue_from_seconds(apps, schema_editor):
    """Start each counter where the exports left SEQUENCE before it existed.

    Until now SEQUENCE was the seconds between a session's creation and its last edit. Subscribed
    calendars ignore an event whose SEQUENCE goes down, so the stored counter starts there.
    """
    Session = apps.get_model("schedule", "Session")
    sessions = list(Session.objects.only("pk", "created_at", "updated_at"))
    for session in sessions:
        session.sequence = max(0, int((session.updated_at - session.created_at).total_seconds()))
    Session.objects.bulk_update(sessions, ["sequence"], batch_size=500)


class Migration(migrations.Migration):
    dependencies = [
        ("schedule", "0006_upload_checks"),
    ]

    operations = [
        migrations.AddField(
            model_name="session",
            name="sequence",
            field=models.PositiveIntegerField(default=0, editable=False),
        ),
        migrations.RunPython(continue_from_seconds, migrations.RunPython.noop, elidable=True),
    ]

"""The page layer's own machinery goes: on PostgreSQL, the trigger that notified workers of
changed conferences (0008); and logged-in sessions, which name the backend that finds their
account, move back from conference.session_store.AccountBackend to Django's ModelBackend, so
nobody is logged out by the deploy (and forth again, if it is undone)."""

from django.db import migrations

from conference.migrations._sessions import moving_sessions

MODEL_BACKEND = "django.contrib.auth.backends.ModelBackend"
ACCOUNT_BACKEND = "conference.session_store.AccountBackend"

CREATE_TRIGGER = """
CREATE FUNCTION conference_changed_notify() RETURNS trigger AS $$
BEGIN
    PERFORM pg_notify('conference_changed', OLD.id::text);
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER conference_changed_notify
    AFTER UPDATE OR DELETE ON conference_conference
    FOR EACH ROW EXECUTE FUNCTION conference_changed_notify();
"""
DROP_TRIGGER = """
DROP TRIGGER IF EXISTS conference_changed_notify ON conference_conference;
DROP FUNCTION IF EXISTS conference_changed_notify();
"""


def on_postgresql(sql: str):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            schema_editor.execute(sql)

    return run


class Migration(migrations.Migration):
    dependencies = [
        ("conference", "0008_conference_change_notices"),
        ("sessions", "0001_initial"),
    ]

    operations = [
        migrations.RunPython(on_postgresql(DROP_TRIGGER), on_postgresql(CREATE_TRIGGER)),
        migrations.RunPython(
            moving_sessions(ACCOUNT_BACKEND, MODEL_BACKEND),
            moving_sessions(MODEL_BACKEND, ACCOUNT_BACKEND),
        ),
    ]

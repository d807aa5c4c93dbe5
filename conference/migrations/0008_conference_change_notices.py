"""On PostgreSQL, a notification on the channel ``conference_changed`` whenever a conference
row is updated or deleted, its id as the payload: each worker's anonymous early path listens
to it instead of asking whether a conference changed (conference.change_notices). Nothing on
other databases."""

from django.db import migrations

CREATE = """
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
DROP = """
DROP TRIGGER IF EXISTS conference_changed_notify ON conference_conference;
DROP FUNCTION IF EXISTS conference_changed_notify();
"""


def on_postgresql(sql: str):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            schema_editor.execute(sql)

    return run


class Migration(migrations.Migration):
    dependencies = [("conference", "0007_sessions_to_account_backend")]

    operations = [migrations.RunPython(on_postgresql(CREATE), on_postgresql(DROP))]

"""On PostgreSQL the database itself refuses two sessions in one room at once.

Session.clean() reports clashes with a clear message; this constraint closes the race where two
organizers save overlapping sessions at the same moment and both pass validation. SQLite has no
exclusion constraints, so there the migration does nothing and validation alone guards the rule.
"""

from django.db import migrations

CREATE = """
CREATE EXTENSION IF NOT EXISTS btree_gist;
ALTER TABLE schedule_session ADD CONSTRAINT session_room_not_double_booked
    EXCLUDE USING gist (room_id WITH =, tstzrange(starts_at, ends_at, '[)') WITH &&)
    WHERE (room_id IS NOT NULL AND status <> 'cancelled');
"""
DROP = "ALTER TABLE schedule_session DROP CONSTRAINT IF EXISTS session_room_not_double_booked;"


def on_postgresql(sql):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            schema_editor.execute(sql)

    return run


class Migration(migrations.Migration):
    dependencies = [("schedule", "0002_initial")]

    operations = [migrations.RunPython(on_postgresql(CREATE), on_postgresql(DROP), elidable=False)]

"""PostgreSQL's room-booking exclusion constraint becomes deferrable (still checked per row).

The schedule importer rewrites many sessions in one transaction: two talks that swap slots
overlap in between. It defers this constraint while it writes, then checks it at once
(sessions.models.bookings.room_bookings_checked_at_end); every other writer keeps the per-row check.
SQLite has no such constraint, so there the migration does nothing.
"""

from django.db import migrations

CONSTRAINT = """
ALTER TABLE schedule_session DROP CONSTRAINT IF EXISTS session_room_not_double_booked;
ALTER TABLE schedule_session ADD CONSTRAINT session_room_not_double_booked
    EXCLUDE USING gist (room_id WITH =, tstzrange(starts_at, ends_at, '[)') WITH &&)
    WHERE (room_id IS NOT NULL AND status <> 'cancelled'){}
"""
DEFERRABLE = CONSTRAINT.format(" DEFERRABLE INITIALLY IMMEDIATE;")
NOT_DEFERRABLE = CONSTRAINT.format(";")


def on_postgresql(sql):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            schema_editor.execute(sql)

    return run


class Migration(migrations.Migration):
    dependencies = [("schedule", "0007_session_sequence")]

    operations = [
        migrations.RunPython(
            on_postgresql(DEFERRABLE), on_postgresql(NOT_DEFERRABLE), elidable=False
        )
    ]

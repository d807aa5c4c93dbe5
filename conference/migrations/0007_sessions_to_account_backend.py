"""Logged-in sessions name the backend that finds their account: Django's ModelBackend until
conference.session_store.AccountBackend took its place. Sessions are moved, not dropped, so
nobody is logged out by the deploy (and back, if it is undone)."""

from django.contrib.auth import BACKEND_SESSION_KEY
from django.contrib.sessions.backends.db import SessionStore
from django.db import migrations

MODEL_BACKEND = "django.contrib.auth.backends.ModelBackend"
ACCOUNT_BACKEND = "conference.session_store.AccountBackend"


def moving_sessions(old_backend: str, new_backend: str):
    def move(apps, schema_editor):
        Session = apps.get_model("sessions", "Session")  # django.contrib.sessions'
        store = SessionStore()
        sessions = Session.objects.using(schema_editor.connection.alias)
        for session in sessions.iterator(chunk_size=1000):
            data = store.decode(session.session_data)
            if data.get(BACKEND_SESSION_KEY) == old_backend:
                data[BACKEND_SESSION_KEY] = new_backend
                session.session_data = store.encode(data)
                session.save(update_fields=["session_data"])

    return move


class Migration(migrations.Migration):
    dependencies = [
        ("conference", "0006_day_change_colour_logo_room_guid"),
        ("sessions", "0001_initial"),
    ]

    operations = [
        migrations.RunPython(
            moving_sessions(MODEL_BACKEND, ACCOUNT_BACKEND),
            moving_sessions(ACCOUNT_BACKEND, MODEL_BACKEND),
        ),
    ]

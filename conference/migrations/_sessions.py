"""What migrations that rename the authentication backend share: moving the logged-in sessions
that name the old one to the new one (Django logs out a session whose backend is not in
AUTHENTICATION_BACKENDS)."""

from django.contrib.auth import BACKEND_SESSION_KEY
from django.contrib.sessions.backends.db import SessionStore


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

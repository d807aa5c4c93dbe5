"""Logged-in sessions name the backend that finds their account: Django's ModelBackend becomes
conference.permissions.AccountBackend (the same accounts, without global model permissions;
teams decide who may do what). Moved so that nobody is logged out by the deploy (and back, if
it is undone). Sessions kept in Redis in front of the database (cached_db) are read from the
database again once their cached copy expires."""

from django.db import migrations

from conference.migrations._sessions import moving_sessions

MODEL_BACKEND = "django.contrib.auth.backends.ModelBackend"
ACCOUNT_BACKEND = "conference.permissions.AccountBackend"


class Migration(migrations.Migration):
    dependencies = [
        ("conference", "0019_staff_become_organizers"),
        ("sessions", "0001_initial"),
    ]

    operations = [
        migrations.RunPython(
            moving_sessions(MODEL_BACKEND, ACCOUNT_BACKEND),
            moving_sessions(ACCOUNT_BACKEND, MODEL_BACKEND),
        ),
    ]

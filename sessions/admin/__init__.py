"""The sessions app's admin: sessions, the planner, imports, releases, feedback and the dashboard."""

from sessions.admin import feedback, releases, sessions  # noqa: F401  (registers the ModelAdmins)

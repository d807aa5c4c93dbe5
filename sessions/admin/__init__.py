"""The sessions app's admin: sessions, the planner, imports, releases, feedback and the dashboard;
the call for proposals and its review (sessions/cfp/admin/)."""

from sessions.admin import feedback, releases, sessions  # noqa: F401  (registers the ModelAdmins)
from sessions.cfp import admin as cfp_admin  # noqa: F401  (registers the call and the review)

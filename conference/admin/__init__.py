"""The admin of conferences, rooms and tracks, teams, API tokens and webhooks; and what every app's admin
shares: versioned change forms that merge stale saves, conference-aware widgets and filters."""

from conference.admin import api, conference, teams  # noqa: F401  (registers the ModelAdmins)

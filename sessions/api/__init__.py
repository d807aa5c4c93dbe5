"""API v1 of the sessions app: sessions, releases, removals, my schedule and feedback averages."""

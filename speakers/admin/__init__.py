"""The speakers app's admin: speakers, their links and availability, and inviting them."""

from speakers.admin import speakers  # noqa: F401  (registers the ModelAdmins)

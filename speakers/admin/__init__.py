"""The speakers app's admin: speakers, their links and availability, inviting them, and their
change proposals."""

from speakers.admin import proposals, speakers  # noqa: F401  (registers the ModelAdmins)

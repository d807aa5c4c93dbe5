"""The conference app's models, a module per idea:

- ``conference``: Conference, Room and Track, and the former slugs that keep old links working.
- ``accounts``: what an account's owner proved and chose about mail from the site (AccountEmail).
- ``api``: what outside clients hold: API tokens, webhook endpoints and their deliveries.
- ``teams``: who may do what, per conference: teams, their roles and invitations.

Everything is imported from here (``from conference.models import Conference``), as Django finds it.
"""

from conference.content_version import ChangesConferenceQuerySet
from conference.models.accounts import (
    AccountEmail,
    confirmed_address,
    has_confirmed_address,
    mailable_accounts,
)
from conference.models.api import (
    ApiToken,
    WebhookDelivery,
    WebhookEndpoint,
    WebhookEvent,
    new_webhook_secret,
)
from conference.models.conference import (
    HEX_COLOUR_MESSAGE,
    PREVIEW_COPY,
    PUBLIC_COPY,
    RESERVED_SLUGS,
    Conference,
    ConferenceQuerySet,
    FormerSlug,
    KeepsFormerSlugs,
    Room,
    Track,
    copy_for,
    describe_days,
    time_zone_choices,
    validate_hex_colour,
    validate_not_reserved,
    validate_time_zone,
)
from conference.models.teams import Preview, Role, Team, TeamInvitation, preview_of, reach_of

__all__ = [
    "HEX_COLOUR_MESSAGE",
    "PREVIEW_COPY",
    "PUBLIC_COPY",
    "RESERVED_SLUGS",
    "AccountEmail",
    "ApiToken",
    "ChangesConferenceQuerySet",
    "Conference",
    "ConferenceQuerySet",
    "FormerSlug",
    "KeepsFormerSlugs",
    "Preview",
    "Role",
    "Room",
    "Team",
    "TeamInvitation",
    "Track",
    "WebhookDelivery",
    "WebhookEndpoint",
    "WebhookEvent",
    "confirmed_address",
    "copy_for",
    "describe_days",
    "has_confirmed_address",
    "mailable_accounts",
    "new_webhook_secret",
    "preview_of",
    "reach_of",
    "time_zone_choices",
    "validate_hex_colour",
    "validate_not_reserved",
    "validate_time_zone",
]

"""API tokens with limits: read only or write, some conferences only, an expiry (ApiToken).

Only ApiTokens authenticate. DRF's own tokens (``rest_framework.authtoken``, one per account,
unscoped) became ApiTokens with the same key (migration conference/0022) and are no longer read.
A key is looked up by its SHA-256 digest (conference/models/api.py says why a fast digest).

Settings name the authentication class, and DRF imports it while it loads: this module imports
no models at its top.
"""

from functools import cached_property

from django.db.models import QuerySet
from rest_framework import exceptions, permissions
from rest_framework.authentication import TokenAuthentication


class ScopedTokenAuthentication(TokenAuthentication):
    """``Authorization: Token <key>``: an ApiToken's key; unknown, revoked or expired is a 401."""

    def get_model(self):
        from conference.models import ApiToken

        return ApiToken

    def authenticate_credentials(self, key):
        token = self.get_model().objects.select_related("user").with_key(key).first()
        if token is None:
            raise exceptions.AuthenticationFailed("Invalid token.")
        if not token.user.is_active:
            raise exceptions.AuthenticationFailed("User inactive or deleted.")
        if token.is_revoked:
            raise exceptions.AuthenticationFailed("Token has been revoked.")
        if token.is_expired:
            raise exceptions.AuthenticationFailed("Token has expired.")
        return (token.user, TokenLimits(token))


class TokenLimits:
    """What an ApiToken allows, as ``request.auth``; its conferences read once per request."""

    def __init__(self, token):
        self.token = token

    @property
    def can_write(self) -> bool:
        return self.token.can_write

    @cached_property
    def conference_ids(self) -> frozenset[int]:
        """The conferences it is limited to; empty: not limited."""
        return frozenset(self.token.conferences.values_list("pk", flat=True))

    def allows(self, conference_id: int) -> bool:
        return not self.conference_ids or conference_id in self.conference_ids


def token_limits(request) -> TokenLimits | None:
    auth = getattr(request, "auth", None)
    return auth if isinstance(auth, TokenLimits) else None


def reachable_conferences(request, conferences: QuerySet) -> QuerySet:
    """``conferences`` less those the request's token is not for (others are as unknown)."""
    limits = token_limits(request)
    if limits is None or not limits.conference_ids:
        return conferences
    return conferences.filter(pk__in=limits.conference_ids)


def check_token_reaches(request, conference_id: int) -> None:
    """A 404, as for a conference that does not exist, if the token is not for that one."""
    limits = token_limits(request)
    if limits is not None and not limits.allows(conference_id):
        raise exceptions.NotFound()


class TokenScopePermission(permissions.BasePermission):
    """A read-only token reads: any other method is a 403."""

    message = "This token is read only: it cannot change anything."

    def has_permission(self, request, view):
        limits = token_limits(request)
        return limits is None or limits.can_write or request.method in permissions.SAFE_METHODS

"""API tokens with limits: read only or write, some conferences only, an expiry (ApiToken).

DRF's own tokens (``rest_framework.authtoken``, one per user) stay valid beside them, with the
access they always had: write, every conference, no expiry. Clients and scripts holding one
keep working, ``POST auth/token/`` without limits still returns it, and ``drf_create_token``
still prints it. A client that wants less asks for an ApiToken.

Settings name the authentication class, and DRF imports it while it loads: this module imports
no models at its top.
"""

from functools import cached_property

from django.db.models import QuerySet
from rest_framework import exceptions, permissions
from rest_framework.authentication import TokenAuthentication


class ScopedTokenAuthentication(TokenAuthentication):
    """``Authorization: Token <key>``: an ApiToken's key, or else a DRF token's."""

    def get_model(self):
        from conference.models import ApiToken

        return ApiToken

    def authenticate_credentials(self, key):
        token = self.get_model().objects.select_related("user").filter(key=key).first()
        if token is None:
            return TokenAuthentication().authenticate_credentials(key)  # DRF's Token
        if not token.user.is_active:
            raise exceptions.AuthenticationFailed("User inactive or deleted.")
        if token.is_expired:
            raise exceptions.AuthenticationFailed("Token has expired.")
        return (token.user, TokenLimits(token))


class TokenLimits:
    """What an ApiToken allows, as ``request.auth``; its conferences read once per request."""

    def __init__(self, token):
        self.token = token
        self.key = token.key

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

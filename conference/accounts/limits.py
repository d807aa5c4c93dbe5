"""Limits on logins, password-reset, verification and invitation mail and API requests, and the client address they count by.

Failed logins are counted by django-axes (settings.AXES_*): its authentication backend refuses a
locked account at every door that calls ``authenticate()`` with the request, and its signal
receiver counts each failure, so the site's login page, the admin's and the API token endpoint
share one count. The other limits count in the "limits" cache, which every process shares (Redis,
a database table, or on SQLite files beside the database: settings.CACHES).
"""

import hashlib
import ipaddress
import math
import time
from datetime import timedelta

from axes.backends import AxesStandaloneBackend
from axes.models import AccessAttempt
from django.conf import settings
from django.core.cache import caches
from django.utils import timezone
from django.utils.connection import ConnectionProxy
from django.utils.translation import ngettext
from rest_framework import throttling

# Resolved on each use, like django.core.cache.cache, so tests that override CACHES see theirs.
limits_cache = ConnectionProxy(caches, "limits")


def client_address(request) -> str:
    """The address a request came from, as far as this site can trust it.

    With no trusted proxies (settings.TRUSTED_PROXIES = 0) that is the socket's peer, REMOTE_ADDR:
    X-Forwarded-For is anyone's to write. With N proxies in front, each appending the address it
    was reached from, the Nth address from the right is the one the outermost proxy saw; whatever
    a client wrote into the header itself stays to its left. This is DRF's rule for NUM_PROXIES,
    plus: a value that is not an IP address counts as REMOTE_ADDR.
    """
    remote_addr = request.META.get("REMOTE_ADDR", "")
    forwarded_for = request.META.get("HTTP_X_FORWARDED_FOR")
    proxies = settings.TRUSTED_PROXIES
    if proxies and forwarded_for:
        addresses = forwarded_for.split(",")
        candidate = addresses[-min(proxies, len(addresses))].strip()
        try:
            return str(ipaddress.ip_address(candidate))
        except ValueError:
            pass
    return remote_addr


# --- Failed logins (django-axes) --------------------------------------------------------------


class LoginLimitBackend(AxesStandaloneBackend):
    """django-axes' refusal of locked accounts, for logins made on behalf of a request.

    Without a request (the test client's ``login()``, a shell) there is no client to count, and
    axes would raise instead; every door of the site passes its request.
    """

    def authenticate(self, request, username=None, password=None, **kwargs):
        if request is None:
            return None
        return super().authenticate(request, username=username, password=password, **kwargs)


def login_is_locked(request) -> bool:
    """Whether django-axes refused this request's login attempt (or this one locked the account)."""
    return bool(getattr(request, "axes_locked_out", False))


def login_lock_seconds_left(username: str) -> int:
    """Seconds until a locked account opens again; 0 if it is not locked.

    axes keeps a row per address and browser an account was tried from, which counts for
    AXES_COOLOFF_TIME after its latest failure; the lock holds while the rows still counting
    reach the limit, so it lifts when the row that completes the limit, newest first, expires.
    """
    cooloff = settings.AXES_COOLOFF_TIME
    now = timezone.now()
    counting = (
        AccessAttempt.objects.filter(username=username, attempt_time__gte=now - cooloff)
        .order_by("-attempt_time")
        .values_list("attempt_time", "failures_since_start")
    )
    failures = 0
    for attempt_time, attempt_failures in counting:
        failures += attempt_failures
        if failures >= settings.AXES_FAILURE_LIMIT:
            return max(1, math.ceil((attempt_time + cooloff - now).total_seconds()))
    return 0


def login_locked_message(username: str) -> str:
    minutes = math.ceil(login_lock_seconds_left(username) / 60)
    return ngettext(
        "Too many failed logins for this account. Try again in %(minutes)d minute, "
        "or reset your password.",
        "Too many failed logins for this account. Try again in %(minutes)d minutes, "
        "or reset your password.",
        minutes,
    ) % {"minutes": minutes}


def login_locked_response(request, original_response, credentials):
    """django-axes' answer once an account is locked (AXES_LOCKOUT_CALLABLE): the door's own page,
    whose form says why (conference.forms.LoginLimitMixin), as a 429 with Retry-After."""
    username = (credentials or {}).get("username") or ""
    original_response.status_code = 429
    original_response["Retry-After"] = str(login_lock_seconds_left(username))
    return original_response


# --- Counts in the shared "limits" cache ------------------------------------------------------


class Limit:
    """At most ``allowed`` events per key in each fixed window of time, counted in the "limits"
    cache. Redis counts atomically; the database and file caches may miss a few concurrent counts."""

    def __init__(self, name: str, allowed: int, window: timedelta):
        self.name = name
        self.allowed = allowed
        self.seconds = int(window.total_seconds())

    def cache_key(self, key: str, now: float) -> str:
        # Hashed: the key may be any text of any length (an email address as typed).
        digest = hashlib.sha256(key.encode()).hexdigest()
        return f"limit:{self.name}:{int(now // self.seconds)}:{digest}"

    def allows(self, key: str) -> bool:
        """Counts one event for ``key``; False once more than ``allowed`` fell in this window."""
        now = time.time()
        cache_key = self.cache_key(key, now)
        timeout = self.seconds_left(now)
        if limits_cache.add(cache_key, 1, timeout):
            return True
        try:
            count = limits_cache.incr(cache_key)
        except ValueError:  # expired since add(): a new window
            limits_cache.set(cache_key, 1, timeout)
            return True
        # The database and file caches' incr() store the value again with the default timeout.
        limits_cache.touch(cache_key, timeout)
        return count <= self.allowed

    def seconds_left(self, now: float) -> int:
        return math.ceil(self.seconds - now % self.seconds)

    def minutes_left(self) -> int:
        """Whole minutes until the current window ends and counting starts again."""
        return math.ceil(self.seconds_left(time.time()) / 60)


# Password-reset mail: a few per address (no mailbox gets flooded), more per client (one venue
# address serves many attendees), each hour.
PASSWORD_RESETS_PER_EMAIL = Limit("password-reset-email", 3, timedelta(hours=1))
PASSWORD_RESETS_PER_CLIENT = Limit("password-reset-client", 20, timedelta(hours=1))

# Address-verification mail: a few per address (no mailbox gets flooded by someone typing it in)
# and a few per account (one account cannot mail address after address), each hour.
VERIFICATION_MAILS_PER_ADDRESS = Limit("verification-email", 3, timedelta(hours=1))
VERIFICATION_MAILS_PER_ACCOUNT = Limit("verification-account", 5, timedelta(hours=1))

# Speaker invitations: a few per address each hour, like verification mail, so no mailbox gets
# flooded by an organizer's repeated clicks or a bulk action run twice.
SPEAKER_INVITATIONS_PER_ADDRESS = Limit("speaker-invitation-email", 3, timedelta(hours=1))

# Team invitations: a few per inviter each hour, enough to bring a team in, too few for one
# organizer's account (or whoever holds it) to mail the world through the site.
TEAM_INVITATIONS_PER_INVITER = Limit("team-invitation-inviter", 10, timedelta(hours=1))

# Co-speaker invitations: a few per inviter each hour, enough for a proposal's co-speakers and a
# retyped address or two, too few for a speaker's account to mail the world through the site.
CO_SPEAKER_INVITATIONS_PER_INVITER = Limit("co-speaker-invitation-inviter", 10, timedelta(hours=1))

# Proposals submitted to calls for proposals: a few per account each hour, enough for every
# idea, too few for one account to flood the reviewers.
PROPOSAL_SUBMISSIONS_PER_ACCOUNT = Limit("proposal-submission-account", 5, timedelta(hours=1))


# --- API throttles ----------------------------------------------------------------------------


class SharedThrottleMixin:
    """DRF throttling, counted in the shared "limits" cache per ``client_address``."""

    cache = limits_cache

    def get_ident(self, request):
        return client_address(request)


class AnonRateThrottle(SharedThrottleMixin, throttling.AnonRateThrottle):
    pass


class UserRateThrottle(SharedThrottleMixin, throttling.UserRateThrottle):
    """Authenticated clients only: DRF's would count anonymous ones a second time, by address,
    which the anonymous throttle already does (and each count costs a write to the store)."""

    def get_cache_key(self, request, view):
        if not request.user.is_authenticated:
            return None
        return super().get_cache_key(request, view)


class ScopedRateThrottle(SharedThrottleMixin, throttling.ScopedRateThrottle):
    pass

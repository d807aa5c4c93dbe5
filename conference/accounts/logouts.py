"""Ending sessions from outside a request: the operator's way to log people out
(``manage.py end_sessions``, docs/deploy.md).

With Redis, sessions are Django's ``cached_db``: each is kept in Redis in front of its database
row, and read from Redis first. Deleting rows from ``django_session`` therefore logs nobody out
until the copy in Redis expires. A session ends here in both: through the session engine's own
``delete()``, for every session with a row, and for those left only in Redis (their rows
deleted by hand) by finding their keys there.
"""

from importlib import import_module

import redis
from django.conf import settings
from django.contrib.auth import SESSION_KEY
from django.contrib.sessions.backends import cached_db
from django.contrib.sessions.models import Session
from django.core.cache import caches
from django.core.cache.backends.redis import RedisCache


def session_store():
    return import_module(settings.SESSION_ENGINE).SessionStore


def end_sessions(user_ids: set[str] | None = None) -> int:
    """End the sessions of the accounts ``user_ids`` (as strings), or every session (None);
    how many were ended."""
    store = session_store()
    keys = set()
    for row in Session.objects.order_by("pk").iterator():
        if user_ids is None or row.get_decoded().get(SESSION_KEY) in user_ids:
            keys.add(row.session_key)
    keys |= cached_only_session_keys(user_ids)
    for key in sorted(keys):
        store(session_key=key).delete()
    return len(keys)


def cached_only_session_keys(user_ids: set[str] | None) -> set[str]:
    """The keys of ``cached_db`` sessions in Redis (of ``user_ids``, or all), rows or not."""
    if settings.SESSION_ENGINE != "django.contrib.sessions.backends.cached_db":
        return set()
    cache = caches[settings.SESSION_CACHE_ALIAS]
    if not isinstance(cache, RedisCache):
        return set()  # a local-memory cache lives in each process: out of reach here
    prefix = cached_db.KEY_PREFIX
    pattern = cache.make_key(prefix + "*")
    location = settings.CACHES[settings.SESSION_CACHE_ALIAS]["LOCATION"]
    locations = location if isinstance(location, list | tuple) else location.split(",")
    keys = set()
    for url in locations:
        with redis.Redis.from_url(url) as client:
            for raw in client.scan_iter(match=pattern, count=1000):
                key = raw.decode().split(prefix, 1)[1]
                if user_ids is not None:
                    data = cache.get(prefix + key) or {}
                    if data.get(SESSION_KEY) not in user_ids:
                        continue
                keys.add(key)
    return keys

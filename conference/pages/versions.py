"""What a shared page depends on, named by one version: its ETag, and the key it is cached by.

A version changes with the release of the code, the conference's content (``changed_at``, moved
by every write), the URL with only the query parameters the page reads, the display zone, the
language, the copy whoever asks gets (``conference.models.copy_for``: those who preview
see drafts) and, for a page about the present,
the minute it shows. A cached copy is never stale, only unused: an edit moves the version.
"""

from __future__ import annotations

import datetime
import hashlib
from urllib.parse import urlencode

from django.conf import settings
from django.http import HttpRequest, HttpResponse, QueryDict
from django.utils import timezone, translation
from django.utils.cache import get_conditional_response
from django.utils.http import quote_etag

UNIX_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.UTC)


def page_query(request: HttpRequest, parameters: tuple[str, ...]) -> QueryDict:
    """The request's query reduced to ``parameters``, normalised.

    Pages build links and forms from this, never from ``request.GET``, so a page depends only
    on what its version names: ``?utm_source=…`` neither splits the cache nor leaks into it.
    Parameters come in their declared order, each one's values sorted and deduplicated and
    empty ones dropped, so ``?track=b&track=a&track=a&q=`` is the same page, and the same cache
    entry, as ``?track=a&track=b``.
    """
    pairs = [
        (name, value)
        for name in parameters
        for value in sorted(set(request.GET.getlist(name)))
        if value
    ]
    return QueryDict(urlencode(pairs))


def page_url(request: HttpRequest, query: QueryDict) -> str:
    """The page's own address with only the parameters it reads (for ``?next=`` links)."""
    return f"{request.path}?{query.urlencode()}" if query else request.path


def page_version(conference, url: str, copy: str, moment: datetime.datetime | None = None) -> str:
    """The ETag of a shared page (see the module's docstring for what it names)."""
    variant = "|".join(
        [
            settings.RELEASE,
            str(conference.pk),
            conference.changed_at.isoformat(),
            url,
            timezone.get_current_timezone_name(),
            translation.get_language(),
            copy,
            moment.isoformat() if moment else "",
        ]
    )
    return quote_etag(hashlib.sha256(variant.encode()).hexdigest()[:32])


def last_modified(conference, moment: datetime.datetime | None = None) -> int:
    """The page's Last-Modified, as a timestamp: its conference's last change, or the minute a
    page about the present shows, whichever is later."""
    return int(max(conference.changed_at, moment or UNIX_EPOCH).timestamp())


def not_modified(request: HttpRequest, version: str, modified: int) -> HttpResponse | None:
    """A 304 when the visitor already holds this version (If-None-Match, If-Modified-Since)."""
    return get_conditional_response(request, etag=version, last_modified=modified)

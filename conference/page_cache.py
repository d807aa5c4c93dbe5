"""Pages shared by every visitor of a URL: cached per content version, personal parts filled per request.

A *shared* page looks the same to everyone who asks for the same thing, apart from a few
personal parts (account links, Save buttons). It is rendered once per **version**, which names
everything the shared part depends on: the release of the code, the conference's content
(``Conference.changed_at``, moved by every write), the path with only the query parameters the
page reads, the display zone and the visitor's role (staff also see drafts).

**Holes.** A template marks each personal part with ``{{ personal("template.html", **data) }}``
(``conference.jinja2``). Rendered for the cache, that leaves a marker and records the hole's
template and data; every request then fills the holes by rendering those templates for its
visitor (``SharedPage.fill``). Rendered any other way (a page that is not shared, an htmx swap),
``personal()`` renders the same template in place, so a personal part has one template only.

**Conditional GET.** Anonymous visitors, and everyone for ``same_for_every_user`` pages (exports),
get an ETag and Last-Modified from the version, and a 304 when they already hold it. Anonymous
visitors of one version all get the same finished page, so that is cached too.

**Pages about the present** (now and next) name the minute they show in their version
(``page_moment()``): a copy serves only requests within that minute, lives briefly in the
cache (``page_cache_seconds``), and browsers are told to ask again each time (a 304 while the
minute lasts).

Views use it through ``SharedPageMixin``; this module is the only place that reads or writes
cached pages.
"""

from __future__ import annotations

import datetime
import hashlib
import secrets
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from django.conf import settings
from django.contrib.messages import get_messages
from django.contrib.messages.storage.base import Message
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse, QueryDict
from django.template import engines
from django.template.backends.utils import csrf_input_lazy
from django.utils import timezone
from django.utils.cache import get_conditional_response, patch_cache_control
from django.utils.http import http_date, quote_etag

# Keys carry the content version, so age never makes an entry stale; a day bounds the memory.
PAGE_CACHE_SECONDS = 24 * 60 * 60
UNIX_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.UTC)
# A streamed body larger than this is not kept whole (a 10,000-session export): its sessions'
# parts are cached (sessions/exports.py), and joining them again costs less than holding it.
WHOLE_BODY_LIMIT = 8 * 1024 * 1024
# Response headers a cached page keeps.
KEPT_HEADERS = ("Content-Type", "Content-Disposition")


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


def page_version(
    request: HttpRequest, conference, url: str, moment: datetime.datetime | None = None
) -> str:
    """The ETag of a shared page: changes with the release, content, URL, zone and role, and
    for a page that follows the clock, with the ``moment`` it shows."""
    variant = "|".join(
        [
            settings.RELEASE,
            str(conference.pk),
            conference.changed_at.isoformat(),
            url,
            timezone.get_current_timezone_name(),
            "staff" if request.user.is_staff else "public",
            moment.isoformat() if moment else "",
        ]
    )
    return quote_etag(hashlib.sha256(variant.encode()).hexdigest()[:32])


# A personal part of a page: its template's name and the plain values it is rendered with.
# A tuple rather than a class: a page holds a thousand, and pickling them is part of caching it.
Hole = tuple[str, dict[str, Any]]


@dataclass
class HoleRecorder:
    """Collects the holes of one shared rendering; ``personal()`` finds it in the context."""

    marker: str = field(default_factory=lambda: f"<!--hole-{secrets.token_hex(8)}-->")
    holes: list[Hole] = field(default_factory=list)

    def add(self, template_name: str, data: dict[str, Any]) -> str:
        self.holes.append((template_name, data))
        return self.marker


@dataclass
class SharedPage:
    """A rendered page as the cache keeps it: the shared text between its holes."""

    parts: list[str]
    holes: list[Hole]
    headers: dict[str, str]

    @classmethod
    def from_rendering(cls, html: str, recorder: HoleRecorder, headers: dict[str, str]):
        parts = html.split(recorder.marker)
        if len(parts) != len(recorder.holes) + 1:  # a template printed a hole twice, or none
            raise ValueError(f"{len(recorder.holes)} holes recorded, {len(parts) - 1} in the page")
        return cls(parts=parts, holes=recorder.holes, headers=headers)

    def fill(self, personal_context: dict[str, Any]) -> str:
        """The page for one visitor: each hole rendered from its template with their context."""
        if not self.holes:
            return self.parts[0]
        env = engines["jinja2"].env
        contexts = {}  # per template: its globals and the visitor's context, merged once
        pieces = [self.parts[0]]
        for (template_name, data), part in zip(self.holes, self.parts[1:], strict=True):
            template = env.get_template(template_name)
            if template_name not in contexts:
                contexts[template_name] = {**template.globals, **personal_context}
            # Speed: a shared context instead of render()'s copy of the globals per hole makes
            # a thousand Save buttons 11 ms instead of 37.
            context = template.new_context({**contexts[template_name], **data}, shared=True)
            pieces.append(env.concat(template.root_render_func(context)))
            pieces.append(part)
        return "".join(pieces)


def not_modified(request: HttpRequest, version: str, last_modified: int) -> HttpResponse | None:
    return get_conditional_response(request, etag=version, last_modified=last_modified)


class SharedPageMixin:
    """For conference pages (after ``ConferenceMixin``, which finds ``self.conference``).

    ``shared``: the page is the same for every visitor of its version apart from its holes.
    ``same_for_every_user``: it has no holes at all (exports, stylesheets): conditional for all.
    ``query_parameters``: the query parameters the page reads; all others are ignored.
    ``personal_context()``: what the holes need besides the visitor and the page's address
    (``sessions.personal`` adds the saved sessions).
    ``page_moment()``: for a page that follows the clock (now and next), the instant it shows;
    it becomes part of the version (see ``page_version``).
    """

    shared = True
    same_for_every_user = False
    query_parameters: tuple[str, ...] = ("tz",)
    hole_recorder: HoleRecorder | None = None
    page_cache_seconds = PAGE_CACHE_SECONDS

    def setup(self, request, *args, **kwargs):
        super().setup(request, *args, **kwargs)
        self.page_query = page_query(request, self.query_parameters)
        self.page_url = page_url(request, self.page_query)

    def dispatch(self, request, *args, **kwargs):
        if not (self.shared and request.method in ("GET", "HEAD")):
            return super().dispatch(request, *args, **kwargs)
        moment = self.page_moment()
        version = page_version(request, self.conference, self.page_url, moment)
        conditional = self.same_for_every_user or not request.user.is_authenticated
        last_modified = int(max(self.conference.changed_at, moment or UNIX_EPOCH).timestamp())
        response = not_modified(request, version, last_modified) if conditional else None
        if response is None and conditional:
            response = self.finished_response(version, *args, **kwargs)
            if response.status_code == 200:
                response.headers["ETag"] = version
                response.headers["Last-Modified"] = http_date(last_modified)
        elif response is None:
            response = self.personal_response(version, *args, **kwargs)
        if moment is not None:
            # A browser may otherwise reuse it for a while without asking (heuristic freshness);
            # asking costs a 304 while the moment has not moved.
            patch_cache_control(response, no_cache=True)
        return response

    def page_moment(self) -> datetime.datetime | None:
        return None

    def finished_response(self, version: str, *args, **kwargs) -> HttpResponse:
        """Exports, and pages for anonymous visitors: the same bytes for everyone, kept whole."""
        key = f"finished-page:{version}"
        cached = cache.get(key)
        if cached is not None:
            content, headers = cached
            return HttpResponse(content, headers=headers)
        if self.same_for_every_user:
            response = rendered(super().dispatch(self.request, *args, **kwargs))
        else:
            response = self.personal_response(version, *args, **kwargs)
        if response.status_code == 200 and response.streaming:
            response.streaming_content = kept_once_streamed(
                response.streaming_content, key, kept_headers(response), self.page_cache_seconds
            )
        elif response.status_code == 200:
            cache.set(key, (response.content, kept_headers(response)), self.page_cache_seconds)
        return response

    def personal_response(self, version: str, *args, **kwargs) -> HttpResponse:
        """The page for this visitor: the cached shared rendering with its holes filled."""
        key = f"shared-page:{version}"
        page = cache.get(key)
        if page is None:
            self.hole_recorder = HoleRecorder()
            response = super().dispatch(self.request, *args, **kwargs)
            if response.status_code != 200:
                return rendered(response)
            # The template's text as rendered: no round trip through bytes before the holes.
            text = response.rendered_content
            page = SharedPage.from_rendering(text, self.hole_recorder, kept_headers(response))
            cache.set(key, page, self.page_cache_seconds)
        return HttpResponse(page.fill(self.full_personal_context()), headers=page.headers)

    def get_context_data(self, **kwargs):
        if self.hole_recorder is None:  # rendered in place: personal parts render with the page
            kwargs = {**self.full_personal_context(), **kwargs}
        return super().get_context_data(
            hole_recorder=self.hole_recorder, page_query=self.page_query, **kwargs
        )

    def personal_context(self) -> dict[str, Any]:
        return {}

    def full_personal_context(self) -> dict[str, Any]:
        """Everything a hole may read: the visitor, the page's address, the CSRF field, and
        their messages (“Saved.”)."""
        request = self.request
        return {
            "request": request,
            "user": request.user,
            "csrf_input": csrf_input_lazy(request),
            "next_url": self.page_url,
            "messages": visitor_messages(request),
            **self.personal_context(),
        }


def visitor_messages(request: HttpRequest) -> list[Message]:
    """A logged-in visitor's messages, which showing them uses up.

    Anonymous visitors share one finished page per version (``finished_response``): one
    visitor's message must never be baked into it, so theirs wait for a page of their own.
    """
    return list(get_messages(request)) if request.user.is_authenticated else []


def kept_once_streamed(
    chunks: Iterable[bytes], key: str, headers: dict[str, str], seconds: int
) -> Iterator[bytes]:
    """``chunks`` passed on as they come, and cached whole under ``key`` once all have gone out
    (not when the client left early, nor past WHOLE_BODY_LIMIT)."""
    kept, size = [], 0
    for chunk in chunks:
        if size <= WHOLE_BODY_LIMIT:
            kept.append(chunk)
            size += len(chunk)
        yield chunk
    if size <= WHOLE_BODY_LIMIT:
        cache.set(key, (b"".join(kept), headers), seconds)


def rendered(response: HttpResponse) -> HttpResponse:
    if hasattr(response, "render"):  # a TemplateResponse renders lazily
        response.render()
    return response


def kept_headers(response: HttpResponse) -> dict[str, str]:
    return {name: response[name] for name in KEPT_HEADERS if name in response}

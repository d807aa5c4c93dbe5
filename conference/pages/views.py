"""SharedPageMixin: the one way a view caches its page, and the HTTP caching headers it sends.

Anonymous visitors, and everyone for a page without holes (``same_for_every_user``: exports,
stylesheets), get a finished page: the same bytes for all, conditional, ``public`` for a few
seconds to a cache in front. Logged-in visitors get the shared part with their holes filled,
``private``. The shared part is rendered for nobody: a page must not read anything of its
visitor outside a hole (docs/pages.md).
"""

from __future__ import annotations

import datetime
import gzip
from collections.abc import Iterable, Iterator
from typing import Any

from django.conf import settings
from django.contrib.messages import get_messages
from django.contrib.messages.storage.base import Message
from django.http import HttpRequest, HttpResponse
from django.template.backends.utils import csrf_input
from django.utils import timezone
from django.utils.cache import patch_cache_control, patch_vary_headers
from django.utils.functional import SimpleLazyObject
from django.utils.http import http_date

from conference.models import PUBLIC_COPY, copy_for
from conference.pages.compressed import COMPRESSION_LEVEL, accepted_codings
from conference.pages.copies import PAGE_CACHE_SECONDS, FinishedPage, cached_page, keep_page
from conference.pages.holes import HoleRecorder, SharedPage
from conference.pages.nobody import CSRF_STAND_IN, nobody_request
from conference.pages.versions import (
    last_modified,
    not_modified,
    page_query,
    page_url,
    page_version,
)

# A streamed body larger than this is not kept whole (a 10,000-session export): its sessions'
# parts are cached (sessions/exports/fragments.py), and joining them again costs less than holding it.
WHOLE_BODY_LIMIT = 8 * 1024 * 1024
# Response headers a kept page keeps.
KEPT_HEADERS = ("Content-Type", "Content-Disposition")
# Finished pages smaller than this are sent as they are (as GZipMiddleware does).
COMPRESSED_FROM_BYTES = 200


class SharedPageMixin:
    """For conference pages (after ``ConferenceMixin``, which finds ``self.conference``).

    ``shared``: the page is the same for every visitor of its version apart from its holes.
    ``same_for_every_user``: it has no holes at all (exports, stylesheets).
    ``query_parameters``: the query parameters the page reads; all others are ignored.
    ``personal_context(request)``: what the holes need besides the visitor and the page's
    address (``sessions.views.personal`` adds the saved sessions).
    ``page_moment()``: for a page that follows the clock (now and next), the minute it shows.
    ``changed_by_clock_at()``: for a page that changes once at a set time, that time once passed.
    """

    shared = True
    same_for_every_user = False
    query_parameters: tuple[str, ...] = ("tz",)
    page_cache_seconds = PAGE_CACHE_SECONDS
    hole_recorder: HoleRecorder | None = None
    page_copy: str = PUBLIC_COPY  # which copy the visitor gets (copy_for), set by dispatch()

    def head(self, request, *args, **kwargs):
        # Said here, Django's View.setup() does not store ``self.get`` as ``self.head``: a view
        # referring to itself, a cycle that kept what it loaded (a session, a speaker) alive
        # after the answer until the garbage collector's next full pass.
        return self.get(request, *args, **kwargs)

    def setup(self, request, *args, **kwargs):
        super().setup(request, *args, **kwargs)
        self.page_query = page_query(request, self.query_parameters)
        self.page_url = page_url(request, self.page_query)

    def dispatch(self, request, *args, **kwargs):
        if not (self.shared and request.method in ("GET", "HEAD")):
            return super().dispatch(request, *args, **kwargs)
        moment = self.page_moment()
        self.page_copy = copy_for(request.user, self.conference)
        turned = self.changed_by_clock_at()
        version = page_version(self.conference, self.page_url, self.page_copy, moment or turned)
        if request.user.is_authenticated and not self.same_for_every_user:
            response = self.personal_response(version, *args, **kwargs)
            patch_cache_control(response, private=True)
            return response
        modified = last_modified(self.conference, moment or turned)
        response = not_modified(request, version, modified)
        if response is None:
            response = self.finished_response(version, *args, **kwargs)
        if response.status_code in (200, 304):
            # The compressed copy is another body of the same page: a weak ETag says so.
            weak = "W/" if response.has_header("Content-Encoding") else ""
            response.headers["ETag"] = f"{weak}{version}"
            response.headers["Last-Modified"] = http_date(modified)
            patch_public_cache_control(response, moment)
            patch_vary_headers(response, ["Accept-Encoding", "Accept-Language", "Cookie"])
        return response

    def page_moment(self) -> datetime.datetime | None:
        return None

    def changed_by_clock_at(self) -> datetime.datetime | None:
        """For a page that changes once at a given time without an edit (a session page stops
        offering feedback when the window closes): that time, once it has passed. The page's
        version and Last-Modified follow it; unlike ``page_moment()``, caches in front keep
        the page as long as any other."""
        return None

    def finished_response(self, version: str, *args, **kwargs) -> HttpResponse:
        """The same bytes for everyone who gets them, kept whole, and compressed once for the
        browsers that accept gzip."""
        key = f"finished-page:{version}"
        page = cached_page(key)
        if page is None:
            if self.same_for_every_user:
                response = self.render_for_nobody(*args, **kwargs)
                if response.status_code != 200:
                    return response
                if response.streaming:  # a large export goes out as it is built, kept once sent
                    response.streaming_content = kept_once_streamed(
                        response.streaming_content, key, kept_headers(response)
                    )
                    return response
                page = FinishedPage(response.content, kept_headers(response))
            else:
                shared = self.shared_page(version, *args, **kwargs)
                if isinstance(shared, HttpResponse):
                    return shared
                assembly, own = shared.own_holes(
                    self.visitor_context(
                        nobody_request(
                            self.request, self.page_query, self.page_copy, self.conference.pk
                        )
                    )
                )
                page = FinishedPage(assembly.filled(own), shared.headers)
            keep_page(key, page, self.page_cache_seconds)
        if "gzip" in accepted_codings(self.request) and page.size >= COMPRESSED_FROM_BYTES:
            page = gzipped_page(key, page, self.page_cache_seconds)
        return HttpResponse(page.content, headers=page.headers)

    def personal_response(self, version: str, *args, **kwargs) -> HttpResponse:
        """The shared part with this visitor's holes filled, deflated when their browser
        takes it (see CompressedPage)."""
        page = self.shared_page(version, *args, **kwargs)
        if isinstance(page, HttpResponse):
            return page
        assembly, own = page.own_holes(self.visitor_context(self.request))
        body, headers = None, page.headers
        if "deflate" in accepted_codings(self.request):
            body = assembly.compressed(page).with_holes(own)
            headers = {**headers, "Content-Encoding": "deflate"}
        if body is None:  # not accepted, or a hole that does not fit its place compressed
            body, headers = assembly.filled(own), page.headers
        response = HttpResponse(body, headers=headers)
        patch_vary_headers(response, ["Accept-Encoding", "Accept-Language", "Cookie"])
        return response

    def shared_page(self, version: str, *args, **kwargs) -> SharedPage | HttpResponse:
        """The page's shared part, rendered once per version; or the view's answer when it is
        not a page (a redirect, a 400 for a bad filter), made in place for this visitor."""
        key = f"shared-page:{version}"
        page = cached_page(key)
        if page is None:
            recorder = self.hole_recorder = HoleRecorder()
            try:
                response = self.render_for_nobody(*args, **kwargs)
            finally:
                self.hole_recorder = None
            if response.status_code != 200:
                return super().dispatch(self.request, *args, **kwargs)
            text = response.content.decode(response.charset)
            page = SharedPage.from_rendering(text, recorder, kept_headers(response))
            keep_page(key, page, self.page_cache_seconds)
        return page

    def render_for_nobody(self, *args, **kwargs) -> HttpResponse:
        """The view's answer, rendered as nobody would get it (conference.pages.nobody)."""
        request = self.request
        self.request = nobody_request(request, self.page_query, self.page_copy, self.conference.pk)
        try:
            response = super().dispatch(self.request, *args, **kwargs)
            if hasattr(response, "render"):  # a TemplateResponse renders lazily: now, as nobody
                response.render()
            return response
        finally:
            self.request = request

    def get_context_data(self, **kwargs):
        if self.hole_recorder is None:  # rendered in place: personal parts render with the page
            kwargs = {**self.visitor_context(self.request), **kwargs}
        return super().get_context_data(
            hole_recorder=self.hole_recorder, page_query=self.page_query, **kwargs
        )

    def personal_context(self, request: HttpRequest) -> dict[str, Any]:
        return {}

    def visitor_context(self, request: HttpRequest) -> dict[str, Any]:
        """Everything a hole may read: the visitor, the page's address, the CSRF field, and
        their messages (“Saved.”)."""
        return {
            "request": request,
            "user": request.user,
            # Made once per request however many holes print it (the logout form, the Save
            # form): each get_token() masks the token anew, 32 random characters.
            "csrf_input": (
                CSRF_STAND_IN
                if getattr(request, "renders_shared_part", False)
                else SimpleLazyObject(lambda: csrf_input(request))
            ),
            "next_url": self.page_url,
            "messages": visitor_messages(request),
            **self.personal_context(request),
        }


def patch_public_cache_control(response: HttpResponse, moment: datetime.datetime | None):
    """Anyone may keep this answer for a few seconds (``s-maxage``) and serve it stale while
    it asks again; browsers ask each time (a 304 while nothing changed). A page about the
    present is kept no later than the end of its minute."""
    if moment is None:
        patch_cache_control(
            response,
            public=True,
            max_age=0,
            s_maxage=settings.PAGE_SHARED_MAX_AGE,
            stale_while_revalidate=settings.PAGE_STALE_WHILE_REVALIDATE,
        )
    else:
        left = moment + datetime.timedelta(minutes=1) - timezone.now()
        seconds = max(0, min(settings.PAGE_SHARED_MAX_AGE, int(left.total_seconds())))
        patch_cache_control(response, public=True, max_age=0, s_maxage=seconds)


def visitor_messages(request: HttpRequest) -> list[Message]:
    """A logged-in visitor's messages, which showing them uses up.

    Anonymous visitors share one finished page per version: one visitor's message must never
    be put into it, so theirs wait for a page of their own.
    """
    return list(get_messages(request)) if request.user.is_authenticated else []


def gzipped_page(key: str, page: FinishedPage, seconds: int) -> FinishedPage:
    """A finished page's gzip copy, made once per version. Safe from BREACH: a finished page is
    the same for everyone and holds nothing of a visitor."""
    gzip_key = f"{key}:gzip"
    compressed = cached_page(gzip_key)
    if compressed is None:
        body = gzip.compress(page.content, compresslevel=COMPRESSION_LEVEL, mtime=0)
        compressed = FinishedPage(body, {**page.headers, "Content-Encoding": "gzip"})
        keep_page(gzip_key, compressed, seconds)
    return compressed


def kept_once_streamed(chunks: Iterable[bytes], key: str, headers: dict) -> Iterator[bytes]:
    """``chunks`` passed on as they come, and kept whole under ``key`` once all have gone out
    (not when the client left early, nor past WHOLE_BODY_LIMIT)."""
    kept, size = [], 0
    for chunk in chunks:
        if size <= WHOLE_BODY_LIMIT:
            kept.append(chunk)
            size += len(chunk)
        yield chunk
    if size <= WHOLE_BODY_LIMIT:
        keep_page(key, FinishedPage(b"".join(kept), headers))


def kept_headers(response: HttpResponse) -> dict[str, str]:
    return {name: response[name] for name in KEPT_HEADERS if name in response}

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
Holes that depend on a few values of the visitor (a Save button's state) are ``ReusedHoles``:
a page is put together from their usual renderings, and only the few that differ for this
visitor are looked at again.

**Compressed for logged-in visitors.** A browser that takes ``deflate`` gets a logged-in page
put together from pieces compressed once, nothing of the visitor's compressed with anything
(``CompressedPage``): safe from BREACH, and no per-request compression.

**Conditional GET.** Anonymous visitors, and everyone for ``same_for_every_user`` pages (exports),
get an ETag and Last-Modified from the version, and a 304 when they already hold it. Anonymous
visitors of one version all get the same finished page, so that is cached too.

**Pages about the present** (now and next) name the minute they show in their version
(``page_moment()``): a copy serves only requests within that minute, lives briefly in the
cache (``page_cache_seconds``), and browsers are told to ask again each time (a 304 while the
minute lasts).

**This worker's copies.** Every page read from or written to the shared cache (Redis in
production) is also kept in the worker's memory (``WorkerCopies``; without Redis, there only),
keyed like the cache by its version: a hit costs no round trip and no unpickling of a megabyte,
and an edit, which moves the version, passes them by. They are bounded in bytes
(``PAGE_WORKER_COPY_BYTES``), least recently used out first.

**Anonymous pages before the middleware.** ``EarlyAnonymousPageMiddleware`` remembers, for a
request without a session cookie, which finished page it got and with which headers. The next
such request with the same path, query and zone cookie is answered with them before sessions,
authentication, CSRF and messages run, after one query checks that the conference's
``changed_at`` (part of the version) has not moved (on PostgreSQL, usually no query: the server
notifies each worker of changes, ``conference.change_notices``). Anything else (a session cookie, htmx, a
conditional request, a ``?tz=`` choice, a page that sets a cookie) takes the whole way.

**Logged-in pages before the middleware.** A logged-in visitor's page is made of what its
request read (their session and account, the conference, their saved sessions: each a compiled
lookup, ``conference.compiled``), the shared page of its version and the request's address and
cookies. ``EarlyPersonalPageMiddleware`` remembers those rows and the visitor's own holes; the
same request again runs the same lookups (one round trip on PostgreSQL), and when every row
reads as before and the session has not expired, it gets the same page without the middleware
and the view. Anything read otherwise, or a cookie changed by the answer, takes the whole way.

Views use it through ``SharedPageMixin``; this module is the only place that reads or writes
cached pages.
"""

from __future__ import annotations

import datetime
import gzip
import hashlib
import itertools
import re
import secrets
import struct
import threading
import zlib
from abc import ABC, abstractmethod
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.contrib.messages import get_messages
from django.contrib.messages.storage.base import Message
from django.core.cache import cache, caches
from django.core.cache.backends.locmem import LocMemCache
from django.db import DEFAULT_DB_ALIAS, connection
from django.http import HttpRequest, HttpResponse, QueryDict
from django.middleware.csrf import CsrfViewMiddleware
from django.template import engines
from django.template.backends.utils import csrf_input
from django.utils import timezone
from django.utils.cache import get_conditional_response, patch_cache_control, patch_vary_headers
from django.utils.http import http_date, quote_etag
from django.utils.safestring import SafeString
from markupsafe import Markup

from conference import change_notices
from conference.compiled import (
    Lookup,
    Remembered,
    as_health_check,
    read_again,
    read_ahead_requests,
)

# Keys carry the content version, so age never makes an entry stale; a day bounds the memory.
PAGE_CACHE_SECONDS = 24 * 60 * 60
UNIX_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.UTC)
# A streamed body larger than this is not kept whole (a 10,000-session export): its sessions'
# parts are cached (sessions/exports.py), and joining them again costs less than holding it.
WHOLE_BODY_LIMIT = 8 * 1024 * 1024
# Response headers a cached page keeps.
KEPT_HEADERS = ("Content-Type", "Content-Disposition")
# Finished pages smaller than this are sent as they are (as GZipMiddleware does).
COMPRESSED_FROM_BYTES = 200
# A coding's parameters that refuse it (RFC 9110, 12.4.2: "q=0").
REFUSED = re.compile(r"\bq\s*=\s*0(\.0{0,3})?\s*$")
# zlib's default: a tenth of the size of the schedule at N=1,000, for 17 ms once per version.
COMPRESSION_LEVEL = 6
# Anonymous requests remembered by EarlyAnonymousPageMiddleware (a path and query each, no page).
EARLY_REQUESTS_KEPT = 2_000
# Logged-in requests remembered by EarlyPersonalPageMiddleware (their reads and own holes, a
# few kB each; no page).
PERSONAL_REQUESTS_KEPT = 2_000


class WorkerCopies:
    """This worker's copies of cached pages, in front of the shared cache.

    Keys carry the version, so a copy is never stale, only unused; the least recently used go
    first when the copies pass ``max_bytes``. Speed: with Redis, a cached schedule (1,000
    sessions) costs no fetch and unpickling of its megabyte (bench/README.md, Throughput).
    """

    def __init__(self, max_bytes: int):
        self.max_bytes = max_bytes
        self.entries: OrderedDict[str, tuple[Any, int]] = OrderedDict()
        self.size = 0
        self.lock = threading.Lock()  # gthread workers share one process

    def get(self, key: str) -> Any:
        with self.lock:
            entry = self.entries.get(key)
            if entry is None:
                return None
            self.entries.move_to_end(key)
            return entry[0]

    def set(self, key: str, value: Any, size: int) -> None:
        if size > self.max_bytes:
            return
        with self.lock:
            if (old := self.entries.pop(key, None)) is not None:
                self.size -= old[1]
            self.entries[key] = (value, size)
            self.size += size
            while self.size > self.max_bytes:
                self.size -= self.entries.popitem(last=False)[1][1]

    def clear(self) -> None:
        with self.lock:
            self.entries.clear()
            self.size = 0


worker_copies = WorkerCopies(settings.PAGE_WORKER_COPY_BYTES)


def cached_page(key: str) -> Any:
    """A page from this worker's copies, else from the shared cache (and copied), else None."""
    page = worker_copies.get(key)
    if page is None and not cache_is_local():
        page = cache.get(key)
        if page is not None:
            worker_copies.set(key, page, page_size(page))
    return page


def keep_page(key: str, page: Any, seconds: int) -> None:
    if not cache_is_local():
        cache.set(key, page, seconds)
    worker_copies.set(key, page, page_size(page))


def cache_is_local() -> bool:
    """Whether the "default" cache is the local-memory one: one per process like the worker's
    copies, so pages are kept there only, not twice."""
    return isinstance(caches["default"], LocMemCache)


def page_size(page: Any) -> int:
    """Bytes a page holds, near enough to bound the copies: its text, and a little per hole."""
    if isinstance(page, SharedPage):
        # About a hole's data, its usual rendering and, once a logged-in visitor asked for it,
        # the page compressed (ReusedHoles, CompressedPage).
        return sum(len(part) for part in page.parts) + 1000 * len(page.holes)
    content, _headers = page
    return len(content)


def accepts_gzip(request: HttpRequest) -> bool:
    return "gzip" in accepted_codings(request)


def accepted_codings(request: HttpRequest) -> set[str]:
    """The content codings the client takes (``Accept-Encoding``), but those it refuses
    (``;q=0``)."""
    codings = set()
    for item in request.headers.get("Accept-Encoding", "").lower().split(","):
        coding, _, parameters = item.partition(";")
        if coding.strip() and not REFUSED.search(parameters):
            codings.add(coding.strip())
    return codings


def compressed_page(key: str, page: tuple[bytes, dict], seconds: int) -> tuple[str, tuple]:
    """A finished page's gzip copy and its key, compressed once per version.

    Speed: the schedule at N=1,000 is 1.1 MB, 104 kB compressed, which takes 17 ms once; then
    each request sends a tenth of the bytes. Safe from BREACH: a finished page is the same for
    every visitor and holds no secret (no CSRF token, nothing of the visitor's).
    """
    gzip_key = f"{key}:gzip"
    compressed = cached_page(gzip_key)
    if compressed is None:
        content, headers = page
        body = gzip.compress(content, compresslevel=COMPRESSION_LEVEL, mtime=0)
        compressed = (body, {**headers, "Content-Encoding": "gzip"})
        keep_page(gzip_key, compressed, seconds)
    return gzip_key, compressed


def forget_pages() -> None:
    """Empty the shared cache and this worker's copies: the next requests render afresh (the
    bench's uncached figures, and each test)."""
    cache.clear()
    worker_copies.clear()
    early_requests.clear()
    personal_requests.clear()
    read_ahead_requests.clear()


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


class ReusedHoles(ABC):
    """Personal parts whose text depends on the visitor through a few values only, such as a
    Save button (logged in or not, its session saved or not). Registered with ``reused_holes``.

    Their renderings are kept per page, value and worker and reused. A page is assembled from
    their *usual* renderings, those of a visitor with nothing of their own (who saved nothing),
    and only the holes ``unusual()`` points at are looked at again for this visitor: filling a
    thousand Save buttons costs the handful this visitor saved. So a reused hole's template
    reads nothing of its visitor but the values ``usual`` names (one page is assembled for
    every visitor), and never prints the CSRF field (it would be another visitor's).
    """

    template_name: str
    # The values of a visitor's context that give every hole its usual rendering.
    usual: dict[str, Any] = {}
    # The fields of a hole's data that ``unusual()`` names holes by.
    index_fields: tuple[str, ...] = ()

    @abstractmethod
    def variant(self, context: dict[str, Any]) -> Callable[[dict[str, Any]], Hashable]:
        """A function of a hole's data giving everything its rendering reads of the visitor."""

    @abstractmethod
    def unusual(self, context: dict[str, Any]) -> Iterable[tuple[str, Hashable]]:
        """(field, value) of the holes that may differ from the usual for this visitor."""


REUSED_HOLES: dict[str, ReusedHoles] = {}
# Stands for the CSRF field while a reused hole renders: seeing it in the text is a mistake.
CSRF_STAND_IN = Markup(f"<!--csrf-{secrets.token_hex(8)}-->")


def reused_holes(kind: type[ReusedHoles]) -> type[ReusedHoles]:
    """Registers a template's personal parts as reused (see ReusedHoles)."""
    REUSED_HOLES[kind.template_name] = kind()
    return kind


@dataclass
class SharedPage:
    """A rendered page as the cache keeps it: the shared text between its holes, encoded."""

    parts: list[bytes]
    holes: list[Hole]
    headers: dict[str, str]
    # This worker's renderings of reused holes, by (hole's index, variant), and its assembly of
    # the page from their usual renderings.
    reused: dict[tuple[int, Hashable], bytes] = field(default_factory=dict, compare=False)
    assembly: Assembly | None = field(default=None, compare=False)

    def __getstate__(self):  # renderings stay with the worker that made them
        return {**self.__dict__, "reused": {}, "assembly": None}

    @classmethod
    def from_rendering(cls, html: str, recorder: HoleRecorder, headers: dict[str, str]):
        parts = html.split(recorder.marker)
        if len(parts) != len(recorder.holes) + 1:  # a template printed a hole twice, or none
            raise ValueError(f"{len(recorder.holes)} holes recorded, {len(parts) - 1} in the page")
        return cls(parts=[part.encode() for part in parts], holes=recorder.holes, headers=headers)

    def own_holes(self, context: dict[str, Any]) -> tuple[Assembly, dict[int, bytes]]:
        """The page's assembly, and the text of each hole that is not its usual one for this
        visitor."""
        assembly = self.assembly
        if assembly is None:
            assembly = self.assembly = Assembly.of(self, context)
        contexts: dict[tuple[str, bool], dict] = {}
        own, rendered_here = {}, {}
        for index in assembly.own_every_time:
            template_name, data = self.holes[index]
            # The account links are in the page twice (header, phone menu): rendered once.
            same_hole = (template_name, tuple(data.items()))
            try:
                text = rendered_here.get(same_hole)
            except TypeError:  # data that cannot be a key: rendered each time
                same_hole, text = None, None
            if text is None:
                text = render_hole(template_name, data, context, contexts).encode()
                if same_hole is not None:
                    rendered_here[same_hole] = text
            own[index] = text
        for kind in REUSED_HOLES.values():
            variant_of = kind.variant(context)
            for name, value in kind.unusual(context):
                for index in assembly.by_field.get((kind.template_name, name, value), ()):
                    variant = variant_of(self.holes[index][1])
                    if variant != assembly.usual_variants[index]:
                        own[index] = self.rendering((index, variant), context, contexts)
        return assembly, own

    def rendering(self, key: tuple[int, Hashable], context: dict, contexts: dict) -> bytes:
        """A reused hole's text for one variant, rendered once by this worker."""
        text = self.reused.get(key)
        if text is None:
            template_name, data = self.holes[key[0]]
            stand_in_context = {**context, "csrf_input": CSRF_STAND_IN}
            rendered = render_hole(template_name, data, stand_in_context, contexts)
            if CSRF_STAND_IN in rendered:
                raise ValueError(f"{template_name} is reused, so it must not print the CSRF field")
            text = self.reused[key] = rendered.encode()
        return text


@dataclass
class Assembly:
    """A shared page as every visitor's starts: its parts and the usual
    rendering of each reused hole, in order (``pieces``); the holes rendered for every visitor
    (``own_every_time``: account links, messages, the Save form); and the reused holes by the
    values of their ``index_fields``."""

    pieces: list[bytes]
    usual_variants: list[Hashable | None]  # None: a hole rendered every time
    own_every_time: list[int]
    by_field: dict[tuple[str, str, Hashable], list[int]]
    compressed_page: CompressedPage | None = None

    @classmethod
    def of(cls, page: SharedPage, context: dict[str, Any]) -> Assembly:
        pieces, usual_variants, own_every_time = [page.parts[0]], [], []
        by_field: dict[tuple[str, str, Hashable], list[int]] = {}
        contexts: dict[tuple[str, bool], dict] = {}
        variants = {
            name: kind.variant({**context, **kind.usual}) for name, kind in REUSED_HOLES.items()
        }
        for index, ((template_name, data), part) in enumerate(
            zip(page.holes, page.parts[1:], strict=True)
        ):
            kind = REUSED_HOLES.get(template_name)
            if kind is None:
                own_every_time.append(index)
                usual_variants.append(None)
                pieces.append(b"")
            else:
                usual = variants[template_name](data)
                usual_variants.append(usual)
                pieces.append(page.rendering((index, usual), {**context, **kind.usual}, contexts))
                for name in kind.index_fields:
                    by_field.setdefault((template_name, name, data[name]), []).append(index)
            pieces.append(part)
        return cls(pieces, usual_variants, own_every_time, by_field)

    def filled(self, own: dict[int, bytes]) -> bytes:
        """The page for one visitor: the usual renderings, with ``own`` holes (by index)
        instead.

        Speed: a logged-in schedule at N=1,000 (a thousand Save buttons, ten saved) fills in
        about 0.1 ms, where rendering or even choosing each button took 2 to 11 ms.
        """
        pieces = self.pieces.copy()
        for index, text in own.items():
            pieces[2 * index + 1] = text
        return b"".join(pieces)

    def compressed(self) -> CompressedPage:
        if self.compressed_page is None:
            self.compressed_page = CompressedPage.of(self)
        return self.compressed_page


def render_hole(
    template_name: str, data: dict[str, Any], personal_context: dict[str, Any], contexts: dict
) -> str:
    env = engines["jinja2"].env
    template = env.get_template(template_name)
    merged_key = (template_name, personal_context["csrf_input"] is CSRF_STAND_IN)
    if merged_key not in contexts:
        contexts[merged_key] = {**template.globals, **personal_context}
    # Speed: a shared context instead of render()'s copy of the globals per hole makes a
    # thousand Save buttons 11 ms instead of 37.
    context = template.new_context({**contexts[merged_key], **data}, shared=True)
    return env.concat(template.root_render_func(context))


# A logged-in page, compressed without compressing anything of its visitor --------------------

# zlib's header for a deflate stream with a 32 KiB window (RFC 1950), as compressobj() writes it.
ZLIB_HEADER = b"\x78\x9c"
ADLER_BASE = 65521  # Adler-32's modulus (RFC 1950)
# Never in UTF-8 text: the shared text's compression can never refer back into a hole.
GAP_BYTE = b"\xff"


@dataclass
class CompressedPage:
    """An Assembly compressed once, from which each visitor's page is put together compressed.

    Compressing a 1.5 MB logged-in schedule per request would cost ~20 ms, and would compress
    the visitor's own parts (which sessions they saved, their CSRF field) together with text an
    attacker can choose, the query string the page repeats: a BREACH attack reads the first
    through the size of the answer. So nothing of a visitor is compressed with anything else:

    * the shared text is one deflate stream, compressed once per version. Each hole is a gap
      in it: before a hole rendered for every visitor the stream is flushed whole (nothing
      after refers back across it); a reused hole is compressed as bytes of GAP_BYTE, as long as
      its usual rendering, and that output thrown away, so the text after it can refer back
      past it (distances stay right) but never into it (no text contains that byte);
    * each reused hole's usual rendering (an unsaved Save button) is compressed once, alone;
    * each hole that is the visitor's own (their account links, the Save form with the CSRF
      field, a Save button they saved) goes in as it is, a stored block (RFC 1951, 3.2.4).

    So the size of the answer depends on the query, or on the visitor, never on both: the
    shared stream is the same for everyone, and what the visitor adds is as long compressed as
    it is plain. A visitor's reused hole must be as long as the usual one it replaces
    (``with_holes`` gives None otherwise, and the page goes out plain). The Adler-32 checksum
    of the whole is put together from the usual page's (RFC 1950, 8.2), without reading it.
    """

    # The usual page compressed, but for its checksum: the header, then the shared stream's
    # pieces and the holes' alternating; and where each hole's stands in it (start, end).
    stream: bytes
    hole_spans: list[tuple[int, int]]
    hole_starts: list[int]  # each hole's offset in the usual page
    reused_lengths: list[int | None]  # each reused hole's usual length; None: the visitor's own
    # Adler-32 of the usual page up to each hole's start and up to its end, as (a, b) pairs.
    adler_before: list[tuple[int, int]]
    adler_after: list[tuple[int, int]]
    adler_whole: tuple[int, int]
    length: int

    @classmethod
    def of(cls, assembly: Assembly) -> CompressedPage:
        shared = zlib.compressobj(COMPRESSION_LEVEL, zlib.DEFLATED, -zlib.MAX_WBITS)
        segments = [ZLIB_HEADER]
        hole_starts, reused_lengths, adler_before, adler_after = [], [], [], []
        adler, offset = 1, 0
        pieces = assembly.pieces
        for index, usual in enumerate(assembly.usual_variants):
            part = pieces[2 * index]
            adler, offset = zlib.adler32(part, adler), offset + len(part)
            text = pieces[2 * index + 1]
            if usual is None:  # the visitor's every time: nothing after refers back past it
                segments += [shared.compress(part) + shared.flush(zlib.Z_FULL_FLUSH), b""]
            elif not text:  # usually empty: a visitor's own text there cannot fit, no gap needed
                segments += [shared.compress(part), b""]
            else:
                segments.append(shared.compress(part) + shared.flush(zlib.Z_SYNC_FLUSH))
                shared.compress(GAP_BYTE * len(text))
                shared.flush(zlib.Z_SYNC_FLUSH)  # the gap's own output, thrown away
                segments.append(stored_blocks(text))
            hole_starts.append(offset)
            reused_lengths.append(None if usual is None else len(text))
            adler_before.append(adler_pair(adler))
            adler, offset = zlib.adler32(text, adler), offset + len(text)
            adler_after.append(adler_pair(adler))
        last = pieces[-1]
        segments.append(shared.compress(last) + shared.flush(zlib.Z_FINISH))
        adler = zlib.adler32(last, adler)
        ends = list(itertools.accumulate(len(segment) for segment in segments))
        return cls(
            b"".join(segments),
            [(ends[2 * index + 1], ends[2 * index + 2]) for index in range(len(hole_starts))],
            hole_starts,
            reused_lengths,
            adler_before,
            adler_after,
            adler_pair(adler),
            offset + len(last),
        )

    def with_holes(self, own: dict[int, bytes]) -> bytes | None:
        """The compressed page with the visitor's ``own`` holes (index: text) in place."""
        # Speed: slices of the usual stream around the visitor's holes, a handful, instead of
        # the page's thousands of segments joined anew (0.1 ms of a logged-in schedule).
        stream, pieces, stream_at = memoryview(self.stream), [], 0
        a, b = 1, 0  # Adler-32 of nothing, then of the page up to ``offset``
        offset_pair, offset = (1, 0), 0
        for index in sorted(own):
            text, start, usual_length = (
                own[index],
                self.hole_starts[index],
                self.reused_lengths[index],
            )
            if usual_length is not None and len(text) != usual_length:
                return None  # a reused hole that does not fit its usual one's place
            if usual_length == 0:
                continue  # nothing in its place, and no gap in the shared stream
            hole_start, hole_end = self.hole_spans[index]
            pieces += [stream[stream_at:hole_start], stored_blocks(text)]
            stream_at = hole_end
            # the usual page from the previous hole to this one, then this hole's text
            between = adler_between(offset_pair, self.adler_before[index], offset, start)
            a, b = adler_combine((a, b), between, start - offset)
            a, b = adler_combine((a, b), adler_pair(zlib.adler32(text)), len(text))
            offset_pair, offset = self.adler_after[index], start + (usual_length or 0)
        between = adler_between(offset_pair, self.adler_whole, offset, self.length)
        a, b = adler_combine((a, b), between, self.length - offset)
        pieces += [stream[stream_at:], ((b << 16) | a).to_bytes(4, "big")]
        return b"".join(pieces)


def adler_pair(adler: int) -> tuple[int, int]:
    return adler & 0xFFFF, adler >> 16


def adler_between(start: tuple[int, int], end: tuple[int, int], start_at: int, end_at: int):
    """Adler-32 of the bytes between two offsets of a text, from its Adler-32 up to each."""
    length = end_at - start_at
    return (
        (end[0] - start[0] + 1) % ADLER_BASE,
        (end[1] - start[1] - length * (start[0] - 1)) % ADLER_BASE,
    )


def adler_combine(first: tuple[int, int], second: tuple[int, int], second_length: int):
    """Adler-32 of two texts one after the other, from each one's (zlib's adler32_combine)."""
    return (
        (first[0] + second[0] - 1) % ADLER_BASE,
        (first[1] + second[1] + second_length * (first[0] - 1)) % ADLER_BASE,
    )


def stored_blocks(data: bytes) -> bytes:
    """``data`` as stored (uncompressed) deflate blocks, at most 65,535 bytes each."""
    blocks = []
    for start in range(0, len(data) or 1, 0xFFFF):  # one block at least, even for nothing
        chunk = data[start : start + 0xFFFF]
        blocks.append(struct.pack("<BHH", 0, len(chunk), len(chunk) ^ 0xFFFF) + chunk)
    return b"".join(blocks)


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
    personal_page: PersonalPage | None = None
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
                # The compressed copy is another body of the same page: a weak ETag says so.
                weak = "W/" if response.has_header("Content-Encoding") else ""
                response.headers["ETag"] = f"{weak}{version}"
                response.headers["Last-Modified"] = http_date(last_modified)
                if moment is None and not request.user.is_authenticated and not response.streaming:
                    request.finished_page = FinishedPage(
                        self.conference.pk, self.conference.changed_at, self.finished_page_key
                    )
        elif response is None:
            response = self.personal_response(version, *args, **kwargs)
            if moment is None and self.personal_page is not None:
                # What the early path needs to answer this visitor's next such request.
                request.personal_page = self.personal_page
        if moment is not None:
            # A browser may otherwise reuse it for a while without asking (heuristic freshness);
            # asking costs a 304 while the moment has not moved.
            patch_cache_control(response, no_cache=True)
        return response

    def page_moment(self) -> datetime.datetime | None:
        return None

    def finished_response(self, version: str, *args, **kwargs) -> HttpResponse:
        """Exports, and pages for anonymous visitors: the same bytes for everyone, kept whole,
        and compressed once for the browsers that accept gzip."""
        key = f"finished-page:{version}"
        page = cached_page(key)
        if page is None:
            if self.same_for_every_user:
                response = rendered(super().dispatch(self.request, *args, **kwargs))
            else:
                response = self.personal_response(version, *args, may_compress=False, **kwargs)
            if response.status_code != 200:
                return response
            if response.streaming:  # a large export goes out as it is built, kept once sent
                response.streaming_content = kept_once_streamed(
                    response.streaming_content, key, kept_headers(response), self.page_cache_seconds
                )
                return response
            page = (response.content, kept_headers(response))
            keep_page(key, page, self.page_cache_seconds)
        if accepts_gzip(self.request) and len(page[0]) >= COMPRESSED_FROM_BYTES:
            key, page = compressed_page(key, page, self.page_cache_seconds)
        self.finished_page_key = key
        content, headers = page
        response = HttpResponse(content, headers=headers)
        patch_vary_headers(response, ["Accept-Encoding"])
        return response

    def personal_response(
        self, version: str, *args, may_compress: bool = True, **kwargs
    ) -> HttpResponse:
        """The page for this visitor: the cached shared rendering with its holes filled, put
        together compressed when their browser takes ``deflate`` (see CompressedPage)."""
        key = f"shared-page:{version}"
        page = cached_page(key)
        if page is None:
            self.hole_recorder = HoleRecorder()
            response = super().dispatch(self.request, *args, **kwargs)
            if response.status_code != 200:
                return rendered(response)
            # The template's text as rendered: no round trip through bytes before the holes.
            text = response.rendered_content
            page = SharedPage.from_rendering(text, self.hole_recorder, kept_headers(response))
            keep_page(key, page, self.page_cache_seconds)
        assembly, own = page.own_holes(self.full_personal_context())
        deflated = may_compress and "deflate" in accepted_codings(self.request)
        self.personal_page = PersonalPage(key, own, deflated)
        body = self.personal_page.body(assembly)
        if body is None:  # a hole does not fit its place in the compressed page
            self.personal_page = PersonalPage(key, own, deflated=False)
            body = self.personal_page.body(assembly)
        headers = (
            {**page.headers, "Content-Encoding": "deflate"}
            if self.personal_page.deflated
            else page.headers
        )
        response = HttpResponse(body, headers=headers)
        patch_vary_headers(response, ["Accept-Encoding"])
        return response

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
            "csrf_input": CsrfFieldOnce(request),
            "next_url": self.page_url,
            "messages": visitor_messages(request),
            **self.personal_context(),
        }


class CsrfFieldOnce:
    """The CSRF field for every form of one response (the Save form, the two Log out forms),
    masked once, when the first form prints it.

    Django masks the token anew each time a template prints it (``csrf_input_lazy``); the
    secret under the mask is the same, so one masking per response protects as much. Speed:
    masking is 0.1 ms, a tenth of a logged-in schedule's cost at N=1,000.
    """

    def __init__(self, request: HttpRequest):
        self.request = request
        self.field: SafeString | None = None

    def __html__(self) -> SafeString:
        if self.field is None:
            self.field = csrf_input(self.request)
        return self.field

    __str__ = __html__


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
        keep_page(key, (b"".join(kept), headers), seconds)


def rendered(response: HttpResponse) -> HttpResponse:
    if hasattr(response, "render"):  # a TemplateResponse renders lazily
        response.render()
    return response


def kept_headers(response: HttpResponse) -> dict[str, str]:
    return {name: response[name] for name in KEPT_HEADERS if name in response}


# The early path for anonymous visitors ------------------------------------------------------


@dataclass(frozen=True)
class FinishedPage:
    """Which finished page a request got: the view leaves this on the request for
    ``EarlyAnonymousPageMiddleware``, which cannot tell it alone."""

    conference_pk: int
    changed_at: datetime.datetime
    key: str  # of this worker's copy of its body and headers (compressed or not)


@dataclass(frozen=True)
class EarlyAnswer:
    page: FinishedPage
    headers: dict[str, str]  # as the middleware below this one left them: CSP, Vary, ETag...
    # The query finding the conference still visible and unchanged, compiled once by the ORM.
    # Speed: building it per request took 0.2 of the 0.4 ms an early answer costs in-process.
    unchanged_sql: tuple[str, tuple]

    @classmethod
    def of(cls, page: FinishedPage, response: HttpResponse) -> EarlyAnswer:
        from conference.models import Conference

        unchanged = Conference.objects.visible_to(AnonymousUser()).filter(
            pk=page.conference_pk, changed_at=page.changed_at
        )
        query = unchanged.order_by().values_list("pk")[:1].query  # a primary key: no order
        return cls(page, dict(response.headers), query.sql_with_params())


# Anonymous requests (path, query, zone cookie, gzip or not) and the finished page each got.
early_requests: Remembered[tuple, EarlyAnswer] = Remembered(EARLY_REQUESTS_KEPT)


class EarlyAnonymousPageMiddleware:
    """Answers an anonymous visitor's repeated request for a finished page before the
    middleware it does not need (sessions, CSRF, authentication, messages...).

    Placed after SecurityMiddleware and WhiteNoise, so its answers still get the security
    headers; the others (CSP, X-Frame-Options, Vary, ETag, Last-Modified) are those the full
    way gave the same request, kept with it. Speed: the cached schedule at N=1,000 serves
    about twice the requests per second (bench/README.md, Throughput).
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        signature = early_signature(request)
        if signature is None:
            return self.get_response(request)
        answer = early_requests.get(signature)
        if answer is not None:
            request.get_host()  # a host we do not serve gets its 400, as on the full way
            response = early_response(answer)
            if response is not None:
                return response
        response = self.get_response(request)
        page = getattr(request, "finished_page", None)
        if (
            page is not None
            and response.status_code == 200
            and not response.streaming
            and not response.cookies
        ):
            early_requests.set(signature, EarlyAnswer.of(page, response))
        return response


def early_signature(request: HttpRequest) -> tuple | None:
    """What names an anonymous request's page, or None when it must take the full way.

    A session cookie may mean a logged-in visitor; htmx asks for parts of pages; a conditional
    request gets its 304 the full way; ``?tz=`` sets a cookie. The zone cookie picks the zone.
    """
    from conference.timezones import COOKIE_NAME

    if (
        request.method != "GET"
        or settings.SESSION_COOKIE_NAME in request.COOKIES
        or "HTTP_HX_REQUEST" in request.META
        or "HTTP_IF_NONE_MATCH" in request.META
        or "HTTP_IF_MODIFIED_SINCE" in request.META
        or "tz" in request.GET
    ):
        return None
    return (
        request.path,
        request.META.get("QUERY_STRING", ""),
        request.COOKIES.get(COOKIE_NAME),
        accepts_gzip(request),
    )


def early_response(answer: EarlyAnswer) -> HttpResponse | None:
    """The remembered page, when its conference has not changed since and its copy is here."""

    def unchanged() -> bool:
        with connection.cursor() as cursor:
            cursor.execute(*answer.unchanged_sql)
            return cursor.fetchone() is not None

    page = answer.page
    # On PostgreSQL, what the server told this worker since its last query usually answers
    # without a round trip (conference.change_notices).
    if not change_notices.vouch_for(DEFAULT_DB_ALIAS, page.conference_pk, page.changed_at):
        # The request's only query. Speed: on PostgreSQL, Django's own health check before it
        # was a round trip, a third of the cost.
        if not as_health_check(DEFAULT_DB_ALIAS, unchanged):
            return None
        change_notices.confirm(DEFAULT_DB_ALIAS, page.conference_pk, page.changed_at)
    cached = worker_copies.get(page.key)
    if cached is None:
        return None
    content, _headers = cached
    return HttpResponse(content, headers=answer.headers)


# The early path for logged-in visitors ------------------------------------------------------


@dataclass(frozen=True)
class PersonalPage:
    """One visitor's page as ``personal_response`` put it together: the shared page (its cache
    key), the text of the visitor's own holes, and whether it went out compressed."""

    key: str
    own: dict[int, bytes]
    deflated: bool

    def body(self, assembly: Assembly) -> bytes | None:
        """None when compressed and one of the holes does not fit its place (CompressedPage)."""
        if self.deflated:
            return assembly.compressed().with_holes(self.own)
        return assembly.filled(self.own)


@dataclass(frozen=True)
class PersonalAnswer:
    """A logged-in visitor's page as the full way answered it, with everything it was made of:
    the rows it read (session, account, conference, saved sessions; all by compiled lookups,
    conference.compiled) and the shared page. The request's address, cookies and coding are
    its key (``personal_signature``)."""

    page: PersonalPage
    reads: list[tuple[Lookup, list[tuple]]]
    valid_until: datetime.datetime  # the session's expiry
    headers: dict[str, str]  # as the middleware below left them: CSP, Vary, X-Frame-Options...
    renews_csrf_cookie: bool

    @classmethod
    def of(cls, request: HttpRequest, response: HttpResponse) -> PersonalAnswer | None:
        """The answer to remember, or None when the page was made of more than its reads (any
        other query ran), or the response set a cookie other than the CSRF cookie renewed with
        its value unchanged (a new session key, messages used up, a ?tz= choice)."""
        page = getattr(request, "personal_page", None)
        record = getattr(request, "compiled_record", None)
        valid_until = getattr(getattr(request, "session", None), "expire_date", None)
        csrf_secret = request.COOKIES.get(settings.CSRF_COOKIE_NAME)
        if (
            page is None
            or record is None
            or record.other_queries
            or not record.reads
            or any(lookup[1] != DEFAULT_DB_ALIAS for lookup in record.lookups)
            or valid_until is None
            or response.status_code != 200
            or response.streaming
            or settings.CSRF_USE_SESSIONS
            or any(
                name != settings.CSRF_COOKIE_NAME or morsel.value != csrf_secret
                for name, morsel in response.cookies.items()
            )
        ):
            return None
        return cls(
            page,
            record.reads,
            valid_until,
            {name: value for name, value in response.items() if name != "Content-Length"},
            settings.CSRF_COOKIE_NAME in response.cookies,
        )

    def response(self, request: HttpRequest) -> HttpResponse | None:
        """The same page again, when everything it was made of reads the same now and the
        shared page is in this worker's copies; else None (the full way answers)."""
        if timezone.now() >= self.valid_until:
            return None
        if read_again(self.lookups) != [rows for _lookup, rows in self.reads]:
            return None
        shared = worker_copies.get(self.page.key)
        if shared is None or shared.assembly is None:
            return None
        body = self.page.body(shared.assembly)
        if body is None:
            return None
        response = HttpResponse(body, headers=self.headers)
        response.headers["Content-Length"] = str(len(body))
        if self.renews_csrf_cookie:  # as CsrfViewMiddleware does whenever a page uses the token
            request.META["CSRF_COOKIE"] = request.COOKIES[settings.CSRF_COOKIE_NAME]
            request.META["CSRF_COOKIE_NEEDS_UPDATE"] = True
            CSRF_COOKIE_RENEWAL.process_response(request, response)
        return response

    @property
    def lookups(self) -> list[Lookup]:
        return [lookup for lookup, _rows in self.reads]


# Only its process_response is used: it sets the CSRF cookie as on the full way.
CSRF_COOKIE_RENEWAL = CsrfViewMiddleware(lambda request: HttpResponse())
# Logged-in requests (path, query, cookies, deflate or not) and the answer each got.
personal_requests: Remembered[tuple, PersonalAnswer] = Remembered(PERSONAL_REQUESTS_KEPT)


class EarlyPersonalPageMiddleware:
    """Answers a logged-in visitor's repeated request for a shared page before the middleware
    and the view, when nothing it was made of has changed.

    A page is a function of what its request read: the session, the account, the conference
    and the saved sessions (each a compiled lookup, conference.compiled), the shared page of
    its version, and the request's address and cookies. The first time, the full way answers
    and this remembers the rows it read, the visitor's own holes and the headers; when a
    request with the same address, cookies and coding comes again, the same lookups run again
    (on PostgreSQL in one round trip) and, if every row is as it was and the session has not
    expired, the page is put together again from the same holes. A save, a logout, a changed
    password or a deactivated account, an edit of the conference: each changes a row, and the
    full way answers. A page that read anything else, or whose answer changed a cookie
    (messages shown, a new session key), is not remembered. Placed after
    EarlyAnonymousPageMiddleware, before ReadAheadMiddleware (which records the reads).
    Speed: a logged-in schedule at N=1,000 costs 0.26 ms in-process instead of 0.93 on SQLite,
    0.58 instead of 1.23 on PostgreSQL (bench/README.md, Throughput).
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        signature = personal_signature(request)
        if signature is None:
            return self.get_response(request)
        answer = personal_requests.get(signature)
        if answer is not None:
            request.get_host()  # a host we do not serve gets its 400, as on the full way
            response = answer.response(request)
            if response is not None:
                return response
            personal_requests.forget(signature)
        response = self.get_response(request)
        answer = PersonalAnswer.of(request, response)
        if answer is not None:
            personal_requests.set(signature, answer)
        return response


def personal_signature(request: HttpRequest) -> tuple | None:
    """What names a logged-in request's page, or None when it must take the full way: a request
    without a session cookie, or from htmx (parts of pages)."""
    if (
        request.method != "GET"
        or settings.SESSION_COOKIE_NAME not in request.COOKIES
        or "HTTP_HX_REQUEST" in request.META
    ):
        return None
    return (
        request.path,
        request.META.get("QUERY_STRING", ""),
        request.META.get("HTTP_COOKIE", ""),
        "deflate" in accepted_codings(request),
    )

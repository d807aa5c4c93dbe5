"""Where made pages are kept: the "default" cache, and this worker's copies in front of it.

Keys carry the page's version, so a kept page is never stale, only unused. The copies are
bounded in bytes, least recently used out first; with Redis a hit costs no round trip and no
unpickling. With the local-memory cache (one per process) pages are kept in the copies only.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.cache import cache, caches
from django.core.cache.backends.locmem import LocMemCache

# Keys carry the content version, so age never makes an entry stale; a day bounds the memory.
PAGE_CACHE_SECONDS = 24 * 60 * 60


@dataclass(frozen=True)
class FinishedPage:
    """A page the same for everyone who gets it (anonymous visitors, exports)."""

    content: bytes
    headers: dict[str, str]

    @property
    def size(self) -> int:
        return len(self.content)


class WorkerCopies:
    """This worker's copies of kept pages, bounded by ``max_bytes``."""

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
            worker_copies.set(key, page, page.size)
    return page


def keep_page(key: str, page: Any, seconds: int = PAGE_CACHE_SECONDS) -> None:
    if not cache_is_local():
        cache.set(key, page, seconds)
    worker_copies.set(key, page, page.size)


def cache_is_local() -> bool:
    """Whether the "default" cache is the local-memory one: one per process, like the copies."""
    return isinstance(caches["default"], LocMemCache)


def forget_pages() -> None:
    """Empty the cache and this worker's copies: the next requests render afresh (the bench's
    uncached figures, and each test)."""
    cache.clear()
    worker_copies.clear()

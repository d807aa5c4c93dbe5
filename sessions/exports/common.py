"""What every export writes alike: addresses, times in a zone, and the chunks a streamed
export is sent in."""

import datetime
import functools
from collections.abc import Iterable, Iterator
from urllib.parse import urljoin

from django.utils import timezone


def absolute_url(base_url: str, path: str) -> str:
    if path.startswith("/") and not path.startswith("//"):
        return base_url.rstrip("/") + path  # our own paths, several per session: no urljoin
    return urljoin(base_url.rstrip("/") + "/", path)


# Sessions share a few hundred start and end times: an export converts each distinct one once.
@functools.lru_cache(maxsize=4096)
def zoned(moment: datetime.datetime, zone: datetime.tzinfo) -> datetime.datetime:
    return timezone.localtime(moment, zone)


@functools.lru_cache(maxsize=4096)
def zoned_iso(moment: datetime.datetime, zone: datetime.tzinfo) -> str:
    return zoned(moment, zone).isoformat(timespec="seconds")


def joined_in_chunks(pieces: Iterable[bytes], size: int = 64 * 1024) -> Iterator[bytes]:
    """``pieces`` joined into chunks of about ``size`` bytes: a streamed response writes each
    chunk to the socket, and one write per event would be thousands of small ones."""
    chunk, length = [], 0
    for piece in pieces:
        chunk.append(piece)
        length += len(piece)
        if length >= size:
            yield b"".join(chunk)
            chunk, length = [], 0
    if chunk:
        yield b"".join(chunk)

"""A logged-in page sent deflated, without compressing anything of its visitor with anything.

Compressed together, the visitor's own parts (their CSRF field, what they saved) and text an
attacker can choose (the query string the page repeats) would let the size of the answer
reveal the first (BREACH). ``CompressedPage`` compresses the shared text once per version and
puts each visitor's holes in as stored (uncompressed) blocks.
"""

from __future__ import annotations

import functools
import itertools
import re
import struct
import zlib
from dataclasses import dataclass

from django.http import HttpRequest

# A coding's parameters that refuse it (RFC 9110, 12.4.2: "q=0").
REFUSED = re.compile(r"\bq\s*=\s*0(\.0{0,3})?\s*$")
# zlib's default level: compressing happens once per version.
COMPRESSION_LEVEL = 6


def accepted_codings(request: HttpRequest) -> set[str]:
    """The content codings the client takes (``Accept-Encoding``), but those it refuses
    (``;q=0``)."""
    codings = set()
    for item in request.headers.get("Accept-Encoding", "").lower().split(","):
        coding, _, parameters = item.partition(";")
        if coding.strip() and not REFUSED.search(parameters):
            codings.add(coding.strip())
    return codings


# zlib's header for a deflate stream with a 32 KiB window (RFC 1950), as compressobj() writes it.
ZLIB_HEADER = b"\x78\x9c"
ADLER_BASE = 65521  # Adler-32's modulus (RFC 1950)
STRATEGIES = (
    zlib.Z_DEFAULT_STRATEGY,
    zlib.Z_FILTERED,
    zlib.Z_HUFFMAN_ONLY,
    zlib.Z_RLE,
    zlib.Z_FIXED,
)
# Never in UTF-8 text: the shared text's compression can never refer back into a hole.
GAP_BYTE = b"\xff"


@dataclass
class CompressedPage:
    """A page as every visitor's starts, compressed once; each visitor's page is put together
    from it compressed. Nothing of a visitor is compressed with anything else:

    * the shared text is one deflate stream, compressed once per version. Each hole is a gap
      in it: before a hole rendered for every visitor the stream is flushed whole (nothing
      after refers back across it); a reused hole is compressed as bytes of GAP_BYTE, as long as
      its usual rendering, and that output thrown away, so the text after it can refer back
      past it (distances stay right) but never into it (no text contains that byte);
    * a reused hole (a Save button) is compressed alone, each of its states (saved or not) in
      the same room (``in_equal_room``): what stands there tells nothing of its state, and its
      room depends on nothing but the hole's states, never on the query;
    * each hole that is the visitor's own every time (their account links, the Save form with
      the CSRF field) goes in as it is, a stored block (RFC 1951, 3.2.4).

    So the size of the answer depends on the query, or on the visitor, never on both: the
    shared stream is the same for everyone, and what the visitor adds takes as much room
    compressed whatever it says. A visitor's reused hole must be one of the states its room was
    made for (``with_holes`` gives None otherwise, and the page goes out plain). The Adler-32
    checksum of the whole is put together from the usual page's (RFC 1950, 8.2), without
    reading it.
    """

    # The usual page compressed, but for its checksum: the header, then the shared stream's
    # pieces and the holes' alternating; and where each hole's stands in it (start, end).
    stream: bytes
    hole_spans: list[tuple[int, int]]
    hole_starts: list[int]  # each hole's offset in the usual page
    reused_lengths: list[int | None]  # each reused hole's usual length; None: the visitor's own
    # each reused hole's room in the stream, which each of its states fills (``in_equal_room``)
    # Adler-32 of the usual page up to each hole's start and up to its end, as (a, b) pairs.
    adler_before: list[tuple[int, int]]
    adler_after: list[tuple[int, int]]
    adler_whole: tuple[int, int]
    length: int

    @classmethod
    def of(cls, pieces: list[bytes], states: list[tuple[bytes, ...] | None]) -> CompressedPage:
        """From the usual page's ``pieces`` (shared text and hole text alternating, starting
        and ending with shared text) and, for each hole, the texts of its other states when
        it is reused (None when it is the visitor's own every time)."""
        shared = zlib.compressobj(COMPRESSION_LEVEL, zlib.DEFLATED, -zlib.MAX_WBITS)
        segments = [ZLIB_HEADER]
        hole_starts, reused_lengths, adler_before, adler_after = [], [], [], []
        adler, offset = 1, 0
        for index, others in enumerate(states):
            is_reused = others is not None
            part = pieces[2 * index]
            adler, offset = zlib.adler32(part, adler), offset + len(part)
            text = pieces[2 * index + 1]
            if not is_reused:  # the visitor's every time: nothing after refers back past it
                segments += [shared.compress(part) + shared.flush(zlib.Z_FULL_FLUSH), b""]
            elif not text:  # usually empty: a visitor's own text there cannot fit, no gap needed
                segments += [shared.compress(part), b""]
            else:
                segments.append(shared.compress(part) + shared.flush(zlib.Z_SYNC_FLUSH))
                shared.compress(GAP_BYTE * len(text))
                shared.flush(zlib.Z_SYNC_FLUSH)  # the gap's own output, thrown away
                segments.append(in_equal_room(text, frozenset(others)))
            hole_starts.append(offset)
            reused_lengths.append(len(text) if is_reused else None)
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
        # Slices of the usual stream around the visitor's holes, a handful, rather than the
        # page's thousands of segments joined anew.
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
            if usual_length is None:
                segment = stored_blocks(text)
            else:
                segment = filling(text, hole_end - hole_start)
                if segment is None:
                    return None  # not a state its room was made for
            pieces += [stream[stream_at:hole_start], segment]
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


def in_equal_room(usual: bytes, others: frozenset[bytes]) -> bytes:
    """A reused hole's ``usual`` text, compressed alone, in the room every one of its states
    (``others``, the same length) fills (``filling``): the least they all can."""
    rooms = set(room_sizes(usual))
    for text in others:
        rooms &= room_sizes(text) if len(text) == len(usual) else set()
    return filling(usual, min(rooms)) if rooms else stored_blocks(usual)


# A page's thousand Save buttons have a few distinct texts: each is fitted once per worker.
@functools.lru_cache(maxsize=256)
def room_sizes(text: bytes) -> frozenset[int]:
    """Every size ``text`` can be given by ``filling``."""
    return frozenset(len(filled) for filled in fillings(text))


@functools.lru_cache(maxsize=256)
def filling(text: bytes, size: int) -> bytes | None:
    """``text`` as ``size`` bytes of deflate blocks that refer to nothing outside them and end
    on a byte boundary, not final: they decode to ``text`` wherever they stand. None when no
    filling is that long."""
    return next((filled for filled in fillings(text) if len(filled) == size), None)


@functools.lru_cache(maxsize=256)
def fillings(text: bytes) -> list[bytes]:
    """``text`` as deflate blocks that refer to nothing outside them, in as many sizes as
    cheaply found: compressed alone at each level and strategy, and compressed but for a tail
    kept stored, up to all of it stored (as long as stored blocks, which every state of a hole
    of fixed length can fill). So states that compress to different sizes find a room they
    all fill."""
    result = []
    for level, strategy in itertools.product(range(1, 10), STRATEGIES):
        alone = zlib.compressobj(level, zlib.DEFLATED, -zlib.MAX_WBITS, 9, strategy)
        result.append(alone.compress(text) + alone.flush(zlib.Z_SYNC_FLUSH))
    for kept in range(1, len(text) + 1):
        head, tail = text[: len(text) - kept], text[len(text) - kept :]
        alone = zlib.compressobj(zlib.Z_BEST_COMPRESSION, zlib.DEFLATED, -zlib.MAX_WBITS)
        compressed = alone.compress(head) + alone.flush(zlib.Z_SYNC_FLUSH) if head else b""
        result.append(compressed + stored_blocks(tail))
    return result


def stored_blocks(data: bytes) -> bytes:
    """``data`` as stored (uncompressed) deflate blocks, at most 65,535 bytes each."""
    blocks = []
    for start in range(0, len(data) or 1, 0xFFFF):  # one block at least, even for nothing
        chunk = data[start : start + 0xFFFF]
        blocks.append(struct.pack("<BHH", 0, len(chunk), len(chunk) ^ 0xFFFF) + chunk)
    return b"".join(blocks)

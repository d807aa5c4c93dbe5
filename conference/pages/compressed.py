"""A logged-in page sent deflated, without compressing anything of its visitor with anything.

Compressed together, the visitor's own parts (their CSRF field, what they saved) and text an
attacker can choose (the query string the page repeats) would let the size of the answer
reveal the first (BREACH). ``CompressedPage`` compresses the shared text once per version and
puts each visitor's holes in as stored (uncompressed) blocks.
"""

from __future__ import annotations

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
    def of(cls, pieces: list[bytes], reused: list[bool]) -> CompressedPage:
        """From the usual page's ``pieces`` (shared text and hole text alternating, starting
        and ending with shared text) and, for each hole, whether it is reused."""
        shared = zlib.compressobj(COMPRESSION_LEVEL, zlib.DEFLATED, -zlib.MAX_WBITS)
        segments = [ZLIB_HEADER]
        hole_starts, reused_lengths, adler_before, adler_after = [], [], [], []
        adler, offset = 1, 0
        for index, is_reused in enumerate(reused):
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
                segments.append(stored_blocks(text))
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

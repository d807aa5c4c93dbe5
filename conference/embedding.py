"""Which websites may show a conference's embeddable schedule in a frame (sessions/views/embed.py):
``Conference.embed_origins``, one origin per line, sent as ``frame-ancestors``."""

import re

from django.core.exceptions import ValidationError
from django.utils.translation import gettext

# An origin and nothing else: http or https, a host name (or IPv4 address), an optional port
# and an optional final slash. No space, ``;``, ``*``, quote or path may pass: each line goes
# into the embed's Content-Security-Policy as is, where a space starts another source (``https:``
# lets every https site frame it) and ``;`` another directive.
LABEL = r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?"
ORIGIN = re.compile(
    rf"(?:https|http)://{LABEL}(?:\.{LABEL})*(?::(?P<port>[0-9]{{1,5}}))?/?", re.IGNORECASE
)


def embed_origin_lines(text: str) -> list[str]:
    """The origins of ``Conference.embed_origins``, one per line, blank lines skipped."""
    return [line.strip() for line in text.splitlines() if line.strip()]


def is_origin(line: str) -> bool:
    """Whether ``line`` is one origin a browser sends: https://example.org, with a port or not."""
    match = ORIGIN.fullmatch(line)
    return bool(match) and (match["port"] is None or 0 < int(match["port"]) < 65536)


def validate_embed_origins(text: str) -> None:
    """Each line an origin as a browser sends it: https://example.org, or with a port; no path.

    They become the embed's Content-Security-Policy ``frame-ancestors``, where a path, a
    wildcard, a second source or a stray keyword would widen or break the list.
    """
    lines = [line.strip() for line in text.splitlines()]
    problems = [
        gettext("line %(number)s, “%(line)s”") % {"number": number, "line": line}
        for number, line in enumerate(lines, start=1)
        if line and not is_origin(line)
    ]
    if problems:
        raise ValidationError(
            gettext(
                "Enter one origin per line, such as https://pycon.example.org (scheme, host and "
                "an optional port; no path, wildcard, space or semicolon): %(lines)s"
            ),
            code="invalid_embed_origin",
            params={"lines": "; ".join(problems)},
        )

"""Which websites may show a conference's embeddable schedule in a frame (sessions/views/embed.py):
``Conference.embed_origins``, one origin per line, sent as ``frame-ancestors``."""

from urllib.parse import urlsplit

from django.core.exceptions import ValidationError
from django.utils.translation import gettext


def embed_origin_lines(text: str) -> list[str]:
    """The origins of ``Conference.embed_origins``, one per line, blank lines skipped."""
    return [line.strip() for line in text.splitlines() if line.strip()]


def validate_embed_origins(text: str) -> None:
    """Each line an origin as a browser sends it: https://example.org, or with a port; no path.

    They become the embed's Content-Security-Policy ``frame-ancestors``, where a path, a
    wildcard or a stray keyword would widen or break the list.
    """
    problems = []
    for line in embed_origin_lines(text):
        parts = urlsplit(line)
        try:
            parts.port  # noqa: B018 (a port that is no number raises)
            valid = (
                parts.scheme in ("http", "https")
                and parts.hostname
                and "*" not in line
                and not parts.username
                and parts.path in ("", "/")
                and not parts.query
                and not parts.fragment
            )
        except ValueError:
            valid = False
        if not valid:
            problems.append(line)
    if problems:
        raise ValidationError(
            gettext(
                "Enter one origin per line, such as https://pycon.example.org (scheme, host and "
                "an optional port; no path or wildcard): %(lines)s"
            ),
            code="invalid_embed_origin",
            params={"lines": ", ".join(problems)},
        )

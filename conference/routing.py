"""Links: reverse() for the hot loops of list pages and exports, and links as clients follow them.

A schedule links every session and speaker, several times over, and reverse() resolves the
route anew for each call. Routes whose arguments are all slugs are reversed once with
placeholders and then filled in by formatting.
"""

from functools import cache
from urllib.parse import urljoin

from django.conf import settings
from django.urls import get_script_prefix, reverse


@cache
def _route_format(script_prefix: str, name: str, keys: tuple[str, ...]) -> str:
    placeholders = {key: f"slugplaceholder{index}x" for index, key in enumerate(keys)}
    url = reverse(name, kwargs=placeholders).replace("{", "{{").replace("}", "}}")
    for key, placeholder in placeholders.items():
        url = url.replace(placeholder, "{" + key + "}")
    return url


def reverse_slugs(name: str, **slugs: str) -> str:
    """reverse(name, kwargs=slugs) for routes whose arguments are all slugs (which need no quoting)."""
    return _route_format(get_script_prefix(), name, tuple(sorted(slugs))).format(**slugs)


def absolute_url(path: str) -> str | None:
    """A link as clients should follow it: on the configured site address, whatever the Host."""
    if not path:
        return None
    return urljoin(settings.SITE_URL + "/", path)

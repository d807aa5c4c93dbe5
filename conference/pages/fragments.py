"""Parts of pages and exports kept in Django's cache, each under a key naming what it shows.

Any edit moves Conference.changed_at, and with it every whole page and export the page cache
keeps (docs/pages.md). Most of what such a page holds has not changed: a schedule's thousand
cards, an export's thousand events. Each is kept here on its own, under a key that is a digest
of everything it shows, so after an edit a page is joined from the parts still cached and only
those whose key moved are made again. A key names its dependencies, so nothing is ever purged:
an edited part is simply no longer asked for, and its entry expires.

Two kinds of parts use this store: each session's part of an export
(sessions/exports/fragments.py) and each session card of the lists (sessions/views/cards.py).
A card holds personal parts (its Save button's state, its clash mark): ``HoledText`` keeps the
text around them and their data, never a visitor's rendering, and puts them back through
``personal()`` each time the card is shown, as if the card had been rendered there.
"""

import hashlib
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping
from typing import Any, NamedTuple, TypeVar

from django.conf import settings
from django.core.cache import cache
from django.template import engines
from jinja2.runtime import new_context
from markupsafe import Markup

from conference.pages.holes import Hole, HoleRecorder, page_context

FRAGMENT_SECONDS = 7 * 24 * 60 * 60  # keys carry every dependency: age never makes one stale

Item = TypeVar("Item", bound=Hashable)


class FragmentKeys:
    """Cache keys of one kind of part: a digest of what every part of a page shows
    (``common``: the conference's fields, the language...) and of what each shows on its own.
    The code's release is part of every key, so a new release renders every part anew."""

    def __init__(self, kind: str, common: object):
        self.prefix = f"fragment:{kind}:"
        self.base = hashlib.sha256(repr((settings.RELEASE, kind, common)).encode())

    def key(self, own: object) -> str:
        digest = self.base.copy()  # the common part is hashed once per page, not once per part
        digest.update(repr(own).encode())
        return self.prefix + digest.hexdigest()[:40]


def cached_fragments(
    keys: Mapping[Item, str],
    render_missing: Callable[[list[Item]], Iterable[Mapping[Item, Any]]],
) -> dict[str, Any]:
    """The parts named by ``keys`` (one key per item, e.g. per session id), by key: those in the
    cache from one ``get_many``, the others from ``render_missing(items)``, which yields them in
    batches (each stored with one ``set_many`` as it comes). An item that ``render_missing``
    leaves out (deleted meanwhile) is left out of the answer."""
    found = cache.get_many(keys.values())
    missing = [item for item, key in keys.items() if key not in found]
    if missing:
        for batch in render_missing(missing):
            fresh = {keys[item]: fragment for item, fragment in batch.items()}
            cache.set_many(fresh, FRAGMENT_SECONDS)
            found.update(fresh)
    return found


class HoledText(NamedTuple):
    """Rendered text with personal parts in it, as the cache keeps it: the text between them
    and each one's template and data (plain values, as for a page's holes)."""

    parts: tuple[str, ...]
    holes: tuple[Hole, ...]

    @classmethod
    def rendered(cls, renders: Iterable[Callable[[], str]]) -> Iterator["HoledText"]:
        """What each of ``renders`` writes, with every ``personal()`` it calls recorded as a
        hole, whatever page it is called from: nothing of a visitor enters a kept part."""
        recorder = HoleRecorder()
        context = new_context(engines["jinja2"].env, None, {}, {"hole_recorder": recorder})
        token = page_context.set(context)
        try:
            for render in renders:
                first_hole = len(recorder.holes)
                parts = str(render()).split(recorder.marker)
                holes = tuple(recorder.holes[first_hole:])
                if len(parts) != len(holes) + 1:
                    raise ValueError(f"{len(holes)} holes recorded, {len(parts) - 1} in the text")
                yield cls(tuple(parts), holes)
        finally:
            page_context.reset(token)

    def shown(self) -> Markup:
        """The text with its personal parts put back by ``personal()`` in the page being
        rendered: recorded as that page's holes when it is rendered for the cache, else
        rendered for its visitor."""
        if not self.holes:
            return Markup(self.parts[0])
        context = page_context.get()
        recorder = context.get("hole_recorder")
        if recorder is not None:
            # What personal() would do for each hole, at once: their data were checked plain
            # when the card was rendered.
            recorder.holes.extend(self.holes)
            return Markup(recorder.marker.join(self.parts))
        personal = context.environment.globals["personal"]
        pieces = [self.parts[0]]
        for (template_name, data), part in zip(self.holes, self.parts[1:], strict=True):
            pieces.append(personal(template_name, **data))
            pieces.append(part)
        return Markup("".join(pieces))

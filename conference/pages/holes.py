"""The personal parts of a shared page ("holes"), and how each visitor's page is put together.

``{{ personal("template.html", **data) }}`` (conference.site.jinja2) records a hole when the page
is rendered for the cache, and renders the template in place otherwise. A ``HoleKind`` names a
hole's only dependence on its visitor in one function, ``state()``, used by the shared page and
by ``personal()`` alike; its template is rendered from that state and its data alone. A page is
assembled once from each kind hole's usual rendering, and per request only the holes
``unusual()`` points at are looked at again (docs/pages.md).
"""

from __future__ import annotations

import datetime
import itertools
import secrets
from abc import ABC, abstractmethod
from collections.abc import Hashable, Iterable
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.template import engines
from django.utils import translation
from jinja2 import meta, nodes
from jinja2.runtime import Context

from conference.pages.compressed import CompressedPage

# A personal part of a page: its template's name and the plain values it is rendered with.
# A tuple rather than a class: a page holds a thousand, and pickling them is part of caching it.
Hole = tuple[str, dict[str, Any]]

# The context of the page being rendered, where personal() looks. The macros that call it (the
# session card, the Save button) are imported without the page's context: imported with it, each
# page would get its own copy of them holding that context, which holds them, a reference cycle
# that kept every row the page showed alive until the garbage collector's next full pass over
# the whole process.
page_context: ContextVar[Context] = ContextVar("page_context")


# What a hole's data may hold: values that pickle to themselves and hold nothing of a request,
# a visitor or the database. bool is an int; datetime is a date; str subclasses (Markup, a
# TextChoices member) are str. Containers of them, nested, are plain too (CONTAINERS).
PLAIN_SCALARS = (type(None), bool, int, float, str, datetime.date)
CONTAINERS = (list, tuple, set, frozenset)


class HoleDataNotPlainError(TypeError):
    """A hole's data hold something other than plain values (a model, a queryset, a request)."""


def check_plain(template_name: str, data: dict[str, Any]) -> None:
    """Raise HoleDataNotPlainError unless every value of ``data`` is plain (PLAIN_SCALARS, or a
    list, tuple, set, frozenset or dict of plain values, with plain keys).

    A hole's data are cached with the page and read for other visitors: a model instance would
    be a stale copy of a row, a queryset a query run later, a request one visitor's.
    """
    for key, value in data.items():
        offending = not_plain(value)
        if offending is not None:
            raise HoleDataNotPlainError(
                # Its type, not its repr(): a queryset's would run its query.
                f"personal({template_name!r}): {key} holds a "
                f"{type(offending).__module__}.{type(offending).__qualname__}, not a plain value. "
                "A hole's data are kept with the page: pass None, bool, int, float, str, date, "
                "datetime, or a list, tuple, set, frozenset or dict of them."
            )


def not_plain(value: Any) -> Any:
    """The first value in ``value`` that is not plain, or None when all are."""
    if isinstance(value, PLAIN_SCALARS):
        return None
    if isinstance(value, CONTAINERS):
        items = value
    elif isinstance(value, dict):
        items = itertools.chain(value.keys(), value.values())
    else:
        return value
    for item in items:
        offending = not_plain(item)
        if offending is not None:
            return offending
    return None


@dataclass
class HoleRecorder:
    """Collects the holes of one shared rendering; ``personal()`` finds it in the context."""

    marker: str = field(default_factory=lambda: f"<!--hole-{secrets.token_hex(8)}-->")
    holes: list[Hole] = field(default_factory=list)

    def add(self, template_name: str, data: dict[str, Any]) -> str:
        self.holes.append((template_name, data))
        return self.marker


class HoleKind(ABC):
    """Personal parts of one template whose text depends on their visitor through ``state()``.

    Registered with ``@hole_kind``. ``usual`` is a visitor with nothing of their own (who saved
    nothing); ``unusual(visitor)`` gives the values of ``index_field`` of the holes whose state
    may differ from the usual one for ``visitor``.

    ``fixed_length``: every state renders equally long, so a visitor's rendering can take the
    place of the usual one in a page sent compressed (CompressedPage); checked at registration
    by rendering each of ``examples`` (hole data) in each of ``states``. Without it, a page
    with an unusual hole of this kind is sent uncompressed.
    """

    template_name: str
    index_field: str
    usual: dict[str, Any] = {}
    fixed_length = False
    states: tuple[Hashable, ...] = ()
    examples: tuple[dict[str, Any], ...] = ()
    # The hole data its template reads, found at registration (``names_read``); None when the
    # template includes others, which may read anything.
    reads: tuple[str, ...] | None = None

    def rendering_key(self, data: dict[str, Any], state: Hashable) -> Hashable | None:
        """Holes with equal keys render the same text: a page renders each key once, not each
        of its thousand Save buttons. None when that cannot be told."""
        if self.reads is None:
            return None
        key = (self.template_name, state, *(data.get(name) for name in self.reads))
        try:
            hash(key)
        except TypeError:
            return None
        return key

    @abstractmethod
    def state(self, data: dict[str, Any], visitor: dict[str, Any]) -> Hashable:
        """Everything the hole's rendering reads of ``visitor``."""

    @abstractmethod
    def unusual(self, visitor: dict[str, Any]) -> Iterable[Hashable]:
        """``index_field`` values of the holes that may not be in their usual state."""


HOLE_KINDS: dict[str, HoleKind] = {}


def hole_kind(kind: type[HoleKind]) -> type[HoleKind]:
    """Registers a template's personal parts as a HoleKind, checking its fixed length."""
    instance = kind()
    instance.reads = names_read(kind.template_name)
    if instance.fixed_length:
        for data, (language, _) in itertools.product(instance.examples, settings.LANGUAGES):
            with translation.override(language):  # every language's text must fit
                lengths = {
                    state: len(render_hole(kind.template_name, {**data, "state": state}, {}, {}))
                    for state in instance.states
                }
            if len(set(lengths.values())) > 1:
                raise ImproperlyConfigured(
                    f"{kind.template_name} must render every state equally long "
                    f"(fixed_length) in {language}: {lengths} for {data}"
                )
    HOLE_KINDS[kind.template_name] = instance
    return kind


def names_read(template_name: str) -> tuple[str, ...] | None:
    """The variables a template reads from its context besides ``state``, or None when it
    includes, imports or extends another template."""
    env = engines["jinja2"].env
    source = env.loader.get_source(env, template_name)[0]
    tree = env.parse(source)
    if any(tree.find_all((nodes.Include, nodes.Import, nodes.FromImport, nodes.Extends))):
        return None
    return tuple(sorted(meta.find_undeclared_variables(tree) - {"state"}))


def hole_data(template_name: str, data: dict[str, Any], visitor) -> dict[str, Any]:
    """What a hole's template is rendered with: its data, and its state when it has a kind."""
    kind = HOLE_KINDS.get(template_name)
    return data if kind is None else {**data, "state": kind.state(data, visitor)}


def render_hole(
    template_name: str, data: dict[str, Any], visitor: dict[str, Any], contexts: dict
) -> str:
    """A hole's text. ``contexts`` holds, per template, its globals merged with ``visitor``,
    reused by every hole of that template in one page rather than merged again per hole."""
    env = engines["jinja2"].env
    template = env.get_template(template_name)
    if template_name not in contexts:
        contexts[template_name] = {**template.globals, **visitor}
    context = template.new_context({**contexts[template_name], **data}, shared=True)
    return env.concat(template.root_render_func(context))


@dataclass
class SharedPage:
    """A rendered page as the cache keeps it: the shared text between its holes, encoded."""

    parts: list[bytes]
    holes: list[Hole]
    headers: dict[str, str]
    # This worker's renderings of kind holes, by rendering key (else hole's index and state),
    # and its assembly.
    renderings: dict[Hashable, bytes] = field(default_factory=dict, compare=False)
    assembly: Assembly | None = field(default=None, compare=False)

    def __getstate__(self):  # renderings stay with the worker that made them
        return {**self.__dict__, "renderings": {}, "assembly": None}

    @property
    def size(self) -> int:
        """Bytes it holds, near enough to bound the worker's copies: its text, and per hole
        about its data, its usual rendering and its share of the compressed page."""
        return sum(len(part) for part in self.parts) + 1000 * len(self.holes)

    @classmethod
    def from_rendering(cls, html: str, recorder: HoleRecorder, headers: dict[str, str]):
        parts = html.split(recorder.marker)
        if len(parts) != len(recorder.holes) + 1:  # a template printed a hole twice, or none
            raise ValueError(f"{len(recorder.holes)} holes recorded, {len(parts) - 1} in the page")
        return cls(parts=[part.encode() for part in parts], holes=recorder.holes, headers=headers)

    def own_holes(self, visitor: dict[str, Any]) -> tuple[Assembly, dict[int, bytes]]:
        """The page's assembly, and the text of each hole that is not its usual one for this
        visitor (by index)."""
        if self.assembly is None:
            self.assembly = Assembly.of(self)
        assembly = self.assembly
        contexts: dict[str, dict] = {}
        own, rendered_here = {}, {}
        for index in assembly.own_every_time:
            template_name, data = self.holes[index]
            # The account links are in the page twice (header, phone menu): rendered once.
            try:
                same_hole = (template_name, tuple(data.items()))
                text = rendered_here.get(same_hole)
            except TypeError:  # data that cannot be a key: rendered each time
                same_hole, text = None, None
            if text is None:
                text = render_hole(template_name, data, visitor, contexts).encode()
                if same_hole is not None:
                    rendered_here[same_hole] = text
            own[index] = text
        for template_name, kind in HOLE_KINDS.items():
            for value in kind.unusual(visitor):
                for index in assembly.by_index.get((template_name, value), ()):
                    state = kind.state(self.holes[index][1], visitor)
                    if state != assembly.usual_states[index]:
                        own[index] = self.rendering(index, state)
        return assembly, own

    def rendering(self, index: int, state: Hashable) -> bytes:
        """A kind hole's text in one state, rendered once by this worker, from its data and
        state alone; holes whose template reads nothing else that differs share it."""
        template_name, data = self.holes[index]
        key = HOLE_KINDS[template_name].rendering_key(data, state) or (index, state)
        text = self.renderings.get(key)
        if text is None:
            rendered = render_hole(template_name, {**data, "state": state}, {}, {})
            text = self.renderings[key] = rendered.encode()
        return text


@dataclass
class Assembly:
    """A shared page as every visitor's starts: its parts and each kind hole's usual rendering,
    in order (``pieces``); the holes rendered for every visitor (``own_every_time``: account
    links, messages, the Save form); and the kind holes by their ``index_field`` values."""

    pieces: list[bytes]
    usual_states: list[Hashable | None]  # None: a hole rendered for every visitor
    own_every_time: list[int]
    by_index: dict[tuple[str, Hashable], list[int]]
    compressed_page: CompressedPage | None = None

    @classmethod
    def of(cls, page: SharedPage) -> Assembly:
        pieces, usual_states, own_every_time = [page.parts[0]], [], []
        by_index: dict[tuple[str, Hashable], list[int]] = {}
        for index, ((template_name, data), part) in enumerate(
            zip(page.holes, page.parts[1:], strict=True)
        ):
            kind = HOLE_KINDS.get(template_name)
            if kind is None:
                own_every_time.append(index)
                usual_states.append(None)
                pieces.append(b"")
            else:
                usual = kind.state(data, kind.usual)
                usual_states.append(usual)
                pieces.append(page.rendering(index, usual))
                by_index.setdefault((template_name, data[kind.index_field]), []).append(index)
            pieces.append(part)
        return cls(pieces, usual_states, own_every_time, by_index)

    def filled(self, own: dict[int, bytes]) -> bytes:
        """The page for one visitor: the usual renderings, with ``own`` holes instead."""
        pieces = self.pieces.copy()
        for index, text in own.items():
            pieces[2 * index + 1] = text
        return b"".join(pieces)

    def compressed(self, page: SharedPage) -> CompressedPage:
        """The usual page compressed, each kind hole in the room its every state fills."""
        if self.compressed_page is None:
            states = [
                None
                if usual is None
                else tuple(
                    page.rendering(index, state)
                    for state in HOLE_KINDS[page.holes[index][0]].states
                    if state != usual
                )
                for index, usual in enumerate(self.usual_states)
            ]
            self.compressed_page = CompressedPage.of(self.pieces, states)
        return self.compressed_page

"""Markdown written by organizers and speakers, rendered to a safe allow-list of HTML."""

import threading

import markdown as markdown_lib
import nh3

ALLOWED_TAGS = {
    "p", "br", "strong", "em", "b", "i", "code", "pre", "blockquote", "ul", "ol", "li",
    "a", "h3", "h4", "h5", "h6", "hr",
}  # fmt: skip
ALLOWED_ATTRIBUTES = {"a": {"href", "title"}}
ALLOWED_URL_SCHEMES = {"http", "https", "mailto"}


_converters = threading.local()


def markdown_converter() -> markdown_lib.Markdown:
    """This thread's converter: building one (parser, extensions) took half of each conversion.

    nl2br keeps the line breaks that speakers type inside a paragraph, as Sched shows them.
    """
    if not hasattr(_converters, "markdown"):
        _converters.markdown = markdown_lib.Markdown(extensions=["nl2br", "sane_lists"])
    return _converters.markdown


def render_markdown(text: str) -> str:
    """Markdown to HTML with only harmless tags, attributes and link schemes left."""
    html = markdown_converter().reset().convert(text or "")
    return nh3.clean(
        html,
        tags=ALLOWED_TAGS,
        attributes=ALLOWED_ATTRIBUTES,
        url_schemes=ALLOWED_URL_SCHEMES,
        link_rel="noopener noreferrer nofollow",
    )

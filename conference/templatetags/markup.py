"""Markdown written by organizers and speakers, rendered to a safe allow-list of HTML."""

import markdown as markdown_lib
import nh3
from django import template
from django.utils.safestring import mark_safe

register = template.Library()

ALLOWED_TAGS = {
    "p", "br", "strong", "em", "b", "i", "code", "pre", "blockquote", "ul", "ol", "li",
    "a", "h3", "h4", "h5", "h6", "hr",
}  # fmt: skip
ALLOWED_ATTRIBUTES = {"a": {"href", "title"}}
ALLOWED_URL_SCHEMES = {"http", "https", "mailto"}


def render_markdown(text: str) -> str:
    """Markdown to HTML with only harmless tags, attributes and link schemes left.

    nl2br keeps the line breaks that speakers type inside a paragraph, as Sched shows them.
    """
    html = markdown_lib.markdown(text or "", extensions=["nl2br", "sane_lists"])
    return nh3.clean(
        html,
        tags=ALLOWED_TAGS,
        attributes=ALLOWED_ATTRIBUTES,
        url_schemes=ALLOWED_URL_SCHEMES,
        link_rel="noopener noreferrer nofollow",
    )


@register.filter(name="markdown")
def markdown_filter(text: str) -> str:
    # Safe: nh3 has removed everything outside the allow-list.
    return mark_safe(render_markdown(text))

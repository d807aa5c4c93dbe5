"""Markdown written by organizers and speakers, rendered to a safe allow-list of HTML."""

import re
import threading
from functools import lru_cache

import markdown as markdown_lib
import nh3

ALLOWED_TAGS = {
    "p", "br", "strong", "em", "b", "i", "code", "pre", "blockquote", "ul", "ol", "li",
    "a", "h3", "h4", "h5", "h6", "hr",
}  # fmt: skip
ALLOWED_ATTRIBUTES = {"a": {"href", "title"}}
ALLOWED_URL_SCHEMES = {"http", "https", "mailto"}


_converters = threading.local()

# A list item as people type it: a Markdown marker, or the bullet character that text pasted from
# Sched, Word or a web page carries ("•", "◦", "▪"). Ordered lists may only start at 1 here, as in
# CommonMark, so a year or a figure opening a line ("2026. was…") stays text.
LIST_ITEM = re.compile(r"^ {0,3}(?:[-*+•◦▪‣]|1\.)[ \t]+\S")
BULLET_CHARACTER = re.compile(r"^( {0,3})[•◦▪‣](?=[ \t])")


def markdown_converter() -> markdown_lib.Markdown:
    """This thread's converter: building one (parser, extensions) costs as much as converting.

    nl2br keeps the line breaks that speakers type inside a paragraph, as Sched shows them.
    """
    if not hasattr(_converters, "markdown"):
        _converters.markdown = markdown_lib.Markdown(extensions=["nl2br", "sane_lists"])
    return _converters.markdown


# A line that is not plain text: what could be a list marker, spaced or not ("-Taking…", "2)"),
# Markdown's code fences, quotes, headings and tables, or an indented line. Never made a list item.
MARKED_LINE = re.compile(r"^(?:\s|[-*+•◦▪‣`~>#|]|\d+[.)])")
SENTENCE_END = re.compile(r"[.!?;,:]$")


def lines_as_list(lines: list[str]) -> list[str]:
    """A paragraph's lines, those listed after a lead-in made Markdown list items.

    Text pasted from Sched loses its bullets: “Key takeaways” or “In this session, we’ll cover:”,
    then a line per point. Two or more plain lines running to the end of the paragraph become a
    list when the line before them ends with a colon, or is a short title opening the paragraph
    (five words at most, no closing punctuation) and they read as points, not sentences.
    """
    for index, line in enumerate(lines[:-2]):
        items = lines[index + 1 :]
        if MARKED_LINE.match(line) or any(MARKED_LINE.match(item) for item in items):
            continue
        lead = line.strip()
        is_title = index == 0 and len(lead.split()) <= 5 and not SENTENCE_END.search(lead)
        if lead.endswith(":") or (
            is_title and not any(item.rstrip().endswith(".") for item in items)
        ):
            return [*lines[: index + 1], *(f"- {item.strip()}" for item in items)]
    return lines


def separate_lists(text: str) -> str:
    """The text with its list items as Markdown lists.

    Python-Markdown starts a list only after a blank line, unlike CommonMark and unlike what
    people type: "What you will learn:" then "• …" lines ran together into one paragraph. A blank
    line goes before a list that follows a paragraph line, and "•" bullets become "-" items.
    """
    lines = []
    in_paragraph = in_list = False
    paragraphs = re.split(r"\n[ \t]*\n", text.replace("\r\n", "\n"))
    listed = "\n\n".join("\n".join(lines_as_list(block.split("\n"))) for block in paragraphs)
    for line in listed.splitlines():
        if not line.strip():
            in_paragraph = in_list = False
        elif LIST_ITEM.match(line):
            if in_paragraph and not in_list:
                lines.append("")
            line = BULLET_CHARACTER.sub(r"\1-", line)
            in_list = True
        else:
            in_paragraph = True  # a paragraph, or a line continuing the list item above
        lines.append(line)
    return "\n".join(lines)


@lru_cache(maxsize=1024)
def render_markdown(text: str) -> str:
    """Markdown to HTML with only harmless tags, attributes and link schemes left.

    Kept for the last 1,024 texts this process rendered (a few MB at most): an edit makes every
    page of its conference render again (conference.pages), nearly all from texts that did
    not change.
    """
    html = markdown_converter().reset().convert(separate_lists(text or ""))
    return nh3.clean(
        html,
        tags=ALLOWED_TAGS,
        attributes=ALLOWED_ATTRIBUTES,
        url_schemes=ALLOWED_URL_SCHEMES,
        link_rel="noopener noreferrer nofollow",
    )

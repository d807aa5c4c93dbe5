"""The site's colour pairs meet WCAG AA (4.5:1 for text) in the light and the dark theme.

The colours are read from static/css/site.css, where every one is a custom property set for
both themes, so a change there that breaks a pair fails here.
"""

import re
from pathlib import Path

import pytest
from django.conf import settings

SITE_CSS = Path(settings.BASE_DIR) / "static" / "css" / "site.css"

# (text, background) as the stylesheet pairs them.
TEXT_PAIRS = [
    ("ink", "paper"),
    ("ink", "wash"),
    ("muted", "paper"),
    ("muted", "wash"),
    ("link", "paper"),
    ("link", "wash"),
    ("accent", "paper"),  # form errors
    ("paper", "accent"),  # the Cancelled badge
    ("paper", "warn-ink"),  # the Draft badge
    ("paper", "ink"),  # buttons
    ("ink", "warn-bg"),
    ("ink", "clash-bg"),
    ("ink", "saved-bg"),  # a saved card and its button
    ("link", "saved-bg"),
    ("muted", "saved-bg"),
    ("accent", "saved-bg"),  # a saved card's clash mark
    ("header-ink", "header-bg"),
    ("header-muted", "header-bg"),
    ("on-track", "track-colour"),  # a track tag without a colour of its own
]


def custom_properties(block: str) -> dict[str, str]:
    return dict(re.findall(r"--([\w-]+):\s*(#[0-9a-fA-F]{6})\s*;", block))


def themes() -> dict[str, dict[str, str]]:
    css = SITE_CSS.read_text()
    light = custom_properties(css[css.index(":root {") : css.index("}", css.index(":root {"))])
    dark_start = css.index("@media (prefers-color-scheme: dark)")
    dark_block = css[dark_start : css.index("}\n}", dark_start)]
    return {"light": light, "dark": {**light, **custom_properties(dark_block)}}


def luminance(colour: str) -> float:
    channels = [int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(one: str, other: str) -> float:
    lighter, darker = sorted((luminance(one), luminance(other)), reverse=True)
    return (lighter + 0.05) / (darker + 0.05)


def test_contrast_is_computed_as_wcag_defines_it():
    assert contrast("#000000", "#ffffff") == pytest.approx(21)
    assert contrast("#767676", "#ffffff") == pytest.approx(4.54, abs=0.01)


def test_the_dark_theme_sets_its_own_colours():
    light, dark = themes()["light"], themes()["dark"]
    assert dark["paper"] != light["paper"]
    assert dark["ink"] != light["ink"]


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize(("text", "background"), TEXT_PAIRS)
def test_text_colours_meet_wcag_aa_on_their_backgrounds(theme, text, background):
    colours = themes()[theme]
    assert contrast(colours[text], colours[background]) >= 4.5


def test_the_dark_theme_an_embed_asks_for_has_the_dark_colours():
    """``?theme=dark`` (sessions/views/embed.py) repeats the dark block; a colour changed in one only
    would give the embed colours nobody checked."""
    css = SITE_CSS.read_text()
    forced_start = css.index(':root[data-theme="dark"] {')
    forced = custom_properties(css[forced_start : css.index("}", forced_start)])
    media_start = css.index("@media (prefers-color-scheme: dark)")
    preferred = custom_properties(css[media_start : css.index("}\n}", media_start)])
    assert len(preferred) >= 15
    assert forced == preferred

"""Speakers without a photo get their initials on a colour of their own; with one, the photo."""

import io
import re
from pathlib import Path

import pytest
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from PIL import Image

from speakers.models import AVATAR_COLOURS, Speaker
from tests.builders import make_conference, make_session, make_speaker

SITE_CSS = Path(settings.BASE_DIR) / "static" / "css" / "site.css"


def relative_luminance(colour: str) -> float:
    def channel(hex_pair: str) -> float:
        value = int(hex_pair, 16) / 255
        return value / 12.92 if value <= 0.03928 else ((value + 0.055) / 1.055) ** 2.4

    red, green, blue = (channel(colour[i : i + 2]) for i in (1, 3, 5))
    return 0.2126 * red + 0.7152 * green + 0.0722 * blue


def contrast(first: str, second: str) -> float:
    lighter, darker = sorted((relative_luminance(first), relative_luminance(second)), reverse=True)
    return (lighter + 0.05) / (darker + 0.05)


def css_colours() -> dict[str, str]:
    """The custom properties site.css sets to a #rrggbb colour, by name."""
    return dict(re.findall(r"--([\w-]+):\s*(#[0-9a-fA-F]{6})\s*;", SITE_CSS.read_text()))


@pytest.mark.parametrize(
    ("name", "initials"),
    [
        ("Ada Lovelace", "AL"),
        ("Jan van Lunteren", "JL"),
        ("hyunkyun moon", "HM"),
        ("Weiyi", "W"),
        ("  Grace   Hopper ", "GH"),
        ("(Bob) O'Neil", "BO"),
        ("Émilie du Châtelet", "ÉC"),
        ("", "?"),
    ],
)
def test_initials_are_the_first_letters_of_the_first_and_last_names(name, initials):
    assert Speaker(name=name).initials == initials


def test_a_name_always_gets_the_same_avatar_colour():
    # CRC-32 of the name: the same in every process, unlike Python's salted hash().
    assert Speaker(name="Ada Lovelace").avatar_class == "avatar-1"
    assert Speaker(name="ada lovelace").avatar_class == "avatar-1"


def test_names_spread_over_every_avatar_colour():
    classes = {Speaker(name=f"Speaker {number}").avatar_class for number in range(200)}
    assert classes == {f"avatar-{index}" for index in range(AVATAR_COLOURS)}


def test_every_avatar_colour_is_styled_and_keeps_its_initials_readable():
    colours = css_colours()
    css = SITE_CSS.read_text()
    for index in range(AVATAR_COLOURS):
        assert re.search(
            rf"\.avatar-{index} \{{ background-color: var\(--avatar-{index}\); \}}", css
        )
        assert contrast(colours[f"avatar-{index}"], colours["avatar-ink"]) >= 4.5, index


@pytest.mark.django_db
def test_speaker_list_shows_initials_in_the_speakers_colour(client):
    conference = make_conference()
    speaker = make_speaker(conference, name="Ada Lovelace")
    make_session(conference, speakers=[speaker])
    html = client.get(
        reverse("speakers:speaker-list", kwargs={"conference_slug": conference.slug})
    ).content.decode()
    assert '<span class="avatar avatar-1" aria-hidden="true">AL</span>' in html
    assert "style=" not in html


@pytest.mark.django_db
def test_speaker_with_a_photo_shows_it_instead_of_initials(client, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    conference = make_conference()
    speaker = make_speaker(conference, name="Ada Lovelace")
    buffer = io.BytesIO()
    Image.new("RGB", (64, 64), "red").save(buffer, format="PNG")
    speaker.photo = SimpleUploadedFile("ada.png", buffer.getvalue())
    speaker.save()
    make_session(conference, speakers=[speaker])
    list_html = client.get(
        reverse("speakers:speaker-list", kwargs={"conference_slug": conference.slug})
    ).content.decode()
    page_html = client.get(speaker.get_absolute_url()).content.decode()
    for html in (list_html, page_html):
        assert f'src="{speaker.photo_url}"' in html
        assert ">AL</span>" not in html


@pytest.mark.django_db
def test_speaker_page_shows_the_whole_bio(client):
    conference = make_conference()
    bio = " ".join(f"Sentence number {number} about the work." for number in range(150))
    speaker = make_speaker(conference, name="Ada Lovelace", bio=bio)
    make_session(conference, speakers=[speaker])
    html = client.get(speaker.get_absolute_url()).content.decode()
    assert f"<p>{bio}</p>" in html
    assert "…" not in html

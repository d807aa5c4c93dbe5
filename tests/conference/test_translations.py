"""The French catalogue is complete and current, and every public page is French in French.

The page walk renders each page twice, in English and in French, logged out and logged in, and
takes the visible text of each (text nodes, and the aria-label, title, placeholder and alt
attributes). A text of the English page found again, the same, in the French page is
untranslated unless it is conference content (a value of the database: titles, names, bios,
rooms; or part of one), has no letters (times, counts, punctuation), or is one of our msgids
that French writes the same (“Menu”, “Sessions”). So a string never marked for translation
fails as surely as one marked but left untranslated, without a list of phrases to keep.
"""

import re
import zoneinfo
from html.parser import HTMLParser

import pytest
from babel.messages.pofile import read_po
from django.apps import apps
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.db import models

from conference.catalogues import DOMAINS, LOCALE, extract
from conference.models import Conference, Room
from conference.pages.copies import forget_pages
from sessions.models import SavedSession, Session
from speakers.invitations import invitation_url
from speakers.models import Speaker, SpeakerInvitation
from tests.builders import make_conference

WORD = re.compile(r"[^\W\d_]{3,}")
# Words of English sentences no French text has: they find English glued to French in one text
# (“mardi 7 avril and mercredi 8 avril”), which the comparison of whole texts cannot.
ENGLISH = re.compile(r"\b(the|and|of|to|at|in|with|from|your|you|this|is|are|until)\b")
CATALOGUE = LOCALE / "fr" / "LC_MESSAGES" / "django.po"
CONFERENCE = "/pytorch-eu-2026"


def msgids(catalogue) -> set:
    return {message.id for message in catalogue if message.id}


def read_catalogue(path):
    with open(path, "rb") as file:
        return read_po(file)


@pytest.mark.parametrize("domain", DOMAINS)
def test_the_catalogue_holds_exactly_the_strings_of_the_code(tmp_path, domain):
    extract(tmp_path / f"{domain}.pot", domain)
    current = msgids(read_catalogue(tmp_path / f"{domain}.pot"))
    kept = msgids(read_catalogue(LOCALE / "fr" / "LC_MESSAGES" / f"{domain}.po"))
    # Run `make catalogues` (docs/i18n.md) when this fails.
    assert {
        "missing": sorted(map(str, current - kept)),
        "stale": sorted(map(str, kept - current)),
    } == {
        "missing": [],
        "stale": [],
    }


@pytest.mark.parametrize("domain", DOMAINS)
def test_every_string_has_a_french_translation(domain):
    untranslated = [
        message.id
        for message in read_catalogue(LOCALE / "fr" / "LC_MESSAGES" / f"{domain}.po")
        if message.id
        and (message.fuzzy or not all(message.string if message.pluralizable else [message.string]))
    ]
    assert untranslated == []


class VisibleText(HTMLParser):
    ATTRIBUTES = ("aria-label", "title", "placeholder", "alt")

    def __init__(self):
        super().__init__()
        self.texts: set[str] = set()
        self.skipping = 0

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style"):
            self.skipping += 1
        for name, value in attrs:
            if name in self.ATTRIBUTES and value:
                self.add(value)

    def handle_endtag(self, tag):
        if tag in ("script", "style"):
            self.skipping -= 1

    def handle_data(self, data):
        if not self.skipping:
            self.add(data)

    def add(self, text):
        text = " ".join(text.split())
        if WORD.search(text):  # words, not initials, times, counts or punctuation
            self.texts.add(text)


def visible_text(html: str) -> set[str]:
    parser = VisibleText()
    parser.feed(html)
    return parser.texts


def content_strings() -> list[str]:
    """Every text value of the database: what organizers and speakers wrote, not our UI."""
    values = []
    for model in apps.get_models():
        fields = [
            field.attname
            for field in model._meta.concrete_fields
            if isinstance(field, models.CharField | models.TextField)
        ]
        if fields:
            for row in model.objects.values_list(*fields):
                values += [value for value in row if isinstance(value, str) and value]
    # Titles as schedules print them, “Lightning Talk: …”: the kind prefix is part of the title,
    # in exports and imports too, so it stays as the organizers' schedule writes it.
    values += [session.display_title for session in Session.objects.all()]
    return values


def is_content(text: str, content: list[str]) -> bool:
    """Whether ``text`` is conference content: part of a value of the database, or values
    joined by punctuation (“Bin Bao · PyTorch Conference Europe 2026”)."""
    if any(text.strip(" :,·()") in value for value in content):
        return True
    return not WORD.search(without_content(text, content))


def without_content(text: str, content: list[str]) -> str:
    for value in sorted((value for value in content if value in text), key=len, reverse=True):
        text = text.replace(value, " ")
    return text


def same_in_french() -> set[str]:
    return {
        message.id
        for message in read_catalogue(CATALOGUE)
        if message.id and not message.pluralizable and message.string == message.id
    }


def zone_names() -> set[str]:
    """The time-zone picker's options: IANA names, and the areas and cities they group."""
    names = set()
    for zone in zoneinfo.available_timezones():
        names |= {zone, *zone.split("/")}
        names |= {
            part.replace("_", " ") for part in (zone.split("/", 1)[-1], zone.rsplit("/", 1)[-1])
        }
    return names


@pytest.fixture
def site(db):
    call_command("loaddata", "pytorch-eu-2026", verbosity=0)
    make_conference(slug="pycon-2027", name="PyCon 2027")
    attendee = get_user_model().objects.create_user("attendee", email="a@example.org")
    sessions = list(Session.objects.public().filter(conference__slug="pytorch-eu-2026"))
    sessions.sort(key=lambda session: (session.starts_at, session.pk))
    for session in sessions[3:7]:
        SavedSession.objects.add(attendee, session)
    session = sessions[3]
    speaker = Speaker.objects.filter(sessions=session).order_by("pk").first()
    speaker.user = attendee
    speaker.save()
    room = Room.objects.filter(conference=session.conference).order_by("pk").first()
    invited = Speaker.objects.filter(conference=session.conference, user=None).order_by("pk")
    invitation = SpeakerInvitation.objects.create(speaker=invited.first(), email="s@example.org")
    Conference.objects.filter(slug="pytorch-eu-2026").update(feedback_days_after=3650)
    paths = [
        "/",
        f"{CONFERENCE}/",
        f"{CONFERENCE}/schedule/",
        f"{CONFERENCE}/schedule/?days=all",
        f"{CONFERENCE}/schedule/?q=zzzz",
        f"{CONFERENCE}/schedule/grid/",
        session.get_absolute_url(),
        f"{CONFERENCE}/speakers/",
        f"{CONFERENCE}/speakers/?q=zzzz",
        speaker.get_absolute_url(),
        f"{CONFERENCE}/my-schedule/",
        f"{CONFERENCE}/speaker/",
        f"{CONFERENCE}/speaker/profile/",
        f"{CONFERENCE}/speaker/availability/",
        f"{session.get_absolute_url().replace(f'{CONFERENCE}/', f'{CONFERENCE}/speaker/')}materials/",
        invitation_url(invitation).removeprefix(settings.SITE_URL),
        f"{CONFERENCE}/changes/",
        f"{CONFERENCE}/now/",
        f"{CONFERENCE}/now/{room.slug}/",
        "/accounts/login/",
        "/accounts/signup/",
        "/accounts/password/reset/",
        "/accounts/password/change/",
        "/accounts/",
        "/accounts/settings/",
        f"{CONFERENCE}/no-such-page/",
        "/no-such-conference/",
        "/offline/",
        f"{CONFERENCE}/offline/",
        f"{CONFERENCE}/embed/",
        f"{CONFERENCE}/embed/grid/",
        f"{session.get_absolute_url()}feedback/",
        f"{CONFERENCE}/speaker/feedback/",
    ]
    return attendee, paths


@pytest.mark.parametrize("logged_in", [False, True], ids=["logged out", "logged in"])
def test_every_public_page_shows_no_english_in_french(client, site, logged_in):
    attendee, paths = site
    if logged_in:
        client.force_login(attendee)
    content = content_strings()
    allowed = same_in_french() | {
        "English",
        "Français",
        "iCalendar",
        "schedule.xml",
        "schedule.json",
    }
    allowed |= zone_names()
    untranslated = {}
    for path in paths:
        forget_pages()
        english = client.get(path, headers={"accept-language": "en"}, follow=True)
        french = client.get(path, headers={"accept-language": "fr"}, follow=True)
        assert english.status_code in (200, 404), path
        left = sorted(
            text
            for text in visible_text(english.content.decode())
            & visible_text(french.content.decode())
            if text not in allowed and not is_content(text, content)
        )
        left += sorted(
            text
            for text in visible_text(french.content.decode())
            if text not in allowed
            and not is_content(text, content)
            and ENGLISH.search(without_content(text, content))
        )
        if left:
            untranslated[path] = left
    assert untranslated == {}, "\n".join(
        sorted({text for texts in untranslated.values() for text in texts})
    )

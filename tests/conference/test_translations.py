"""The French catalogue is complete and current, and every public page is French in French.

The page walk renders each page twice, in English and in French, logged out and logged in, and
takes the visible text of each (text nodes, and the aria-label, title, placeholder and alt
attributes). A text of the English page found again, the same, in the French page is
untranslated unless it is conference content (a value of the database: titles, names, bios,
rooms; or part of one), has no letters (times, counts, punctuation), or is one of our msgids
that French writes the same (“Menu”, “Sessions”). So a string never marked for translation
fails as surely as one marked but left untranslated, without a list of phrases to keep.
"""

import datetime
import re
import zoneinfo
from html.parser import HTMLParser

import pytest
from babel.messages.pofile import read_po
from django.apps import apps
from django.conf import settings
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.db import models
from django.test import RequestFactory
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.text import capfirst

from conference.admin.conference import embed_snippet
from conference.i18n.catalogues import DOMAINS, LOCALE, extract
from conference.models import ApiToken, Conference, Room, WebhookDelivery, WebhookEndpoint
from conference.pages.copies import forget_pages
from sessions.models import Attachment, CallQuestion, Proposal, Review, SavedSession, Session
from sessions.models.feedback import Feedback
from sessions.releases import release_schedule
from speakers.invitations import invitation_url
from speakers.models import Speaker, SpeakerInvitation
from tests.admin_forms import FormValues
from tests.builders import make_call, make_conference, make_proposal

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
    # Not the titles with their kind (display_title): pages print the kind in the visitor's
    # language, so an English “Lightning Talk: ” on a French page is a failure.
    # As a page shows a text over several lines (a form's textarea is read as one text).
    return values + [" ".join(value.split()) for value in values if "\n" in value]


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
    # Forwardable: the attendee, logged in, may accept it, so the page offers its button.
    invitation = SpeakerInvitation.objects.create(
        speaker=invited.first(), email="s@example.org", forwardable=True
    )
    Conference.objects.filter(slug="pytorch-eu-2026").update(feedback_days_after=3650)
    # A call open now, with a question, and the attendee's submitted proposal and draft.
    now = timezone.now()
    call = make_call(
        session.conference,
        opens_at=now - datetime.timedelta(days=1),
        closes_at=now + datetime.timedelta(days=30),
        text="We look for talks.",
    )
    call.tracks.set(session.conference.tracks.all()[:2])
    CallQuestion.objects.create(
        call=call, text="Given before?", answer_type="yes-no", required=True
    )
    submitted = make_proposal(session.conference, attendee, state=Proposal.State.SUBMITTED)
    draft = make_proposal(session.conference, attendee)
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
        f"{CONFERENCE}/call/",
        f"{CONFERENCE}/call/proposals/",
        f"{CONFERENCE}/call/new/",
        f"{CONFERENCE}/call/{submitted.code}/",
        f"{CONFERENCE}/call/{submitted.code}/withdraw/",
        f"{CONFERENCE}/call/{draft.code}/",
        f"{CONFERENCE}/call/{draft.code}/delete/",
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
        missing = path.endswith(("/no-such-page/", "/no-such-conference/"))
        assert english.status_code == (404 if missing else 200), path
        if left := untranslated_texts(english, french, allowed, content):
            untranslated[path] = left
    assert untranslated == {}, "\n".join(
        sorted({text for texts in untranslated.values() for text in texts})
    )


def untranslated_texts(english, french, allowed: set[str], content: list[str]) -> list[str]:
    """The texts of ``french`` left English: found the same in ``english``, or with English
    words glued to French, unless allowed or conference content."""
    left = sorted(
        text
        for text in visible_text(english.content.decode()) & visible_text(french.content.decode())
        if text not in allowed and text.strip(" ›") not in allowed and not is_content(text, content)
    )
    left += sorted(
        text
        for text in visible_text(french.content.decode())
        if text not in allowed
        and not is_content(text, content)
        and ENGLISH.search(without_content(text, content))
    )
    return left


# --- The admin, as organizers read it ---------------------------------------------------------

OUR_APPS = {"conference", "schedule", "speakers"}


@pytest.fixture
def organizer_site(site, django_user_model):
    """The public site's data, an organizer, and one row of each of our admin's models."""
    organizer = django_user_model.objects.create_superuser("organizer", "o@example.org", "pw")
    conference = Conference.objects.get(slug="pytorch-eu-2026")
    session = conference.sessions.public().order_by("starts_at", "pk").first()
    endpoint = WebhookEndpoint.objects.create(
        conference=conference, url="https://hooks.example.org/", events=["session.changed"]
    )
    WebhookDelivery.objects.create(endpoint=endpoint, event="session.changed", body="{}")
    ApiToken.objects.create(user=organizer, name="Display board", scope=ApiToken.Scope.READ)
    Attachment.objects.create(session=session, title="Slides", url="https://example.org/s.pdf")
    Feedback.objects.create(session=session, user=site[0], rating=4, comment="Clear and short.")
    release_schedule(conference, version="v1", comment="", user=organizer)
    # A proposal sent to the call (``site`` opened it) and a review: the review list and page.
    proposal = make_proposal(conference, site[0], state="submitted", title="Fast kernels")
    Review.objects.create(proposal=proposal, reviewer=organizer, score=2, comment="Clear.")
    return organizer, conference


def admin_paths(conference, organizer) -> list[str]:
    """The admin index, and the list, add form and a change form of each of our models (read
    from the admin's registry, so a model registered later is walked too), and our own pages."""
    request = RequestFactory().get("/admin/")
    request.user = organizer
    paths = [reverse("admin:index")]
    for model, model_admin in admin.site._registry.items():
        opts = model._meta
        if opts.app_label not in OUR_APPS:
            continue
        name = f"admin:{opts.app_label}_{opts.model_name}"
        paths.append(reverse(f"{name}_changelist"))
        if model_admin.has_add_permission(request):
            paths.append(reverse(f"{name}_add"))
        first = model._default_manager.order_by("pk").first()
        if first is not None:
            paths.append(reverse(f"{name}_change", args=[first.pk]))
    uninvited = Speaker.objects.filter(conference=conference, user=None).order_by("pk").first()
    return [
        *paths,
        reverse("admin:schedule_session_import", args=[conference.pk]),
        reverse("admin:schedule_session_release", args=[conference.pk]),
        reverse("admin:schedule_feedback_summary"),
        reverse("admin:speakers_speaker_invite", args=[uninvited.pk]),
    ]


# Django's admin writes these untranslated: the search icon's and the boolean icons' alt texts.
DJANGO_UNTRANSLATED = {"Search", "True", "False", "None"}


def admin_allowed() -> set[str]:
    """What the admin shows the same in French beyond our msgids (also capitalised, as the
    admin shows names): the session kinds' and audience levels' English labels (docs/i18n.md),
    language and zone names, the product's name, the names of other apps' models in the menu,
    and code: the embed snippet (its frame titled in the conference's language) and the query
    parameters its help names."""
    same = same_in_french()
    allowed = same | {capfirst(text) for text in same} | DJANGO_UNTRANSLATED
    allowed |= zone_names() | {"English", "Français", "confsched", "?theme=dark", "grid/"}
    allowed |= {str(label) for label in Session.Kind.labels + Session.AudienceLevel.labels}
    allowed |= {" ".join(embed_snippet(c).split()) for c in Conference.objects.all()}
    for model in admin.site._registry:
        if model._meta.app_label not in OUR_APPS:
            allowed |= {str(model._meta.app_config.verbose_name)}
            allowed |= {capfirst(model._meta.verbose_name_plural)}
    return allowed


def test_every_admin_page_of_ours_shows_no_english_in_french(client, organizer_site):
    organizer, conference = organizer_site
    client.force_login(organizer)
    content = content_strings()
    allowed = admin_allowed()
    untranslated = {}
    for path in admin_paths(conference, organizer):
        english = client.get(path, headers={"accept-language": "en"})
        french = client.get(path, headers={"accept-language": "fr"})
        assert (english.status_code, french.status_code) == (200, 200), path
        if left := untranslated_texts(english, french, allowed, content):
            untranslated[path] = left
    assert untranslated == {}, "\n".join(
        f"{path}: {text}" for path, texts in untranslated.items() for text in texts
    )


def test_a_double_booking_refused_in_the_admin_is_explained_in_french(client, organizer_site):
    organizer, conference = organizer_site
    client.force_login(organizer)
    booked, moved = (
        conference.sessions.public()
        .filter(room__isnull=False)
        .exclude(kind=Session.Kind.BREAK)
        .order_by("starts_at", "pk")[:2]
    )
    url = reverse("admin:schedule_session_change", args=[moved.pk])
    taken = reverse("admin:schedule_session_change", args=[booked.pk])
    responses = {}
    for language in ("en", "fr"):
        headers = {"accept-language": language}
        data = opened_change_form_in(client, url, headers)
        slot = opened_change_form_in(client, taken, headers)
        for name in ("room", "starts_at_0", "starts_at_1", "ends_at_0", "ends_at_1", "duration"):
            data[name] = slot[name]
        responses[language] = client.post(url, data, headers=headers)
    french = responses["fr"]
    assert french.status_code == 200
    with translation.override("fr"):
        when = booked.local_time_range
    assert french.context["adminform"].form.errors["room"] == [
        f"{booked.room} accueille déjà « {booked} » à ce moment-là ({when})."
    ]
    allowed, content = admin_allowed(), content_strings()
    assert untranslated_texts(responses["en"], french, allowed, content) == []


def opened_change_form_in(client, url: str, headers: dict) -> dict:
    """What the change form at ``url`` posts back unchanged, opened in a language."""
    parser = FormValues()
    parser.feed(client.get(url, headers=headers).content.decode())
    return {
        name: value
        for name, value in parser.data.items()
        if name != "csrfmiddlewaretoken" and "__prefix__" not in name
    }


# --- The schedule import's report, written in its uploader's language --------------------------

IMPORT_HEADER = "id,title,room,date,start,duration,speakers\n"
IMPORTED = "tensors,Tensors,Hall,2026-04-08,10:00,30,Grace Hopper\ngraphs,Graphs,Hall,2026-04-08,11:00,30,\n"
# The same sessions, one moved; one new, and one clashing with it (held, or refusing the file).
REIMPORTED = (
    "tensors,Tensors,Hall,2026-04-08,10:30,30,Grace Hopper\n"
    "graphs,Graphs,Hall,2026-04-08,11:00,30,\n"
    "kernels,Kernels,Hall,2026-04-08,12:00,30,Ada Lovelace\n"
    "clash,Clash,Hall,2026-04-08,12:10,30,\n"
)


def uploaded(client, conference, name: str, text: str, language: str, **data):
    """The import page's upload, checked, as an organizer reading ``language`` sees it."""
    headers = {"accept-language": language}
    url = reverse("admin:schedule_session_import", args=[conference.pk])
    file = SimpleUploadedFile(name, text.encode())
    return client.post(url, {"file": file, **data}, headers=headers, follow=True)


def report_lines(response) -> list[str]:
    """The lines of an import page's report: its summary, sections and problems."""
    lists = re.findall(r'<ul class="import-[^"]*">(.*?)</ul>', response.content.decode(), re.S)
    return [line for items in lists for line in re.findall(r"<li>(.*?)</li>", items, re.S)]


def test_a_schedule_import_is_reported_in_the_language_of_its_uploader(client, organizer_site):
    organizer, _ = organizer_site
    client.force_login(organizer)
    conference = make_conference(name="Import Test")
    first = uploaded(client, conference, "sessions.csv", IMPORT_HEADER + IMPORTED, "en")
    client.post(first.redirect_chain[-1][0])  # confirmed
    edited = Session.objects.get(conference=conference, title="Tensors")
    edited.title = "Tensors, edited here"  # kept: the file still says “Tensors”
    edited.save()
    files = {
        "preview": ("sessions.csv", IMPORT_HEADER + REIMPORTED, {"hold_conflicts": "on"}),
        "problems": ("sessions.csv", IMPORT_HEADER + REIMPORTED, {}),
        "unreadable": ("schedule.json", '{"schedule": {"conference": 3}}', {}),
    }
    allowed = admin_allowed()
    # As uploaded: the files' names, and the titles of the sessions the preview lists.
    titles = [line.split(",")[1] for line in REIMPORTED.splitlines()]
    content = content_strings() + [name for name, _, _ in files.values()] + titles
    untranslated = {}
    for case, (name, text, data) in files.items():
        english = uploaded(client, conference, name, text, "en", **data)
        french = uploaded(client, conference, name, text, "fr", **data)
        # Read by an organizer in English, the report stays in its uploader's French.
        in_english = client.get(french.redirect_chain[-1][0], headers={"accept-language": "en"})
        assert report_lines(in_english) == report_lines(french) != []
        if left := untranslated_texts(english, french, allowed, content):
            untranslated[case] = left
    assert untranslated == {}, "\n".join(
        f"{case}: {text}" for case, texts in untranslated.items() for text in texts
    )
    languages = set(conference.schedule_imports.values_list("language", flat=True))
    assert languages == {"en", "fr"}

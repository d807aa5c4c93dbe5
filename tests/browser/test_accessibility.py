"""axe-core (node_modules/axe-core, installed by `make test`) on every public page, WCAG 2.1 AA.

Each page is checked logged out and logged in, in light and dark, on a desktop and a phone
screen. One server and one set of data serve the whole module (the pages only read), and each
of the eight modes keeps one browser context: the tests are page × mode, so a failure names both.
Logins live in signed cookies here, so that a tab stays logged in from test to test although
each test's transaction is rolled back.
"""

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import override_settings
from pytest_django.live_server_helper import LiveServer

from conference.models import AccountEmail, Conference, Room
from sessions.cfp.co_speakers import invitation_url as co_speaker_invitation_url
from sessions.cfp.co_speakers import invite_co_speaker
from sessions.models import SavedSession, Session
from sessions.models.feedback import Feedback
from speakers.invitations import invitation_url
from speakers.models import Speaker, SpeakerInvitation
from tests.browser.axe import axe_violations
from tests.browser.conftest import new_context
from tests.builders import make_call, make_conference, make_proposal, paris

PASSWORD = "a long passphrase 42"
CONFERENCE = "/pytorch-eu-2026"

PAGES = [
    "conference list",
    "conference home",
    "schedule",
    "schedule grid",
    "session",
    "speakers",
    "speaker",
    "my schedule",
    "my talks",
    "speaker profile",
    "speaker invitation",
    "co-speaker invitation",
    "session feedback",
    "speaker feedback",
    "change log",
    "now and next",
    "door sign",
    "log in",
    "sign up",
    "password reset",
    "password change",
    "account",
    "account settings",
    "not found",
    "offline",
    "conference offline",
    "embed",
    "embed grid",
]
MODES = [
    (account, scheme, screen)
    for account in ("logged out", "logged in")
    for scheme in ("light", "dark")
    for screen in ("desktop", "phone")
]
SCREENS = {"desktop": {"width": 1366, "height": 900}, "phone": {"width": 390, "height": 844}}


# Each test in a transaction of its own; the module's data is committed before them (site).
pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def site(django_db_setup, django_db_blocker):
    """The demo conference, a second one (so / lists them) and an attendee with saved sessions,
    committed once and served by one live server for the module; removed afterwards."""
    with django_db_blocker.unblock():
        call_command("loaddata", "pytorch-eu-2026", verbosity=0)
        pycon = make_conference(slug="pycon-2027", name="PyCon 2027")
        attendee = get_user_model().objects.create_user(
            "attendee", "attendee@example.org", password=PASSWORD
        )
        # Invited to speak in a proposal to PyCon 2027, with the address they confirmed: logged
        # in, the page asks their name and bio for it (sessions/cfp/co_speaker_views.py).
        AccountEmail.objects.create(user=attendee, verified_address="attendee@example.org")
        make_call(pycon, opens_at=paris(1, 0, year=2020), closes_at=paris(1, 0, year=2100))
        proposer = get_user_model().objects.create_user("proposer", "proposer@example.org")
        co_speaker_invitation = invite_co_speaker(
            make_proposal(pycon, proposer, title="Sparse graphs"), "attendee@example.org", proposer
        )
        sessions = list(Session.objects.public().filter(conference__slug="pytorch-eu-2026"))
        sessions.sort(key=lambda session: (session.starts_at, session.pk))
        for session in sessions[3:7]:
            SavedSession.objects.add(attendee, session)
        session = sessions[3]
        speaker = Speaker.objects.filter(sessions=session).order_by("pk").first()
        room = Room.objects.filter(conference=session.conference).order_by("pk").first()
        # The attendee speaks too: My talks and the profile are theirs (speakers/views/self_service.py).
        speaker.user = attendee
        speaker.save()
        # Feedback open still (the demo's days are past), with a rating and comment to show.
        Conference.objects.filter(slug="pytorch-eu-2026").update(feedback_days_after=3650)
        Feedback.objects.create(session=session, user=attendee, rating=4, comment="Clear talk.")
        invited = Speaker.objects.filter(conference=session.conference, user=None).order_by("pk")
        invitation = SpeakerInvitation.objects.create(
            speaker=invited.first(), email="s@example.org"
        )
        paths = {
            "conference list": "/",
            "conference home": f"{CONFERENCE}/",
            "schedule": f"{CONFERENCE}/schedule/",
            "schedule grid": f"{CONFERENCE}/schedule/grid/",
            "session": session.get_absolute_url(),
            "speakers": f"{CONFERENCE}/speakers/",
            "speaker": speaker.get_absolute_url(),
            "my schedule": f"{CONFERENCE}/my-schedule/",
            "my talks": f"{CONFERENCE}/speaker/",
            "speaker profile": f"{CONFERENCE}/speaker/profile/",
            "speaker invitation": invitation_url(invitation).removeprefix(settings.SITE_URL),
            "co-speaker invitation": co_speaker_invitation_url(co_speaker_invitation).removeprefix(
                settings.SITE_URL
            ),
            "session feedback": f"{session.get_absolute_url()}feedback/",
            "speaker feedback": f"{CONFERENCE}/speaker/feedback/",
            "change log": f"{CONFERENCE}/changes/",
            "now and next": f"{CONFERENCE}/now/",
            "door sign": f"{CONFERENCE}/now/{room.slug}/",
            "log in": "/accounts/login/",
            "sign up": "/accounts/signup/",
            "password reset": "/accounts/password/reset/",
            "password change": "/accounts/password/change/",
            "account": "/accounts/",
            "account settings": "/accounts/settings/",
            "not found": f"{CONFERENCE}/no-such-page/",
            "offline": "/offline/",
            "conference offline": f"{CONFERENCE}/offline/",
            "embed": f"{CONFERENCE}/embed/",
            "embed grid": f"{CONFERENCE}/embed/grid/",
        }
        cookie_sessions = override_settings(
            SESSION_ENGINE="django.contrib.sessions.backends.signed_cookies"
        )
        cookie_sessions.enable()
        server = LiveServer("localhost")
        server._live_server_modified_settings.enable()
        try:
            yield server.url, paths
        finally:
            server._live_server_modified_settings.disable()
            server.stop()
            cookie_sessions.disable()
            call_command("flush", interactive=False, verbosity=0)


@pytest.fixture(scope="module")
def tabs(browser, site, axe_source):
    """One page per mode, opened (and logged in) the first time a test needs it."""
    base_url, _ = site
    opened = {}

    def tab(mode):
        if mode not in opened:
            account, scheme, screen = mode
            context = new_context(
                browser,
                module_wide=True,
                viewport=SCREENS[screen],
                color_scheme=scheme,
                timezone_id="Europe/Paris",
            )
            page = context.new_page()
            if account == "logged in":
                page.goto(base_url + "/accounts/login/")
                page.get_by_label("Username").fill("attendee")
                page.get_by_label("Password").fill(PASSWORD)
                page.get_by_role("button", name="Log in").click()
                page.get_by_role("button", name="Log out").wait_for()
            opened[mode] = page
        return opened[mode]

    yield tab
    for page in opened.values():
        page.context.close()


@pytest.mark.parametrize("mode", MODES, ids=[" ".join(mode) for mode in MODES])
@pytest.mark.parametrize("name", PAGES)
def test_page_has_no_accessibility_violations(tabs, site, axe_source, name, mode):
    base_url, paths = site
    page = tabs(mode)
    page.goto(base_url + paths[name])
    assert axe_violations(page, axe_source) == ""

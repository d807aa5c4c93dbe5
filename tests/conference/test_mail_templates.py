"""Every mail the site sends, rendered in each language: its plain-text part reads as written.

Mail templates are Jinja2 (conference/site/jinja2.py), whose ``trim_blocks`` eats the line break
after a block tag, ``{% endtrans %}`` included: a paragraph's end, or the line break before a
link, vanishes unless the template keeps it (``+%}``). These checks render each template with
the context its builder gives it and read the text as a mail program shows it.
"""

import itertools
import re
from pathlib import Path
from types import SimpleNamespace

import pytest
from django.conf import settings
from django.template.loader import render_to_string
from django.utils import translation

TEMPLATES = Path(settings.BASE_DIR) / "templates"
SITE = "https://schedule.example.org"

SESSIONS = [
    {
        "title": "Sparse graphs",
        "url": f"{SITE}/pycon/sessions/sparse-graphs/",
        "changes": ["moved from Tue 10:00 to Tue 14:00 (CEST), Central Room"],
        "now": "Tuesday 7 April, 14:00–14:30 CEST, Central Room",
    },
    {
        "title": "Vision",
        "url": "",
        "changes": ["cancelled (was Tue 11:00, Central Room)"],
        "now": "",
    },
]
RELEASE = {
    "name": "watcher",
    "conference": "PyCon Paris",
    "version": "v2",
    "count": "2 sessions",
    "comment": "Room swap after the keynote.",
    "sessions": SESSIONS,
    "zone": "Europe/Paris",
    "schedule_url": f"{SITE}/pycon/",
    "my_schedule_url": f"{SITE}/pycon/my-schedule/",
    "unsubscribe_url": f"{SITE}/account/unsubscribe/abc/",
}
INVITATION = {
    "speaker": SimpleNamespace(name="Ann Lee"),
    "conference": SimpleNamespace(name="PyCon Paris"),
    "accept_url": f"{SITE}/pycon/invitation/abc/",
    "days": 14,
    "site_url": SITE,
    "unsubscribe_url": "",
}
PROPOSAL = {
    "speaker": SimpleNamespace(name="Ann Lee"),
    "conference": SimpleNamespace(name="PyCon Paris"),
    "page_url": f"{SITE}/pycon/speaker/sessions/sparse-graphs/propose-change/",
    "site_url": SITE,
    "unsubscribe_url": "",
}
USER = SimpleNamespace(get_username=lambda: "ada", email="ada@example.org")
DECISION = {
    "name": "Grace Hopper",
    "title": "Fast kernels",
    "conference": "PyCon Paris",
    "proposal_url": f"{SITE}/pycon/call/ABC234/answer/",
    "confirm_url": f"{SITE}/pycon/call/ABC234/answer/",
    "unsubscribe_url": "",
}
ORGANIZERS_TEXT = (
    f"Dear Grace Hopper,\n\nConfirm here: {SITE}/pycon/call/ABC234/answer/\n\nThe team."
)

# Each mail template (without its .txt/.html) and a context as its builder gives it; the name of
# a variant says what differs.
MAILS = {
    "sessions/mail/release_attendee": RELEASE,
    "sessions/mail/release_speaker": RELEASE,
    "sessions/mail/release_speaker (no comment)": {**RELEASE, "comment": ""},
    "speakers/mail/invitation": {
        **INVITATION,
        "invitation": SimpleNamespace(email="ann@example.org", forwardable=False),
    },
    "speakers/mail/invitation (forwardable)": {
        **INVITATION,
        "invitation": SimpleNamespace(email="ann@example.org", forwardable=True),
    },
    "speakers/mail/proposal_decision": {
        **PROPOSAL,
        "accepted": True,
        "proposal": SimpleNamespace(original_title="Sparse graphs", message="Better, thanks."),
    },
    "speakers/mail/proposal_decision (refused, no message)": {
        **PROPOSAL,
        "accepted": False,
        "proposal": SimpleNamespace(original_title="Sparse graphs", message=""),
    },
    "conference/mail/team_invitation": {
        "team": SimpleNamespace(name="PyCon programme"),
        "conferences": "PyCon Paris",
        "roles": "programme",
        "invitation": SimpleNamespace(email="bo@example.org"),
        "accept_url": f"{SITE}/teams/invitation/abc/",
        "days": 7,
        "site_url": SITE,
        "unsubscribe_url": "",
    },
    "cfp/mail/decision_accepted": DECISION,
    "cfp/mail/decision_waitlisted": DECISION,
    "cfp/mail/decision_rejected": DECISION,
    "cfp/mail/decision_organizers": {
        "text": ORGANIZERS_TEXT,
        "paragraphs": [paragraph.split("\n") for paragraph in ORGANIZERS_TEXT.split("\n\n")],
        "conference": "PyCon Paris",
        "unsubscribe_url": "",
    },
    "cfp/mail/co_speaker_invitation": {
        "inviter": "Ann Lee",
        "proposal": SimpleNamespace(title="Sparse graphs"),
        "conference": SimpleNamespace(name="PyCon Paris"),
        "invitation": SimpleNamespace(email="bo@example.org"),
        "accept_url": f"{SITE}/pycon/call/invitation/abc/",
        "days": 14,
        "site_url": SITE,
        "unsubscribe_url": "",
    },
    "registration/verify_email": {
        "user": USER,
        "verify_url": f"{SITE}/account/verify/abc/",
        "site_url": SITE,
        "unsubscribe_url": "",
    },
}
# Django's password reset mail: text only, a template of its own name.
PASSWORD_RESET = {
    "user": USER,
    "site_name": "schedule.example.org",
    "protocol": "https",
    "domain": "schedule.example.org",
    "uid": "MQ",
    "token": "abc-123",
}


def template_of(name: str) -> str:
    return name.split(" (")[0]


def render_text(name: str, language: str) -> str:
    with translation.override(language):
        if name == "registration/password_reset_email":
            return render_to_string("registration/password_reset_email.html", PASSWORD_RESET)
        return render_to_string(f"{template_of(name)}.txt", MAILS[name])


TEXT_MAILS = [*MAILS, "registration/password_reset_email"]
# The footer of a release mail: why it came and how to stop it, one line each.
FOOTER_LINES = ("Unsubscribe:", "Se désabonner")
LANGUAGES = [code for code, _ in settings.LANGUAGES]


def test_every_mail_template_is_checked_here():
    """Text templates are mails' text parts and subjects; Django's password reset mail is an
    .html of its own name."""
    found = {
        str(path.relative_to(TEMPLATES).with_suffix(""))
        for pattern in ("**/*.txt", "registration/*_email.html")
        for path in TEMPLATES.glob(pattern)
        if path.name != "release_base.txt"
    }
    assert found == {template_of(name) for name in TEXT_MAILS} | {SUBJECT}


SUBJECT = "registration/password_reset_subject"


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_password_reset_subject_is_one_line(language):
    with translation.override(language):
        subject = render_to_string(f"{SUBJECT}.txt", PASSWORD_RESET)
    assert re.fullmatch(r"[^\n{}%]+\n?", subject), subject


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("name", TEXT_MAILS)
def test_a_mails_text_keeps_its_paragraphs_and_puts_links_apart(name, language):
    text = render_text(name, language)
    lines = text.strip("\n").split("\n")

    assert not re.search(r"\{[{%#]|[%}]\}|%\(\w+\)s", text), text  # nothing left unrendered
    assert not re.search(r"\S(?=https?://)", text), text  # no link glued to a word
    if lines[0].startswith(("Hello", "Bonjour")):  # a greeting stands alone
        assert lines[1] == "", text
    # Every paragraph is set apart from the next: a line ending a sentence is the last of its
    # paragraph, unless a link, a list or the footer's lines follow it.
    for line, after in itertools.pairwise(lines):
        if re.search(r"[.!?]$", line) and after and not after.startswith(("http", " ", "(")):
            assert after.startswith(FOOTER_LINES), f"{line!r} runs into {after!r} in:\n{text}"


@pytest.mark.parametrize("name", TEXT_MAILS)
def test_a_mails_text_has_the_same_lines_in_every_language(name):
    """A translation neither adds nor loses a line break: the same blank lines in each."""
    layouts = {
        language: [line == "" for line in render_text(name, language).strip("\n").split("\n")]
        for language in LANGUAGES
    }
    assert len({tuple(layout) for layout in layouts.values()}) == 1, layouts


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("name", list(MAILS))
def test_a_mails_html_renders_every_block_and_link(name, language):
    with translation.override(language):
        html = render_to_string(f"{template_of(name)}.html", MAILS[name])
    assert not re.search(r"\{[{%#]|[%}]\}|%\(\w+\)s", html), html
    for url in re.findall(r"https?://[^\s\"<>]+", render_text(name, language)):
        assert url in html


def test_the_verification_mail_reads_as_written():
    assert render_text("registration/verify_email", "en") == (
        "Hello ada,\n"
        "\n"
        f"Please confirm that ada@example.org is your address on {SITE} by opening this link "
        "within three days:\n"
        f"{SITE}/account/verify/abc/\n"
        "\n"
        "Until you do, we send nothing there, password resets included. If you did not create an "
        "account or change its address, ignore this email."
    )


def test_a_release_mail_reads_as_written():
    assert render_text("sessions/mail/release_attendee", "en") == (
        "Hello watcher,\n"
        "\n"
        "PyCon Paris has released a new version of its schedule (v2). It changes 2 sessions:\n"
        "\n"
        "Sparse graphs\n"
        "  - Moved from Tue 10:00 to Tue 14:00 (CEST), Central Room\n"
        "  Now: Tuesday 7 April, 14:00–14:30 CEST, Central Room\n"
        f"  {SITE}/pycon/sessions/sparse-graphs/\n"
        "\n"
        "Vision\n"
        "  - Cancelled (was Tue 11:00, Central Room)\n"
        "\n"
        "The organizers' note: Room swap after the keynote.\n"
        "\n"
        "Times are in Europe/Paris time, the conference's time zone: the zone you may have "
        "picked on the site is remembered by your browser only.\n"
        "\n"
        f"Your schedule: {SITE}/pycon/my-schedule/\n"
        "\n"
        "--\n"
        "You get this email because you saved these sessions and asked for schedule changes.\n"
        f"Unsubscribe: {SITE}/account/unsubscribe/abc/\n"
        "(or turn these emails off in your account settings on the site).\n"
    )

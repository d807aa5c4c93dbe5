"""A logged-in visitor's page put together compressed (conference.pages.compressed.CompressedPage)."""

import re
import zlib

import pytest
from django.core.management import call_command
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from conference.pages.compressed import (
    accepted_codings,
    adler_between,
    adler_combine,
    adler_pair,
    stored_blocks,
)
from sessions.models import SavedSession, Session
from tests.builders import make_conference, make_room, make_session, make_speaker, paris

pytestmark = pytest.mark.django_db

BROWSER = {"Accept-Encoding": "gzip, deflate, br, zstd"}
PAGES = ["/pycon/schedule/", "/pycon/schedule/grid/", "/pycon/speakers/"]


@pytest.fixture
def conference():
    """PyCon with 12 talks in 3 rooms, each with a speaker: pages large enough to be compressed."""
    conference = make_conference(slug="pycon")
    rooms = [make_room(conference, name=f"Room {number}") for number in range(3)]
    for number in range(12):
        make_session(
            conference,
            title=f"Talk {number}",
            room=rooms[number % 3],
            starts_at=paris(8, 9 + number // 3),
            speakers=[make_speaker(conference, name=f"Speaker {number}")],
        )
    return conference


def visitor(django_user_model, username, saved_titles=()):
    user = django_user_model.objects.create_user(username)
    for title in saved_titles:
        SavedSession.objects.add(user, Session.objects.get(title=title))
    client = Client()
    client.force_login(user)
    return client


def without_csrf_tokens(html: bytes) -> bytes:
    """A page without its CSRF tokens, which are masked anew for every response."""
    return re.sub(rb'name="csrfmiddlewaretoken" value="\w+"', b"", html)


@pytest.mark.parametrize("path", [*PAGES, "/pycon/sessions/talk-4/"])
@pytest.mark.parametrize("saved", [(), ("Talk 1",), ("Talk 0", "Talk 4", "Talk 11")])
def test_the_compressed_page_is_the_plain_page(django_user_model, conference, path, saved):
    client = visitor(django_user_model, "ada", saved)
    plain = client.get(path)
    compressed = client.get(path, headers=BROWSER)
    assert compressed["Content-Encoding"] == "deflate"
    assert "Accept-Encoding" in compressed["Vary"]
    assert plain.get("Content-Encoding") is None
    # zlib checks the page's Adler-32, put together from the usual page's.
    page = zlib.decompress(compressed.content)
    assert without_csrf_tokens(page) == without_csrf_tokens(plain.content)
    # A session's page is short (no zone picker): its personal parts, stored, weigh more in it.
    assert len(compressed.content) < len(page) * (0.5 if path in PAGES else 0.6)


@pytest.mark.parametrize("path", PAGES[:2])
def test_clashes_of_saved_sessions_go_into_the_compressed_page(django_user_model, conference, path):
    client = visitor(django_user_model, "ada", ["Talk 0", "Talk 1", "Talk 4"])
    compressed = client.get(path, headers=BROWSER)
    assert compressed["Content-Encoding"] == "deflate"
    clashing = re.findall(rb'value="remove" data-clash *>', zlib.decompress(compressed.content))
    assert len(clashing) == 2  # their cards show the clash mark


def test_staff_and_a_cancelled_saved_session_read_the_same_compressed(
    django_user_model, admin_user, conference
):
    ada = visitor(django_user_model, "ada", ["Talk 2"])
    Session.objects.filter(title="Talk 2").update(status=Session.Status.CANCELLED)
    staff = Client()
    staff.force_login(admin_user)
    for client in (ada, staff):
        plain = client.get("/pycon/schedule/")
        compressed = client.get("/pycon/schedule/", headers=BROWSER)
        assert compressed["Content-Encoding"] == "deflate"
        assert without_csrf_tokens(zlib.decompress(compressed.content)) == without_csrf_tokens(
            plain.content
        )


def test_a_message_of_the_visitor_goes_into_the_compressed_page(django_user_model, conference):
    client = visitor(django_user_model, "ada")
    talk = Session.objects.get(title="Talk 5")
    Session.objects.filter(pk=talk.pk).update(status=Session.Status.CANCELLED)
    client.post(talk.save_toggle["url"], {"action": "save", "next": "/pycon/schedule/"})
    compressed = client.get("/pycon/schedule/", headers=BROWSER)
    assert compressed["Content-Encoding"] == "deflate"
    assert b"Only published sessions can be saved." in zlib.decompress(compressed.content)


def test_saving_without_javascript_shows_its_confirmation_in_a_plain_page(
    django_user_model, conference
):
    """The confirmation beside the button does not fit the usual (empty) one's place: that one
    page goes out plain."""
    client = visitor(django_user_model, "ada")
    talk = Session.objects.get(title="Talk 3")
    client.post(talk.save_toggle["url"], {"action": "save", "next": "/pycon/schedule/"})
    page = client.get("/pycon/schedule/", headers=BROWSER)
    assert page.get("Content-Encoding") is None
    assert "Saved to your schedule." in page.content.decode()
    assert client.get("/pycon/schedule/", headers=BROWSER)["Content-Encoding"] == "deflate"


@pytest.mark.parametrize("path", PAGES)
def test_compressing_tells_no_more_of_the_visitor_than_the_plain_page_does(
    django_user_model, conference, path
):
    """BREACH: an attacker who makes a victim's browser ask for pages that repeat text of
    their choosing (the search box repeats ``q``), and watches the size of the encrypted
    answers, learns what the victim's page holds where its compression finds their guess.
    Here nothing of the visitor is compressed with anything: two visitors' compressed pages
    differ in size exactly as their plain pages do, whatever the page repeats."""
    ada = visitor(django_user_model, "ada", ["Talk 1", "Talk 7"])  # same name lengths
    bob = visitor(django_user_model, "bob")
    guesses = [
        "",
        "Talk",
        "Talk 1",
        'value="remove" data-clash',
        "★ Saved",
        "Talk 7 Saved",
    ]
    for guess in guesses:
        query = {"q": guess} if guess else {}
        sizes = {}
        for name, client in (("ada", ada), ("bob", bob)):
            plain = client.get(path, query).content
            compressed = client.get(path, query, headers=BROWSER)
            assert compressed["Content-Encoding"] == "deflate"
            sizes[name] = (len(plain), len(compressed.content))
        plain_difference = sizes["ada"][0] - sizes["bob"][0]
        assert sizes["ada"][1] - sizes["bob"][1] == plain_difference, guess


def test_a_logged_in_schedule_weighs_at_most_half_again_the_anonymous_one(
    client, django_user_model
):
    """The demo conference: a Save button and a clash mark per card are the visitor's; each
    state of them takes the same room compressed, and that room is small."""
    call_command("loaddata", "pytorch-eu-2026", verbosity=0)
    talks = Session.objects.public().exclude(kind=Session.Kind.BREAK).order_by("starts_at")
    ada = visitor(django_user_model, "ada", [talk.title for talk in talks[:3]])
    for path in ("/pytorch-eu-2026/schedule/", "/pytorch-eu-2026/schedule/grid/"):
        anonymous = client.get(path, headers=BROWSER)
        logged_in = ada.get(path, headers=BROWSER)
        assert (anonymous["Content-Encoding"], logged_in["Content-Encoding"]) == ("gzip", "deflate")
        assert len(logged_in.content) <= 1.5 * len(anonymous.content)


def test_a_visitor_whose_browser_refuses_deflate_gets_the_plain_page(django_user_model, conference):
    client = visitor(django_user_model, "ada", ["Talk 1"])
    for accepted in ("gzip", "gzip, deflate;q=0", "identity"):
        page = client.get("/pycon/schedule/", headers={"Accept-Encoding": accepted})
        assert page.get("Content-Encoding") is None
        assert b"Talk 1" in page.content


def test_anonymous_visitors_still_get_the_finished_page_in_gzip(client, conference):
    page = client.get("/pycon/schedule/", headers=BROWSER)
    assert page["Content-Encoding"] == "gzip"


@pytest.mark.parametrize(
    ("header", "codings"),
    [
        ("gzip, deflate, br, zstd", {"gzip", "deflate", "br", "zstd"}),
        ("deflate;q=0, gzip;q=0.5", {"gzip"}),
        ("DEFLATE ; q=0.000", set()),
        ("deflate;q=0.1", {"deflate"}),
        ("", set()),
    ],
)
def test_accepted_codings_leave_out_those_refused(rf, header, codings):
    assert accepted_codings(rf.get("/", headers={"Accept-Encoding": header})) == codings


def test_a_logged_in_page_costs_as_many_queries_compressed(
    django_user_model, conference, django_assert_num_queries
):
    client = visitor(django_user_model, "ada", ["Talk 1"])
    client.get("/pycon/schedule/")
    with CaptureQueriesContext(connection) as plain:
        client.get("/pycon/schedule/")
    with django_assert_num_queries(len(plain.captured_queries)):
        client.get("/pycon/schedule/", headers=BROWSER)


@pytest.mark.parametrize("size", [0, 1, 65_535, 65_536, 200_000])
def test_stored_blocks_hold_any_length_of_text(size):
    text = bytes(range(256)) * (size // 256) + b"x" * (size % 256)
    stream = stored_blocks(text) + b"\x03\x00"  # then an empty final block
    assert zlib.decompress(stream, wbits=-zlib.MAX_WBITS) == text


def test_adler32_of_a_text_comes_together_from_its_parts():
    text = b"The usual page, " * 5000 + b"then what the visitor saved." * 300
    cut = 41_234
    whole, before = adler_pair(zlib.adler32(text)), adler_pair(zlib.adler32(text[:cut]))
    assert adler_between(before, whole, cut, len(text)) == adler_pair(zlib.adler32(text[cut:]))
    first, second = adler_pair(zlib.adler32(text[:cut])), adler_pair(zlib.adler32(text[cut:]))
    assert adler_combine(first, second, len(text) - cut) == whole

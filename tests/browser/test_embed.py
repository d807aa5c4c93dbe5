"""The embeddable schedule inside a page of another origin: shown when that origin is on the
conference's list and sized to its content, refused by the browser when it is not."""

import functools
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

import pytest
from django.conf import settings
from playwright.sync_api import expect

from conference.admin.conference import embed_snippet
from conference.models import Conference

SLUG = "pytorch-eu-2026"


@pytest.fixture
def other_site(tmp_path):
    """A website of another origin (another host and port) that pastes the admin's snippet."""
    handler = functools.partial(SimpleHTTPRequestHandler, directory=str(tmp_path))
    handler.log_message = lambda *args: None
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    # shutdown() waits for the server's next poll: the default half second, after every test.
    threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
    ).start()
    server.origin = f"http://127.0.0.1:{server.server_port}"
    server.folder = tmp_path
    yield server
    server.shutdown()


def host_page(other_site, live_server, path: str = "") -> str:
    conference = Conference.objects.get(slug=SLUG)
    with_site = embed_snippet(conference).replace(settings.SITE_URL, live_server.url)
    snippet = with_site.replace(f"/{SLUG}/embed/", f"/{SLUG}/embed/{path}")
    # The frame's load event, which fires whether the browser showed it or refused it.
    page = (
        "<!DOCTYPE html><html lang='en'><title>Our conference</title><h1>Programme</h1>"
        f"{snippet}<script>document.querySelector('iframe').addEventListener('load', "
        "function () { document.body.dataset.framed = 'loaded'; });</script></html>"
    )
    (other_site.folder / "programme.html").write_text(page)
    return f"{other_site.origin}/programme.html"


def test_a_listed_website_shows_the_embed_sized_to_its_content(page, live_server, other_site):
    Conference.objects.filter(slug=SLUG).update(embed_origins=other_site.origin)

    page.goto(host_page(other_site, live_server))

    frame = page.frame_locator("iframe")
    expect(frame.locator("article.session").first).to_be_visible()
    # The snippet sets the frame's height from the embed's message: taller than its first 40rem.
    page.wait_for_function("document.querySelector('iframe').offsetHeight > 1000")
    link = frame.locator("article.session h3 a").first
    assert link.evaluate("a => a.target || document.querySelector('base').target") == "_blank"


def test_a_website_not_on_the_list_is_refused_by_the_browser(page, live_server, other_site):
    Conference.objects.filter(slug=SLUG).update(embed_origins="https://elsewhere.example.org")

    page.goto(host_page(other_site, live_server))

    expect(page.locator("body")).to_have_attribute("data-framed", "loaded")
    assert page.frame_locator("iframe").locator("article.session").count() == 0
    assert page.locator("iframe").evaluate("frame => frame.offsetHeight") < 1000


def test_a_listed_website_still_cannot_frame_the_sites_other_pages(page, live_server, other_site):
    Conference.objects.filter(slug=SLUG).update(embed_origins=other_site.origin)
    host = host_page(other_site, live_server)
    (other_site.folder / "programme.html").write_text(
        (other_site.folder / "programme.html").read_text().replace("/embed/", "/schedule/")
    )

    page.goto(host)

    expect(page.locator("body")).to_have_attribute("data-framed", "loaded")
    assert page.frame_locator("iframe").locator("article.session").count() == 0

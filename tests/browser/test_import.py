"""The admin's schedule import in Chromium: upload a CSV, read the preview, confirm."""

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import expect

from sessions.models import Session
from tests.browser.conftest import close_page, page_of

SHOTS = "/tmp/shots-import"  # docs/images/import-preview.png is the desktop one
JSON_RPC = "Beyond JSON-RPC"  # the demo's talk in Junior Stage, 10:35–11:00 on 8 April


def logged_in(page, username="organizer", log_in="Log in", log_out="Log out"):
    get_user_model().objects.create_superuser(username, f"{username}@example.org", "plan-it-2026")
    page.goto(page.base_url + "/admin/login/")
    page.locator("#id_username").fill(username)
    page.locator("#id_password").fill("plan-it-2026")
    page.get_by_role("button", name=log_in).click()
    expect(page.get_by_role("button", name=log_out)).to_be_visible()
    return page


@pytest.fixture
def organizer(page):
    return logged_in(page)


@pytest.fixture
def french_organizer(browser, live_server, demo_conference):
    """An organizer whose browser asks for French."""
    page = page_of(browser, live_server, locale="fr-FR")
    yield logged_in(page, "organisatrice", log_in="Se connecter", log_out="Se déconnecter")
    close_page(page)


def csv_retitling(session: Session) -> bytes:
    """A table with one new talk and the demo's JSON-RPC talk under a new title, as it is else."""
    speakers = "; ".join(speaker.name for speaker in session.ordered_speakers)
    start, end = session.local_starts_at, session.local_ends_at
    return (
        "id,title,kind,track,room,date,start,end,speakers,description,status\n"
        f"{session.guid},JSON-RPC at scale,{session.kind},{session.track.name},"
        f"{session.room.name},{start:%Y-%m-%d},"
        f'{start:%H:%M},{end:%H:%M},{speakers},"{session.description}",{session.status}\n'
        "new-talk,Sparse tensors in practice,talk,,,,,,Grace Hopper,,draft\n"
    ).encode()


def check_retitling_csv(page, import_link: str, file_label: str, check_button: str) -> Session:
    """From the session list, upload ``csv_retitling`` of the JSON-RPC talk and check it, with
    the admin's words in the organizer's language; the talk."""
    json_rpc = Session.objects.select_related("room", "track").get(title__startswith=JSON_RPC)
    page.goto(page.base_url + "/admin/schedule/session/")
    page.get_by_role("link", name=import_link, exact=True).click()
    page.get_by_label(file_label).set_input_files(
        {"name": "sessions.csv", "mimeType": "text/csv", "buffer": csv_retitling(json_rpc)}
    )
    page.get_by_role("button", name=check_button).click()
    return json_rpc


def test_organizer_uploads_a_csv_sees_the_changes_and_confirms(organizer):
    page = organizer
    json_rpc = check_retitling_csv(page, "Import", "File", "Check the file")

    expect(page.get_by_text("Nothing has been written yet.")).to_be_visible()
    expect(page.locator("#import-created")).to_contain_text("create speaker “Grace Hopper”")
    sessions = page.locator("#import-sessions tbody tr")
    expect(sessions).to_have_count(2)
    expect(sessions.filter(has_text="Sparse tensors in practice")).to_contain_text("unscheduled")
    retitled = sessions.filter(has_text="JSON-RPC at scale")
    expect(retitled).to_contain_text("Wed 8 Apr 2026")
    expect(retitled).to_contain_text("10:35–11:00 CEST")
    expect(retitled).to_contain_text("Junior Stage")
    expect(retitled.locator("li")).to_have_count(1)  # the title, and nothing else
    expect(retitled.locator("li")).to_contain_text(
        "title: Beyond JSON-RPC: Scaling Model Context Protocols With gRPC … → JSON-RPC at scale"
    )
    assert not Session.objects.filter(title="Sparse tensors in practice").exists()
    page.locator("#toggle-nav-sidebar").click()  # the preview alone, for README's picture
    page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(
        path=f"{SHOTS}/import-preview-desktop.png",
        clip={"x": 0, "y": 0, "width": 1280, "height": 580},
    )

    page.get_by_role("button", name="Confirm the import").click()

    expect(page.locator(".messagelist .success")).to_contain_text("Imported")
    json_rpc.refresh_from_db()
    assert json_rpc.title == "JSON-RPC at scale"
    new = Session.objects.get(title="Sparse tensors in practice")
    assert (new.status, new.starts_at, [s.name for s in new.ordered_speakers]) == (
        "draft",
        None,
        ["Grace Hopper"],
    )


def test_a_french_organizer_reads_the_check_of_a_csv_in_french(french_organizer):
    page = french_organizer
    check_retitling_csv(page, "Importer", "Fichier", "Vérifier le fichier")

    expect(page.locator("#import-created")).to_contain_text("créer l’intervenant « Grace Hopper »")
    retitled = page.locator("#import-sessions tbody tr").filter(has_text="JSON-RPC at scale")
    expect(retitled).to_contain_text("mer. 8 avr. 2026")
    expect(retitled).to_contain_text("Junior Stage")
    expect(retitled.locator("li")).to_contain_text("titre")
    for name, size in (("desktop", (1366, 900)), ("phone", (390, 844))):
        page.set_viewport_size({"width": size[0], "height": size[1]})
        page.screenshot(path=f"{SHOTS}/import-preview-fr-{name}.png", full_page=True)
        # The sessions' table fits: a phone lists each session as a block, no sideways scroll.
        assert page.evaluate("document.documentElement.scrollWidth") <= size[0]

import json

import pytest
from django.core.management import call_command
from django.test import override_settings

from conference.site import offline
from sessions.models import Session
from tests.builders import make_conference, make_room, make_session, make_speaker, make_track


@pytest.fixture
def worker_cache_cleared():
    offline.worker_script.cache_clear()
    yield
    offline.worker_script.cache_clear()


def worker_config(response):
    first_statement = response.content.decode().split(";\n", 1)[0]
    return json.loads(first_statement.removeprefix("const CONFIG = "))


def test_the_service_worker_is_javascript_for_the_whole_site_checked_at_each_visit(
    client, worker_cache_cleared
):
    response = client.get("/service-worker.js")
    assert response.status_code == 200
    assert response["Content-Type"] == "text/javascript; charset=utf-8"
    assert response["Service-Worker-Allowed"] == "/"
    assert response["Cache-Control"] == "no-cache"
    config = worker_config(response)
    assert config["neverKept"] == ["/admin/", "/api/", "/accounts/"]
    assert config["forgetPagesOn"] == [
        "/accounts/login/",
        "/accounts/logout/",
        "/accounts/signup/",
        "/admin/login/",
        "/admin/logout/",
    ]
    assert config["offlinePage"] == "/offline/"


def test_the_service_worker_knows_the_hashed_static_names_of_production(
    client, worker_cache_cleared, tmp_path
):
    storage = {"BACKEND": "django.contrib.staticfiles.storage.ManifestStaticFilesStorage"}
    with override_settings(STATIC_ROOT=tmp_path, STORAGES={"staticfiles": storage}):
        call_command("collectstatic", "--no-input", verbosity=0)
        config = worker_config(client.get("/service-worker.js"))
    assert len(config["precache"]) == len(offline.PRECACHED_STATIC)
    for url, name in zip(config["precache"], offline.PRECACHED_STATIC, strict=True):
        stem, _, extension = name.rpartition(".")
        assert url.startswith(f"/static/{stem}.")
        assert url.endswith(f".{extension}")
        assert (tmp_path / url.removeprefix("/static/")).is_file()
        assert url != f"/static/{name}"


def test_a_new_release_gets_a_new_worker_version(client, worker_cache_cleared, settings):
    first = worker_config(client.get("/service-worker.js"))["version"]
    offline.worker_script.cache_clear()
    settings.RELEASE = "next-release"
    assert worker_config(client.get("/service-worker.js"))["version"] != first


def test_the_manifest_makes_the_site_an_installable_app(client):
    response = client.get("/manifest.webmanifest")
    assert response["Content-Type"] == "application/manifest+json"
    manifest = response.json()
    assert manifest["start_url"] == "/"
    assert manifest["display"] == "standalone"
    assert manifest["theme_color"] == "#1b1f24"
    assert [(icon["sizes"], icon.get("purpose", "any")) for icon in manifest["icons"]] == [
        ("192x192", "any"),
        ("512x512", "any"),
        ("512x512", "maskable"),
    ]


@pytest.mark.django_db
def test_pages_link_the_manifest_and_their_policy_allows_the_worker(client):
    make_conference(slug="pycon")
    response = client.get("/pycon/")
    policy = response["Content-Security-Policy"]
    assert "worker-src 'self'" in policy
    assert "manifest-src 'self'" in policy
    html = response.content.decode()
    assert '<link rel="manifest" href="/manifest.webmanifest">' in html
    assert '<meta name="service-worker" content="/service-worker.js">' in html


def test_the_icons_are_the_sizes_the_manifest_says():
    from PIL import Image

    from conference.site.settings import BASE_DIR

    for name, size in [
        ("icon-192.png", 192),
        ("icon-512.png", 512),
        ("icon-maskable-512.png", 512),
    ]:
        with Image.open(BASE_DIR / "static" / "icons" / name) as image:
            assert image.size == (size, size)


@pytest.mark.django_db
@pytest.mark.parametrize("door", ["/accounts/logout/", "/admin/logout/"])
def test_logging_out_tells_the_browser_to_drop_what_it_kept(client, django_user_model, door):
    client.force_login(django_user_model.objects.create_user("ada", is_staff=True))
    response = client.post(door)
    assert response["Clear-Site-Data"] == '"cache", "storage"'
    assert "_auth_user_id" not in client.session


@pytest.mark.django_db
def test_a_refused_admin_log_out_clears_nothing(client, django_user_model):
    client.force_login(django_user_model.objects.create_user("ada"))  # not staff: still logged in
    response = client.post("/admin/logout/")
    assert "Clear-Site-Data" not in response
    assert "_auth_user_id" in client.session


@pytest.mark.django_db
def test_the_offline_page_says_the_page_was_not_kept(client):
    response = client.get("/offline/")
    assert response.status_code == 200
    assert response["Cache-Control"] == "no-cache"
    assert "<h1>You are offline</h1>" in response.content.decode()


@pytest.mark.django_db
def test_the_sites_offline_page_offers_no_log_in_it_cannot_know_the_visitor(client):
    html = client.get("/offline/").content.decode()
    assert ">Log in<" not in html
    assert ">Sign up<" not in html


@pytest.mark.django_db
def test_a_conferences_offline_page_has_its_header_and_the_visitors_account(
    client, django_user_model
):
    make_conference(name="PyData Paris", slug="pydata")
    client.force_login(django_user_model.objects.create_user("ada"))
    response = client.get("/pydata/offline/")
    assert response["Cache-Control"] == "private, no-cache"
    html = response.content.decode()
    assert '<a class="brand" href="/pydata/">PyData Paris</a>' in html
    assert '<a href="/pydata/schedule/">Back to the schedule</a>' in html
    assert '<span class="muted-on-dark">ada</span>' in html
    assert ">Log in<" not in html


@pytest.mark.django_db
def test_the_worker_finds_a_conferences_offline_page_by_its_slug(client, worker_cache_cleared):
    config = worker_config(client.get("/service-worker.js"))
    assert config["conferenceOfflinePage"] == "/SLUG/offline/"


@pytest.mark.django_db
def test_the_offline_manifest_lists_every_page_of_the_conference(client):
    conference = make_conference(slug="pycon")
    speaker = make_speaker(conference=conference, slug="ada")
    hall = make_room(conference, name="Hall", slug="hall")
    make_room(conference, name="Empty", slug="empty")
    ai = make_track(conference, name="AI", slug="ai")
    make_track(conference, name="Unused", slug="unused")
    session = make_session(
        conference=conference, slug="keynote", speakers=[speaker], room=hall, track=ai
    )
    make_session(conference=conference, slug="draft", status=Session.Status.DRAFT)
    day = conference.day_of(session.starts_at).isoformat()

    response = client.get("/pycon/offline.json")
    assert response["Cache-Control"] == "no-cache"
    manifest = response.json()
    assert manifest["pages"] == [
        "/pycon/",
        "/pycon/schedule/",
        "/pycon/changes/",
        "/pycon/schedule/grid/",
        f"/pycon/schedule/grid/?day={day}",
        # The filtered lists people open at the venue: each day, track and room with sessions.
        f"/pycon/schedule/?day={day}",
        "/pycon/schedule/?track=ai",
        "/pycon/schedule/?room=hall",
        "/pycon/speakers/",
        "/pycon/sessions/keynote/",
        "/pycon/speakers/ada/",
    ]
    assert manifest["present"] == ["/pycon/now/"]
    assert manifest["resources"] == [
        "/pycon/tracks.css",
        "/pycon/schedule/grid/rows.css",
        "/pycon/offline/",
    ]
    assert client.get("/pycon/offline.json", HTTP_IF_NONE_MATCH=response["ETag"]).status_code == 304


@pytest.mark.django_db
def test_the_offline_manifests_version_moves_with_the_conference(client):
    conference = make_conference(slug="pycon")
    session = make_session(conference=conference)
    before = client.get("/pycon/offline.json").json()["version"]
    session.title = "A new title"
    session.save()
    assert client.get("/pycon/offline.json").json()["version"] != before


# What the worker keeps of a 1,000-session conference for a logged-out visitor (docs/attendees.md,
# "At the venue, offline"): every page, page about the present and resource of the manifest, as
# stored (uncompressed). The lists filtered by day, track and room are 6.2 MB of it.
OFFLINE_BUDGET_AT_1000_SESSIONS = 75_000_000


# Rendering the 1,859 pages takes most of a minute; their bytes are the same on any database.
@pytest.mark.one_database
@pytest.mark.django_db
def test_a_1000_session_conference_kept_offline_stays_under_its_budget(client):
    from bench.generator import generate_conference

    generate_conference(1000, slug="big")
    manifest = client.get("/big/offline.json").json()
    stored = 0
    for address in manifest["pages"] + manifest["present"] + manifest["resources"]:
        response = client.get(address)
        assert response.status_code == 200, address
        stored += len(response.content)
    assert len(manifest["pages"]) == 1859
    assert stored < OFFLINE_BUDGET_AT_1000_SESSIONS


def test_browsers_asking_for_a_favicon_get_the_sites_icon(client):
    response = client.get("/favicon.ico")
    assert response.status_code == 301
    assert response.headers["Location"].endswith(".png")
    assert "icons/icon-192" in response.headers["Location"]

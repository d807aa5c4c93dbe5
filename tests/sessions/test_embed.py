"""The embeddable schedule: /<conf>/embed/ and /<conf>/embed/grid/ (sessions/views/embed.py)."""

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError

from sessions.models import Session
from tests.builders import make_conference, make_room, make_session, make_track, paris

pytestmark = pytest.mark.django_db

EMBED = "/pycon/embed/"
GRID = "/pycon/embed/grid/"


@pytest.fixture
def conference():
    """PyCon with two embedding origins allowed, a room, a track, two talks and a break."""
    conference = make_conference(
        slug="pycon",
        name="PyCon Demo",
        embed_origins="https://pycon.example.org\nhttp://localhost:4000",
    )
    room = make_room(conference, name="Main hall")
    web = make_track(conference, name="Web")
    make_session(conference, title="Keynote on typing", room=room, starts_at=paris(8, 9))
    make_session(conference, title="Django at scale", track=web, starts_at=paris(8, 11))
    make_session(conference, title="Lunch", kind=Session.Kind.BREAK, starts_at=paris(8, 12))
    return conference


def frame_ancestors(response) -> str:
    policy = response["Content-Security-Policy"]
    return next(part for part in policy.split(";") if "frame-ancestors" in part).strip()


def test_the_embed_lists_the_sessions_without_the_sites_chrome_or_save_buttons(client, conference):
    html = client.get(EMBED).content.decode()

    assert "Keynote on typing" in html
    assert "Django at scale" in html
    assert '<base target="_blank">' in html  # links open the full site
    assert "site-header" not in html
    assert "site-footer" not in html
    assert "Save" not in html
    assert "Log in" not in html


def test_only_the_conferences_listed_websites_may_frame_the_embed(client, conference):
    response = client.get(EMBED)

    assert frame_ancestors(response) == (
        "frame-ancestors https://pycon.example.org http://localhost:4000"
    )
    assert "X-Frame-Options" not in response


def test_every_other_page_still_refuses_to_be_framed(client, conference):
    response = client.get("/pycon/schedule/")

    assert frame_ancestors(response) == "frame-ancestors 'none'"
    assert response["X-Frame-Options"] == "DENY"


def test_without_a_listed_website_nobody_may_frame_the_embed(client, conference):
    conference.embed_origins = ""
    conference.save()

    assert frame_ancestors(client.get(EMBED)) == "frame-ancestors 'none'"


def test_filters_and_the_theme_come_as_parameters(client, conference):
    html = client.get(EMBED, {"track": "web", "theme": "dark"}).content.decode()

    assert "Django at scale" in html
    assert "Keynote on typing" not in html
    assert '<html lang="en" data-theme="dark"' in html


def test_an_unknown_theme_follows_the_visitors_own(client, conference):
    html = client.get(EMBED, {"theme": "<script>"}).content.decode()

    assert "data-theme" not in html
    assert "&lt;script&gt;" not in html


def test_the_grid_embed_shows_the_day_in_rooms(client, conference):
    html = client.get(GRID).content.decode()

    assert "Wednesday 8 April 2026" in html
    assert "Main hall" in html
    assert "Keynote on typing" in html
    assert "Save" not in html


def test_a_logged_in_visitor_gets_the_same_page_as_everyone(client, conference):
    anonymous = client.get(EMBED).content
    user = get_user_model().objects.create_user("ada", "ada@example.org", "long-password-1")
    client.force_login(user)

    response = client.get(EMBED)

    assert response.content == anonymous
    assert "ada" not in response.content.decode()


def test_the_embed_costs_the_same_queries_however_many_sessions(
    client, conference, django_assert_max_num_queries
):
    for hour in range(13, 18):
        make_session(conference, starts_at=paris(8, hour))
    with django_assert_max_num_queries(12):
        assert client.get(EMBED).status_code == 200


def test_an_unpublished_conference_has_no_embed(client, conference):
    conference.is_published = False
    conference.save()

    assert client.get(EMBED).status_code == 404


@pytest.mark.parametrize(
    "line",
    [
        "pycon.example.org",
        "https://pycon.example.org/schedule/",
        "https://*.example.org",
        "ftp://pycon.example.org",
        "'self'",
        "https://pycon.example.org:port",
        "https://a.example.org;script-src 'unsafe-inline' 'unsafe-eval'",
        "https://good.example.org https:",
        "https://good.example.org\t'self'",
        "https://pycon.example.org:99999",
        "https://pycon.example.org,https://other.example.org",
    ],
)
def test_a_website_that_is_not_an_origin_is_refused_naming_it(conference, line):
    conference.embed_origins = f"https://fine.example.org\n{line}"

    with pytest.raises(ValidationError) as refused:
        conference.full_clean()

    assert f"line 2, “{line}”" in " ".join(refused.value.message_dict["embed_origins"])


def test_a_source_saved_before_origins_were_checked_never_reaches_the_policy(client, conference):
    conference.__class__.objects.filter(pk=conference.pk).update(
        embed_origins="https://pycon.example.org\nhttps://a.example.org;script-src 'unsafe-eval'"
        "\nhttps://good.example.org https:"
    )

    assert frame_ancestors(client.get(EMBED)) == "frame-ancestors https://pycon.example.org"


def test_the_admin_offers_a_snippet_to_copy_with_the_embeds_address(admin_client, conference):
    html = admin_client.get(
        f"/admin/conference/conference/{conference.pk}/change/"
    ).content.decode()

    assert f"{settings.SITE_URL}/pycon/embed/" in html
    assert "confsched:height" in html
    assert "Copy to clipboard" in html


def test_the_admin_refuses_a_bad_website_with_a_message(admin_client, conference):
    from tests.admin_forms import opened_change_form

    url = f"/admin/conference/conference/{conference.pk}/change/"
    data = {**opened_change_form(admin_client, url), "embed_origins": "https://ok.example.org/x"}

    response = admin_client.post(url, data)

    assert response.status_code == 200
    assert "Enter one origin per line" in response.content.decode()
    conference.refresh_from_db()
    assert conference.embed_origins.startswith("https://pycon.example.org")

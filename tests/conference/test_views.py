import datetime

import pytest
from django.urls import reverse
from django.views.defaults import server_error

from tests.builders import make_conference, make_room, make_session, make_track, paris

pytestmark = pytest.mark.django_db


def test_home_redirects_to_the_only_published_conference(client):
    make_conference(slug="pycon")
    make_conference(is_published=False)
    response = client.get("/")
    assert response.status_code == 302
    assert response.url == "/pycon/"


def test_home_lists_published_conferences_when_there_are_several(client):
    make_conference(name="Alpha Conf", starts_on=datetime.date(2026, 4, 7))
    make_conference(
        name="Beta Conf", starts_on=datetime.date(2026, 5, 7), ends_on=datetime.date(2026, 5, 8)
    )
    response = client.get("/")
    assert [conference.name for conference in response.context["object_list"]] == [
        "Beta Conf",
        "Alpha Conf",
    ]


def test_conference_page_shows_dates_links_tracks_and_rooms(client):
    conference = make_conference(
        name="PyData Paris",
        registration_url="https://example.org/tickets",
        help_url="https://example.org/help",
    )
    make_track(conference, name="Data Engineering")
    make_room(conference, name="Master Stage", capacity=500)
    html = client.get(conference.get_absolute_url()).content.decode()
    assert "Conference dates: Tuesday 7 April – Wednesday 8 April 2026" in html
    assert 'href="https://example.org/tickets"' in html
    assert 'href="https://example.org/help"' in html
    assert "Data Engineering" in html
    assert "Master Stage</a> (500 seats)" in html


def test_conference_page_gives_the_days_with_sessions_not_an_empty_first_day(client):
    conference = make_conference(starts_on=datetime.date(2026, 4, 7))
    make_session(conference)  # 8 April
    html = client.get(conference.get_absolute_url()).content.decode()
    assert '<p class="lead">Wednesday 8 April 2026 · Paris</p>' in html
    assert "7 April" not in html


def test_conference_page_names_days_apart_one_by_one(client):
    conference = make_conference(ends_on=datetime.date(2026, 4, 9))
    make_session(conference, starts_at=paris(7, 10))
    make_session(conference, starts_at=paris(9, 10))
    html = client.get(conference.get_absolute_url()).content.decode()
    assert '<p class="lead">Tuesday 7 April and Thursday 9 April 2026 · Paris</p>' in html


def test_conference_page_without_a_registration_url_has_no_registration_link(client):
    conference = make_conference(registration_url="")
    html = client.get(conference.get_absolute_url()).content.decode()
    assert "Register" not in html


def test_unpublished_conference_is_a_404_for_the_public(client):
    conference = make_conference(is_published=False)
    assert client.get(conference.get_absolute_url()).status_code == 404


@pytest.mark.parametrize(
    "page",
    ["", "schedule/", "schedule/grid/", "speakers/", "sessions/talk/", "my-schedule/", "now/"],
)
def test_every_page_of_an_unpublished_conference_tells_staff_the_public_cannot_see_it(
    admin_client, page
):
    conference = make_conference(is_published=False)
    make_session(conference, title="Talk")
    response = admin_client.get(f"{conference.get_absolute_url()}{page}")
    assert response.status_code == 200
    assert "Preview: this conference is not published yet." in response.content.decode()


def test_a_published_conference_has_no_preview_banner(admin_client):
    conference = make_conference()
    response = admin_client.get(conference.get_absolute_url())
    assert "Preview:" not in response.content.decode()


def test_unknown_conference_gets_the_404_page(client):
    response = client.get("/no-such-conference/")
    assert response.status_code == 404
    assert "Page not found" in response.content.decode()


def test_a_missing_page_of_a_conference_keeps_its_header_links_and_the_visitors_account(
    client, django_user_model
):
    make_conference(name="PyData Paris", slug="pydata")
    client.force_login(django_user_model.objects.create_user("ada"))
    response = client.get("/pydata/sessions/no-such-talk/")
    assert response.status_code == 404
    html = response.content.decode()
    assert '<a class="brand" href="/pydata/">PyData Paris</a>' in html
    assert 'href="/pydata/schedule/">View the schedule</a>' in html
    assert '<span class="muted-on-dark">ada</span>' in html
    assert ">Log in<" not in html


def test_a_missing_page_of_an_unpublished_conference_names_no_conference(client):
    make_conference(name="Secret Summit", slug="secret", is_published=False)
    response = client.get("/secret/schedule/")
    assert response.status_code == 404
    html = response.content.decode()
    assert "Secret Summit" not in html
    assert '<a class="brand" href="/">Conferences</a>' in html


def test_a_server_error_gets_the_plain_500_page(rf):
    response = server_error(rf.get("/pycon/schedule/"))
    assert response.status_code == 500
    assert "Something went wrong on our side" in response.content.decode()


def test_track_stylesheet_gives_each_track_its_colour(client):
    conference = make_conference()
    make_track(conference, name="Security", colour="#0b6e4f")
    response = client.get(
        reverse("conference:track-styles", kwargs={"conference_slug": conference.slug})
    )
    assert response["Content-Type"] == "text/css; charset=utf-8"
    assert ".track-security { --track-colour: #0b6e4f; }" in response.content.decode()


@pytest.mark.parametrize("count", [1, 12])
def test_conference_page_query_count_does_not_grow(client, django_assert_max_num_queries, count):
    conference = make_conference()
    for _ in range(count):
        make_room(conference)
        make_track(conference)
        make_session(conference)
    with django_assert_max_num_queries(5):
        response = client.get(conference.get_absolute_url())
    assert len(response.context["rooms"]) == count
    assert response.context["session_days"] == "Wednesday 8 April 2026"

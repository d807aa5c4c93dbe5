"""Which language a visitor reads (conference/i18n/languages.py), how it is kept apart in the page
cache, the switcher, and dates and times as each language writes them (docs/i18n.md)."""

import re

import pytest
from django.conf import settings
from django.urls import reverse

from conference.pages.copies import forget_pages
from tests.builders import make_conference, make_session, make_speaker, paris

pytestmark = pytest.mark.django_db


@pytest.fixture
def conference():
    """PyCon with one talk, 10:35–11:00 on 8 April, whose times each language writes its way."""
    conference = make_conference(slug="pycon", name="PyCon")
    make_session(conference, title="Talk", starts_at=paris(8, 10, 35), ends_at=paris(8, 11))
    return conference


def html_lang(response) -> str:
    return response.content.decode().split('<html lang="', 1)[1].split('"', 1)[0]


def test_a_browser_asking_for_french_gets_the_schedule_in_french(client, conference):
    response = client.get("/pycon/schedule/", headers={"accept-language": "fr-FR,fr;q=0.9"})
    assert html_lang(response) == "fr"
    assert response["Content-Language"] == "fr"
    assert "<h1>Programme</h1>" in response.content.decode()


def test_a_visitor_with_no_preference_reads_the_conference_in_its_language(client, conference):
    conference.language = "fr"
    conference.save()
    assert html_lang(client.get("/pycon/schedule/")) == "fr"


def test_a_preference_we_cannot_meet_falls_back_to_the_conference_language(client, conference):
    conference.language = "fr"
    conference.save()
    response = client.get("/pycon/schedule/", headers={"accept-language": "de-DE,de;q=0.9"})
    assert html_lang(response) == "fr"


def test_the_browser_language_wins_over_the_conference_language(client, conference):
    conference.language = "fr"
    conference.save()
    response = client.get("/pycon/schedule/", headers={"accept-language": "en-GB,en;q=0.8"})
    assert html_lang(response) == "en"


def test_the_chosen_language_wins_over_the_browser_language(client, conference):
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "fr"
    response = client.get("/pycon/schedule/", headers={"accept-language": "en"})
    assert html_lang(response) == "fr"


def test_pages_outside_a_conference_use_english_without_a_preference(client, conference):
    assert html_lang(client.get("/accounts/login/")) == "en"


@pytest.mark.parametrize("logged_in", [False, True])
def test_french_and_english_visitors_never_get_each_others_cached_page(
    client, django_user_model, conference, logged_in
):
    if logged_in:
        client.force_login(django_user_model.objects.create_user("ann"))
    french = {"accept-language": "fr"}
    english = {"accept-language": "en"}
    for headers in (french, english, french, english):  # the second of each is from the cache
        response = client.get("/pycon/schedule/", headers=headers)
        expected = "Programme" if headers is french else "Schedule"
        assert f"<h1>{expected}</h1>" in response.content.decode()
        assert "Accept-Language" in [name.strip() for name in response["Vary"].split(",")]
        assert "Cookie" in [name.strip() for name in response["Vary"].split(",")]


def test_each_language_has_its_own_etag(client, conference):
    french = client.get("/pycon/schedule/", headers={"accept-language": "fr"})
    english = client.get("/pycon/schedule/", headers={"accept-language": "en"})
    assert french["ETag"] != english["ETag"]
    again = client.get(
        "/pycon/schedule/", headers={"accept-language": "en", "if-none-match": french["ETag"]}
    )
    assert again.status_code == 200


def test_the_switcher_posts_the_current_page_with_its_query(client, conference):
    html = client.get("/pycon/schedule/?q=talk&utm_source=x").content.decode()
    form = html.split('<form class="language-form"', 1)[1].split("</form>", 1)[0]
    assert 'action="/i18n/setlang/"' in form
    assert '<input type="hidden" name="next" value="/pycon/schedule/?q=talk">' in form
    assert '<button type="submit" name="language" value="fr" lang="fr"' in form


def test_switching_language_returns_to_the_same_page_in_that_language(client, conference):
    response = client.post("/i18n/setlang/", {"language": "fr", "next": "/pycon/schedule/?q=talk"})
    assert response.status_code == 302
    assert response["Location"] == "/pycon/schedule/?q=talk"
    assert response.cookies[settings.LANGUAGE_COOKIE_NAME].value == "fr"
    french = client.get(response["Location"], headers={"accept-language": "en"})
    assert "<h1>Programme</h1>" in french.content.decode()


def test_switching_language_refuses_to_leave_the_site(client, conference):
    response = client.post("/i18n/setlang/", {"language": "fr", "next": "https://evil.example/"})
    assert response["Location"] == "/"


def test_a_session_page_writes_its_date_and_time_in_french(client, conference):
    forget_pages()
    response = client.get("/pycon/sessions/talk/", headers={"accept-language": "fr"})
    assert "mercredi 8 avril 2026, 10 h 35</time>–<time" in response.content.decode()
    assert "11 h 00 CEST" in response.content.decode()


@pytest.mark.parametrize(
    ("language", "day"), [("en", "Wed 8 Apr, 10:35"), ("fr", "mer. 8 avr., 10 h 35")]
)
def test_a_speakers_sessions_name_their_day_as_the_language_abbreviates_it(
    client, conference, language, day
):
    speaker = make_speaker(conference, name="Ada Lovelace")
    conference.sessions.get().speakers.add(speaker)
    response = client.get(speaker.get_absolute_url(), headers={"accept-language": language})
    assert f'<span class="time">{day}</time>' in strip_tags_but_time(response)


def strip_tags_but_time(response) -> str:
    """The page without its <time> openings, so a card's time reads as text."""
    return re.sub(r"<time [^>]*>", "", response.content.decode())


def test_the_admin_dashboard_abbreviates_months_as_french_does(admin_client, conference):
    html = admin_client.get("/admin/", headers={"accept-language": "fr"}).content.decode()
    assert "· 7 avr. 2026–8 avr. 2026</span>" in html


def test_the_planner_speaks_the_organizers_language(admin_client, conference):
    url = reverse("admin:schedule_session_planner", args=[conference.pk])
    html = admin_client.get(url, headers={"accept-language": "fr"}).content.decode()
    assert '<label for="planner-track">Thème</label>' in html
    assert '">mercredi 8 avril 2026 <span class="planner-zone">heures en Europe/Paris<' in html


def test_the_planner_script_gets_its_strings_in_the_organizers_language(admin_client):
    response = admin_client.get("/admin/jsi18n/confsched/", headers={"accept-language": "fr"})
    assert '"Move cancelled.": "D\\u00e9placement annul\\u00e9."' in response.content.decode()


def test_a_session_page_writes_its_date_and_time_in_english(client, conference):
    response = client.get("/pycon/sessions/talk/", headers={"accept-language": "en"})
    assert "Wednesday 8 April 2026, 10:35</time>–<time" in response.content.decode()

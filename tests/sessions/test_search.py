"""Search and filter addresses: what ?q= finds, the match count, days on offer, clean URLs.

The schedule pages and the API share SessionFilter, so search is checked through both.
"""

import datetime
import re

import pytest
from django.core.management import call_command
from django.urls import reverse
from rest_framework.test import APIClient

from sessions.models import Session
from tests.builders import make_session, make_speaker, make_track, paris

pytestmark = pytest.mark.django_db


def schedule_url(conference, view="sessions:schedule"):
    return reverse(view, kwargs={"conference_slug": conference.slug})


def titles(response):
    return sorted(session.title for session in response.context["sessions"])


def api_titles(conference, query):
    url = reverse("api:session-list", kwargs={"conference_slug": conference.slug})
    return sorted(row["title"] for row in APIClient().get(url, {"q": query}).json()["results"])


def test_search_finds_sessions_by_the_name_of_their_type(client, conference):
    make_session(conference, title="Quick one", kind=Session.Kind.LIGHTNING_TALK)
    make_session(conference, title="Long one", kind=Session.Kind.TALK)
    response = client.get(schedule_url(conference), {"q": "lightning"})
    assert titles(response) == ["Quick one"]
    assert api_titles(conference, "lightning") == ["Quick one"]


def test_search_finds_sessions_by_their_track_name(client, conference):
    make_session(conference, title="Kernels", track=make_track(conference, name="Compilers"))
    make_session(conference, title="Agents", track=make_track(conference, name="Agents & Interop"))
    make_session(conference, title="No track")
    assert titles(client.get(schedule_url(conference), {"q": "compil"})) == ["Kernels"]
    assert api_titles(conference, "compil") == ["Kernels"]


def test_search_finds_sessions_by_a_speakers_role(client, conference):
    researcher = make_speaker(conference, role="Research Scientist")
    make_session(conference, title="Findings", speakers=[researcher])
    make_session(conference, title="Shipping", speakers=[make_speaker(conference)])
    assert titles(client.get(schedule_url(conference), {"q": "scientist"})) == ["Findings"]
    assert api_titles(conference, "scientist") == ["Findings"]


def test_demo_search_for_lightning_finds_every_lightning_talk(client):
    call_command("loaddata", "pytorch-eu-2026", verbosity=0)
    conference = Session.objects.first().conference
    lightning = conference.sessions.filter(kind=Session.Kind.LIGHTNING_TALK).count()
    response = client.get(schedule_url(conference), {"q": "Lightning"})
    assert len(response.context["sessions"]) == lightning == 20
    assert f"{lightning} sessions match" in response.content.decode()


def test_schedule_says_how_many_sessions_match_a_search(client, conference):
    for number in range(3):
        make_session(conference, title=f"Compiler talk {number}", starts_at=paris(8, 9 + number))
    make_session(conference, title="Other")
    html = client.get(schedule_url(conference), {"q": "compiler"}).content.decode()
    assert re.search(r'<p class="match-count" role="status">3 sessions match</p>', html)


def test_schedule_says_one_session_matches_in_the_singular(client, conference):
    make_session(conference, title="Only one")
    html = client.get(schedule_url(conference), {"q": "only"}).content.decode()
    assert ">1 session matches</p>" in html


def test_schedule_without_filters_counts_nothing(client, conference):
    make_session(conference)
    assert "match-count" not in client.get(schedule_url(conference)).content.decode()


def test_grid_counts_the_matches_of_its_day(client, conference):
    make_session(conference, title="Day one talk", starts_at=paris(7, 10))
    make_session(conference, title="Day two talk", starts_at=paris(8, 10))
    html = client.get(
        schedule_url(conference, "sessions:schedule-grid"), {"q": "talk", "day": "2026-04-08"}
    ).content.decode()
    assert ">1 session matches on this day</p>" in html


def test_grid_day_alone_counts_nothing(client, conference):
    make_session(conference, starts_at=paris(8, 10))
    response = client.get(schedule_url(conference, "sessions:schedule-grid"), {"day": "2026-04-08"})
    assert "match-count" not in response.content.decode()


@pytest.mark.parametrize("view", ["sessions:schedule", "sessions:schedule-grid"])
def test_empty_filter_fields_redirect_to_the_address_without_them(client, conference, view):
    track = make_track(conference)
    response = client.get(
        f"{schedule_url(conference, view)}?q=&day=&track={track.slug}&kind=&level=&q=+"
    )
    assert response.status_code == 302
    assert response["Location"] == f"{schedule_url(conference, view)}?track={track.slug}"


def test_a_form_submitted_with_every_field_empty_redirects_to_the_bare_page(client, conference):
    response = client.get(f"{schedule_url(conference)}?q=&day=&kind=&level=")
    assert (response.status_code, response["Location"]) == (302, schedule_url(conference))


def test_a_filter_address_without_empty_fields_is_served_as_is(client, conference):
    make_session(conference, title="Compilers")
    response = client.get(schedule_url(conference), {"q": "compilers", "tz": "UTC"})
    assert response.status_code == 200


def test_day_tabs_offer_only_days_with_sessions(client, conference):
    conference.ends_on = datetime.date(2026, 4, 9)
    conference.save()
    make_session(conference, starts_at=paris(7, 10))
    make_session(conference, starts_at=paris(9, 10))
    html = client.get(schedule_url(conference)).content.decode()
    offered = re.findall(r'<a href="\?day=(2026-04-\d\d)"', html)
    assert offered == ["2026-04-07", "2026-04-09"]


def test_day_tabs_leave_out_days_whose_sessions_are_drafts(client, conference):
    make_session(conference, starts_at=paris(7, 10), status=Session.Status.DRAFT)
    make_session(conference, starts_at=paris(8, 10))
    html = client.get(schedule_url(conference)).content.decode()
    assert re.findall(r'<a href="\?day=(2026-04-\d\d)"', html) == ["2026-04-08"]


def test_day_tabs_count_days_on_the_conference_clock(client, conference):
    # 00:30 in Paris on 8 April is still 7 April in UTC.
    make_session(conference, starts_at=paris(8, 0, 30))
    html = client.get(schedule_url(conference)).content.decode()
    assert re.findall(r'<a href="\?day=(2026-04-\d\d)"', html) == ["2026-04-08"]


def test_grid_day_tabs_are_the_days_with_sessions(client, conference):
    make_session(conference, starts_at=paris(8, 10))
    response = client.get(schedule_url(conference, "sessions:schedule-grid"))
    assert response.context["day_tabs"] == [datetime.date(2026, 4, 8)]


def test_a_day_without_sessions_still_filters_to_nothing(client, conference):
    make_session(conference, starts_at=paris(8, 10))
    response = client.get(schedule_url(conference), {"day": "2026-04-07"})
    assert (response.status_code, titles(response)) == (200, [])

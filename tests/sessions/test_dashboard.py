import datetime
import re

import pytest
from django.urls import reverse

from sessions.models import Session
from sessions.releases import release_schedule
from tests.builders import (
    make_conference,
    make_room,
    make_session,
    make_team,
    make_track,
    make_unscheduled_session,
    paris,
)

pytestmark = pytest.mark.django_db


def figures(summary) -> dict[str, int]:
    return {
        **{status.label: status.count for status in summary.statuses},
        "Unscheduled": summary.unscheduled,
        "Warnings": summary.warnings,
    }


def test_admin_index_names_the_product_not_django(admin_client):
    html = admin_client.get(reverse("admin:index")).content.decode()
    assert "confsched" in html
    assert "Django administration" not in html
    assert "Django site admin" not in html


def test_dashboard_counts_each_conferences_sessions_by_status_unscheduled_and_warnings(
    admin_client,
):
    conference = make_conference(name="PyCon")
    track = make_track(conference)
    make_session(conference, room=make_room(conference), track=track)
    make_session(conference, room=make_room(conference), track=track)  # the track in parallel
    make_session(conference, status=Session.Status.CANCELLED, starts_at=paris(8, 12))
    make_unscheduled_session(conference)
    make_session(make_conference(name="DjangoCon"), status=Session.Status.DRAFT)
    response = admin_client.get(reverse("admin:index"))
    summaries = {s.conference.name: figures(s) for s in response.context["conference_summaries"]}
    assert summaries == {
        "PyCon": {"Drafts": 1, "Published": 2, "Cancelled": 1, "Unscheduled": 1, "Warnings": 2},
        "DjangoCon": {"Drafts": 1, "Published": 0, "Cancelled": 0, "Unscheduled": 0, "Warnings": 0},
    }


def test_french_dashboard_heads_every_count_in_the_plural(admin_client):
    """“Publiées 35 · Non placées 0”, not the statuses' singular “Publiée 35” beside a plural."""
    conference = make_conference(name="PyCon")
    make_session(conference)
    html = admin_client.get(reverse("admin:index"), headers={"Accept-Language": "fr"})
    headings = re.findall(r"<dt>(.*?)</dt>", html.content.decode())
    assert headings[:4] == ["Brouillons", "Publiées", "Annulées", "Non placées"]


def test_dashboard_says_the_last_release_and_what_changed_since(admin_client, admin_user):
    conference = make_conference(name="PyCon", is_published=True)
    make_session(conference, title="Opening")
    release_schedule(conference, version="v1", comment="", user=admin_user)
    make_session(conference, title="Closing", starts_at=paris(8, 17))
    html = admin_client.get(reverse("admin:index")).content.decode()
    assert "Last release: <strong>v1</strong>" in html
    assert "Since then: 1 new." in html


@pytest.mark.parametrize(
    ("language", "changes"),
    [
        ("en", "1 new, 2 retitled"),
        ("fr", "1 nouvelle, 2 renommées"),  # was “1 nouvelle(s), 2 renommée(s)”
    ],
)
def test_dashboard_counts_the_changes_to_announce_with_plural_forms(
    admin_client, admin_user, language, changes
):
    conference = make_conference(name="PyCon", is_published=True)
    make_session(conference, title="Opening")
    make_session(conference, title="Keynote", starts_at=paris(8, 11))
    release_schedule(conference, version="v1", comment="", user=admin_user)
    Session.objects.filter(title="Opening").update(title="Welcome")
    Session.objects.filter(title="Keynote").update(title="Keynote: the future")
    make_session(conference, title="Closing", starts_at=paris(8, 17))

    html = admin_client.get(reverse("admin:index"), headers={"Accept-Language": language})

    assert f"{changes}." in html.content.decode()


def test_dashboard_links_to_each_conferences_tools_and_public_pages(admin_client):
    conference = make_conference(name="PyCon", slug="pycon")
    html = admin_client.get(reverse("admin:index")).content.decode()
    for url in [
        reverse("admin:schedule_session_planner", args=[conference.pk]),
        reverse("admin:schedule_session_release", args=[conference.pk]),
        reverse("admin:schedule_session_import", args=[conference.pk]),
        "/pycon/changes/",
        "/pycon/",
    ]:
        assert f'href="{url}"' in html


def test_dashboard_hides_the_tools_from_a_team_that_may_not_change_sessions(
    client, django_user_model
):
    conference = make_conference(name="PyCon")
    user = django_user_model.objects.create_user("viewer", is_staff=True)
    make_team(user, conferences=[conference], is_reviewer=True)
    client.force_login(user)
    response = client.get(reverse("admin:index"))
    [summary] = response.context["conference_summaries"]
    assert (summary.planner_url, summary.release_url, summary.import_url) == (None, None, None)
    planner = reverse("admin:schedule_session_planner", args=[conference.pk])
    assert planner not in response.content.decode()


def test_dashboard_is_not_shown_to_staff_who_may_not_see_sessions(client, django_user_model):
    make_conference(name="PyCon")
    client.force_login(django_user_model.objects.create_user("clerk", is_staff=True))
    assert client.get(reverse("admin:index")).context["conference_summaries"] == []


@pytest.mark.parametrize("count", [1, 12])
def test_dashboard_query_count_does_not_grow_with_sessions(
    admin_client, django_assert_max_num_queries, count
):
    conference = make_conference()
    track = make_track(conference)
    rooms = [make_room(conference), make_room(conference)]
    for number in range(count):
        make_session(
            conference,
            room=rooms[number % 2],
            track=track,
            starts_at=paris(7, 8) + datetime.timedelta(hours=number // 2),
        )
    make_unscheduled_session(conference)
    # 13: the login's session and user, the admin's log, the last ended conferences, the
    # conferences shown, the counts, then per conference its latest release, its public
    # schedule (2) and its warnings (4).
    with django_assert_max_num_queries(13):
        response = admin_client.get(reverse("admin:index"))
    [summary] = response.context["conference_summaries"]
    assert (figures(summary)["Published"], summary.unscheduled) == (count, 1)


def make_past_conferences(count: int, clock) -> list:
    """``count`` conferences over by 7 December 2026 (the clock's day), the latest ending first."""
    clock(paris(8, 12).replace(month=12, day=7))
    return [
        make_conference(
            name=f"Past {number:02}",
            starts_on=datetime.date(2025, 12, 1) - datetime.timedelta(days=30 * number),
            ends_on=datetime.date(2025, 12, 2) - datetime.timedelta(days=30 * number),
        )
        for number in range(count)
    ]


def test_dashboard_shows_conferences_to_come_and_the_three_last_ones(admin_client, clock):
    past = make_past_conferences(5, clock)
    coming = make_conference(
        name="Coming", starts_on=datetime.date(2027, 4, 7), ends_on=datetime.date(2027, 4, 8)
    )

    response = admin_client.get(reverse("admin:index"))

    shown = [summary.conference for summary in response.context["conference_summaries"]]
    assert shown == [coming, *past[:3]]
    assert "Show 2 earlier conferences" in response.content.decode()


def test_dashboard_shows_every_conference_one_click_away(admin_client, clock):
    past = make_past_conferences(5, clock)

    response = admin_client.get(reverse("admin:index"), {"past": "all"})

    shown = [summary.conference for summary in response.context["conference_summaries"]]
    assert shown == past
    assert "earlier conference" not in response.content.decode()


@pytest.mark.parametrize("count", [2, 20])
def test_dashboard_query_count_does_not_grow_with_past_conferences(
    admin_client, django_assert_max_num_queries, clock, count
):
    make_past_conferences(count, clock)

    # The log-in's session and user, the admin's log, the last ended conferences, how many ended,
    # the conferences shown and their counts; then for each of the three shown at most, its
    # latest release, public schedule and (no session) warnings.
    with django_assert_max_num_queries(7 + 3 * 3):
        response = admin_client.get(reverse("admin:index"))

    assert len(response.context["conference_summaries"]) == min(count, 3)


@pytest.mark.parametrize(
    ("language", "moment"),
    [("en", "Tue 7 Apr 2026 18:05 CEST"), ("fr", "mar. 7 avr. 2026 18 h 05 CEST")],
)
def test_dashboard_writes_the_last_release_time_as_its_language_does(
    admin_client, admin_user, clock, language, moment
):
    conference = make_conference(name="PyCon", is_published=True)
    make_session(conference, title="Opening")
    clock(paris(7, 18, 5))
    release_schedule(conference, version="v1", comment="", user=admin_user)
    html = admin_client.get(reverse("admin:index"), headers={"Accept-Language": language})
    assert moment in html.content.decode()

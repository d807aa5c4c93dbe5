import datetime
import re
from html import unescape
from urllib.parse import parse_qs, urlsplit

import pytest
from django.core.management import call_command
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils.html import strip_tags

from sessions.models import Attachment, SavedSession, Session, SessionLink
from sessions.models.loaders import PARALLELS_SHOWN
from sessions.views.schedule import ScheduleView
from tests.builders import (
    SAVED,
    make_conference,
    make_room,
    make_session,
    make_speaker,
    make_track,
    paris,
)

pytestmark = pytest.mark.django_db


def schedule_url(conference, view="sessions:schedule"):
    return reverse(view, kwargs={"conference_slug": conference.slug})


def titles(response):
    return [session.title for session in response.context["sessions"]]


def test_schedule_groups_sessions_by_day_then_start_time(client, conference):
    make_session(conference, title="Opening", starts_at=paris(7, 9))
    make_session(
        conference, title="Room A talk", starts_at=paris(8, 10, 35), room=make_room(conference)
    )
    make_session(
        conference, title="Room B talk", starts_at=paris(8, 10, 35), room=make_room(conference)
    )
    response = client.get(schedule_url(conference))
    days = response.context["days"]
    assert [day.date for day in days] == [datetime.date(2026, 4, 7), datetime.date(2026, 4, 8)]
    assert [[s.title for s in slot.sessions] for slot in days[1].slots] == [
        ["Room A talk", "Room B talk"]
    ]
    html = response.content.decode()
    assert "Wednesday 8 April 2026" in html
    assert ">10:35 CEST</time>" in html


@pytest.mark.parametrize(
    ("language", "shown"),
    [("en", "Lightning Talk: Live Migration"), ("fr", "Présentation éclair : Live Migration")],
)
def test_session_pages_and_their_title_name_the_kind_in_the_visitors_language(
    client, conference, language, shown
):
    session = make_session(conference, title="Live Migration", kind=Session.Kind.LIGHTNING_TALK)
    headers = {"Accept-Language": language}

    page = client.get(session.get_absolute_url(), headers=headers).content.decode()
    schedule = client.get(schedule_url(conference), headers=headers).content.decode()
    grid = client.get(schedule_url(conference, "sessions:schedule-grid"), headers=headers)

    assert f"<title>{shown} · PyCon</title>" in page
    assert f"{shown}</a>" in schedule
    # The grid's badge stands for the prefix; screen readers hear the prefix itself.
    hidden_prefix = shown.removesuffix("Live Migration")
    assert f'<span class="visually-hidden">{hidden_prefix}</span>' in grid.content.decode()
    assert ("Lightning Talk:" in page + schedule) == (language == "en")


def test_schedule_card_shows_what_the_seed_shows(client, conference):
    speaker = make_speaker(conference, name="Mike Krom", company="ACF Cybersolutions")
    session = make_session(
        conference,
        title="Live Migration",
        kind=Session.Kind.LIGHTNING_TALK,
        starts_at=paris(8, 10, 35),
        ends_at=paris(8, 10, 45),
        room=make_room(conference, name="Central Room"),
        track=make_track(conference, name="Security & Privacy"),
        audience_level=Session.AudienceLevel.INTERMEDIATE,
        speakers=[speaker],
    )
    Attachment.objects.create(session=session, title="slides", url="https://example.org/s.pdf")
    html = client.get(schedule_url(conference)).content.decode()
    assert "Lightning Talk: Live Migration</a>" in html
    assert ">Mike Krom</a>, ACF Cybersolutions" in html
    assert ">10:35</time>–<time" in html
    assert '>10:45<span class="zone"> CEST</span></time>' in html
    assert '<span class="room">Central Room</span>' in html
    assert (
        '<a class="track track-security-privacy" href="/pycon/schedule/?track=security-privacy">'
        "Security &amp; Privacy</a>"
    ) in html
    assert "Audience level: </span>Intermediate" in html
    assert "Slides attached" in html


def test_schedule_marks_only_sessions_that_have_slides(client, conference):
    with_slides = make_session(conference, title="With slides", slug="with-slides")
    make_session(
        conference, title="Without slides", slug="without-slides", room=make_room(conference)
    )
    Attachment.objects.create(session=with_slides, title="slides", url="https://example.org/s.pdf")
    html = client.get(schedule_url(conference)).content.decode()
    cards = {
        title: card
        for card in html.split("<article")[1:]
        for title in re.findall(r">(With(?:out)? slides)</a>", card)
    }
    assert "Slides attached" in cards["With slides"]
    assert "Slides attached" not in cards["Without slides"]


@pytest.mark.parametrize("view", ["sessions:schedule", "sessions:schedule-grid"])
def test_a_card_says_slides_attached_only_when_a_file_or_link_is_there(client, conference, view):
    announced = make_session(
        conference, title="Announced", slug="announced", room=make_room(conference)
    )
    Attachment.objects.create(session=announced, title="Slides to come")
    html = client.get(schedule_url(conference, view)).content.decode()
    assert "Announced</a>" in html
    assert "Slides attached" not in html


def test_cards_on_a_speaker_page_name_the_day(client, conference):
    speaker = make_speaker(conference, name="Ada", slug="ada")
    make_session(conference, title="Day one", starts_at=paris(7, 10), speakers=[speaker])
    make_session(conference, title="Day two", starts_at=paris(8, 10), speakers=[speaker])
    html = client.get(speaker.get_absolute_url()).content.decode()
    assert re.findall(r'<span class="time">(\w+ \d+ \w+), <time', html) == [
        "Tue 7 Apr",
        "Wed 8 Apr",
    ]


@pytest.mark.parametrize("view", ["sessions:schedule", "sessions:schedule-grid"])
def test_cards_under_a_day_heading_do_not_repeat_the_day(client, conference, view):
    make_session(conference, room=make_room(conference))
    html = client.get(schedule_url(conference, view)).content.decode()
    assert '<span class="time"><time' in html
    assert "Wed 8 Apr" not in html


def test_a_card_links_its_track_to_the_schedule_filtered_by_it(client, conference):
    make_session(conference, track=make_track(conference, name="Compilers", slug="compilers"))
    response = client.get(schedule_url(conference), {"track": "compilers"})
    html = response.content.decode()
    assert 'href="/pycon/schedule/?track=compilers"' in html
    assert len(response.context["sessions"]) == 1


def test_schedule_shows_breaks_as_breaks_without_a_link(client, conference):
    make_session(conference, title="Coffee break", kind=Session.Kind.BREAK, slug="coffee")
    html = client.get(schedule_url(conference)).content.decode()
    assert re.search(
        r'<article id="session-coffee" class="session session-break[^"]*">\s*<h3 class="session-title">\s*Coffee break',
        html,
    )
    assert "/sessions/coffee/" not in html


def test_schedule_hides_drafts_from_the_public(client, conference):
    make_session(conference, title="Public")
    make_session(conference, title="Secret", status=Session.Status.DRAFT, starts_at=paris(8, 14))
    assert titles(client.get(schedule_url(conference))) == ["Public"]


def test_schedule_shows_drafts_to_staff_marked_as_draft(admin_client, conference):
    make_session(conference, title="Secret", status=Session.Status.DRAFT)
    response = admin_client.get(schedule_url(conference))
    assert titles(response) == ["Secret"]
    assert '<span class="badge badge-draft">Draft</span>' in response.content.decode()


def test_schedule_shows_cancelled_sessions_as_cancelled(client, conference):
    make_session(conference, title="Called off", status=Session.Status.CANCELLED)
    html = client.get(schedule_url(conference)).content.decode()
    assert '<span class="badge badge-cancelled">Cancelled</span>' in html


def test_schedule_filters_by_several_tracks(client, conference):
    data, ml, web = (make_track(conference, name=name) for name in ("Data", "ML", "Web"))
    make_session(conference, title="Data talk", track=data)
    make_session(conference, title="ML talk", track=ml, starts_at=paris(8, 11))
    make_session(conference, title="Web talk", track=web, starts_at=paris(8, 12))
    response = client.get(schedule_url(conference), {"track": ["data", "ml"]})
    assert titles(response) == ["Data talk", "ML talk"]


def test_schedule_filters_by_room_kind_and_level_together(client, conference):
    room = make_room(conference, name="Hall")
    make_session(conference, title="Match", room=room, kind="workshop", audience_level="beginner")
    make_session(
        conference, title="Wrong kind", room=room, starts_at=paris(8, 11), audience_level="beginner"
    )
    make_session(
        conference,
        title="Elsewhere",
        kind="workshop",
        audience_level="beginner",
        starts_at=paris(8, 12),
    )
    response = client.get(
        schedule_url(conference), {"room": "hall", "kind": "workshop", "level": "beginner"}
    )
    assert titles(response) == ["Match"]


def test_schedule_filters_by_speaker(client, conference):
    ada = make_speaker(conference, name="Ada")
    make_session(conference, title="Ada's talk", speakers=[ada])
    make_session(
        conference, title="Other talk", starts_at=paris(8, 11), speakers=[make_speaker(conference)]
    )
    assert titles(client.get(schedule_url(conference), {"speaker": "ada"})) == ["Ada's talk"]


def test_schedule_filters_by_day_in_the_conference_zone(client, conference):
    make_session(conference, title="Early on day one", starts_at=paris(7, 0, 30))
    make_session(conference, title="Day two", starts_at=paris(8, 10))
    assert titles(client.get(schedule_url(conference), {"day": "2026-04-07"})) == [
        "Early on day one"
    ]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("gemm", ["Fast GEMM"]),
        ("blackwell", ["Fast GEMM"]),
        ("grace", ["Compilers"]),
        ("navy", ["Compilers"]),
    ],
)
def test_schedule_search_matches_title_description_speaker_and_company(
    client, conference, query, expected
):
    make_session(conference, title="Fast GEMM", description="Kernels for Blackwell.")
    grace = make_speaker(conference, name="Grace Hopper", company="US Navy")
    make_session(conference, title="Compilers", starts_at=paris(8, 11), speakers=[grace])
    assert titles(client.get(schedule_url(conference), {"q": query})) == expected


def test_schedule_search_lists_a_session_once_when_several_speakers_match(client, conference):
    speakers = [make_speaker(conference, company="Meta"), make_speaker(conference, company="Meta")]
    make_session(conference, title="Joint talk", speakers=speakers)
    assert titles(client.get(schedule_url(conference), {"q": "meta"})) == ["Joint talk"]


@pytest.mark.parametrize(
    "query",
    [
        {"day": "not-a-date"},
        {"track": "no-such-track"},
        {"kind": "rave"},
        {"level": "guru"},
        {"speaker": "nobody"},
        {"q": "x" * 10_000},
    ],
)
def test_schedule_shows_a_bad_filter_value_as_a_message_not_an_error(client, conference, query):
    make_session(conference, title="Still listed")
    response = client.get(schedule_url(conference), query)
    assert response.status_code == 200
    assert "Some filters could not be used, so they were ignored" in response.content.decode()
    assert titles(response) == ["Still listed"]


def test_schedule_offers_each_active_filter_for_removal(client, conference):
    make_track(conference, name="Data")
    make_track(conference, name="ML")
    response = client.get(schedule_url(conference), {"track": ["data", "ml"], "q": "gpu"})
    assert response.context["filter_chips"] == [
        ("Track: Data", "?track=ml&q=gpu"),
        ("Track: ML", "?track=data&q=gpu"),
        ("Search: gpu", "?track=data&track=ml"),
    ]


def test_schedule_without_matches_explains_and_offers_the_whole_schedule(client, conference):
    make_session(conference, title="Something")
    html = client.get(schedule_url(conference), {"q": "nothing matches this"}).content.decode()
    assert "No session matches these filters." in html
    assert '<a href="?">Show the whole schedule</a>' in html


def test_schedule_day_tabs_choose_a_day_keeping_the_other_filters(client, conference):
    make_session(conference, title="Tuesday talk", starts_at=paris(7, 10))
    make_session(conference, title="Wednesday talk", starts_at=paris(8, 10))
    response = client.get(schedule_url(conference), {"day": "2026-04-08", "q": "talk"})
    assert titles(response) == ["Wednesday talk"]
    html = response.content.decode()
    assert '<a href="?day=2026-04-07&amp;q=talk">Tuesday 7 April</a>' in html
    assert '<a href="?day=2026-04-08&amp;q=talk" aria-current="page">Wednesday 8 April</a>' in html
    assert '<a href="?q=talk">All days</a>' in html
    # The tabs choose the day: the filter form keeps it rather than offering it again.
    assert '<input type="hidden" name="day" value="2026-04-08">' in html
    assert 'name="day" id="id_day"' not in html


def test_schedule_day_alone_is_no_filter_to_clear_or_count(client, conference):
    make_session(conference, title="Wednesday talk", starts_at=paris(8, 10))
    response = client.get(schedule_url(conference), {"day": "2026-04-08"})
    html = response.content.decode()
    assert response.context["filter_chips"] == []
    assert "Clear all filters" not in html
    assert "match-count" not in html
    assert "iCalendar (these sessions)" in html  # the export link keeps the day


def test_schedule_filters_on_a_day_make_one_summary_line(client, conference):
    data = make_track(conference, name="Data", slug="data")
    make_session(conference, title="Data talk", starts_at=paris(8, 10), track=data)
    make_session(conference, title="Other talk", starts_at=paris(8, 11))
    response = client.get(schedule_url(conference), {"day": "2026-04-08", "track": "data"})
    assert titles(response) == ["Data talk"]
    summary = re.search(
        r'<div class="filter-summary">(.*?)</div>', response.content.decode(), re.DOTALL
    ).group(1)
    text = " ".join(strip_tags(summary).split())
    assert text == "1 session matches on this day Track: Data × Clear all filters"
    assert '<a class="clear-filters" href="?day=2026-04-08">' in summary


@pytest.mark.parametrize("day", ["tuesday", "2026-13-45", "2026-04-08x"])
def test_schedule_bad_day_shows_every_day_and_says_it_was_ignored(client, conference, day):
    make_session(conference, title="Wednesday talk", starts_at=paris(8, 10))
    response = client.get(schedule_url(conference), {"day": day})
    assert response.status_code == 200
    assert titles(response) == ["Wednesday talk"]
    assert "could not be used" in response.text
    assert '<a href="?" aria-current="page">All days</a>' in response.text


def test_schedule_day_without_sessions_says_so_and_links_all_days(client, conference):
    make_session(conference, title="Wednesday talk", starts_at=paris(8, 10))
    html = client.get(schedule_url(conference), {"day": "2026-04-07"}).content.decode()
    assert "No session on this day." in html
    assert '<a href="?">See the whole schedule</a>' in html


def test_schedule_shows_times_in_a_zone_from_the_link(client, conference):
    make_session(conference, starts_at=paris(8, 10, 35))
    html = client.get(schedule_url(conference), {"tz": "America/New_York"}).content.decode()
    assert ">04:35 EDT</time>" in html


def test_schedule_remembers_the_chosen_zone_in_a_cookie(client, conference):
    make_session(conference, starts_at=paris(8, 10, 35))
    client.get(schedule_url(conference), {"tz": "Asia/Tokyo"})
    html = client.get(schedule_url(conference)).content.decode()
    assert ">17:35 JST</time>" in html


def test_schedule_explains_an_unknown_zone_and_keeps_the_conference_zone(client, conference):
    make_session(conference, starts_at=paris(8, 10, 35))
    response = client.get(schedule_url(conference), {"tz": "Mars/Olympus"})
    html = response.content.decode()
    assert response.status_code == 200
    assert "“Mars/Olympus” is not a time zone we know" in html
    assert ">10:35 CEST</time>" in html


def test_schedule_lists_the_conference_zone_first_in_the_zone_picker(client, conference):
    html = client.get(schedule_url(conference)).content.decode()
    start = html.index('<select id="tz-select"')
    picker = html[start : html.index("</select>", start)]
    choices = re.findall(r'<option value="([^"]+)"', picker)
    assert choices[:2] == ["Europe/Paris", "UTC"]
    assert "America/New_York" in choices
    assert len(choices) == len(set(choices)) > 300
    assert re.findall(r'<optgroup label="([^"]+)"', picker) == [
        "Africa", "America", "Antarctica", "Arctic", "Asia", "Atlantic", "Australia", "Europe",
        "Indian", "Pacific",
    ]  # fmt: skip


def test_the_zone_picker_leaves_out_old_aliases(client, conference):
    html = client.get(schedule_url(conference)).content.decode()
    start = html.index('<select id="tz-select"')
    choices = re.findall(r'<option value="([^"]+)"', html[start : html.index("</select>", start)])
    assert {"W-SU", "Zulu", "ROC", "localtime", "US/Eastern", "Etc/GMT+5"}.isdisjoint(choices)


def test_the_zone_picker_lists_each_place_once_under_its_current_name(client, conference):
    html = client.get(schedule_url(conference)).content.decode()
    start = html.index('<select id="tz-select"')
    choices = re.findall(r'<option value="([^"]+)"', html[start : html.index("</select>", start)])
    assert {"Asia/Kolkata", "Europe/Kyiv", "America/Argentina/Buenos_Aires"} <= set(choices)
    # The tz database's links for old names: the same places again.
    old_names = {"Asia/Calcutta", "Europe/Kiev", "America/Buenos_Aires", "Asia/Saigon"}
    assert old_names.isdisjoint(choices)
    # Places whose zone is now a link to a neighbour's still have their own entry.
    assert {"Europe/Oslo", "Europe/Amsterdam", "Europe/Stockholm"} <= set(choices)


def test_an_old_alias_still_works_and_shows_as_chosen(client, conference):
    make_session(conference, starts_at=paris(8, 10, 35))
    html = client.get(schedule_url(conference), {"tz": "US/Eastern"}).content.decode()
    assert ">04:35 EDT</time>" in html
    assert '<option value="US/Eastern" selected>US/Eastern</option>' in html


def test_an_old_name_of_a_regional_zone_still_works_and_shows_as_chosen(client, conference):
    make_session(conference, starts_at=paris(8, 10, 35))
    html = client.get(schedule_url(conference), {"tz": "Asia/Calcutta"}).content.decode()
    assert ">14:05 IST</time>" in html
    assert '<option value="Asia/Calcutta" selected>Asia/Calcutta</option>' in html


@pytest.mark.parametrize("view", ["sessions:schedule", "sessions:schedule-grid"])
def test_schedule_pages_have_the_zone_picker_at_the_top_only(client, conference, view):
    html = client.get(schedule_url(conference, view)).content.decode()
    assert html.count('id="tz-select"') == 1
    assert html.index('id="tz-select"') < html.index("<footer")


def test_other_conference_pages_keep_the_zone_picker_in_the_footer(client, conference):
    html = client.get(conference.get_absolute_url()).content.decode()
    assert html.index('id="tz-select"') > html.index("<footer")


@pytest.mark.parametrize("page", ["session", "speaker"])
def test_session_and_speaker_pages_link_to_the_schedules_zone_picker(client, conference, page):
    speaker = make_speaker(conference)
    session = make_session(conference, starts_at=paris(8, 10, 35), speakers=[speaker])
    url = (session if page == "session" else speaker).get_absolute_url()
    html = client.get(url, {"tz": "Asia/Tokyo"}).content.decode()
    assert "<select" not in html
    assert "Times shown in Asia/Tokyo." in html
    assert (
        f'href="{schedule_url(conference)}?tz=Asia/Tokyo#tz-select">Change the time zone</a>'
        in html
    )
    # The link's picker is the schedule's own, at the top.
    picker = client.get(schedule_url(conference), {"tz": "Asia/Tokyo"}).content.decode()
    assert '<select id="tz-select" name="tz">' in picker


def test_the_demos_longest_session_page_weighs_at_most_12_kb(client):
    """Its own text and the layout, without the zone picker's 400 options (about 25 kB)."""
    call_command("loaddata", "pytorch-eu-2026", verbosity=0)
    sizes = {
        session.slug: len(client.get(session.get_absolute_url()).content)
        for session in Session.objects.public()
    }
    assert max(sizes.values()) <= 12 * 1024, max(sizes, key=sizes.get)


def test_schedule_shows_the_right_times_on_the_night_clocks_go_back(client):
    conference = make_conference(
        starts_on=datetime.date(2026, 10, 24), ends_on=datetime.date(2026, 10, 25)
    )
    before = datetime.datetime(2026, 10, 25, 0, 30, tzinfo=datetime.UTC)  # 02:30 CEST
    after = datetime.datetime(2026, 10, 25, 1, 30, tzinfo=datetime.UTC)  # 02:30 CET
    make_session(
        conference,
        title="Before",
        starts_at=before,
        ends_at=before + datetime.timedelta(minutes=30),
    )
    make_session(
        conference, title="After", starts_at=after, ends_at=after + datetime.timedelta(minutes=30)
    )
    html = client.get(schedule_url(conference)).content.decode()
    assert ">02:30 CEST</time>" in html
    assert ">02:30 CET</time>" in html


@pytest.mark.parametrize("query", [{}, {"day": "2026-04-08"}], ids=["all days", "one day"])
@pytest.mark.parametrize("count", [1, 12])
@pytest.mark.parametrize("view", ["sessions:schedule", "sessions:schedule-grid"])
def test_schedule_query_count_does_not_grow(
    client, django_assert_max_num_queries, conference, count, view, query
):
    rooms = [make_room(conference) for _ in range(3)]
    track = make_track(conference)
    for number in range(count):
        session = make_session(
            conference,
            room=rooms[number % 3],
            track=track,
            starts_at=paris(8, 8) + datetime.timedelta(minutes=30 * (number // 3)),
            speakers=[make_speaker(conference), make_speaker(conference)],
        )
        Attachment.objects.create(session=session, title="slides", url="https://example.org/s.pdf")
    # The conference, its rooms and tracks, read once for the cards, the filters and the grid
    # (one object each, shared by the cards); the sessions shown (and their count, or the first
    # one's day), their speakers, and the days that have sessions (day tabs, day choices).
    with django_assert_max_num_queries(7):
        response = client.get(schedule_url(conference, view), {"track": track.slug, **query})
    assert len(response.context["sessions"]) == count


@pytest.mark.parametrize("view", ["sessions:schedule", "sessions:schedule-grid"])
def test_schedule_pages_read_the_conference_its_rooms_and_tracks_once(client, conference, view):
    """The cards, the filters (listed and checked) and the grid's columns share one reading."""
    room, track = make_room(conference), make_track(conference)
    make_session(conference, room=room, track=track, speakers=[make_speaker(conference)])
    filters = {"track": track.slug, "room": room.slug}
    with CaptureQueriesContext(connection) as queries:
        response = client.get(schedule_url(conference, view), filters)
    assert response.status_code == 200
    assert len(response.context["sessions"]) == 1
    read = [re.search(r'FROM "(\w+)"', query["sql"]).group(1) for query in queries]
    for table in ("conference_conference", "conference_room", "conference_track"):
        assert read.count(table) == 1, read


def blocks(grid):
    return [
        (block.session.title, block.column, block.row, block.span)
        for time in grid.times
        for block in time.blocks
    ]


def test_grid_puts_rooms_in_columns_and_sessions_in_rows_of_five_minutes(client, conference):
    hall, side = (
        make_room(conference, name="Hall", position=0),
        make_room(conference, name="Side", position=1),
    )
    make_session(conference, title="Long", room=hall, starts_at=paris(8, 10), ends_at=paris(8, 11))
    make_session(
        conference, title="First", room=side, starts_at=paris(8, 10), ends_at=paris(8, 10, 10)
    )
    make_session(
        conference, title="Second", room=side, starts_at=paris(8, 10, 30), ends_at=paris(8, 10, 50)
    )
    response = client.get(schedule_url(conference, "sessions:schedule-grid"))
    grid = response.context["grid"]
    assert [room.name for room in grid.columns] == ["Hall", "Side"]
    # Column 1 is the time; a 20-minute session spans twice the rows of a 10-minute one.
    assert blocks(grid) == [("Long", 2, 1, 12), ("First", 3, 1, 2), ("Second", 3, 7, 4)]
    assert grid.rows == 12
    html = response.content.decode()
    assert '<div class="tgrid-block c3 r7 s4">' in html
    assert '<h3 class="tgrid-time c1 r7">' in html


def test_grid_rows_start_on_the_quarter_hour_before_the_first_session(client, conference):
    make_session(
        conference, room=make_room(conference), starts_at=paris(8, 10, 35), ends_at=paris(8, 10, 45)
    )
    grid = client.get(schedule_url(conference, "sessions:schedule-grid")).context["grid"]
    assert [(time.row, time.blocks[0].span) for time in grid.times] == [(2, 2)]  # from 10:30


def test_grid_has_a_time_heading_only_where_sessions_start(client, conference):
    room = make_room(conference)
    make_session(conference, room=room, starts_at=paris(8, 9), ends_at=paris(8, 9, 30))
    make_session(conference, room=room, starts_at=paris(8, 14), ends_at=paris(8, 14, 30))
    response = client.get(schedule_url(conference, "sessions:schedule-grid"))
    assert re.findall(
        r'class="tgrid-time[^"]*"><time[^>]*>([^<]+)<', response.content.decode()
    ) == [
        "09:00",
        "14:00",
    ]


def test_grid_rows_stylesheet_places_every_row_of_the_longest_day(client, conference):
    response = client.get(
        reverse("sessions:schedule-grid-rows", kwargs={"conference_slug": "pycon"})
    )
    css = response.content.decode()
    assert response["Content-Type"] == "text/css; charset=utf-8"
    assert ".c5{grid-column:5}" in css
    assert ".r300{grid-row-start:300}" in css
    assert ".s300{grid-row-end:span 300}" in css
    assert css.index(".c5{") < css.index(".w5{grid-column-end:span 5}")  # a band's span wins
    assert "public" in response["Cache-Control"]


def test_grid_rows_stylesheet_places_the_columns_of_a_festival_of_278_rooms(client, conference):
    response = client.get(
        reverse("sessions:schedule-grid-rows", kwargs={"conference_slug": "pycon"})
    )
    css = response.content.decode()
    assert ".c280{grid-column:280}" in css
    assert ".rooms278{--rooms:278}" in css


def test_grid_header_and_body_share_one_column_list_leaving_out_an_unused_room(client, conference):
    hall = make_room(conference, name="Hall", position=0)
    make_room(conference, name="Workshop", position=1)  # nothing on 8 April
    make_session(conference, title="Talk", room=hall)
    html = client.get(schedule_url(conference, "sessions:schedule-grid")).content.decode()
    head = re.search(r'<div class="tgrid-head rooms1" aria-hidden="true">(.*?)</div>', html, re.S)
    assert re.findall(r'<span class="(c\d+)">([^<]*)</span>', head.group(1)) == [
        ("c1", "Time"),
        ("c2", "Hall"),
    ]
    assert '<div class="tgrid rooms1">' in html
    assert '<div class="tgrid-block c2 r1 s6">' in html


def test_grid_shows_the_first_day_with_sessions_unless_a_day_is_chosen(client, conference):
    make_session(conference, title="Day two", starts_at=paris(8, 10), room=make_room(conference))
    make_session(conference, title="Day one", starts_at=paris(7, 10), room=make_room(conference))
    first = client.get(schedule_url(conference, "sessions:schedule-grid"))
    chosen = client.get(schedule_url(conference, "sessions:schedule-grid"), {"day": "2026-04-08"})
    assert first.context["day"] == datetime.date(2026, 4, 7)
    assert [title for title, *_ in blocks(first.context["grid"])] == ["Day one"]
    assert chosen.context["day"] == datetime.date(2026, 4, 8)


def test_grid_day_tabs_are_not_offered_as_a_filter_to_clear(client, conference):
    track = make_track(conference, name="Machine learning", slug="ml")
    make_session(conference, room=make_room(conference), track=track)
    response = client.get(
        schedule_url(conference, "sessions:schedule-grid"), {"day": "2026-04-08", "track": "ml"}
    )
    assert [label for label, _ in response.context["filter_chips"]] == ["Track: Machine learning"]
    assert 'href="?day=2026-04-08">Clear all filters</a>' in response.content.decode()


def test_grid_gives_venue_wide_breaks_their_own_column(client, conference):
    make_session(conference, title="Talk", room=make_room(conference, name="Hall"))
    make_session(conference, title="Lunch", kind=Session.Kind.BREAK, starts_at=paris(8, 12))
    grid = client.get(schedule_url(conference, "sessions:schedule-grid")).context["grid"]
    assert [room.name if room else "Whole venue" for room in grid.columns] == [
        "Whole venue",
        "Hall",
    ]


def session_url(session):
    return session.get_absolute_url()


def test_session_page_shows_everything_about_the_session(client, conference):
    speaker = make_speaker(
        conference,
        name="Bin Bao",
        role="Software Engineer",
        company="Meta",
        bio="Works on **Inductor**.",
    )
    session = make_session(
        conference,
        title="C++ Wrapper Mode",
        kind=Session.Kind.LIGHTNING_TALK,
        description="First line\nsecond line\n\nNew paragraph with `code`.",
        starts_at=paris(8, 11, 5),
        ends_at=paris(8, 11, 15),
        room=make_room(conference, name="Junior Stage"),
        track=make_track(conference, name="Compilers"),
        audience_level="intermediate",
        speakers=[speaker],
    )
    Attachment.objects.create(session=session, title="Slides", url="https://example.org/slides.pdf")
    html = client.get(session_url(session)).content.decode()
    assert '<p class="kind">Lightning Talk</p>' in html
    assert "<h1>C++ Wrapper Mode</h1>" in html
    assert ">Wednesday 8 April 2026, 11:05</time>–<time" in html
    assert ">11:15 CEST</time>" in html
    assert "<dd>Junior Stage</dd>" in html
    assert (
        "<p>First line<br>\nsecond line</p>\n<p>New paragraph with <code>code</code>.</p>" in html
    )
    assert '<p class="affiliation">Software Engineer, Meta</p>' in html
    assert "<p>Works on <strong>Inductor</strong>.</p>" in html
    assert (
        '<a href="https://example.org/slides.pdf" rel="nofollow">Slides</a> '
        '<span class="muted">(link to example.org)</span>'
    ) in html


def test_session_page_renders_hostile_markdown_inert(client, conference):
    session = make_session(
        conference,
        description='<script>alert(1)</script><img src=x onerror="alert(2)"> [click](javascript:alert(3))',
    )
    html = client.get(session_url(session)).content.decode()
    assert "<script>alert(1)" not in html
    assert "onerror" not in html
    assert "javascript:" not in html


def test_session_page_lists_parallel_sessions(client, conference):
    session = make_session(conference, title="Mine", room=make_room(conference))
    make_session(
        conference, title="Parallel", room=make_room(conference), starts_at=paris(8, 10, 15)
    )
    make_session(conference, title="Later", starts_at=paris(8, 11))
    response = client.get(session_url(session))
    assert [other.title for other in response.context["parallel_sessions"]] == ["Parallel"]


def parallel_lines(html: str) -> list[str]:
    """The “At the same time” list of a session page, a line of text per session."""
    section = html.split('id="parallel-heading"', 1)[1].split("</section>", 1)[0]
    return [
        " ".join(strip_tags(item).split()) for item in re.findall(r"<li>(.*?)</li>", section, re.S)
    ]


def test_a_session_page_names_parallel_sessions_a_line_each_with_time_and_room(client, conference):
    mine = make_session(conference, title="Mine", room=make_room(conference, name="Hall A"))
    make_session(
        conference,
        title="Workshop on tests",
        kind=Session.Kind.WORKSHOP,
        starts_at=paris(8, 9, 30),
        ends_at=paris(8, 11),
        room=make_room(conference, name="Hall B"),
    )
    make_session(
        conference,
        title="Called off",
        room=make_room(conference, name="Hall C"),
        status=Session.Status.CANCELLED,
    )
    make_session(conference, title="Coffee", kind=Session.Kind.BREAK, starts_at=paris(8, 10, 15))
    html = client.get(session_url(mine)).content.decode()
    assert parallel_lines(html) == [
        "Workshop: Workshop on tests 09:30–11:00 CEST Hall B",
        "Called off Cancelled 10:00–10:30 CEST Hall C",
        "Coffee 10:15–10:45 CEST",
    ]
    assert '<a href="/pycon/sessions/workshop-on-tests/">Workshop: Workshop on tests</a>' in html
    assert '<a href="/pycon/sessions/coffee/">' not in html  # a break has no page to go to
    # Only the session's own Save button: the others are saved from their pages.
    assert html.count('class="save-button"') == 1


def test_staff_see_a_draft_among_parallel_sessions_marked_as_such(admin_client, conference):
    mine = make_session(conference, title="Mine", room=make_room(conference))
    make_session(
        conference,
        title="Not yet",
        room=make_room(conference, name="Hall B"),
        status=Session.Status.DRAFT,
    )
    html = admin_client.get(session_url(mine)).content.decode()
    assert parallel_lines(html) == ["Not yet Draft 10:00–10:30 CEST Hall B"]


def test_a_session_page_shows_parallel_times_in_the_chosen_zone(client, conference):
    mine = make_session(conference, title="Mine", room=make_room(conference))
    make_session(conference, title="Parallel", room=make_room(conference, name="Hall B"))
    html = client.get(session_url(mine), {"tz": "UTC"}).content.decode()
    assert parallel_lines(html) == ["Parallel 08:00–08:30 UTC Hall B"]


def test_a_session_page_lists_the_first_parallel_sessions_and_links_to_the_rest(
    client, conference, django_assert_max_num_queries
):
    """A festival runs dozens at once: the page names a few, the schedule all (and the page
    costs the same reads and bytes however many there are)."""
    mine = make_session(conference, title="Mine", room=make_room(conference, name="Hall 00"))
    for number in range(1, 13):
        make_session(
            conference, title=f"Talk {number:02}", room=make_room(conference, name=f"H{number:02}")
        )
    with django_assert_max_num_queries(4):
        html = client.get(session_url(mine)).content.decode()
    assert [line.split(" 10:00")[0] for line in parallel_lines(html)] == [
        f"Talk {number:02}" for number in range(1, 7)
    ]
    assert (
        '<a href="/pycon/schedule/?day=2026-04-08#session-mine">'
        "6 more at the same time in the schedule</a>"
    ) in html


def test_a_session_page_with_few_parallel_sessions_lists_them_all(client, conference):
    mine = make_session(conference, title="Mine", room=make_room(conference, name="Hall 00"))
    for number in range(1, 7):
        make_session(
            conference, title=f"Talk {number:02}", room=make_room(conference, name=f"H{number:02}")
        )
    html = client.get(session_url(mine)).content.decode()
    assert len(parallel_lines(html)) == 6
    assert "more at the same time" not in html


def test_a_session_page_shows_its_links_and_attachments(client, conference):
    session = make_session(conference)
    SessionLink.objects.create(session=session, title="Recording", url="https://v.example/1")
    Attachment.objects.create(session=session, title="Deck", url="https://s.example/deck.pdf")
    html = client.get(session_url(session)).content.decode()
    assert '<li><a href="https://v.example/1" rel="nofollow">Recording</a></li>' in html
    assert (
        '<a href="https://s.example/deck.pdf" rel="nofollow">Deck</a> '
        '<span class="muted">(link to s.example)</span>'
    ) in html


def test_a_session_page_says_what_an_uploaded_file_is(client, conference, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    session = make_session(conference)
    (tmp_path / "attachments").mkdir()
    stored = f"attachments/{'0f3c' * 8}.pdf"  # as RandomName names a PDF
    (tmp_path / stored).write_bytes(b"%PDF-1.7\n" + b"0" * 2551)
    attachment = Attachment.objects.create(
        session=session, title="My Talk: the slides", file=stored
    )
    html = client.get(session_url(session)).content.decode()
    download = reverse(
        "sessions:attachment-download",
        kwargs={"conference_slug": conference.slug, "slug": session.slug, "pk": attachment.pk},
    )
    assert (
        f'<a href="{download}" download>My Talk: the slides</a> '
        '<span class="muted">(my-talk-the-slides.pdf, PDF, 2.5\xa0KB)</span>'
    ) in html
    response = client.get(download)
    assert response["Content-Disposition"] == 'attachment; filename="my-talk-the-slides.pdf"'


def test_a_session_page_says_an_announced_attachment_has_no_file_yet(client, conference):
    session = make_session(conference)
    Attachment.objects.create(session=session, title="Deck")
    html = client.get(session_url(session)).content.decode()
    assert '<li>Deck <span class="muted">(announced, no file or link yet)</span></li>' in html
    assert "not uploaded here" not in html


def test_session_page_of_a_draft_is_a_404_for_the_public(client, conference):
    session = make_session(conference, status=Session.Status.DRAFT)
    assert client.get(session_url(session)).status_code == 404


def test_session_page_of_a_draft_is_shown_to_staff_with_a_banner(admin_client, conference):
    session = make_session(conference, status=Session.Status.DRAFT)
    assert (
        "Draft: this session is not published"
        in admin_client.get(session_url(session)).content.decode()
    )


def test_unknown_session_is_a_404(client, conference):
    url = reverse(
        "sessions:session-detail", kwargs={"conference_slug": conference.slug, "slug": "nope"}
    )
    assert client.get(url).status_code == 404


@pytest.mark.parametrize("count", [1, 12])
@pytest.mark.parametrize("with_material", [False, True], ids=["bare", "links and slides"])
def test_session_page_query_count_does_not_grow(
    client, django_assert_max_num_queries, conference, count, with_material
):
    session = make_session(conference, speakers=[make_speaker(conference) for _ in range(3)])
    if with_material:
        SessionLink.objects.create(session=session, url="https://v.example/1")
        Attachment.objects.create(session=session, title="Deck", url="https://s.example/deck.pdf")
        Attachment.objects.create(session=session, title="Notes", file="attachments/notes.pdf")
    for number in range(count):
        make_session(
            conference,
            room=make_room(conference),
            speakers=[make_speaker(conference)],
            title=f"Parallel {number}",
        )
    # The conference, the session with the parallel ones, its speakers; and its links and
    # attachments, together, only when it has some.
    with django_assert_max_num_queries(4 if with_material else 3):
        response = client.get(session_url(session))
    assert len(response.context["parallel_sessions"]) == min(count, PARALLELS_SHOWN)
    assert response.context["parallels_total"] == count


@pytest.mark.parametrize("page", ["session", "speaker"])
def test_a_logged_in_visitor_reads_a_session_or_speaker_page_in_four_queries(
    client, attendee, django_assert_max_num_queries, conference, page
):
    speaker = make_speaker(conference)
    session = make_session(conference, speakers=[speaker, make_speaker(conference)])
    SessionLink.objects.create(session=session, url="https://v.example/1")
    Attachment.objects.create(session=session, title="Deck", url="https://s.example/deck.pdf")
    SavedSession.objects.add(attendee, session)
    url = (session if page == "session" else speaker).get_absolute_url()
    assert Client().get(url).status_code == 200  # an earlier visitor had the page made
    client.force_login(attendee)
    # Their session and account, the conference, and their saved sessions for the Save buttons.
    with django_assert_max_num_queries(4):
        html = client.get(url).content.decode()
    assert SAVED in html


@pytest.mark.parametrize(
    ("starts_at", "ends_at", "shown"),
    [
        # 01:30 CEST to 02:30 CET lasts two hours: one abbreviation would make it read as one.
        (
            datetime.datetime(2026, 10, 24, 23, 30, tzinfo=datetime.UTC),
            datetime.datetime(2026, 10, 25, 1, 30, tzinfo=datetime.UTC),
            "01:30 CEST–02:30 CET",
        ),
        (
            datetime.datetime(2026, 10, 24, 21, 30, tzinfo=datetime.UTC),
            datetime.datetime(2026, 10, 24, 22, 30, tzinfo=datetime.UTC),
            "23:30–00:30 CEST (+1 day)",
        ),
    ],
    ids=["clocks go back during it", "past midnight"],
)
@pytest.mark.parametrize("page", ["schedule", "session"])
def test_a_session_across_a_clock_change_or_midnight_says_so(
    client, starts_at, ends_at, shown, page
):
    conference = make_conference(
        starts_on=datetime.date(2026, 10, 24), ends_on=datetime.date(2026, 10, 25)
    )
    session = make_session(conference, title="Night", starts_at=starts_at, ends_at=ends_at)
    url = schedule_url(conference) if page == "schedule" else session.get_absolute_url()
    assert shown in strip_tags(client.get(url).content.decode())


def test_a_renamed_session_redirects_its_old_address_permanently(client):
    conference = make_conference(slug="pycon")
    session = make_session(conference, title="Old title", slug="old-title")
    session.slug = "new-title"
    session.save()
    session.slug = "newer-title"
    session.save()
    for old in ("old-title", "new-title"):
        response = client.get(f"/pycon/sessions/{old}/", {"tz": "UTC"})
        assert response.status_code == 301
        assert response["Location"] == "/pycon/sessions/newer-title/?tz=UTC"
        assert (
            client.get(f"/pycon/sessions/{old}.ics")["Location"]
            == "/pycon/sessions/newer-title.ics"
        )
    assert client.get("/pycon/sessions/newer-title/").status_code == 200


def test_an_old_slug_taken_by_another_session_belongs_to_that_session(client):
    conference = make_conference(slug="pycon")
    renamed = make_session(conference, title="First", slug="keynote")
    renamed.slug = "opening"
    renamed.save()
    make_session(conference, title="Second", slug="keynote", starts_at=paris(8, 15))
    response = client.get("/pycon/sessions/keynote/")
    assert response.status_code == 200
    assert "Second" in response.content.decode()


def test_an_old_slug_of_a_hidden_session_is_a_plain_404(client):
    conference = make_conference(slug="pycon")
    session = make_session(conference, slug="old", status=Session.Status.DRAFT)
    session.slug = "new"
    session.save()
    assert client.get("/pycon/sessions/old/").status_code == 404


def link_query(client, html: str, label: str) -> tuple[str, dict[str, list[str]]]:
    """The address and query the link reading ``label`` leads to: a short link of ours, which
    sends the browser on to the calendar."""
    href = re.search(rf'<a href="([^"]+)" rel="nofollow">{re.escape(label)}</a>', html).group(1)
    response = client.get(unescape(href))
    assert response.status_code == 302
    parts = urlsplit(response["Location"])
    return f"{parts.scheme}://{parts.netloc}{parts.path}", parse_qs(parts.query)


@pytest.fixture
def lightning_talk(conference):
    conference.venue = "Station F"
    conference.save()
    return make_session(
        conference,
        title="Live Migration",
        slug="live-migration",
        kind=Session.Kind.LIGHTNING_TALK,
        starts_at=paris(8, 10, 35),
        ends_at=paris(8, 10, 45),
        room=make_room(conference, name="Central Room"),
    )


def test_session_page_offers_to_add_it_to_google_calendar(client, lightning_talk):
    html = client.get(session_url(lightning_talk)).content.decode()
    address, query = link_query(client, html, "Add to Google Calendar")
    assert address == "https://calendar.google.com/calendar/render"
    assert query == {
        "action": ["TEMPLATE"],
        "text": ["Lightning Talk: Live Migration"],
        "dates": ["20260408T083500Z/20260408T084500Z"],
        "details": ["https://schedule.example.org/pycon/sessions/live-migration/"],
        "location": ["Central Room, Station F, Paris"],
    }


def test_session_page_offers_to_add_it_to_outlook(client, lightning_talk):
    html = client.get(session_url(lightning_talk)).content.decode()
    address, query = link_query(client, html, "Add to Outlook")
    assert address == "https://outlook.office.com/calendar/0/deeplink/compose"
    assert query == {
        "path": ["/calendar/action/compose"],
        "rru": ["addevent"],
        "subject": ["Lightning Talk: Live Migration"],
        "startdt": ["2026-04-08T08:35:00Z"],
        "enddt": ["2026-04-08T08:45:00Z"],
        "body": ["https://schedule.example.org/pycon/sessions/live-migration/"],
        "location": ["Central Room, Station F, Paris"],
    }
    # Spaces as %20: Outlook would show a + from the query literally.
    outlook = client.get("/pycon/sessions/live-migration/add-to/outlook/")
    assert "subject=Lightning%20Talk%3A%20Live%20Migration&" in outlook["Location"]


def test_session_page_keeps_the_ics_download_beside_the_calendar_links(client, lightning_talk):
    html = client.get(session_url(lightning_talk)).content.decode()
    assert '<a href="/pycon/sessions/live-migration.ics">Add to my calendar (.ics)</a>' in html


def test_a_cancelled_session_offers_no_calendar_links(client, lightning_talk):
    lightning_talk.status = Session.Status.CANCELLED
    lightning_talk.save()
    html = client.get(session_url(lightning_talk)).content.decode()
    assert "Add to Google Calendar" not in html
    assert "Add to Outlook" not in html
    assert client.get("/pycon/sessions/live-migration/add-to/google/").status_code == 404


def test_a_draft_session_is_not_sent_to_a_calendar(client, lightning_talk):
    lightning_talk.status = Session.Status.DRAFT
    lightning_talk.save()
    assert client.get("/pycon/sessions/live-migration/add-to/outlook/").status_code == 404


def test_an_unknown_calendar_is_not_found(client, lightning_talk):
    assert client.get("/pycon/sessions/live-migration/add-to/yahoo/").status_code == 404


def test_a_renamed_session_s_calendar_link_follows_it(client, lightning_talk):
    lightning_talk.slug = "migrating-live"
    lightning_talk.save()
    response = client.get("/pycon/sessions/live-migration/add-to/google/")
    assert response.status_code == 301
    assert response["Location"] == "/pycon/sessions/migrating-live/add-to/google/"


@pytest.fixture
def large_conference(conference, monkeypatch):
    """Three sessions on two days, with the one-day threshold at two."""
    monkeypatch.setattr(ScheduleView, "all_days_up_to", 2)
    make_session(conference, title="Tuesday keynote", starts_at=paris(7, 9))
    make_session(conference, title="Tuesday talk", starts_at=paris(7, 10))
    make_session(conference, title="Wednesday talk", starts_at=paris(8, 10))
    return conference


def test_a_large_schedule_shows_its_first_day_and_says_so(client, large_conference):
    response = client.get(schedule_url(large_conference))
    assert titles(response) == ["Tuesday keynote", "Tuesday talk"]
    text = " ".join(strip_tags(response.text).split())
    assert "This schedule has 3 sessions: showing Tuesday 7 April. Pick a day, or all days" in text


def test_a_large_schedule_links_every_day_and_all_days(client, large_conference):
    html = client.get(schedule_url(large_conference)).text
    assert '<a href="?day=2026-04-07" aria-current="page">Tuesday 7 April</a>' in html
    assert '<a href="?day=2026-04-08">Wednesday 8 April</a>' in html
    assert '<a href="?days=all">All days</a>' in html


def test_a_large_schedule_shows_a_chosen_day(client, large_conference):
    response = client.get(schedule_url(large_conference), {"day": "2026-04-08"})
    assert titles(response) == ["Wednesday talk"]
    assert "This schedule has" not in response.text
    assert '<a href="?day=2026-04-08" aria-current="page">Wednesday 8 April</a>' in response.text


def test_a_large_schedule_shows_all_days_when_asked(client, large_conference):
    response = client.get(schedule_url(large_conference), {"days": "all"})
    assert titles(response) == ["Tuesday keynote", "Tuesday talk", "Wednesday talk"]
    assert '<a href="?days=all" aria-current="page">All days</a>' in response.text


def test_a_large_schedule_filters_within_the_first_day_that_matches(client, large_conference):
    response = client.get(schedule_url(large_conference), {"q": "Wednesday"})
    assert titles(response) == ["Wednesday talk"]
    assert "showing Wednesday 8 April" in response.text


def test_a_small_schedule_shows_every_day_under_day_tabs(client, conference):
    make_session(conference, title="Tuesday talk", starts_at=paris(7, 10))
    make_session(conference, title="Wednesday talk", starts_at=paris(8, 10))
    response = client.get(schedule_url(conference))
    assert titles(response) == ["Tuesday talk", "Wednesday talk"]
    assert '<a href="?day=2026-04-07">Tuesday 7 April</a>' in response.text
    assert '<a href="?" aria-current="page">All days</a>' in response.text  # never ?days=all


@pytest.mark.parametrize("count", [3, 12])
def test_a_large_schedule_query_count_does_not_grow(
    client, django_assert_max_num_queries, conference, count, monkeypatch
):
    monkeypatch.setattr(ScheduleView, "all_days_up_to", 2)
    for number in range(count):
        make_session(
            conference,
            starts_at=paris(7 + number % 2, 8) + datetime.timedelta(minutes=30 * number),
            speakers=[make_speaker(conference)],
        )
    with django_assert_max_num_queries(12):
        response = client.get(schedule_url(conference))
    assert len(response.context["sessions"]) == (count + 1) // 2


def test_schedule_names_the_days_with_sessions_not_the_empty_first_day(client, conference):
    make_session(conference, starts_at=paris(8, 10))  # the conference runs 7 and 8 April
    html = client.get(schedule_url(conference)).content.decode()
    assert "Wednesday 8 April 2026" in strip_tags(html).split("Now and next")[0]
    assert "7 April" not in strip_tags(html).split("Now and next")[0]


def test_schedule_without_sessions_says_the_dates_are_the_conferences(client, conference):
    html = client.get(schedule_url(conference)).content.decode()
    assert "Conference dates: Tuesday 7 April – Wednesday 8 April 2026" in html

import datetime

import pytest
from django.urls import reverse
from django.utils.html import strip_tags

from sessions.models import Session
from tests.builders import (
    make_conference,
    make_room,
    make_session,
    make_speaker,
    make_track,
    paris,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def rooms(conference):
    return make_room(conference, name="Hall", position=1), make_room(
        conference, name="Side", position=2
    )


def now_url(conference, **query):
    return reverse("sessions:now", kwargs={"conference_slug": conference.slug})


def door_sign_url(room):
    return reverse(
        "sessions:door-sign",
        kwargs={"conference_slug": room.conference.slug, "room_slug": room.slug},
    )


def main_text(response) -> str:
    """The page's main content as a reader sees it: no tags, single spaces."""
    html = response.content.decode()
    main = html[html.index("<main") : html.index("</main>")]
    return " ".join(strip_tags(main).split())


def board_rooms(response) -> dict[str, tuple[list[str], list[str]]]:
    """Room name: (titles running, titles next), from the page's context."""
    return {
        entry.room.name: (
            [session.title for session in entry.running],
            [session.title for session in entry.up_next],
        )
        for entry in response.context["board"].rooms
    }


def test_now_page_shows_what_runs_and_what_is_next_in_every_room(client, clock, rooms):
    hall, side = rooms
    speaker = make_speaker(hall.conference, name="Ada Lovelace")
    make_session(title="Earlier", room=hall, starts_at=paris(8, 9))
    make_session(title="Opening", room=hall, starts_at=paris(8, 10), speakers=[speaker])
    make_session(title="Compilers", room=hall, starts_at=paris(8, 10, 45))
    make_session(title="After that", room=hall, starts_at=paris(8, 11, 30))
    make_session(title="Workshop", room=side, starts_at=paris(8, 11))
    clock(paris(8, 10, 20) + datetime.timedelta(seconds=30))
    response = client.get(now_url(hall.conference))
    assert board_rooms(response) == {
        "Hall": (["Opening"], ["Compilers"]),
        "Side": ([], ["Workshop"]),
    }
    text = main_text(response)
    assert "At 10:20 CEST, Wednesday 8 April." in text
    assert "Hall Now Opening Ada Lovelace until 10:30 CEST Next Compilers 10:45–11:15 CEST" in text
    assert "Side Now Nothing now Next Workshop 11:00–11:30 CEST" in text


def test_now_page_shows_a_venue_wide_break_for_everyone(client, clock, conference, rooms):
    hall, _ = rooms
    make_session(
        conference,
        title="Lunch",
        kind=Session.Kind.BREAK,
        starts_at=paris(8, 12, 30),
        ends_at=paris(8, 13, 30),
    )
    make_session(title="Afternoon keynote", room=hall, starts_at=paris(8, 13, 30))
    clock(paris(8, 12, 45))
    response = client.get(now_url(conference))
    text = main_text(response)
    assert "Whole venue Now Lunch until 13:30 CEST Hall" in text
    assert "Hall Now Nothing now Next Afternoon keynote 13:30–14:00 CEST" in text
    assert "Nothing is running right now" not in text


def test_now_page_announces_the_next_venue_wide_break(client, clock, conference, rooms):
    hall, _ = rooms
    make_session(title="Morning talk", room=hall, starts_at=paris(8, 10))
    make_session(conference, title="Coffee", kind=Session.Kind.BREAK, starts_at=paris(8, 10, 30))
    clock(paris(8, 10, 5))
    text = main_text(client.get(now_url(conference)))
    assert "Whole venue Next Coffee 10:30–11:00 CEST Hall" in text


def test_now_page_leaves_tomorrows_venue_wide_break_for_tomorrow(client, clock, conference, rooms):
    hall, _ = rooms
    make_session(title="First talk", room=hall, starts_at=paris(8, 9))
    make_session(conference, title="Lunch", kind=Session.Kind.BREAK, starts_at=paris(8, 12))
    clock(paris(7, 20))
    text = main_text(client.get(now_url(conference)))
    assert "Lunch" not in text
    assert "Whole venue" not in text


def test_now_page_before_the_conference_says_when_it_starts(client, clock, conference, rooms):
    hall, _ = rooms
    make_session(title="Welcome", room=hall, starts_at=paris(7, 9))
    clock(paris(5, 18))
    text = main_text(client.get(now_url(conference)))
    assert (
        f"Nothing is running right now. {conference.name} starts Tuesday 7 April, 09:00 CEST."
        in text
    )
    assert "Hall Now Nothing now Next Welcome Tuesday 7 April, 09:00–09:30 CEST" in text


def test_now_page_between_days_says_when_the_next_session_starts(client, clock, conference, rooms):
    hall, _ = rooms
    make_session(title="Day one", room=hall, starts_at=paris(7, 17))
    make_session(title="Day two", room=hall, starts_at=paris(8, 9))
    clock(paris(7, 20))
    text = main_text(client.get(now_url(conference)))
    assert (
        "Nothing is running right now. The next session starts Wednesday 8 April, 09:00 CEST."
        in text
    )


def test_now_page_after_the_last_session_says_the_conference_is_over(
    client, clock, conference, rooms
):
    hall, _ = rooms
    make_session(title="Closing", room=hall, starts_at=paris(8, 17))
    clock(paris(8, 17, 30))
    text = main_text(client.get(now_url(conference)))
    assert f"{conference.name} is over. Thank you for coming!" in text
    assert "Hall" not in text


def test_now_page_without_sessions_before_the_conference_says_none_are_scheduled(
    client, clock, conference, rooms
):
    clock(paris(1, 12))
    assert "No sessions are scheduled yet." in main_text(client.get(now_url(conference)))


def test_now_page_leaves_out_cancelled_sessions(client, clock, rooms):
    hall, _ = rooms
    make_session(
        title="Cancelled now", room=hall, starts_at=paris(8, 10), status=Session.Status.CANCELLED
    )
    make_session(
        title="Cancelled next",
        room=hall,
        starts_at=paris(8, 10, 30),
        status=Session.Status.CANCELLED,
    )
    make_session(title="Still on", room=hall, starts_at=paris(8, 11))
    clock(paris(8, 10, 10))
    assert board_rooms(client.get(now_url(hall.conference)))["Hall"] == ([], ["Still on"])


def test_now_page_hides_drafts_from_the_public_and_shows_them_to_staff(
    client, admin_client, clock, rooms
):
    hall, _ = rooms
    make_session(title="Draft", room=hall, starts_at=paris(8, 10), status=Session.Status.DRAFT)
    clock(paris(8, 10, 10))
    assert "Hall" not in board_rooms(client.get(now_url(hall.conference)))  # nothing of it today
    assert board_rooms(admin_client.get(now_url(hall.conference)))["Hall"] == (["Draft"], [])


def test_now_page_lists_the_rooms_of_the_day_and_in_the_evening_tomorrows(client, clock, rooms):
    hall, workshop_room = rooms
    make_session(title="Opening", room=hall, starts_at=paris(7, 10))
    make_session(title="Closing", room=hall, starts_at=paris(8, 17))
    make_session(title="Hands-on", room=workshop_room, starts_at=paris(8, 9))
    clock(paris(7, 10, 10))
    assert board_rooms(client.get(now_url(hall.conference))) == {"Hall": (["Opening"], ["Closing"])}
    clock(paris(7, 20))  # Tuesday's last session is over: Wednesday's rooms
    assert set(board_rooms(client.get(now_url(hall.conference)))) == {"Hall", workshop_room.name}


def test_now_page_runs_across_midnight(client, clock):
    conference = make_conference(
        starts_on=datetime.date(2026, 4, 7), ends_on=datetime.date(2026, 4, 8)
    )
    room = make_room(conference, name="Night stage")
    make_session(
        title="Midnight hack", room=room, starts_at=paris(7, 23, 30), ends_at=paris(8, 0, 30)
    )
    make_session(title="Breakfast talk", room=room, starts_at=paris(8, 9))
    clock(paris(8, 0, 10))
    response = client.get(now_url(conference))
    assert board_rooms(response)["Night stage"] == (["Midnight hack"], ["Breakfast talk"])
    text = main_text(response)
    assert "At 00:10 CEST, Wednesday 8 April." in text
    assert "Midnight hack until 00:30 CEST Next Breakfast talk 09:00–09:30 CEST" in text


def test_now_page_tells_the_repeated_hour_apart_when_clocks_go_back(client, clock):
    conference = make_conference(
        starts_on=datetime.date(2026, 10, 24), ends_on=datetime.date(2026, 10, 25)
    )
    room = make_room(conference, name="Night stage")
    first_pass = datetime.datetime(2026, 10, 25, 0, 15, tzinfo=datetime.UTC)  # 02:15 CEST
    second_pass = datetime.datetime(2026, 10, 25, 1, 15, tzinfo=datetime.UTC)  # 02:15 CET
    make_session(title="Summer time", room=room, starts_at=first_pass)
    make_session(title="Winter time", room=room, starts_at=second_pass)
    clock(second_pass + datetime.timedelta(minutes=10))  # 02:25 CET
    response = client.get(now_url(conference))
    assert board_rooms(response)["Night stage"] == (["Winter time"], [])
    text = main_text(response)
    assert "At 02:25 CET, Sunday 25 October." in text
    assert "Winter time until 02:45 CET" in text


def test_now_page_shows_times_in_the_visitors_zone(client, clock, rooms):
    hall, _ = rooms
    make_session(title="Opening", room=hall, starts_at=paris(8, 10))
    make_session(title="Next one", room=hall, starts_at=paris(8, 11))
    clock(paris(8, 10, 20))
    text = main_text(client.get(now_url(hall.conference), {"tz": "America/New_York"}))
    assert "At 04:20 EDT, Wednesday 8 April." in text
    assert "Opening until 04:30 EDT Next Next one 05:00–05:30 EDT" in text


def test_now_page_refreshes_its_board_from_its_own_address(client, clock, rooms):
    clock(paris(8, 10))
    html = client.get(now_url(rooms[0].conference), {"tz": "Asia/Tokyo", "utm": "x"}).content
    assert (
        b'<div id="now-board" hx-get="/pycon/now/?tz=Asia%2FTokyo" hx-trigger="every 60s" '
        b'hx-select="#now-board" hx-swap="outerHTML">' in html
    )


def test_a_cached_now_page_is_never_more_than_a_minute_behind(
    client, clock, rooms, django_assert_num_queries
):
    hall, _ = rooms
    make_session(title="Opening", room=hall, starts_at=paris(8, 10))
    make_session(title="Second", room=hall, starts_at=paris(8, 10, 30))
    clock(paris(8, 10, 29) + datetime.timedelta(seconds=10))
    first = client.get(now_url(hall.conference))
    clock(paris(8, 10, 29) + datetime.timedelta(seconds=50))
    with django_assert_num_queries(1):  # the conference: the same minute, the cached page
        same_minute = client.get(now_url(hall.conference))
    assert same_minute.content == first.content
    clock(paris(8, 10, 30) + datetime.timedelta(seconds=5))
    next_minute = main_text(client.get(now_url(hall.conference)))
    assert "Hall Now Second until 11:00 CEST" in next_minute


def test_now_page_asks_browsers_to_revalidate_and_answers_304_within_the_minute(
    client, clock, rooms
):
    clock(paris(8, 10) + datetime.timedelta(seconds=5))
    first = client.get(now_url(rooms[0].conference))
    assert first.headers["Cache-Control"] == "public, max-age=0, s-maxage=10"
    again = client.get(now_url(rooms[0].conference), headers={"if-none-match": first["ETag"]})
    assert again.status_code == 304
    clock(paris(8, 10, 1) + datetime.timedelta(seconds=5))
    later = client.get(now_url(rooms[0].conference), headers={"if-none-match": first["ETag"]})
    assert later.status_code == 200
    assert later["ETag"] != first["ETag"]


def test_a_cache_in_front_keeps_the_now_page_no_later_than_its_minute(client, clock, rooms):
    clock(paris(8, 10) + datetime.timedelta(seconds=56))
    response = client.get(now_url(rooms[0].conference))
    assert response.headers["Cache-Control"] == "public, max-age=0, s-maxage=4"


def test_an_edit_shows_at_once_on_the_now_page(client, clock, rooms):
    hall, _ = rooms
    session = make_session(title="Old title", room=hall, starts_at=paris(8, 10))
    clock(paris(8, 10, 5))
    client.get(now_url(hall.conference))
    session.title = "New title"
    session.save()
    assert "New title" in main_text(client.get(now_url(hall.conference)))


@pytest.mark.parametrize("count", [1, 12])
@pytest.mark.parametrize("page", ["now", "door sign"])
def test_now_pages_query_count_does_not_grow(
    client, clock, django_assert_max_num_queries, conference, count, page
):
    rooms = [make_room(conference) for _ in range(3)]
    track = make_track(conference)
    for number in range(count):
        make_session(
            conference,
            room=rooms[number % 3],
            track=track,
            starts_at=paris(8, 10) + datetime.timedelta(minutes=30 * (number // 3)),
            speakers=[make_speaker(conference), make_speaker(conference)],
        )
    clock(paris(8, 10, 10))
    url = now_url(conference) if page == "now" else door_sign_url(rooms[0])
    with django_assert_max_num_queries(8):
        response = client.get(url)
    if page == "now":
        shown = [
            s for entry in response.context["board"].rooms for s in entry.running + entry.up_next
        ]
        assert len(shown) == min(count, 3) + max(0, min(count - 3, 3))
    else:
        sign = response.context["sign"]
        assert len(sign.running + sign.up_next + sign.later) == (count + 2) // 3


def test_door_sign_shows_now_next_and_the_rest_of_the_day_in_its_room(
    client, clock, conference, rooms
):
    hall, side = rooms
    make_session(title="Earlier", room=hall, starts_at=paris(8, 9))
    make_session(title="Opening", room=hall, starts_at=paris(8, 10))
    make_session(title="Compilers", room=hall, starts_at=paris(8, 10, 45))
    make_session(title="Elsewhere", room=side, starts_at=paris(8, 10, 45))
    make_session(conference, title="Lunch", kind=Session.Kind.BREAK, starts_at=paris(8, 12))
    make_session(
        title="Dropped", room=hall, starts_at=paris(8, 14), status=Session.Status.CANCELLED
    )
    make_session(title="Wrap-up", room=hall, starts_at=paris(8, 15))
    make_session(title="Tomorrow", room=hall, starts_at=paris(9, 9))
    conference.ends_on = datetime.date(2026, 4, 9)
    conference.save()
    clock(paris(8, 10, 20))
    response = client.get(door_sign_url(hall))
    text = main_text(response)
    assert text.startswith("Hall At 10:20 CEST, Wednesday 8 April.")
    assert "Now Opening until 10:30 CEST Next Compilers 10:45–11:15 CEST" in text
    assert (
        "Later today 12:00 CEST Lunch · whole venue 14:00 CEST Dropped Cancelled "
        "15:00 CEST Wrap-up Now and next in every room"
    ) in text


def test_door_sign_in_the_evening_shows_the_next_day(client, clock, rooms):
    hall, _ = rooms
    make_session(title="Day one", room=hall, starts_at=paris(7, 17))
    make_session(title="Day two", room=hall, starts_at=paris(8, 9))
    make_session(title="Day two later", room=hall, starts_at=paris(8, 11))
    clock(paris(7, 21))
    text = main_text(client.get(door_sign_url(hall)))
    assert (
        "Now Nothing now Next Day two Wednesday 8 April, 09:00–09:30 CEST "
        "Later on Wednesday 8 April 11:00 CEST Day two later"
    ) in text


def test_door_sign_in_the_evening_lists_the_nights_sessions_when_days_change_later(
    client, clock, conference, rooms
):
    conference.day_change = datetime.time(4, 0)
    conference.save()
    hall, _ = rooms
    make_session(title="Evening", room=hall, starts_at=paris(7, 22))
    make_session(title="Past midnight", room=hall, starts_at=paris(8, 0, 30))
    make_session(title="Morning", room=hall, starts_at=paris(8, 9))
    clock(paris(7, 21))
    sign = client.get(door_sign_url(hall)).context["sign"]
    assert [session.title for session in sign.up_next + sign.later] == ["Evening", "Past midnight"]


@pytest.fixture
def night_owls(conference, rooms):
    """Days change at 04:00; the last day's programme runs on into the night of 8 to 9 April."""
    conference.day_change = datetime.time(4, 0)
    conference.save()
    hall, _ = rooms
    make_session(title="Past midnight", room=hall, starts_at=paris(9, 0, 30))
    make_session(title="Night shift", room=hall, starts_at=paris(9, 1), ends_at=paris(9, 2))
    make_session(title="Last call", room=hall, starts_at=paris(9, 2, 30))
    return hall


def test_door_sign_before_midnight_says_later_today_of_the_nights_sessions(
    client, clock, night_owls
):
    clock(paris(8, 23, 50))
    text = main_text(client.get(door_sign_url(night_owls)))
    assert (
        "Next Past midnight Thursday 9 April, 00:30–01:00 CEST "
        "Later today 01:00 CEST Night shift 02:30 CEST Last call"
    ) in text


def test_door_sign_after_midnight_says_later_today_until_the_day_changes(client, clock, night_owls):
    clock(paris(9, 1, 30))
    text = main_text(client.get(door_sign_url(night_owls)))
    assert "Now Night shift until 02:00 CEST Next Last call 02:30–03:00 CEST" in text
    assert "At 01:30 CEST, Thursday 9 April." in text


def test_door_sign_after_midnight_in_the_visitors_zone_keeps_the_conference_day(
    client, clock, night_owls
):
    make_session(title="Dawn", room=night_owls, starts_at=paris(9, 3, 15))
    clock(paris(9, 1, 30))  # 19:30 on 8 April in New York
    text = main_text(client.get(door_sign_url(night_owls), {"tz": "America/New_York"}))
    assert "Next Last call 20:30–21:00 EDT Later today 21:15 EDT Dawn" in text


def test_now_page_before_midnight_announces_the_nights_venue_wide_break(
    client, clock, conference, night_owls
):
    make_session(conference, title="Midnight soup", kind=Session.Kind.BREAK, starts_at=paris(9, 0))
    clock(paris(8, 23, 50))
    text = main_text(client.get(now_url(conference)))
    assert "Whole venue Next Midnight soup Thursday 9 April, 00:00–00:30 CEST" in text


def test_door_sign_after_its_last_session_says_the_conference_is_over(client, clock, rooms):
    hall, _ = rooms
    make_session(title="Closing", room=hall, starts_at=paris(8, 17))
    clock(paris(8, 18))
    text = main_text(client.get(door_sign_url(hall)))
    assert f"No more sessions in Hall: {hall.conference.name} is over." in text


def test_door_sign_of_an_unknown_room_is_a_404(client, conference):
    response = client.get(
        reverse("sessions:door-sign", kwargs={"conference_slug": "pycon", "room_slug": "nowhere"})
    )
    assert response.status_code == 404


def test_now_page_links_each_room_to_its_door_sign(client, clock, rooms):
    hall, _ = rooms
    make_session(title="Opening", room=hall, starts_at=paris(8, 10))
    clock(paris(8, 10, 5))
    html = client.get(now_url(hall.conference)).content.decode()
    assert f'<a href="{door_sign_url(hall)}">Hall</a>' in html


@pytest.mark.parametrize("page", ["conference:conference-detail", "sessions:schedule"])
def test_conference_home_and_schedule_link_to_the_now_page(client, conference, page):
    html = client.get(reverse(page, kwargs={"conference_slug": "pycon"})).content.decode()
    assert f'href="{now_url(conference)}"' in html

"""The schedule planner in Chromium: drag and drop, the keyboard, and what a refusal looks like."""

import datetime
import re

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import expect

from conference.models import Conference, Room
from sessions.models import Session
from speakers.models import Availability
from tests.browser.conftest import new_context
from tests.builders import paris

JSON_RPC = "Beyond JSON-RPC"  # the demo's talk in Junior Stage, 10:35–11:00 on 8 April
TRITON = "Portable High‑Performance LLM Serving"  # Master Stage, 11:35–12:00


def open_planner(page, username: str):
    page.goto(page.base_url + "/admin/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill("plan-it-2026")
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("button", name="Log out")).to_be_visible()
    conference = Conference.objects.get(slug="pytorch-eu-2026")
    page.goto(f"{page.base_url}/admin/schedule/session/planner/{conference.pk}/?day=2026-04-08")
    expect(page.locator("#planner-keys")).to_be_visible()  # planner.js is running
    return page


@pytest.fixture
def planner(page):
    get_user_model().objects.create_superuser("organizer", "organizer@example.org", "plan-it-2026")
    return open_planner(page, "organizer")


@pytest.fixture
def second_planner(browser, planner):
    """Another organizer, Bea Ortiz, on the same day of the planner in a browser of her own."""
    get_user_model().objects.create_superuser(
        "bea", "bea@example.org", "plan-it-2026", first_name="Bea", last_name="Ortiz"
    )
    context = new_context(
        browser, viewport={"width": 1366, "height": 900}, timezone_id="Europe/Paris"
    )
    page = context.new_page()
    page.base_url = planner.base_url
    yield open_planner(page, "bea")
    context.close()


def session_titled(start: str) -> Session:
    return Session.objects.select_related("room").get(title__startswith=start)


def block(page, title: str):
    return page.locator(".planner-block", has_text=title)


def drag_to_slot(page, title: str, room: str, row: int):
    """Drag a block by its top edge so that its top lands on ``row`` (1 is 08:00) of ``room``."""
    column = page.locator(f'.planner-column[data-room-name="{room}"]')
    row_height = column.evaluate(
        "column => column.getBoundingClientRect().height / Number(column.parentNode.dataset.rows)"
    )
    block(page, title).drag_to(
        column,
        source_position={"x": 12, "y": 3},
        target_position={"x": 40, "y": (row - 1) * row_height + row_height / 2},
    )


def test_dragging_a_session_to_a_free_slot_saves_it_there(planner):
    drag_to_slot(planner, JSON_RPC, "Central Room", row=35)  # 10:50, free until 11:20
    expect(planner.locator(".planner-outcome")).to_contain_text(
        "to Central Room, Wednesday 8 April 2026 10:50–11:15 CEST."
    )
    moved = planner.locator('.planner-column[data-room-name="Central Room"] .planner-block')
    expect(moved.filter(has_text=JSON_RPC)).to_have_class(re.compile(r"\br35 s5\b"))
    session = session_titled(JSON_RPC)
    assert (session.room.name, session.starts_at) == ("Central Room", paris(8, 10, 50))


def test_dragging_onto_a_booked_slot_is_refused_and_nothing_moves(planner):
    drag_to_slot(planner, JSON_RPC, "Master Stage", row=44)  # 11:35, where the Triton talk is
    expect(planner.locator(".planner-outcome.is-refused")).to_contain_text(
        f"Master Stage already hosts “{TRITON}"
    )
    junior = planner.locator('.planner-column[data-room-name="Junior Stage"]')
    expect(junior.locator(".planner-block", has_text=JSON_RPC)).to_be_visible()
    session = session_titled(JSON_RPC)
    assert (session.room.name, session.starts_at) == ("Junior Stage", paris(8, 10, 35))


def test_moving_a_session_with_the_keyboard(planner):
    talk = block(planner, JSON_RPC)
    talk.focus()
    planner.keyboard.press("Enter")
    expect(planner.locator("#planner-announce")).to_contain_text("Junior Stage, 10:35")
    planner.keyboard.press("ArrowRight")
    planner.keyboard.press("ArrowDown")
    planner.keyboard.press("ArrowDown")
    expect(planner.locator("#planner-announce")).to_have_text("Founders Cafe, 10:45")
    planner.keyboard.press("Enter")
    expect(planner.locator(".planner-outcome")).to_contain_text(
        "to Founders Cafe, Wednesday 8 April 2026 10:45–11:10 CEST."
    )
    expect(block(planner, JSON_RPC)).to_be_focused()  # still in hand after the board refreshed
    session = session_titled(JSON_RPC)
    assert (session.room.name, session.starts_at) == ("Founders Cafe", paris(8, 10, 45))


def press_keys(page, keys: list[str]) -> int:
    """Press each key in turn; how many were pressed."""
    for key in keys:
        page.keyboard.press(key)
    return len(keys)


def test_typing_a_time_and_a_room_places_a_session_from_the_list_in_ten_keys(planner):
    Session.objects.filter(title__startswith=JSON_RPC).update(
        status=Session.Status.DRAFT, starts_at=None, ends_at=None, room=None, planned_minutes=25
    )
    planner.reload()
    block(planner, JSON_RPC).focus()  # in the unscheduled list
    announce = planner.locator("#planner-announce")
    pressed = press_keys(planner, ["Enter", "1", "0", "5", "0"])
    expect(announce).to_have_text("Master Stage, 10:50")
    pressed += press_keys(planner, ["c", "e"])
    expect(announce).to_have_text("Central Room, 10:50")
    pressed += press_keys(planner, ["Enter"])
    assert pressed <= 10
    expect(announce).to_contain_text("to Central Room, Wednesday 8 April 2026 10:50–11:15 CEST.")
    expect(
        column(planner, "Central Room").locator(".planner-block", has_text=JSON_RPC)
    ).to_be_visible()
    session = session_titled(JSON_RPC)
    assert (session.room.name, session.starts_at) == ("Central Room", paris(8, 10, 50))


def test_a_typed_time_with_a_colon_jumps_there(planner):
    block(planner, JSON_RPC).focus()  # Junior Stage, 10:35
    press_keys(planner, ["Enter", *"9:05"])
    expect(planner.locator("#planner-announce")).to_have_text("Junior Stage, 09:05")


def test_a_typed_time_no_slot_matches_is_announced_and_nothing_moves(planner):
    block(planner, JSON_RPC).focus()
    press_keys(planner, ["Enter", *"25:00"])
    expect(planner.locator("#planner-announce")).to_have_text(
        "No time 25:00 on this day for this session; still at Junior Stage, 10:35."
    )
    expect(
        column(planner, "Junior Stage").locator(".planner-block", has_text=JSON_RPC)
    ).to_have_class(re.compile(r"\br32 s5\b"))
    planner.keyboard.press("Enter")
    expect(planner.locator("#planner-announce")).to_have_text("Put back where it was.")
    session = session_titled(JSON_RPC)
    assert (session.room.name, session.starts_at) == ("Junior Stage", paris(8, 10, 35))


def test_typed_letters_no_room_matches_are_announced_and_nothing_moves(planner):
    block(planner, JSON_RPC).focus()
    press_keys(planner, ["Enter", "x"])
    expect(planner.locator("#planner-announce")).to_have_text(
        "No room starting “x”; still at Junior Stage, 10:35."
    )
    expect(
        column(planner, "Junior Stage").locator(".planner-block", has_text=JSON_RPC)
    ).to_be_visible()


def test_escape_puts_a_picked_up_session_back(planner):
    block(planner, JSON_RPC).focus()
    planner.keyboard.press("Enter")
    planner.keyboard.press("ArrowLeft")
    planner.keyboard.press("Escape")
    expect(planner.locator("#planner-announce")).to_have_text("Move cancelled.")
    junior = planner.locator('.planner-column[data-room-name="Junior Stage"]')
    expect(junior.locator(".planner-block", has_text=JSON_RPC)).to_be_visible()
    assert session_titled(JSON_RPC).room.name == "Junior Stage"


def test_dragging_a_draft_back_to_the_side_list_unschedules_it(planner):
    Session.objects.filter(title__startswith=JSON_RPC).update(status=Session.Status.DRAFT)
    planner.reload()
    block(planner, JSON_RPC).drag_to(planner.locator(".planner-side"))
    expect(planner.locator(".planner-outcome")).to_contain_text("to the unscheduled list.")
    expect(planner.locator("#planner-unscheduled").get_by_text(JSON_RPC)).to_be_visible()
    session = session_titled(JSON_RPC)
    assert (session.starts_at, session.room, session.planned_minutes) == (None, None, 25)


def test_a_session_from_the_side_list_is_placed_and_undone(planner):
    Session.objects.filter(title__startswith=JSON_RPC).update(
        status=Session.Status.DRAFT, starts_at=None, ends_at=None, room=None, planned_minutes=25
    )
    planner.reload()
    drag_to_slot(planner, JSON_RPC, "Central Room", row=35)
    expect(planner.locator(".planner-outcome")).to_contain_text("to Central Room")
    assert session_titled(JSON_RPC).room == Room.objects.get(name="Central Room")
    planner.get_by_role("button", name=re.compile("^Undo")).click()
    expect(planner.locator(".planner-outcome")).to_contain_text("is back in the unscheduled list")
    expect(planner.locator("#planner-unscheduled").get_by_text(JSON_RPC)).to_be_visible()
    assert session_titled(JSON_RPC).is_unscheduled


def test_a_refused_move_names_the_session_once(planner):
    drag_to_slot(planner, JSON_RPC, "Master Stage", row=44)  # where the Triton talk is
    outcome = planner.locator(".planner-outcome.is-refused")
    expect(outcome).to_contain_text("already hosts")
    assert outcome.inner_text().count(JSON_RPC) == 1


def test_a_published_session_dragged_to_the_side_list_is_unpublished_once_confirmed(planner):
    asked = []

    def answer(dialog):
        asked.append(dialog.message)
        if len(asked) == 1:
            dialog.dismiss()
        else:
            dialog.accept()

    planner.on("dialog", answer)
    block(planner, JSON_RPC).drag_to(planner.locator(".planner-side"))  # dismissed: stays
    expect(planner.locator("#planner-status")).to_have_text("Not moved: it stays published.")
    assert session_titled(JSON_RPC).is_published

    block(planner, JSON_RPC).drag_to(planner.locator(".planner-side"))  # accepted

    expect(planner.locator(".planner-outcome.is-saved")).to_contain_text(
        "the next release lists it as removed."
    )
    expect(planner.locator("#planner-unscheduled").get_by_text(JSON_RPC)).to_be_visible()
    assert len(asked) == 2
    assert "is published. Taking it off the schedule unpublishes it" in asked[0]
    session = session_titled(JSON_RPC)
    assert (session.status, session.room) == (Session.Status.DRAFT, None)


def test_a_lightning_talk_block_says_its_kind_once(planner):
    talk = block(planner, "Live Migration of PyTorch GPU Nodes")
    expect(talk.locator(".planner-title")).to_contain_text("Lightning Talk: Live Migration")
    expect(talk.locator(".planner-meta")).to_have_text("10:35–10:45")


def test_on_the_day_the_clocks_go_back_time_labels_name_the_zone(planner):
    conference = Conference.objects.get(slug="pytorch-eu-2026")
    conference.ends_on = datetime.date(2026, 10, 25)
    conference.save()
    Session.objects.filter(title__startswith=JSON_RPC).update(
        starts_at=datetime.datetime(2026, 10, 25, 0, 30, tzinfo=datetime.UTC),
        ends_at=datetime.datetime(2026, 10, 25, 0, 55, tzinfo=datetime.UTC),
    )
    planner.goto(
        f"{planner.base_url}/admin/schedule/session/planner/{conference.pk}/?day=2026-10-25"
    )
    hours = planner.locator(".planner-time.is-hour")
    expect(hours.first).to_have_text("02:00 CEST")
    expect(hours.nth(1)).to_have_text("02:00 CET")
    # Each on one line, within the time column.
    assert hours.nth(1).evaluate(
        """label => {
            const text = document.createRange();
            text.selectNodeContents(label);
            return text.getClientRects().length === 1 && label.scrollWidth <= label.clientWidth;
        }"""
    )


def test_a_move_outside_a_speakers_availability_warns_in_the_status_and_aloud(planner):
    speaker = session_titled(JSON_RPC).speakers.order_by("pk").first()
    Availability.objects.create(speaker=speaker, starts_at=paris(8, 9), ends_at=paris(8, 10, 45))
    warning = f"Warning: {speaker.name} is not available then (available Wed 09:00–10:45 CEST)."
    planner.set_viewport_size({"width": 1366, "height": 900})
    drag_to_slot(planner, JSON_RPC, "Central Room", row=35)  # 10:50: saved, but past 10:45
    outcome = planner.locator(".planner-outcome.is-saved.is-warned")
    expect(outcome).to_contain_text("to Central Room, Wednesday 8 April 2026 10:50–11:15 CEST.")
    expect(outcome).to_contain_text(warning)
    expect(planner.locator("#planner-announce")).to_contain_text(warning)
    assert session_titled(JSON_RPC).starts_at == paris(8, 10, 50)


def column(page, room: str):
    return page.locator(f'.planner-column[data-room-name="{room}"]')


def test_undo_is_announced_in_place_of_the_move_it_undoes(planner):
    drag_to_slot(planner, JSON_RPC, "Central Room", row=35)
    expect(planner.locator("#planner-announce")).to_contain_text(f"Moved “{JSON_RPC}")
    planner.get_by_role("button", name=re.compile("^Undo")).click()
    expect(planner.locator("#planner-announce")).to_have_text(
        re.compile(f"^Undone: “{JSON_RPC}.*” is back in Junior Stage, Wednesday 8 April 2026 10:35")
    )
    expect(
        column(planner, "Junior Stage").locator(".planner-block", has_text=JSON_RPC)
    ).to_be_visible()


def board_redrawn(page, drawn_as: str):
    """Wait for the board drawn after ``drawn_as`` (its data-etag): blocks are new elements."""
    expect(page.locator("#planner-board")).not_to_have_attribute("data-etag", drawn_as)


def test_a_refused_move_offers_no_undo_of_the_move_before(planner):
    drawn_as = planner.locator("#planner-board").get_attribute("data-etag")
    drag_to_slot(planner, JSON_RPC, "Central Room", row=35)  # saved: Undo offers it
    expect(planner.get_by_role("button", name=re.compile("^Undo"))).to_be_visible()
    board_redrawn(planner, drawn_as)
    block(planner, JSON_RPC).focus()
    planner.keyboard.press("Enter")
    planner.keyboard.press("ArrowLeft")  # Master Stage at 10:50, where a lightning talk is
    planner.keyboard.press("Enter")
    expect(planner.locator(".planner-outcome.is-refused")).to_contain_text(
        "Master Stage already hosts"
    )
    expect(planner.get_by_role("button", name=re.compile("^Undo"))).to_have_count(0)
    expect(planner.locator("#planner-announce")).to_contain_text("Not moved:")


def test_each_open_planner_shows_the_others_moves_without_a_reload(planner, second_planner):
    drag_to_slot(second_planner, JSON_RPC, "Central Room", row=35)
    expect(second_planner.locator(".planner-outcome.is-saved")).to_be_visible()
    # About five seconds: a poll every four, then the board; the slack is for a loaded machine.
    expect(
        column(planner, "Central Room").locator(".planner-block", has_text=JSON_RPC)
    ).to_be_visible(timeout=10_000)
    expect(
        column(planner, "Junior Stage").locator(".planner-block", has_text=JSON_RPC)
    ).to_have_count(0)


def test_a_move_refused_for_anothers_move_says_who_where_and_when_and_redraws(
    planner, second_planner
):
    planner.set_viewport_size({"width": 1366, "height": 900})
    block(planner, JSON_RPC).focus()
    planner.keyboard.press("Enter")  # in hand: the board waits
    expect(planner.locator("#planner-announce")).to_contain_text("Picked up")
    drag_to_slot(second_planner, JSON_RPC, "Central Room", row=35)
    expect(second_planner.locator(".planner-outcome.is-saved")).to_be_visible()
    planner.keyboard.press("ArrowRight")
    planner.keyboard.press("Enter")
    words = re.compile(
        f"^Not moved: Bea Ortiz moved “{JSON_RPC}.*” to Central Room, Wednesday 8 April 2026 "
        r"10:50–11:15 CEST at \d\d:\d\d CES?T\. The board now shows it as it is"
    )
    expect(planner.locator(".planner-outcome.is-refused")).to_have_text(words)
    expect(planner.locator("#planner-announce")).to_have_text(words)
    expect(block(planner, JSON_RPC)).to_be_focused()  # in the board drawn again
    expect(
        column(planner, "Central Room").locator(".planner-block", has_text=JSON_RPC)
    ).to_be_visible()
    expect(
        column(planner, "Founders Cafe").locator(".planner-block", has_text=JSON_RPC)
    ).to_have_count(0)
    session = session_titled(JSON_RPC)
    assert (session.room.name, session.starts_at) == ("Central Room", paris(8, 10, 50))

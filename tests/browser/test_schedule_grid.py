"""The grid as drawn: blocks under their room's heading, short saved blocks that clash, French
times. (How the grid fits the demo's day: test_schedule_look.py.)"""

import pytest
from playwright.sync_api import expect

from conference.models import Conference, Room
from sessions.models import SavedSession, Session
from tests.browser.conftest import new_context
from tests.builders import make_room, make_session, paris

SLUG = "pytorch-eu-2026"
WEDNESDAY = f"/{SLUG}/schedule/grid/?day=2026-04-08"
TUESDAY = f"/{SLUG}/schedule/grid/?day=2026-04-07"
DESKTOP = {"width": 1440, "height": 900}
PASSWORD = "a long passphrase 42"

# Talks moved into the demo's lunch, so that no "No sessions" band spans the grid's columns.
INTO_LUNCH = {
    "backpropagation-free-optimization-in-pytorch": paris(8, 12, 15),
    "distributed-ai-without-the-infrastructure-tax": paris(8, 12, 40),
    "scaling-recommendation-systems-to-2k-gpus-and-beyond": paris(8, 13, 5),
}


def open_grid(browser, live_server, path, **options):
    context = new_context(browser, viewport=DESKTOP, timezone_id="Europe/Paris", **options)
    page = context.new_page()
    page.goto(live_server.url + path)
    return page


def log_in(page, username):
    base_url = page.url.split(f"/{SLUG}/")[0]
    page.goto(f"{base_url}/accounts/login/?next={WEDNESDAY}")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(f"{base_url}{WEDNESDAY}", wait_until="load")


# Each block's room (its card names it, for screen readers) and where block and heading are drawn.
BLOCKS_AND_HEADINGS = """() => {
  const headings = Object.fromEntries([...document.querySelectorAll('.tgrid-head > *')]
    .map(cell => [cell.textContent.trim(), cell.getBoundingClientRect()]));
  return [...document.querySelectorAll('.tgrid-block')].map(block => {
    const room = block.querySelector('.room').textContent.trim();
    const box = block.getBoundingClientRect(), heading = headings[room];
    return {room, x: box.x, width: box.width,
            headingX: heading ? heading.x : null, headingWidth: heading ? heading.width : null};
  });
}"""


def test_each_block_stands_under_its_room_when_the_last_room_is_free_that_day(
    browser, live_server, demo_conference
):
    conference = Conference.objects.get(slug=SLUG)
    workshop = make_room(conference, name="Workshop Room", position=10)  # the last room
    make_session(
        conference,
        title="Hands-on torch.compile",
        room=workshop,
        starts_at=paris(7, 10),
        ends_at=paris(7, 11, 30),
    )
    for slug, starts_at in INTO_LUNCH.items():
        session = Session.objects.get(conference=conference, slug=slug)
        session.ends_at = starts_at + (session.ends_at - session.starts_at)
        session.starts_at = starts_at
        session.full_clean()
        session.save()

    page = open_grid(browser, live_server, WEDNESDAY)
    expect(page.locator(".tgrid-gap")).to_have_count(0)
    blocks = page.evaluate(BLOCKS_AND_HEADINGS)
    assert len(blocks) == conference.sessions.filter(starts_at__date="2026-04-08").count()
    misplaced = [
        block
        for block in blocks
        if block["headingX"] is None
        or abs(block["x"] - block["headingX"]) > 1
        or abs(block["width"] - block["headingWidth"]) > 1
    ]
    assert misplaced == []
    # A room with nothing that day is left out, as on Sched (sessions/timetable.py build_grid).
    rooms = [room.name for room in Room.objects.filter(conference=conference)]
    assert rooms[-1] == "Workshop Room"
    expect(page.locator(".tgrid-head > *")).to_have_text(["Time", *rooms[:-1]])
    # On the day it has a session, the room has its column.
    page.goto(live_server.url + TUESDAY)
    expect(page.locator(".tgrid-head > *")).to_have_text(["Time", "Workshop Room"])
    [block] = page.evaluate(BLOCKS_AND_HEADINGS)
    assert block["x"] == pytest.approx(block["headingX"], abs=1)
    assert block["width"] == pytest.approx(block["headingWidth"], abs=1)


# Title, speakers and clash mark of each card given: their boxes, and the card's.
PART_BOXES = """cards => cards.map(card => {
  const box = node => { const r = node.getBoundingClientRect();
    return {left: r.left, top: r.top, right: r.right, bottom: r.bottom}; };
  return {id: card.id, card: box(card), parts: {
    title: box(card.querySelector('.session-title')),
    speakers: box(card.querySelector('.session-speakers')),
    mark: box(card.querySelector('.clash-mark')),
  }};
})"""

CLASHING_SHORT_PAIRS = [
    # 10-minute lightning talks at 14:00, side by side.
    (
        "pluggable-pytorch-llm-inference-architecture-with-vllm-and-aws-neuron-backends",
        "debugging-the-undebuggable-introducing-torchdistributeddebug",
    ),
    # A 10-minute lightning talk and the 25-minute talk beside it at 10:35.
    (
        "live-migration-of-pytorch-gpu-nodes-from-azure-to-european-clouds",
        "beyond-json-rpc-scaling-model-context-protocols-with-grpc-in-the-pytorch-ecosystem",
    ),
]


def overlap(one, other) -> bool:
    return (
        min(one["right"], other["right"]) - max(one["left"], other["left"]) > 0.5
        and min(one["bottom"], other["bottom"]) - max(one["top"], other["top"]) > 0.5
    )


def inside(part, card) -> bool:
    return (
        part["left"] >= card["left"] - 0.5
        and part["right"] <= card["right"] + 0.5
        and part["top"] >= card["top"] - 0.5
        and part["bottom"] <= card["bottom"] + 0.5
    )


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_short_saved_blocks_that_clash_keep_title_speaker_and_mark_apart(
    browser, live_server, demo_conference, django_user_model, scheme
):
    user = django_user_model.objects.create_user("attendee", password=PASSWORD)
    conference = Conference.objects.get(slug=SLUG)
    slugs = [slug for pair in CLASHING_SHORT_PAIRS for slug in pair]
    for session in conference.sessions.filter(slug__in=slugs):
        SavedSession.objects.add(user, session)
    page = open_grid(browser, live_server, WEDNESDAY, color_scheme=scheme)
    log_in(page, "attendee")

    cards = page.locator(".tgrid-block.s2 .session:has([data-clash])")
    expect(cards).to_have_count(3)  # the 10-minute ones among them
    for card in cards.all():
        mark = card.locator(".clash-mark")
        expect(mark).to_be_visible()
        expect(mark).to_have_text("Clashes with another saved session")  # what is read out
        assert mark.bounding_box()["width"] <= 20  # an icon: the words take no room
        # One line of title, cut with an ellipsis, and the first speaker.
        title = card.locator(".session-title")
        assert title.bounding_box()["height"] <= 17
        assert title.evaluate("node => getComputedStyle(node).textOverflow") == "ellipsis"
        speakers = card.locator(".session-speakers")
        assert speakers.bounding_box()["height"] <= 17
        first = speakers.get_by_role("link").first.bounding_box()
        line = speakers.bounding_box()
        assert line["x"] <= first["x"]
        assert first["x"] + first["width"] <= line["x"] + line["width"]

    found = page.locator(".tgrid-block .session:has([data-clash])").evaluate_all(PART_BOXES)
    assert sorted(item["id"] for item in found) == sorted(f"session-{slug}" for slug in slugs)
    problems = []
    for item in found:
        parts = item["parts"]
        names = list(parts)
        for index, name in enumerate(names):
            if not inside(parts[name], item["card"]):
                problems.append(f"{item['id']}: {name} outside its block")
            for other in names[index + 1 :]:
                if overlap(parts[name], parts[other]):
                    problems.append(f"{item['id']}: {name} over {other}")
    assert problems == []


def test_french_grid_times_stay_on_one_line_in_their_column(browser, live_server, demo_conference):
    page = open_grid(browser, live_server, WEDNESDAY, locale="fr-FR")
    expect(page.locator(".tgrid-time").first).to_have_text("10 h 35")
    labels = page.locator(".tgrid-time, .tgrid-tick").evaluate_all("""labels => labels.map(
      label => [label.textContent, label.getBoundingClientRect().height,
                parseFloat(getComputedStyle(label).lineHeight), label.scrollWidth,
                label.clientWidth])""")
    assert len(labels) > 20
    wrapped = [text for text, height, line, *_ in labels if height > line + 1]
    overflowing = [text for text, _, _, needed, room in labels if needed > room]
    assert (wrapped, overflowing) == ([], [])
    # A block's time keeps its zone on its line.
    time = page.locator(
        "#session-beyond-json-rpc-scaling-model-context-protocols-with-grpc-in-the-pytorch-ecosystem"
        " .time"
    )
    expect(time).to_have_text("10 h 35–11 h 00 CEST")
    line = time.evaluate("node => parseFloat(getComputedStyle(node.parentNode).lineHeight)")
    assert time.bounding_box()["height"] <= line + 1


def test_french_list_times_keep_their_zone_on_their_line(browser, live_server, demo_conference):
    """The list's time column, as the grid's: “10 h 35 CEST” on one line, not “CEST” below."""
    page = open_grid(browser, live_server, f"/{SLUG}/schedule/?day=2026-04-08", locale="fr-FR")
    expect(page.locator(".slot-time").first).to_have_text("10 h 35 CEST")
    # The heading is as tall as its slot's cards: the time inside it is the one line to measure.
    headings = page.locator(".slot-time").evaluate_all("""headings => headings.map(
      heading => [heading.textContent, heading.firstElementChild.getBoundingClientRect().height,
                  parseFloat(getComputedStyle(heading).lineHeight), heading.scrollWidth,
                  heading.clientWidth])""")
    assert len(headings) > 10
    wrapped = [text for text, height, line, *_ in headings if height > line + 1]
    overflowing = [text for text, _, _, needed, room in headings if needed > room]
    assert (wrapped, overflowing) == ([], [])

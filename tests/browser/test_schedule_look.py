"""How the schedule looks and fits: density, the proportional grid, sticky headings, phones."""

import datetime
import re

import pytest
from playwright.sync_api import expect

from conference.models import Conference, Room
from tests.browser.conftest import new_context
from tests.builders import SAVE_BUTTON, SAVED_BUTTON, make_session

SCHEDULE = "/pytorch-eu-2026/schedule/"
GRID = "/pytorch-eu-2026/schedule/grid/?day=2026-04-08"
DESKTOP = {"width": 1366, "height": 900}
PHONE = {"width": 390, "height": 844}

# The cards whose whole box lies inside the first screen.
CARDS_IN_FIRST_SCREEN = """() => [...document.querySelectorAll('article.session')].filter(card => {
  const box = card.getBoundingClientRect();
  return box.top >= 0 && box.bottom <= window.innerHeight;
}).length"""


@pytest.fixture
def open_page(browser, live_server, demo_conference):
    contexts = []

    def open_page(path, viewport, **options):
        context = new_context(browser, viewport=viewport, timezone_id="Europe/Paris", **options)
        contexts.append(context)
        page = context.new_page()
        page.goto(live_server.url + path)
        return page

    yield open_page
    for context in contexts:
        context.close()


def test_the_first_desktop_screen_shows_at_least_ten_whole_sessions(open_page):
    page = open_page(SCHEDULE, DESKTOP)
    assert page.evaluate(CARDS_IN_FIRST_SCREEN) >= 10


def test_a_desktop_card_keeps_every_field_in_two_lines(open_page):
    page = open_page(SCHEDULE, DESKTOP)
    card = page.locator(
        "#session-live-migration-of-pytorch-gpu-nodes-from-azure-to-european-clouds"
    )
    expect(card).to_contain_text("Mike Krom, ACF Cybersolutions")
    for field in ("10:35–10:45", "Central Room", "Security & Privacy", "Intermediate"):
        expect(card.locator(".session-meta")).to_contain_text(field)
    speakers = card.locator(".session-speakers").bounding_box()
    meta = card.locator(".session-meta").bounding_box()
    assert abs(speakers["y"] + speakers["height"] / 2 - meta["y"] - meta["height"] / 2) <= 4
    # The slot's heading says CEST; the card says it only to screen readers.
    expect(card.locator(".zone")).to_have_text(" CEST")
    assert card.locator(".zone").bounding_box()["width"] <= 1


def test_the_first_phone_screen_shows_at_least_four_whole_sessions(open_page):
    page = open_page(SCHEDULE, PHONE)
    assert page.evaluate(CARDS_IN_FIRST_SCREEN) >= 4


WEDNESDAY = SCHEDULE + "?day=2026-04-08"


@pytest.mark.parametrize(
    ("viewport", "least"),
    [({"width": 1440, "height": 900}, 10), (PHONE, 5)],
    ids=["desktop", "phone"],
)
def test_one_day_costs_no_session_of_the_first_screen(open_page, viewport, least):
    """A day is chosen by its tab, as on the grid: no chip, count or “View all dates” above the
    sessions."""
    page = open_page(WEDNESDAY, viewport)
    days = page.get_by_role("navigation", name="Days")
    expect(days.get_by_role("link", name="Wednesday 8 April")).to_have_attribute(
        "aria-current", "page"
    )
    expect(page.locator(".chips, .match-count")).to_have_count(0)
    assert page.evaluate(CARDS_IN_FIRST_SCREEN) >= least


def test_filters_on_a_day_are_summed_up_in_one_line(open_page):
    page = open_page(WEDNESDAY + "&track=security-privacy", {"width": 1440, "height": 900})
    summary = page.locator(".filter-summary")
    expect(summary).to_contain_text("1 session matches on this day")
    expect(
        summary.get_by_role("link", name="Remove filter Track: Security & Privacy")
    ).to_be_visible()
    expect(summary.get_by_role("link", name="Clear all filters")).to_be_visible()
    count = page.locator(".match-count").bounding_box()
    assert summary.bounding_box()["height"] <= count["height"] + 12  # one line of chips


def test_the_phone_header_is_one_row_with_the_links_behind_menu(open_page):
    page = open_page(SCHEDULE, PHONE, java_script_enabled=False)  # a <details>: no script needed
    header = page.locator(".site-header")
    assert header.bounding_box()["height"] < 50
    expect(page.get_by_role("link", name="Speakers")).to_be_hidden()
    page.get_by_text("Menu", exact=True).click()
    expect(page.get_by_role("link", name="Speakers")).to_be_visible()
    expect(page.get_by_role("link", name="Log in")).to_be_visible()


def test_the_phone_filters_wait_behind_one_button(open_page):
    page = open_page(SCHEDULE, PHONE, java_script_enabled=False)
    expect(page.get_by_label("Security & Privacy")).to_be_hidden()
    page.get_by_text("Filters", exact=True).click()
    expect(page.get_by_label("Security & Privacy")).to_be_visible()


@pytest.mark.parametrize(
    "path",
    [
        SCHEDULE,
        GRID,
        "/pytorch-eu-2026/sessions/live-migration-of-pytorch-gpu-nodes-from-azure-to-european-clouds/",
        "/pytorch-eu-2026/speakers/",
        "/pytorch-eu-2026/speakers/bin-bao/",
        "/pytorch-eu-2026/my-schedule/",
    ],
)
def test_no_page_scrolls_sideways_on_a_phone(open_page, path):
    page = open_page(path, PHONE)
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]


# Controls whose text does not fit them: for a list or a field, the chosen option's text or the
# placeholder measured in its font (a list's arrow taken as 20 px); for the rest, what overflows.
CUT_OFF_CONTROLS = """() => {
  const measure = document.createElement('canvas').getContext('2d');
  const cut = [];
  const controls = 'a, button, summary, select, input:not([type=hidden], [type=checkbox]), .brand';
  for (const control of document.querySelectorAll(controls)) {
    if (!control.getClientRects().length) continue;  // not shown
    const style = getComputedStyle(control);
    let needs = control.scrollWidth;
    if (control.matches('select, input')) {
      measure.font = style.font;
      const text = control.matches('select') ? control.selectedOptions[0].text : control.value || control.placeholder;
      needs = measure.measureText(text).width + parseFloat(style.paddingLeft)
        + parseFloat(style.paddingRight) + (control.matches('select') ? 20 : 0);
    }
    if (needs > control.clientWidth + 0.5) cut.push(control.outerHTML.slice(0, 80));
  }
  return cut;
}"""


@pytest.mark.parametrize(
    "path",
    [SCHEDULE, GRID, "/pytorch-eu-2026/", "/pytorch-eu-2026/no-such-page/"],
    ids=["schedule", "grid", "home", "not found"],
)
def test_no_control_is_cut_off_on_a_phone(open_page, path):
    page = open_page(path, PHONE)
    if path == SCHEDULE:
        open_zone_picker(page)  # the list folds it behind a button in its head
    assert page.evaluate(CUT_OFF_CONTROLS) == []


@pytest.mark.parametrize("path", [SCHEDULE, GRID], ids=["schedule", "grid"])
def test_phone_cards_have_their_facts_in_two_lines_whatever_the_track(open_page, path):
    """Time, room and Save, then track and level: a long track never pushes the level onto a
    third line, so cards differ in height only by their title and speakers."""
    page = open_page(path, PHONE)
    lines = page.evaluate("""() => [...document.querySelectorAll('.session')]
      .filter(card => card.querySelector('.track') && card.querySelector('.level'))
      .map(card => {
        const middle = selector => {
          const box = card.querySelector(selector).getBoundingClientRect();
          return (box.top + box.bottom) / 2;
        };
        return [Math.abs(middle('.level') - middle('.track')) < 6,  // one line
                middle('.track') - middle('.time') > 10,  // the next one
                Math.abs(middle('.save-button') - middle('.time')) < 6];
      })""")
    assert len(lines) > 10
    assert set(map(tuple, lines)) == {(True, True, True)}


@pytest.mark.parametrize(
    "path", ["/pytorch-eu-2026/no-such-page/", "/pytorch-eu-2026/offline/"], ids=["404", "offline"]
)
def test_the_footer_stands_at_the_foot_of_a_short_page_on_a_phone(open_page, path):
    page = open_page(path, PHONE)
    footer = page.locator(".site-footer")
    expect(footer).to_contain_text("PyTorch Conference Europe 2026")
    box = footer.bounding_box()
    assert box["y"] + box["height"] == PHONE["height"]
    assert page.evaluate("document.documentElement.scrollHeight") == PHONE["height"]


def test_grid_blocks_are_as_tall_as_their_sessions_are_long(open_page):
    conference = Conference.objects.get(slug="pytorch-eu-2026")
    paris = conference.tz
    make_session(
        conference,
        title="Twenty minutes",
        slug="twenty-minutes",
        room=Room.objects.get(conference=conference, slug="junior-stage"),
        starts_at=datetime.datetime(2026, 4, 8, 17, 0, tzinfo=paris),
        ends_at=datetime.datetime(2026, 4, 8, 17, 20, tzinfo=paris),
    )
    page = open_page(GRID, DESKTOP)
    twenty = page.locator(".tgrid-block:has(#session-twenty-minutes)").bounding_box()["height"]
    ten = page.locator(
        ".tgrid-block:has(#session-live-migration-of-pytorch-gpu-nodes-from-azure-to-european-clouds)"
    ).bounding_box()["height"]
    assert abs(twenty - 2 * ten) <= 2


LIVE_MIGRATION = "#session-live-migration-of-pytorch-gpu-nodes-from-azure-to-european-clouds"

# Each grid block's parts that show something cut: a box partly inside what its block shows.
CUT_PARTS = """() => [...document.querySelectorAll('.tgrid-block .session')].flatMap(card => {
  const edge = card.getBoundingClientRect();
  const parts = card.querySelectorAll('.session-meta > *, .track, .level, .save-button');
  return [...parts].filter(part => {
    const clip = part.closest('.session-meta') || card;
    const outer = clip.getBoundingClientRect();
    const bottom = Math.min(outer.bottom, edge.bottom - 1);
    const box = part.getBoundingClientRect();
    const inside = box.top >= outer.top - 0.5 && box.bottom <= bottom + 0.5
      && box.right <= edge.right + 0.5;
    const hidden = box.top >= bottom - 0.5;
    return !(inside || hidden);
  }).map(part => card.id + ' ' + part.className);
})"""


def test_grid_block_titles_end_in_an_ellipsis_and_show_whole_on_focus(open_page):
    page = open_page(GRID, DESKTOP)
    title = page.locator(f"{LIVE_MIGRATION} .session-title")
    card = page.locator(LIVE_MIGRATION)
    # A 10-minute block: one line of title, cut with an ellipsis (a line of speaker below it).
    assert title.evaluate("node => getComputedStyle(node).textOverflow") == "ellipsis"
    assert title.evaluate("node => node.scrollWidth > node.clientWidth")  # cut, at the line's end
    assert title.bounding_box()["height"] <= 17
    title.get_by_role("link").focus()
    assert title.evaluate("node => node.scrollHeight <= node.clientHeight")
    box, whole = title.bounding_box(), card.bounding_box()
    assert box["y"] + box["height"] <= whole["y"] + whole["height"]
    expect(title).to_contain_text("From Azure To European Clouds")


def test_grid_blocks_show_a_kind_badge_instead_of_the_prefix(open_page):
    page = open_page(GRID, DESKTOP)
    title = page.locator(f"{LIVE_MIGRATION} .session-title")
    seen = title.evaluate("""node => { const copy = node.cloneNode(true);
        copy.querySelectorAll('.visually-hidden').forEach(hidden => hidden.remove());
        return copy.textContent.replace(/\\s+/g, ' ').trim(); }""")
    assert seen.startswith("Lightning Live Migration")  # what the eye reads
    link = title.get_by_role("link")
    expect(link).to_have_accessible_name(re.compile(r"^Lightning Talk: Live Migration"))
    badge = title.locator(".kind-badge").bounding_box()["width"]
    assert badge <= 0.4 * title.bounding_box()["width"]  # “Lightning Talk: ” took 2/3 of the line


@pytest.mark.parametrize("viewport", [DESKTOP, {"width": 1024, "height": 768}])
def test_no_grid_block_clips_a_tag_a_level_or_its_save_button(open_page, viewport):
    page = open_page(GRID, viewport)
    assert page.evaluate(CUT_PARTS) == []
    # A 25-minute block shows its track and level whole.
    beyond = page.locator(
        "#session-beyond-json-rpc-scaling-model-context-protocols-with-grpc-in-the-pytorch-ecosystem"
    )
    for part in (".track", ".level"):
        box, card = beyond.locator(part).bounding_box(), beyond.bounding_box()
        assert box["y"] + box["height"] <= card["y"] + card["height"]


def test_every_grid_block_has_its_save_button_inside_it(open_page):
    page = open_page(GRID, DESKTOP)
    cards = page.locator(".tgrid-block .session:not(.session-break)")
    assert cards.count() > 20
    outside = page.evaluate("""() => [...document.querySelectorAll(
        '.tgrid-block .session:not(.session-break)')].filter(card => {
      const button = card.querySelector('.save-button');
      if (!button) return true;
      const box = button.getBoundingClientRect(), edge = card.getBoundingClientRect();
      return box.height === 0 || box.top < edge.top || box.bottom > edge.bottom
        || box.right > edge.right;
    }).map(card => card.id)""")
    assert outside == []
    page.locator(f"{LIVE_MIGRATION} .save-button").click()
    expect(page).to_have_url(re.compile(r"/accounts/login/"))


def test_the_demo_day_grid_fits_in_about_two_desktop_screens(open_page):
    page = open_page(GRID, DESKTOP)
    assert page.locator(".tgrid").bounding_box()["height"] <= 2 * DESKTOP["height"]


def test_the_grid_time_axis_labels_every_half_hour_and_folds_lunch(open_page):
    page = open_page(GRID, DESKTOP)
    axis = page.locator(".tgrid-time:visible, .tgrid-tick:visible")
    labels = set(axis.all_inner_texts())
    assert {"10:30", "11:00", "11:30", "13:30", "14:00", "14:30", "15:00"} <= labels
    gap = page.locator(".tgrid-gap")
    expect(gap).to_have_text("No sessions 12:00–13:30")
    band, grid = gap.bounding_box(), page.locator(".tgrid").bounding_box()
    assert band["height"] <= 3 * 20  # the 90 minutes take at most a quarter hour's rows
    assert band["width"] >= grid["width"] - 2  # across every room
    before = page.locator(
        ".tgrid-block:has(#session-accelerating-complex-valued-tensors-with-torchcompile)"
    )
    assert band["y"] - (before.bounding_box()["y"] + before.bounding_box()["height"]) <= 2


def test_grid_room_names_stay_on_top_while_scrolling(open_page):
    page = open_page(GRID, DESKTOP)
    page.mouse.wheel(0, 1000)
    page.wait_for_function("window.scrollY >= 500")  # lunch folded, the day is that much shorter
    head = page.locator(".tgrid-head").bounding_box()
    assert head["y"] == pytest.approx(0, abs=1)
    expect(page.locator(".tgrid-head")).to_contain_text("Founders Cafe")


def test_schedule_day_heading_stays_on_top_while_scrolling(open_page):
    page = open_page(SCHEDULE, DESKTOP)
    page.mouse.wheel(0, 1500)
    page.wait_for_function("window.scrollY >= 1400")
    heading = page.get_by_role("heading", name="Wednesday 8 April 2026")
    assert heading.bounding_box()["y"] == pytest.approx(0, abs=1)


def test_a_phone_grid_has_no_empty_time_headings(open_page):
    page = open_page(GRID, PHONE)
    times = page.locator(".tgrid-time")
    assert times.count() > 0
    for heading in times.all():
        following = heading.evaluate("node => node.nextElementSibling.className")
        assert "tgrid-block" in following


def open_zone_picker(page):
    """The list's zone picker waits behind “Time zone” in the page's head, script or not."""
    page.get_by_text("Time zone", exact=True).click()


def test_arrowing_through_the_zone_picker_does_not_reload_the_page(open_page):
    page = open_page(SCHEDULE, DESKTOP)
    open_zone_picker(page)
    picker = page.get_by_label("Times shown in")
    chosen = picker.evaluate("select => select.selectedIndex")
    third_zone_down = picker.locator("option").nth(chosen + 3).get_attribute("value")
    page.evaluate("window.stillTheSamePage = true")
    picker.focus()
    for _ in range(3):
        page.keyboard.press("ArrowDown")
    # A page that applied the zone on change would have left at the first key: the second and
    # third would then not have reached the picker, or the new page would not know the mark.
    expect(picker).to_have_value(third_zone_down)
    expect(picker).to_be_focused()
    assert page.evaluate("window.stillTheSamePage") is True
    assert page.url.endswith(SCHEDULE)
    page.get_by_role("button", name="Show times").click()
    expect(page).to_have_url(re.compile(r"[?&]tz="))


def test_the_zone_picker_offers_the_device_zone_first(browser, live_server, demo_conference):
    context = new_context(browser, timezone_id="Asia/Tokyo")
    page = context.new_page()
    page.goto(live_server.url + SCHEDULE)
    open_zone_picker(page)
    options = page.locator("#tz-select option").all_inner_texts()
    assert options[:3] == ["Asia/Tokyo (your device)", "Europe/Paris (conference)", "UTC"]
    assert options.count("Tokyo") == 0  # moved, not repeated in its region
    context.close()


def test_a_device_in_india_finds_its_zone_first_and_once(browser, live_server, demo_conference):
    # Chromium names this zone by its old name, Asia/Calcutta, which the list leaves out.
    context = new_context(browser, timezone_id="Asia/Kolkata")
    page = context.new_page()
    page.goto(live_server.url + SCHEDULE)
    open_zone_picker(page)
    options = page.locator("#tz-select option").all_inner_texts()
    assert options[0] == "Asia/Kolkata (your device)"
    assert [option for option in options if "Kolkata" in option or "Calcutta" in option] == [
        options[0]
    ]
    page.get_by_label("Times shown in").select_option(index=0)
    page.get_by_role("button", name="Show times").click()
    expect(page.locator(LIVE_MIGRATION_CARD)).to_contain_text("14:05")
    context.close()


LIVE_MIGRATION_CARD = "#session-live-migration-of-pytorch-gpu-nodes-from-azure-to-european-clouds"
SAVE_LOOK = """button => {
  const style = getComputedStyle(button);
  return [Math.round(button.getBoundingClientRect().height), style.borderTopStyle,
          style.borderTopWidth, style.backgroundColor, style.color, style.textDecorationLine];
}"""


def log_in(page, django_user_model):
    django_user_model.objects.create_user("attendee", password="a long passphrase 42")
    base_url = page.url.split("/pytorch-eu-2026/")[0]
    page.goto(base_url + "/accounts/login/?next=" + SCHEDULE)
    page.get_by_label("Username").fill("attendee")
    page.get_by_label("Password").fill("a long passphrase 42")
    page.get_by_role("button", name="Log in").click()
    # The exact address: "**" + SCHEDULE matches the login page's own (?next=...).
    page.wait_for_url(base_url + SCHEDULE, wait_until="load")


def test_the_save_control_looks_the_same_logged_in_or_out(open_page, django_user_model):
    page = open_page(SCHEDULE, DESKTOP)
    logged_out = page.locator(f"{LIVE_MIGRATION_CARD} .save-button").evaluate(SAVE_LOOK)
    log_in(page, django_user_model)
    logged_in = page.locator(f"{LIVE_MIGRATION_CARD} .save-button").evaluate(SAVE_LOOK)
    assert logged_in == logged_out


def test_a_saved_session_stands_out_in_the_list(open_page, django_user_model):
    page = open_page(SCHEDULE, DESKTOP)
    log_in(page, django_user_model)
    card = page.locator(LIVE_MIGRATION_CARD)
    background = "card => getComputedStyle(card).backgroundColor"
    unsaved = card.evaluate(background)
    card.get_by_role("button", name="Save", exact=False).click()
    expect(card.get_by_role("button", name=SAVED_BUTTON)).to_be_visible()
    assert card.evaluate(background) != unsaved


def test_two_saved_sessions_at_once_say_they_clash_until_one_is_removed(
    open_page, django_user_model
):
    page = open_page(SCHEDULE, DESKTOP)
    log_in(page, django_user_model)
    cards = [
        page.locator("#session-portable-high-performance-llm-serving-a-triton-backend-for-vllm"),
        page.locator("#session-accelerating-complex-valued-tensors-with-torchcompile"),
    ]
    for card in cards:
        card.get_by_role("button", name="Save", exact=False).click()
        expect(card.get_by_role("button", name=SAVED_BUTTON)).to_be_visible()
    page.reload()
    for card in cards:
        expect(card.get_by_text("Clashes with another saved session")).to_be_visible()
    # Every card carries the mark (hidden unless it clashes): only these two show it.
    assert page.locator(".clash-mark:visible").count() == 2
    cards[0].get_by_role("button", name="Saved", exact=False).click()
    expect(cards[0].get_by_role("button", name=SAVE_BUTTON)).to_be_visible()
    expect(cards[0].get_by_text("Clashes with another saved session")).to_be_hidden()


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_a_session_page_has_save_beside_its_title(open_page, viewport):
    page = open_page(
        "/pytorch-eu-2026/sessions/live-migration-of-pytorch-gpu-nodes-from-azure-to-european-clouds/",
        viewport,
    )
    title = page.get_by_role("heading", level=1).bounding_box()
    save = page.get_by_role("button", name=re.compile(r"^Save “Live Migration")).bounding_box()
    # On the title's first line, right of it, and in the first screen.
    assert title["y"] <= save["y"] < title["y"] + 40
    assert save["x"] >= title["x"] + title["width"]
    assert save["x"] + save["width"] <= viewport["width"]
    # Near the title, not at the far edge of a wide screen.
    assert save["x"] - (title["x"] + title["width"]) <= 24

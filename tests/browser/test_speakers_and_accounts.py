from playwright.sync_api import expect

from tests.browser.conftest import new_context

SCHEDULE = "/pytorch-eu-2026/schedule/"
SPEAKERS = "/pytorch-eu-2026/speakers/"


def test_a_search_without_javascript_lands_on_an_address_without_empty_fields(
    browser, live_server, demo_conference
):
    # A GET form sends every field, the closed "More filters" ones too (q=…&day=&kind=&level=).
    context = new_context(browser, java_script_enabled=False)
    page = context.new_page()
    page.goto(live_server.url + SCHEDULE)
    page.get_by_label("Search", exact=True).fill("Lightning")
    page.get_by_role("button", name="Search", exact=True).click()
    expect(page).to_have_url(live_server.url + SCHEDULE + "?q=Lightning")
    expect(page.get_by_role("status")).to_have_text("20 sessions match")
    context.close()


def test_signing_up_from_the_schedule_comes_back_to_it_with_a_welcome(page):
    page.goto(page.base_url + SCHEDULE)
    page.get_by_role("link", name="Sign up").click()
    expect(page.get_by_role("link", name="Speakers")).to_be_visible()  # the conference's navigation
    page.get_by_label("Username").fill("grace")
    page.get_by_label("Email").fill("grace@example.org")
    page.get_by_label("Password", exact=True).fill("a long passphrase 42")
    page.get_by_label("Password confirmation").fill("a long passphrase 42")
    page.get_by_role("button", name="Create account").click()
    expect(page).to_have_url(page.base_url + SCHEDULE)
    expect(page.get_by_text("Welcome, grace! Your account is ready")).to_be_visible()
    page.get_by_role("link", name="Account").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Your account")
    expect(page.get_by_role("link", name="Change your password")).to_be_visible()


def test_speakers_on_a_phone_are_cards_without_sideways_scrolling(
    browser, live_server, demo_conference
):
    context = new_context(browser, viewport={"width": 390, "height": 844})
    page = context.new_page()
    page.goto(live_server.url + SPEAKERS)
    card = page.locator(".speaker-card").filter(has_text="Hameer Abbasi")
    expect(card.locator(".avatar")).to_have_text("HA")
    expect(card.locator(".speaker-company")).to_have_text("OpenTeams, Inc.")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    # White initials on the colour of his name, as the browser paints them.
    colours = card.locator(".avatar").evaluate(
        "avatar => [getComputedStyle(avatar).color, getComputedStyle(avatar).backgroundColor]"
    )
    assert colours == ["rgb(255, 255, 255)", "rgb(46, 112, 49)"]  # --avatar-3, #2e7031
    context.close()

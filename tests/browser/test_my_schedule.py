import pytest
from playwright.sync_api import expect

from conference.models import Conference
from sessions.models import CalendarFeed
from tests.browser.conftest import close_page, new_context, page_of
from tests.builders import SAVE_BUTTON, SAVED_BUTTON

LIVE_MIGRATION = "Live Migration of PyTorch GPU Nodes From Azure To European Clouds"
BEYOND_JSON_RPC = (
    "Beyond JSON-RPC: Scaling Model Context Protocols With gRPC in the PyTorch Ecosystem"
)
BEYOND_JSON_RPC_SLUG = (
    "beyond-json-rpc-scaling-model-context-protocols-with-grpc-in-the-pytorch-ecosystem"
)


def save_button(page, title):
    return page.get_by_role("button", name=f"Save “{title}” to my schedule", exact=True)


def saved_button(page, title):
    return page.get_by_role("button", name=f"Saved “{title}” to my schedule", exact=True)


def log_in(page, password):
    page.get_by_label("Username").fill("attendee")
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Log in").click()


def test_attendee_builds_a_schedule_resolves_a_clash_and_finds_it_again(page):
    password = "a long passphrase 42"
    page.goto(page.base_url + "/pytorch-eu-2026/schedule/")
    # Saving while anonymous leads to sign-up, then back with the session saved.
    page.get_by_role("button", name=f"Save “{LIVE_MIGRATION}” to my schedule").click()
    page.get_by_role("link", name="Create an account").click()
    page.get_by_label("Username").fill("attendee")
    page.get_by_label("Email").fill("attendee@example.org")
    page.get_by_label("Password", exact=True).fill(password)
    page.get_by_label("Password confirmation").fill(password)
    page.get_by_role("button", name="Create account").click()
    expect(saved_button(page, LIVE_MIGRATION)).to_be_visible()

    # A second, overlapping session, saved in place by htmx.
    save_button(page, BEYOND_JSON_RPC).click()
    expect(saved_button(page, BEYOND_JSON_RPC)).to_be_visible()

    page.get_by_role("link", name="My schedule").click()
    expect(page.get_by_text("2 of them clash")).to_be_visible()
    expect(page.locator(".notice-clash")).to_have_count(2)

    saved_button(page, BEYOND_JSON_RPC).click()
    expect(save_button(page, BEYOND_JSON_RPC)).to_be_visible()
    page.reload()
    expect(page.locator(".notice-clash")).to_have_count(0)
    expect(page.get_by_role("link", name=f"Lightning Talk: {LIVE_MIGRATION}")).to_be_visible()

    page.get_by_role("button", name="Log out").click()
    expect(page.get_by_role("link", name="Log in")).to_be_visible()
    page.goto(page.base_url + "/pytorch-eu-2026/my-schedule/")
    log_in(page, password)
    expect(page.get_by_role("link", name=f"Lightning Talk: {LIVE_MIGRATION}")).to_be_visible()
    expect(page.locator("article.session")).to_have_count(1)


def test_the_copy_button_puts_the_calendar_address_on_the_clipboard(page, django_user_model):
    password = "a long passphrase 42"
    attendee = django_user_model.objects.create_user("attendee", password=password)
    feed = CalendarFeed.issue(attendee, Conference.objects.get(slug="pytorch-eu-2026"))
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.goto(page.base_url + "/pytorch-eu-2026/my-schedule/")
    log_in(page, password)
    page.get_by_role("button", name="Copy").click()
    expect(page.locator("#feed-url-status")).to_have_text("Copied.")
    assert page.evaluate("navigator.clipboard.readText()") == feed.address


def sign_up_and_open_the_schedule(page, django_user_model):
    password = "a long passphrase 42"
    django_user_model.objects.create_user("attendee", password=password)
    page.goto(page.base_url + "/accounts/login/?next=/pytorch-eu-2026/schedule/")
    log_in(page, password)
    # Until the schedule has loaded, Enter would submit the no-JS form instead of htmx's request.
    # The exact address: a pattern ending in /pytorch-eu-2026/schedule/ matches the login page's
    # own (?next=/pytorch-eu-2026/schedule/).
    page.wait_for_url(page.base_url + "/pytorch-eu-2026/schedule/", wait_until="load")


def test_the_focus_stays_on_the_save_button_after_saving_and_removing(page, django_user_model):
    sign_up_and_open_the_schedule(page, django_user_model)
    save_button(page, LIVE_MIGRATION).focus()
    page.keyboard.press("Enter")
    expect(saved_button(page, LIVE_MIGRATION)).to_be_focused()
    page.keyboard.press("Space")
    expect(save_button(page, LIVE_MIGRATION)).to_be_focused()
    page.keyboard.press("Enter")
    expect(saved_button(page, LIVE_MIGRATION)).to_be_focused()
    assert page.url == page.base_url + "/pytorch-eu-2026/schedule/"  # swapped, not reloaded


def test_without_javascript_saving_comes_back_to_the_card_with_a_confirmation(
    browser, live_server, demo_conference, django_user_model
):
    context = new_context(
        browser, java_script_enabled=False, viewport={"width": 1280, "height": 900}
    )
    page = context.new_page()
    page.base_url = live_server.url
    sign_up_and_open_the_schedule(page, django_user_model)
    save_button(page, BEYOND_JSON_RPC).click()
    expect(page).to_have_url(
        page.base_url + "/pytorch-eu-2026/schedule/#session-" + BEYOND_JSON_RPC_SLUG
    )
    card = page.locator(f"#session-{BEYOND_JSON_RPC_SLUG}")
    expect(card.get_by_role("status")).to_have_text("Saved to your schedule.")
    expect(saved_button(page, BEYOND_JSON_RPC)).to_be_in_viewport()
    context.close()


def test_the_copy_button_says_it_copied_in_the_visitors_language(
    browser, live_server, demo_conference, django_user_model
):
    password = "a long passphrase 42"
    attendee = django_user_model.objects.create_user("attendee", password=password)
    CalendarFeed.issue(attendee, Conference.objects.get(slug="pytorch-eu-2026"))
    page = page_of(browser, live_server, locale="fr-FR")
    try:
        page.context.grant_permissions(["clipboard-read", "clipboard-write"])
        page.goto(page.base_url + "/pytorch-eu-2026/my-schedule/")
        page.get_by_label("Nom d’utilisateur").fill("attendee")
        page.get_by_label("Mot de passe").fill(password)
        page.get_by_role("button", name="Se connecter").click()
        page.get_by_role("button", name="Copier").click()
        expect(page.locator("#feed-url-status")).to_have_text("Copié.")
    finally:
        close_page(page)


TRITON_CARD = "#session-portable-high-performance-llm-serving-a-triton-backend-for-vllm"
COMPLEX_TENSORS_CARD = "#session-accelerating-complex-valued-tensors-with-torchcompile"


@pytest.mark.parametrize(
    "path", ["/pytorch-eu-2026/schedule/", "/pytorch-eu-2026/schedule/grid/?day=2026-04-08"]
)
def test_saving_the_second_talk_of_a_slot_marks_both_without_reloading(
    page, django_user_model, path
):
    """Both run at 11:35: the answer to the second Save marks both cards, and removing either
    clears both, all in place."""
    sign_up_and_open_the_schedule(page, django_user_model)
    page.goto(page.base_url + path)
    page.evaluate("window.stillTheSamePage = true")
    first, second = page.locator(TRITON_CARD), page.locator(COMPLEX_TENSORS_CARD)
    first.get_by_role("button", name="Save", exact=False).click()
    expect(first.get_by_role("button", name=SAVED_BUTTON)).to_be_visible()
    expect(page.locator(".clash-mark:visible")).to_have_count(0)

    second.get_by_role("button", name="Save", exact=False).click()
    for card in (first, second):
        expect(card.locator(".clash-mark")).to_have_text("Clashes with another saved session")
    if "grid" not in path:  # a short grid block says it by its frame
        expect(first.locator(".clash-mark")).to_be_visible()
        expect(second.locator(".clash-mark")).to_be_visible()

    first.get_by_role("button", name="Saved", exact=False).click()
    expect(first.get_by_role("button", name=SAVE_BUTTON)).to_be_visible()
    expect(page.locator(".clash-mark:visible")).to_have_count(0)
    assert page.evaluate("window.stillTheSamePage") is True

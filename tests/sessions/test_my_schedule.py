import datetime
import re
import threading

import pytest
from django.contrib.auth import get_user_model
from django.db import connection, connections
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from sessions.models import CalendarFeed, SavedSession, Session
from tests.builders import (
    SAVED,
    make_conference,
    make_room,
    make_session,
    make_speaker,
    paris,
    shows_save_button,
)

pytestmark = pytest.mark.django_db


def save_url(session):
    return reverse(
        "sessions:session-save",
        kwargs={"conference_slug": session.conference.slug, "slug": session.slug},
    )


def my_schedule_url(conference):
    return reverse("sessions:my-schedule", kwargs={"conference_slug": conference.slug})


def save_sessions(user, conference, count):
    """``count`` half-hour sessions with a speaker each, all on ``user``'s schedule."""
    for number in range(count):
        session = make_session(
            conference,
            starts_at=paris(8, 8) + datetime.timedelta(minutes=30 * number),
            speakers=[make_speaker(conference)],
        )
        SavedSession.objects.add(user, session)


def page_text(response) -> str:
    """The page without its CSRF tokens, which differ in every response."""
    return re.sub(r'name="csrfmiddlewaretoken" value="\w+"', "", response.content.decode())


def saved_titles(user):
    return sorted(save.session.title for save in SavedSession.objects.filter(user=user))


def test_saving_a_session_puts_it_on_my_schedule_and_returns_to_the_page(
    attendee_client, attendee, conference
):
    session = make_session(conference, title="Talk")
    response = attendee_client.post(
        save_url(session), {"action": "save", "next": "/pycon/schedule/?q=x"}
    )
    assert response.status_code == 302
    assert response.url == "/pycon/schedule/?q=x#session-talk"
    assert saved_titles(attendee) == ["Talk"]


def test_saving_twice_keeps_one_entry(attendee_client, attendee, conference):
    session = make_session(conference)
    attendee_client.post(save_url(session), {"action": "save"})
    attendee_client.post(save_url(session), {"action": "save"})
    assert SavedSession.objects.filter(user=attendee).count() == 1


def test_removing_a_session_takes_it_off_my_schedule(attendee_client, attendee, conference):
    session = make_session(conference)
    SavedSession.objects.add(attendee, session)
    attendee_client.post(save_url(session), {"action": "remove"})
    assert saved_titles(attendee) == []


def test_saving_with_htmx_swaps_in_the_saved_button(attendee_client, conference):
    session = make_session(conference, title="Talk")
    response = attendee_client.post(
        save_url(session), {"action": "save"}, headers={"HX-Request": "true"}
    )
    html = response.content.decode()
    assert response.status_code == 200
    # The page's Save form sent it; the answer names the toggle it replaces.
    assert response.headers["HX-Retarget"] == f"#toggle-{session.pk}"
    assert html.startswith(f'<span class="save-toggle" id="toggle-{session.pk}"><button')
    assert SAVED in html
    assert f'name="action" id="save-{session.pk}" class="save-button" value="remove"' in html


def clash_marks_swapped(html: str) -> dict[int, bool]:
    """The Save buttons an htmx Save answer swaps out of band into other cards: session id ->
    whether its state shows the card's clash mark."""
    toggles = re.findall(
        r'<span class="save-toggle" id="toggle-(\d+)" hx-swap-oob="true">'
        r'<button[^>]*class="save-button" value="remove"( data-clash)? *>',
        html,
    )
    return {int(session_id): bool(clash) for session_id, clash in toggles}


def own_clash_mark(html: str) -> bool:
    """Whether the answer's own Save button (the first) shows its card's clash mark."""
    return (
        re.match(r'<span class="save-toggle" id="toggle-\d+"><button[^>]*data-clash', html)
        is not None
    )


@pytest.fixture
def slot_of_two(attendee, conference):
    """Two sessions at once in two rooms, and a third later that day: the first and the third
    on the attendee's schedule."""
    first = make_session(conference, title="First", room=make_room(conference))
    second = make_session(
        conference, title="Second", room=make_room(conference), starts_at=paris(8, 10, 15)
    )
    later = make_session(conference, title="Later", starts_at=paris(8, 14))
    SavedSession.objects.add(attendee, first)
    SavedSession.objects.add(attendee, later)
    return first, second, later


def test_saving_the_second_talk_of_a_slot_marks_both_cards_at_once(attendee_client, slot_of_two):
    first, second, _ = slot_of_two
    response = attendee_client.post(
        save_url(second), {"action": "save"}, headers={"HX-Request": "true"}
    )
    html = response.content.decode()
    assert own_clash_mark(html)
    assert clash_marks_swapped(html) == {first.pk: True}
    # Every card has the mark's words; the state of its Save button shows them or not.
    page = attendee_client.get(reverse("sessions:schedule", kwargs={"conference_slug": "pycon"}))
    assert cards_marked_as_clashing(page.content.decode()) == ["session-first", "session-second"]
    assert page.content.decode().count('<p class="clash-mark">') == 3


def test_removing_one_talk_of_a_clash_clears_both_marks_at_once(
    attendee_client, attendee, slot_of_two
):
    first, second, _ = slot_of_two
    SavedSession.objects.add(attendee, second)
    response = attendee_client.post(
        save_url(second), {"action": "remove"}, headers={"HX-Request": "true"}
    )
    html = response.content.decode()
    assert not own_clash_mark(html)
    assert clash_marks_swapped(html) == {first.pk: False}


def test_a_save_that_makes_no_clash_swaps_no_clash_mark(attendee_client, conference, slot_of_two):
    alone = make_session(conference, title="Alone", starts_at=paris(8, 16))
    response = attendee_client.post(
        save_url(alone), {"action": "save"}, headers={"HX-Request": "true"}
    )
    assert not own_clash_mark(response.content.decode())
    assert clash_marks_swapped(response.content.decode()) == {}


def test_a_third_talk_in_a_clash_swaps_only_its_own_mark(attendee_client, attendee, slot_of_two):
    """The first two clash already: saving a third at the same time marks only the third."""
    first, second, _ = slot_of_two
    SavedSession.objects.add(attendee, second)
    third = make_session(
        first.conference, title="Third", room=make_room(first.conference), starts_at=first.starts_at
    )
    response = attendee_client.post(
        save_url(third), {"action": "save"}, headers={"HX-Request": "true"}
    )
    assert own_clash_mark(response.content.decode())
    assert clash_marks_swapped(response.content.decode()) == {}


@pytest.mark.parametrize("action", ["save", "remove"])
def test_the_swapped_button_keeps_its_id_so_htmx_keeps_the_focus_on_it(
    attendee_client, attendee, conference, action
):
    session = make_session(conference, title="Talk")
    if action == "remove":
        SavedSession.objects.add(attendee, session)
    page = attendee_client.get(reverse("sessions:schedule", kwargs={"conference_slug": "pycon"}))
    swapped = attendee_client.post(
        save_url(session), {"action": action}, headers={"HX-Request": "true"}
    )
    button_id = f'id="save-{session.pk}" class="save-button'
    assert button_id in page.content.decode()
    assert button_id in swapped.content.decode()
    assert shows_save_button(swapped.content.decode(), "Talk", saved=action == "save")


def test_the_save_buttons_hidden_words_name_the_session_in_the_pages_language(
    attendee_client, conference
):
    session = make_session(conference, title="Tensors <b>&</b> you")
    schedule = reverse("sessions:schedule", kwargs={"conference_slug": "pycon"})
    french = {"Accept-Language": "fr"}
    hidden = '<span class="visually-hidden"> {}</span>'
    escaped = "Tensors &lt;b&gt;&amp;&lt;/b&gt; you"

    english_page = attendee_client.get(schedule).content.decode()
    french_page = attendee_client.get(schedule, headers=french).content.decode()
    swapped = attendee_client.post(
        save_url(session), {"action": "save"}, headers={"HX-Request": "true", **french}
    ).content.decode()

    assert hidden.format(f"“{escaped}” to my schedule") in english_page
    assert hidden.format(f"« {escaped} » dans mon programme") in french_page
    assert hidden.format(f"« {escaped} » dans mon programme") in swapped
    assert "<b>&</b>" not in english_page + french_page + swapped


def test_every_save_button_submits_the_pages_one_form_with_the_csrf_field(
    attendee_client, conference
):
    """A thousand buttons carry no token each: the page's one Save form holds it, and where to
    come back to; each button names its own address and action."""
    sessions = [make_session(conference, title=f"Talk {number}") for number in range(3)]
    html = attendee_client.get(
        reverse("sessions:schedule", kwargs={"conference_slug": "pycon"})
    ).content.decode()
    save_form = re.search(
        r'<form id="save-form" method="post" hx-post="" hidden>(.*?)</form>', html
    )
    assert 'name="csrfmiddlewaretoken"' in save_form[1]
    assert '<input type="hidden" name="next" value="/pycon/schedule/">' in save_form[1]
    assert html.count("csrfmiddlewaretoken") == 2  # the Save form and the Log out form
    for session in sessions:
        assert f'form="save-form" formaction="{save_url(session)}" name="action"' in html
        assert f'id="save-{session.pk}" class="save-button" value="save"' in html


def card_confirmation(html: str, card_id: str) -> str:
    """The confirmation shown in the card with this id, or ""."""
    card = re.search(rf'<article id="{card_id}".*?</article>', html, re.DOTALL)
    shown = re.search(r'<span class="save-confirmation" role="status">([^<]*)</span>', card[0])
    return shown[1] if shown else ""


def test_saving_without_javascript_comes_back_to_the_card_and_confirms_there(
    attendee_client, attendee, conference
):
    session = make_session(conference, title="Talk", slug="talk")
    make_session(conference, title="Other", slug="other")
    response = attendee_client.post(
        save_url(session), {"action": "save", "next": "/pycon/schedule/"}
    )
    assert response.url == "/pycon/schedule/#session-talk"
    html = attendee_client.get(response.url).content.decode()
    assert card_confirmation(html, "session-talk") == "Saved to your schedule."
    assert card_confirmation(html, "session-other") == ""
    assert "Saved to your schedule." not in html.split('<main id="main"')[0]  # not at the top
    again = attendee_client.get("/pycon/schedule/").content.decode()
    assert card_confirmation(again, "session-talk") == ""


def test_removing_without_javascript_confirms_in_the_card(attendee_client, attendee, conference):
    session = make_session(conference, title="Talk", slug="talk")
    SavedSession.objects.add(attendee, session)
    response = attendee_client.post(
        save_url(session), {"action": "remove", "next": "/pycon/sessions/talk/"}
    )
    assert response.url == "/pycon/sessions/talk/#session-talk"
    html = attendee_client.get(response.url).content.decode()
    assert card_confirmation(html, "session-talk") == "Removed from your schedule."


def test_removing_from_my_schedule_without_javascript_confirms_at_the_top(
    attendee_client, attendee, conference
):
    session = make_session(conference, title="Talk", slug="talk")
    SavedSession.objects.add(attendee, session)
    response = attendee_client.post(
        save_url(session), {"action": "remove", "next": "/pycon/my-schedule/"}
    )
    html = attendee_client.get(response.url).content.decode()
    assert 'id="session-talk"' not in html
    assert '<p class="notice" role="status">Removed from your schedule.</p>' in html


def test_a_confirmation_is_shown_only_to_its_visitor(
    attendee_client, attendee, conference, django_user_model
):
    session = make_session(conference, title="Talk", slug="talk")
    attendee_client.post(save_url(session), {"action": "save", "next": "/pycon/schedule/"})
    bob = Client()
    bob.force_login(django_user_model.objects.create_user("bob"))
    assert card_confirmation(bob.get("/pycon/schedule/").content.decode(), "session-talk") == ""
    mine = attendee_client.get("/pycon/schedule/").content.decode()
    assert card_confirmation(mine, "session-talk") == "Saved to your schedule."


def test_a_refused_save_says_why_on_the_page_it_returns_to(attendee_client, attendee, conference):
    session = make_session(conference, title="Talk", status=Session.Status.CANCELLED)
    response = attendee_client.post(
        save_url(session), {"action": "save", "next": "/pycon/schedule/"}, follow=True
    )
    assert (
        '<p class="notice notice-error" role="status">Only published sessions can be saved.</p>'
        in response.content.decode()
    )
    assert saved_titles(attendee) == []


def test_a_refused_htmx_save_answers_plain_text_shown_beside_the_button(
    attendee_client, attendee, conference
):
    session = make_session(conference, title="Talk", status=Session.Status.CANCELLED)
    response = attendee_client.post(save_url(session), {"action": "save"}, HTTP_HX_REQUEST="true")
    assert response.status_code == 400
    assert response["Content-Type"] == "text/plain; charset=utf-8"
    assert response.content.decode() == "Only published sessions can be saved."
    assert saved_titles(attendee) == []


def test_saving_needs_a_known_action(attendee_client, conference):
    response = attendee_client.post(save_url(make_session(conference)), {"action": "explode"})
    assert response.status_code == 400


def test_a_draft_session_cannot_be_saved(attendee_client, attendee, conference):
    session = make_session(conference, status=Session.Status.DRAFT)
    assert attendee_client.post(save_url(session), {"action": "save"}).status_code == 404
    assert saved_titles(attendee) == []


@pytest.mark.parametrize(
    ("method", "path", "data"),
    [
        ("post", "/pycon/sessions/{slug}/save/", {"action": "save"}),
        ("post", "/pycon/sessions/{slug}/save/", {"action": "remove"}),
        ("get", "/pycon/sessions/{slug}/save/", {}),
        ("post", "/pycon/my-schedule/keep/", {"session": "{slug}"}),
        ("post", "/pycon/my-schedule/seen/", {"session": "{slug}"}),
    ],
)
def test_my_schedule_actions_answer_a_draft_as_a_session_that_does_not_exist(
    attendee_client, attendee, conference, method, path, data
):
    draft = make_session(conference, slug="draft-talk", status=Session.Status.DRAFT)
    SavedSession.objects.create(user=attendee, session=draft)

    def send(slug):
        filled = {name: value.format(slug=slug) for name, value in data.items()}
        return getattr(attendee_client, method)(path.format(slug=slug), filled)

    hidden, missing = send("draft-talk"), send("no-such-tk")
    assert hidden.status_code == missing.status_code == 404
    assert page_text(hidden).replace("draft-talk", "no-such-tk") == page_text(missing)
    assert saved_titles(attendee) == [draft.title]


def test_a_get_of_the_save_address_saves_nothing_for_a_logged_in_user(
    attendee_client, attendee, conference
):
    session = make_session(conference)
    response = attendee_client.get(save_url(session))
    assert response.url == session.get_absolute_url()
    assert saved_titles(attendee) == []


def test_anonymous_save_link_asks_to_log_in_then_saves_and_returns(client, attendee, conference):
    session = make_session(conference, title="Wanted")
    html = client.get("/pycon/schedule/").content.decode()
    # Logged out, the Save form asks with a GET (no CSRF field to send) where to come back to.
    assert (
        '<form id="save-form" method="get" hidden>'
        '<input type="hidden" name="next" value="/pycon/schedule/"></form>'
    ) in html
    assert f'form="save-form" formaction="{save_url(session)}" name="action"' in html
    response = client.get(save_url(session), {"next": "/pycon/schedule/", "action": "save"})
    assert response.url == "/accounts/login/?next=/pycon/schedule/"
    response = client.post(
        "/accounts/login/",
        {"username": "ada", "password": "correct horse battery", "next": "/pycon/schedule/"},
    )
    assert response.url == "/pycon/schedule/"
    assert saved_titles(attendee) == ["Wanted"]


def test_anonymous_save_form_post_also_leads_to_login_then_saves(client, attendee, conference):
    session = make_session(conference, title="Wanted")
    response = client.post(save_url(session), {"action": "save", "next": "/pycon/schedule/"})
    assert response.url == "/accounts/login/?next=/pycon/schedule/"
    client.post("/accounts/login/", {"username": "ada", "password": "correct horse battery"})
    assert saved_titles(attendee) == ["Wanted"]


def test_anonymous_save_survives_signing_up(client, conference):
    session = make_session(conference, title="Wanted")
    client.post(save_url(session), {"action": "save"})
    response = client.post(
        "/accounts/signup/?next=/pycon/schedule/",
        {
            "username": "newcomer",
            "email": "new@example.org",
            "password1": "a long passphrase 42",
            "password2": "a long passphrase 42",
            "next": "/pycon/schedule/",
        },
    )
    assert response.url == "/pycon/schedule/"
    assert saved_titles(get_user_model().objects.get(username="newcomer")) == ["Wanted"]


def test_schedule_marks_my_saved_sessions(attendee_client, attendee, conference):
    saved = make_session(conference, title="Saved one")
    make_session(conference, title="Other", starts_at=paris(8, 14))
    SavedSession.objects.add(attendee, saved)
    html = attendee_client.get(
        reverse("sessions:schedule", kwargs={"conference_slug": "pycon"})
    ).content.decode()
    assert html.count(SAVED) == 1
    assert shows_save_button(html, "Saved one", saved=True)
    assert shows_save_button(html, "Other", saved=False)


@pytest.mark.parametrize("count", [1, 12])
def test_schedule_with_saved_markers_query_count_does_not_grow(
    attendee_client, attendee, conference, django_assert_max_num_queries, count
):
    save_sessions(attendee, conference, count)
    # 10, the days that have sessions, and with two saved or more, which of them clash
    with django_assert_max_num_queries(12):
        response = attendee_client.get(
            reverse("sessions:schedule", kwargs={"conference_slug": "pycon"})
        )
    assert response.content.decode().count(SAVED) == count


def test_my_schedule_needs_a_login(client, conference):
    response = client.get(my_schedule_url(conference))
    assert response.status_code == 302
    assert response.url == "/accounts/login/?next=/pycon/my-schedule/"


def test_my_schedule_shows_only_my_sessions(
    attendee_client, attendee, conference, django_user_model
):
    mine = make_session(conference, title="Mine")
    theirs = make_session(conference, title="Theirs", starts_at=paris(8, 14))
    SavedSession.objects.add(attendee, mine)
    SavedSession.objects.add(django_user_model.objects.create_user("bob"), theirs)
    response = attendee_client.get(my_schedule_url(conference))
    assert [session.title for session in response.context["sessions"]] == ["Mine"]


def test_my_schedule_flags_a_clash_on_both_sides(attendee_client, attendee, conference):
    first = make_session(conference, title="First", room=make_room(conference))
    second = make_session(
        conference, title="Second", room=make_room(conference), starts_at=paris(8, 10, 15)
    )
    later = make_session(conference, title="Later", starts_at=paris(8, 14))
    for session in (first, second, later):
        SavedSession.objects.add(attendee, session)
    response = attendee_client.get(my_schedule_url(conference))
    clashes = {
        session.title: [other.title for other in session.clashes_with]
        for session in response.context["sessions"]
    }
    assert clashes == {"First": ["Second"], "Second": ["First"], "Later": []}
    assert "2 of them clash" in response.content.decode()


def cards_marked_as_clashing(html: str) -> list[str]:
    """The ids of the cards that show a clash mark (their Save button's state says so, and the
    stylesheet shows the mark), in page order."""
    return re.findall(
        r'<article id="([^"]+)"(?:(?!</article>).)*value="remove" data-clash *>',
        html,
        flags=re.DOTALL,
    )


@pytest.fixture
def three_saved(attendee, conference):
    """Two saved sessions that overlap in two rooms, and a third saved later that day."""
    first = make_session(conference, title="First", room=make_room(conference))
    second = make_session(
        conference, title="Second", room=make_room(conference), starts_at=paris(8, 10, 15)
    )
    later = make_session(conference, title="Later", starts_at=paris(8, 14))
    for session in (first, second, later):
        SavedSession.objects.add(attendee, session)


@pytest.mark.usefixtures("three_saved")
@pytest.mark.parametrize("page", ["sessions:schedule", "sessions:schedule-grid"])
def test_schedule_marks_my_saved_sessions_that_clash(attendee_client, page):
    url = reverse(page, kwargs={"conference_slug": "pycon"}) + "?day=2026-04-08"
    html = attendee_client.get(url).content.decode()
    assert cards_marked_as_clashing(html) == ["session-first", "session-second"]
    assert html.count('<p class="clash-mark"><span>Clashes with another saved session<') == 3


@pytest.mark.usefixtures("three_saved")
@pytest.mark.parametrize("page", ["sessions:schedule", "sessions:schedule-grid"])
def test_schedule_shows_no_clash_to_an_anonymous_visitor_or_another_user(
    client, django_user_model, page
):
    url = reverse(page, kwargs={"conference_slug": "pycon"}) + "?day=2026-04-08"
    anonymous = client.get(url).content.decode()
    client.force_login(django_user_model.objects.create_user("bob"))
    another = client.get(url).content.decode()
    assert cards_marked_as_clashing(anonymous) == []
    assert cards_marked_as_clashing(another) == []
    # The words are in every card, shown only on a clash (the personal part is the button's).
    assert '<p class="clash-mark">' in anonymous
    assert "data-clash" not in anonymous + another


def test_a_clash_with_a_cancelled_session_is_no_clash(attendee_client, attendee, conference):
    first = make_session(conference, title="First", room=make_room(conference))
    second = make_session(conference, title="Second", room=make_room(conference))
    for session in (first, second):
        SavedSession.objects.add(attendee, session)
    Session.objects.filter(pk=second.pk).update(status=Session.Status.CANCELLED)
    html = attendee_client.get(
        reverse("sessions:schedule", kwargs={"conference_slug": "pycon"})
    ).content.decode()
    assert cards_marked_as_clashing(html) == []


def test_a_saved_session_taken_back_to_draft_clashes_with_nothing(
    attendee_client, attendee, conference
):
    """Only sessions attendees may see count: a clash with a session the organizers withdrew
    would name one the attendee can no longer find."""
    first = make_session(conference, title="First", room=make_room(conference))
    second = make_session(conference, title="Second", room=make_room(conference))
    third = make_session(conference, title="Third", starts_at=paris(8, 14))
    for session in (first, second, third):
        SavedSession.objects.add(attendee, session)
    Session.objects.filter(pk=second.pk).update(status=Session.Status.DRAFT)
    html = attendee_client.get(
        reverse("sessions:schedule", kwargs={"conference_slug": "pycon"})
    ).content.decode()
    assert cards_marked_as_clashing(html) == []
    assert html.count(SAVED) == 2  # First and Third still show as saved


def test_keeping_one_of_a_clash_removes_the_others(attendee_client, attendee, conference):
    first = make_session(conference, title="First", room=make_room(conference))
    second = make_session(
        conference, title="Second", room=make_room(conference), starts_at=paris(8, 10, 15)
    )
    later = make_session(conference, title="Later", starts_at=paris(8, 14))
    for session in (first, second, later):
        SavedSession.objects.add(attendee, session)
    attendee_client.post(
        reverse("sessions:my-schedule-keep", kwargs={"conference_slug": "pycon"}),
        {"session": second.slug},
    )
    assert saved_titles(attendee) == ["Later", "Second"]


def test_keeping_a_session_touches_no_one_elses_schedule(
    attendee_client, attendee, conference, django_user_model
):
    first = make_session(conference, title="First", room=make_room(conference))
    second = make_session(conference, title="Second", room=make_room(conference))
    bob = django_user_model.objects.create_user("bob")
    SavedSession.objects.add(bob, first)
    SavedSession.objects.add(attendee, second)
    attendee_client.post(
        reverse("sessions:my-schedule-keep", kwargs={"conference_slug": "pycon"}),
        {"session": second.slug},
    )
    assert saved_titles(bob) == ["First"]


def test_my_schedule_points_out_a_moved_session_until_acknowledged(
    attendee_client, attendee, conference
):
    session = make_session(conference, title="Moving", starts_at=paris(8, 10, 35))
    SavedSession.objects.add(attendee, session)
    Session.objects.filter(pk=session.pk).update(starts_at=paris(8, 14), ends_at=paris(8, 14, 30))
    html = attendee_client.get(my_schedule_url(conference)).content.decode()
    assert "Moved: was Wednesday 10:35 CEST." in html
    attendee_client.post(
        reverse("sessions:my-schedule-seen", kwargs={"conference_slug": "pycon"}),
        {"session": session.slug},
    )
    assert "Moved: was" not in attendee_client.get(my_schedule_url(conference)).content.decode()


def test_my_schedule_calls_out_a_cancelled_session(attendee_client, attendee, conference):
    session = make_session(conference, title="Called off")
    SavedSession.objects.add(attendee, session)
    session.status = Session.Status.CANCELLED
    session.save()
    html = attendee_client.get(my_schedule_url(conference)).content.decode()
    assert '<span class="badge badge-cancelled">Cancelled</span>' in html


def test_my_schedule_when_empty_points_to_the_schedule(attendee_client, conference):
    html = attendee_client.get(my_schedule_url(conference)).content.decode()
    assert "You have not saved any session yet." in html
    assert 'href="/pycon/schedule/">Browse the schedule</a>' in html


def test_my_schedule_shows_what_is_happening_now_and_next(attendee_client, attendee):
    today = timezone.localdate(timezone=datetime.UTC)
    conference = make_conference(
        slug="live",
        time_zone="UTC",
        starts_on=today - datetime.timedelta(days=1),
        ends_on=today + datetime.timedelta(days=1),
    )
    now = timezone.now().replace(microsecond=0)
    running = make_session(
        conference,
        title="Running",
        starts_at=now - datetime.timedelta(minutes=10),
        ends_at=now + datetime.timedelta(minutes=20),
    )
    upcoming = make_session(
        conference,
        title="Upcoming",
        starts_at=now + datetime.timedelta(hours=1),
        ends_at=now + datetime.timedelta(hours=2),
    )
    for session in (running, upcoming):
        SavedSession.objects.add(attendee, session)
    response = attendee_client.get(my_schedule_url(conference))
    assert [session.title for session in response.context["happening_now"]] == ["Running"]
    assert [session.title for session in response.context["up_next"]] == ["Upcoming"]


@pytest.mark.parametrize("count", [1, 12])
def test_my_schedule_query_count_does_not_grow(
    attendee_client, attendee, conference, django_assert_max_num_queries, count
):
    save_sessions(attendee, conference, count)
    # 10, the days that have sessions, and with two saved or more, which of them clash
    with django_assert_max_num_queries(12):
        response = attendee_client.get(my_schedule_url(conference))
    assert len(response.context["sessions"]) == count


def feed_of(user, conference):
    return CalendarFeed.objects.get(user=user, conference=conference)


def test_calendar_feed_serves_my_sessions_without_a_login(
    attendee_client, client, attendee, conference
):
    make_session(conference, title="Not mine", starts_at=paris(8, 14))
    SavedSession.objects.add(
        attendee, make_session(conference, title="Mine", starts_at=paris(8, 10, 35))
    )
    attendee_client.post(
        reverse("sessions:my-schedule-calendar", kwargs={"conference_slug": "pycon"})
    )
    attendee_client.logout()
    response = client.get(feed_of(attendee, conference).get_absolute_url())
    body = response.content.decode()
    assert response["Content-Type"] == "text/calendar; charset=utf-8"
    assert "SUMMARY:Mine" in body
    assert "Not mine" not in body
    assert "DTSTART;TZID=Europe/Paris:20260408T103500" in body


def test_calendar_feed_follows_an_organizers_changes(client, attendee, conference):
    session = make_session(conference, title="Mine")
    SavedSession.objects.add(attendee, session)
    url = CalendarFeed.issue(attendee, conference).get_absolute_url()
    session.status = Session.Status.CANCELLED
    session.save()
    assert "STATUS:CANCELLED" in client.get(url).content.decode()


def test_regenerating_the_calendar_link_kills_the_old_one(
    attendee_client, client, attendee, conference
):
    old_url = CalendarFeed.issue(attendee, conference).get_absolute_url()
    attendee_client.post(
        reverse("sessions:my-schedule-calendar", kwargs={"conference_slug": "pycon"})
    )
    new_url = feed_of(attendee, conference).get_absolute_url()
    assert new_url != old_url
    assert client.get(old_url).status_code == 404
    assert client.get(new_url).status_code == 200


def test_a_deactivated_accounts_calendar_feed_stops_with_it(client, attendee, conference):
    SavedSession.objects.add(attendee, make_session(conference, title="Mine"))
    url = CalendarFeed.issue(attendee, conference).get_absolute_url()
    assert client.get(url).status_code == 200
    attendee.is_active = False
    attendee.save()
    response = client.get(url)
    assert response.status_code == 404
    assert "Mine" not in response.content.decode()


@pytest.mark.parametrize("tamper", ["verifier", "selector", "conference"])
def test_a_wrong_calendar_token_opens_nothing(client, attendee, conference, tamper):
    make_conference(slug="other")
    feed = CalendarFeed.issue(attendee, conference)
    selector, verifier, slug = feed.selector, feed.verifier, "pycon"
    if tamper == "verifier":
        verifier = verifier[:-1] + ("A" if verifier[-1] != "A" else "B")
    elif tamper == "selector":
        selector = selector[:-1] + ("A" if selector[-1] != "A" else "B")
    else:
        slug = "other"
    url = reverse(
        "sessions:my-schedule-feed",
        kwargs={"conference_slug": slug, "token": f"{selector}.{verifier}"},
    )
    assert client.get(url).status_code == 404


def test_calendar_tokens_are_long_and_random(attendee, conference, django_user_model):
    first = CalendarFeed.issue(attendee, conference).token
    second = CalendarFeed.issue(django_user_model.objects.create_user("bob"), conference).token
    assert first != second
    assert len(first) >= 50


def test_my_schedule_shows_the_calendar_address(attendee_client, attendee, conference):
    feed = CalendarFeed.issue(attendee, conference)
    html = attendee_client.get(my_schedule_url(conference)).content.decode()
    assert f'value="https://schedule.example.org{feed.get_absolute_url()}"' in html


def test_my_schedule_offers_to_subscribe_with_a_webcal_link(attendee_client, attendee, conference):
    feed = CalendarFeed.issue(attendee, conference)
    html = attendee_client.get(my_schedule_url(conference)).content.decode()
    assert (
        f'<a class="button" href="webcal://schedule.example.org{feed.get_absolute_url()}">'
        "Subscribe in my calendar app</a>"
    ) in html


def test_my_schedule_copy_button_waits_for_javascript(attendee_client, attendee, conference):
    CalendarFeed.issue(attendee, conference)
    html = attendee_client.get(my_schedule_url(conference)).content.decode()
    assert re.search(
        r'<button type="button"[^>]* data-copy="feed-url"[^>]* hidden>Copy</button>', html
    )
    assert '<input id="feed-url" class="feed-url" type="text" readonly value="https://' in html


@pytest.mark.skipif(
    connection.vendor != "postgresql", reason="needs real parallel connections (PostgreSQL)"
)
@pytest.mark.django_db(transaction=True)
def test_parallel_saves_of_one_session_leave_one_row(attendee, conference):
    session = make_session(conference)
    barrier = threading.Barrier(8)
    errors = []

    def save():
        try:
            barrier.wait()
            SavedSession.objects.add(
                attendee, Session.objects.select_related("conference").get(pk=session.pk)
            )
        except Exception as error:
            errors.append(error)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=save) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert SavedSession.objects.filter(user=attendee, session=session).count() == 1

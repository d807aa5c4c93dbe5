"""Each session card of the lists is kept in the cache under a key of what it shows
(sessions/views/cards.py): after an edit a schedule renders only the cards the edit changed,
shows every edit of what a card shows, and keeps nothing of a visitor in a card."""

import pytest
from django.core.cache import cache
from django.urls import reverse

from conference.pages.copies import forget_pages
from sessions.models import SavedSession, Session
from sessions.views import cards
from speakers.models import Speaker
from tests.builders import SAVED, make_room, make_session, make_speaker, make_track, paris

pytestmark = pytest.mark.django_db

LISTS = ["sessions:schedule", "sessions:schedule-grid", "sessions:embed", "sessions:embed-grid"]


@pytest.fixture
def talks(conference):
    room = make_room(conference, name="Hall")
    track = make_track(conference, name="Data")
    ada = make_speaker(conference, name="Ada Lovelace")
    return [
        make_session(
            conference,
            title=f"Talk {number}",
            room=room if number == 1 else None,
            track=track if number == 1 else None,
            speakers=[ada] if number == 1 else [],
            starts_at=paris(8, 9 + number),
            ends_at=paris(8, 9 + number, 45),
        )
        for number in range(1, 6)
    ]


@pytest.fixture
def rendered(monkeypatch):
    """The titles of the cards rendered, in order, however the page was made."""
    titles = []
    card_macro = cards.card_macro

    def counting_macro():
        macro = card_macro()

        def card(session, **options):
            titles.append(session.title)
            return macro(session, **options)

        return card

    monkeypatch.setattr(cards, "card_macro", counting_macro)
    return titles


def page(client, view="sessions:schedule", **headers):
    response = client.get(reverse(view, kwargs={"conference_slug": "pycon"}), **headers)
    assert response.status_code == 200
    return response.content.decode()


def save_again(session: Session, **fields) -> None:
    session = Session.objects.get(pk=session.pk)
    for name, value in fields.items():
        setattr(session, name, value)
    session.save()


@pytest.mark.parametrize("view", LISTS)
def test_after_an_edit_only_the_edited_sessions_card_is_rendered_again(
    client, talks, rendered, view
):
    page(client, view)
    assert sorted(rendered) == [f"Talk {number}" for number in range(1, 6)]
    rendered.clear()

    save_again(talks[2], title="Talk 3, revised")
    html = page(client, view)

    assert rendered == ["Talk 3, revised"]
    assert "Talk 3, revised" in html
    assert "Talk 5" in html


def test_a_schedule_from_kept_cards_is_the_schedule_rendered_from_scratch(client, talks):
    page(client)
    save_again(talks[0], title="Talk 1, revised")
    from_kept_cards = page(client)
    cache.clear()
    forget_pages()

    assert from_kept_cards == page(client)


@pytest.mark.parametrize(
    ("edit", "shown"),
    [
        (lambda talk: Speaker.objects.filter(name="Ada Lovelace").get().save(), None),
        (lambda talk: rename(talk.speakers.get(), "Ada King"), "Ada King"),
        (lambda talk: rename(talk.room, "Great Hall"), "Great Hall"),
        (lambda talk: rename(talk.track, "Machine Learning"), "Machine Learning"),
    ],
    ids=["speaker saved unchanged", "speaker", "room", "track"],
)
def test_an_edit_of_what_a_card_shows_is_in_the_next_schedule(client, talks, rendered, edit, shown):
    page(client)
    rendered.clear()

    edit(talks[0])
    html = page(client)

    assert rendered == ["Talk 1"]
    if shown:
        assert shown in html


def rename(row, name):
    row.name = name
    row.save()


def test_a_card_in_another_language_is_rendered_in_it(client, talks):
    page(client)

    html = page(client, HTTP_ACCEPT_LANGUAGE="fr")

    assert "« Talk 1 » dans mon programme" in html
    assert "“Talk 1” to my schedule" not in html


def test_a_visitors_saved_state_is_never_kept_in_a_card(client, attendee, talks, rendered):
    SavedSession.objects.add(attendee, talks[0])
    client.force_login(attendee)
    mine = page(client)
    client.logout()
    rendered.clear()

    anonymous = page(client)

    assert rendered == []  # the anonymous page was joined from the cards the attendee's made
    assert SAVED in mine
    assert SAVED not in anonymous


def test_past_the_limit_a_page_renders_its_cards_and_keeps_none(client, talks, rendered, settings):
    settings.CARD_FRAGMENT_MAX_CARDS = 4  # the schedule shows five
    page(client)

    assert len(rendered) == 5
    assert not [key for key in cache._cache if "fragment:card:" in key]


def test_a_speakers_page_renders_again_only_the_card_an_edit_changed(client, talks, rendered):
    ada = Speaker.objects.get(name="Ada Lovelace")
    talks[1].speakers.add(ada)
    speaker_page = reverse(
        "speakers:speaker-detail", kwargs={"conference_slug": "pycon", "slug": ada.slug}
    )
    client.get(speaker_page)
    assert sorted(rendered) == ["Talk 1", "Talk 2"]
    rendered.clear()

    save_again(talks[1], title="Talk 2, revised")
    html = client.get(speaker_page).content.decode()

    assert rendered == ["Talk 2, revised"]
    assert "Talk 1" in html
    assert "Talk 2, revised" in html


def test_my_schedule_renders_again_only_the_card_an_edit_changed_with_the_visitors_state(
    client, attendee, talks, rendered
):
    for talk in talks[:3]:
        SavedSession.objects.add(attendee, talk)
    client.force_login(attendee)
    page(client, "sessions:my-schedule")
    assert sorted(rendered) == ["Talk 1", "Talk 2", "Talk 3"]
    rendered.clear()

    save_again(talks[1], title="Talk 2, revised")
    html = page(client, "sessions:my-schedule")

    assert rendered == ["Talk 2, revised"]
    assert html.count(SAVED) == 3

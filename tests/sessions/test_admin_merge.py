"""Two organizers saving one session from pages opened at the same version (VersionedModelForm)."""

import json

import pytest
from django.contrib.admin.models import LogEntry
from django.contrib.messages import get_messages
from django.urls import reverse

from conference.models import Room
from conference.versioning import FieldChange, Overlap
from sessions.models import Session, SessionLink
from tests.admin_forms import opened_change_form
from tests.builders import make_conference, make_room, make_session, make_speaker, paris
from tests.sessions.test_admin import opened_form, save_in_admin

pytestmark = pytest.mark.django_db


@pytest.fixture
def two_rooms():
    conference = make_conference()
    return make_room(conference, name="Central Room"), make_room(conference, name="Junior Stage")


@pytest.fixture
def session(two_rooms):
    central, _ = two_rooms
    return make_session(central.conference, title="Old title", room=central)


def moved_on_the_planner(session, room):
    """What a planner move writes: the session, from its own loaded version."""
    moved = Session.objects.get(pk=session.pk)
    moved.room = room
    moved.save(update_fields=["room"])


def stored(session):
    return Session.objects.get(pk=session.pk)


def test_admin_merges_changes_to_different_fields_of_one_session(admin_client, session, two_rooms):
    _, junior = two_rooms
    opened = opened_form(admin_client, session)
    moved_on_the_planner(session, junior)

    response = save_in_admin(admin_client, session, opened, title="New title")

    assert response.status_code == 302
    assert (stored(session).title, stored(session).room, stored(session).version) == (
        "New title",
        junior,
        3,
    )
    assert [str(message) for message in get_messages(response.wsgi_request)] == [
        "Kept what someone else saved meanwhile: Room: Central Room → Junior Stage.",
        f'The session “<a href="/admin/schedule/session/{session.pk}/change/">New title</a>” '
        "was changed successfully.",
    ]


def test_admin_history_of_a_merged_save_names_only_what_the_organizer_changed(
    admin_client, session, two_rooms
):
    _, junior = two_rooms
    opened = opened_form(admin_client, session)
    moved_on_the_planner(session, junior)

    save_in_admin(admin_client, session, opened, title="New title")

    entry = LogEntry.objects.get(object_id=str(session.pk))
    assert entry.get_change_message() == "Changed Title."


def test_admin_merges_a_change_of_audience_level_with_a_new_title(admin_client, session):
    opened = opened_form(admin_client, session)
    save_in_admin(admin_client, session, opened_form(admin_client, session), title="Theirs")

    response = save_in_admin(
        admin_client, session, opened, audience_level=Session.AudienceLevel.ADVANCED
    )

    assert response.status_code == 302
    assert (stored(session).title, stored(session).audience_level) == (
        "Theirs",
        Session.AudienceLevel.ADVANCED,
    )


def test_admin_shows_both_values_of_a_field_both_changed_and_saves_nothing(
    admin_client, session, two_rooms
):
    _, junior = two_rooms
    opened = opened_form(admin_client, session)
    save_in_admin(admin_client, session, opened_form(admin_client, session), title="Theirs")
    moved_on_the_planner(session, junior)

    response = save_in_admin(admin_client, session, opened, title="Mine", description="Mine.")

    assert response.status_code == 200
    form = response.context["adminform"].form
    assert form.overlap_choices == [
        (Overlap("title", "Title", "Old title", "Theirs", "Mine"), None)
    ]
    assert form.non_field_errors() == [
        "Someone else saved “Theirs” after you opened this page and changed Title too, so "
        "nothing was saved. Choose whose value to keep for each, then save again."
    ]
    html = response.content.decode()
    assert '<input type="radio" name="keep_title" value="theirs">' in html
    assert '<input type="radio" name="keep_title" value="mine">' in html
    assert (stored(session).title, stored(session).description) == ("Theirs", "")


@pytest.mark.parametrize(("keep", "title"), [("mine", "Mine"), ("theirs", "Theirs")])
def test_admin_saves_the_value_the_organizer_chose_and_merges_the_rest(
    admin_client, session, two_rooms, keep, title
):
    _, junior = two_rooms
    opened = opened_form(admin_client, session)
    save_in_admin(admin_client, session, opened_form(admin_client, session), title="Theirs")
    moved_on_the_planner(session, junior)
    shown = save_in_admin(admin_client, session, opened, title="Mine", description="Mine.")
    version = shown.context["adminform"].form.overwrite_offer

    response = save_in_admin(
        admin_client,
        session,
        opened,
        title="Mine",
        description="Mine.",
        merge_version=str(version),
        keep_title=keep,
    )

    assert response.status_code == 302
    after = stored(session)
    assert (after.title, after.room, after.description) == (title, junior, "Mine.")


def test_admin_asks_again_when_a_choice_was_made_on_a_version_since_replaced(admin_client, session):
    opened = opened_form(admin_client, session)
    save_in_admin(admin_client, session, opened_form(admin_client, session), title="Theirs")
    version = save_in_admin(admin_client, session, opened, title="Mine").context["adminform"]
    save_in_admin(admin_client, session, opened_form(admin_client, session), title="Third")

    response = save_in_admin(
        admin_client,
        session,
        opened,
        title="Mine",
        merge_version=str(version.form.overwrite_offer),
        keep_title="mine",
    )

    assert response.status_code == 200
    assert response.context["adminform"].form.overlap_choices == [
        (Overlap("title", "Title", "Old title", "Third", "Mine"), None)
    ]
    assert stored(session).title == "Third"


def test_admin_lists_exactly_what_saving_over_a_newer_version_undoes(
    admin_client, session, two_rooms
):
    _, junior = two_rooms
    opened = opened_form(admin_client, session)
    save_in_admin(admin_client, session, opened_form(admin_client, session), title="Theirs")
    moved_on_the_planner(session, junior)

    response = save_in_admin(admin_client, session, opened, title="Mine")

    form = response.context["adminform"].form
    assert form.merge.undone == [
        FieldChange("Title", "Old title", "Theirs"),
        FieldChange("Room", "Central Room", "Junior Stage"),
    ]
    html = response.content.decode()
    assert "<li>Room: Central Room → Junior Stage</li>" in html
    assert "<li>Title: Old title → Theirs</li>" in html


def test_admin_saves_over_a_newer_version_when_the_organizer_chooses_to(
    admin_client, session, two_rooms
):
    central, junior = two_rooms
    opened = opened_form(admin_client, session)
    save_in_admin(admin_client, session, opened_form(admin_client, session), title="Theirs")
    moved_on_the_planner(session, junior)
    offered = save_in_admin(admin_client, session, opened, title="Mine")

    response = save_in_admin(
        admin_client,
        session,
        opened,
        title="Mine",
        overwrite_version=str(offered.context["adminform"].form.overwrite_offer),
    )

    assert response.status_code == 302
    assert (stored(session).title, stored(session).room) == ("Mine", central)


def test_admin_refuses_a_merge_that_double_books_a_room_with_the_rules_message(
    admin_client, session, two_rooms
):
    _, junior = two_rooms
    make_session(junior.conference, title="Keynote rehearsal", room=junior, starts_at=paris(8, 11))
    opened = opened_form(admin_client, session)
    moved_on_the_planner(session, junior)  # free at 10:00, not at 11:00

    response = save_in_admin(
        admin_client, session, opened, starts_at_1="11:00", ends_at_1="11:30", duration="30"
    )

    assert response.status_code == 200
    form = response.context["adminform"].form
    assert form.errors["room"] == [
        "Junior Stage already hosts “Keynote rehearsal” then "
        "(Wednesday 8 April 2026 11:00–11:30 CEST)."
    ]
    assert form.non_field_errors() == [
        "Someone else saved “Old title” after you opened this page (Room: Central Room → "
        "Junior Stage). Together with theirs, your changes break a rule (marked on this "
        "page), so nothing was saved."
    ]
    assert (stored(session).room, stored(session).starts_at) == (junior, paris(8, 10))


def speakers_row(speaker, index=0):
    return {
        "session_speakers-TOTAL_FORMS": str(index + 1),
        f"session_speakers-{index}-speaker": str(speaker.pk),
        f"session_speakers-{index}-position": str(index),
    }


def test_admin_keeps_a_speaker_added_meanwhile_when_merging_a_new_title(admin_client, session):
    grace = make_speaker(session.conference, name="Grace Hopper")
    opened = opened_form(admin_client, session)
    save_in_admin(admin_client, session, opened_form(admin_client, session), **speakers_row(grace))

    response = save_in_admin(admin_client, session, opened, title="Mine")

    assert response.status_code == 302
    assert (stored(session).title, stored(session).ordered_speakers) == ("Mine", [grace])


def test_admin_shows_both_speaker_lists_when_both_changed_them(admin_client, session):
    grace = make_speaker(session.conference, name="Grace Hopper")
    ada = make_speaker(session.conference, name="Ada Lovelace")
    opened = opened_form(admin_client, session)
    save_in_admin(admin_client, session, opened_form(admin_client, session), **speakers_row(grace))

    response = save_in_admin(admin_client, session, opened, title="Mine", **speakers_row(ada))

    assert response.status_code == 200
    assert response.context["adminform"].form.overlap_choices == [
        (Overlap("speakers", "Speakers", "", "Grace Hopper", "Ada Lovelace"), None)
    ]
    assert (stored(session).title, stored(session).ordered_speakers) == ("Old title", [grace])


def test_admin_keeps_their_speakers_when_the_organizer_chooses_theirs(admin_client, session):
    grace = make_speaker(session.conference, name="Grace Hopper")
    ada = make_speaker(session.conference, name="Ada Lovelace")
    opened = opened_form(admin_client, session)
    save_in_admin(admin_client, session, opened_form(admin_client, session), **speakers_row(grace))
    shown = save_in_admin(admin_client, session, opened, title="Mine", **speakers_row(ada))

    response = save_in_admin(
        admin_client,
        session,
        opened,
        title="Mine",
        merge_version=str(shown.context["adminform"].form.overwrite_offer),
        keep_speakers="theirs",
        **speakers_row(ada),
    )

    assert response.status_code == 302
    assert (stored(session).title, stored(session).ordered_speakers) == ("Mine", [grace])


def test_room_admin_merges_a_new_capacity_with_a_new_name(admin_client, two_rooms):
    central, _ = two_rooms
    url = reverse("admin:conference_room_change", args=[central.pk])
    opened = opened_change_form(admin_client, url)
    admin_client.post(url, {**opened_change_form(admin_client, url), "name": "Main Hall"})

    response = admin_client.post(url, {**opened, "capacity": "250"})

    assert response.status_code == 302
    room = Room.objects.get(pk=central.pk)
    assert (room.name, room.capacity) == ("Main Hall", 250)


def test_admin_refuses_rather_than_merge_a_page_whose_link_was_changed_meanwhile(
    admin_client, session
):
    link = SessionLink.objects.create(session=session, title="Slides", url="https://a.example/")
    opened = opened_form(admin_client, session)
    SessionLink.objects.filter(pk=link.pk).update(url="https://b.example/")
    Session.objects.filter(pk=session.pk).update()  # as the change form saves the session too

    response = save_in_admin(admin_client, session, opened, title="Mine")

    assert response.status_code == 200
    form = response.context["adminform"].form
    assert [(change.label, change.now) for change in form.changed_meanwhile] == [
        ("Session links", "Slides: https://b.example/ ()")
    ]
    assert (stored(session).title, SessionLink.objects.get(pk=link.pk).url) == (
        "Old title",
        "https://b.example/",
    )


def test_admin_saves_exactly_my_speakers_when_the_organizer_chooses_mine(admin_client, session):
    grace = make_speaker(session.conference, name="Grace Hopper")
    ada = make_speaker(session.conference, name="Ada Lovelace")
    opened = opened_form(admin_client, session)
    save_in_admin(admin_client, session, opened_form(admin_client, session), **speakers_row(grace))
    shown = save_in_admin(admin_client, session, opened, **speakers_row(ada))

    response = save_in_admin(
        admin_client,
        session,
        opened,
        merge_version=str(shown.context["adminform"].form.overwrite_offer),
        keep_speakers="mine",
        **speakers_row(ada),
    )

    assert response.status_code == 302
    assert stored(session).ordered_speakers == [ada]


def test_admin_saving_my_version_anyway_undoes_a_speaker_added_meanwhile(admin_client, session):
    grace = make_speaker(session.conference, name="Grace Hopper")
    ada = make_speaker(session.conference, name="Ada Lovelace")
    opened = opened_form(admin_client, session)
    save_in_admin(admin_client, session, opened_form(admin_client, session), **speakers_row(grace))
    shown = save_in_admin(admin_client, session, opened, **speakers_row(ada))
    assert [change.label for change in shown.context["adminform"].form.merge.undone] == ["Speakers"]

    response = save_in_admin(
        admin_client,
        session,
        opened,
        overwrite_version=str(shown.context["adminform"].form.overwrite_offer),
        **speakers_row(ada),
    )

    assert response.status_code == 302
    assert stored(session).ordered_speakers == [ada]


def test_admin_refuses_a_merge_whose_loaded_values_leave_out_a_field_asking_to_reload(
    admin_client, session, two_rooms
):
    """A tampered (or truncated) form: its loaded values say nothing of the room, which
    someone moved meanwhile. Its own, older room must not count as “unchanged” and win."""
    junior = two_rooms[1]
    opened = opened_form(admin_client, session)
    loaded = json.loads(opened["loaded_values"])
    del loaded["room"]
    moved_on_the_planner(session, junior)

    response = save_in_admin(
        admin_client, session, opened, loaded_values=json.dumps(loaded), title="New title"
    )

    assert response.status_code == 200
    errors = response.context["adminform"].form.non_field_errors()
    assert "Reload it to edit the current version." in " ".join(errors)
    assert (stored(session).title, stored(session).room, stored(session).version) == (
        "Old title",
        junior,
        2,
    )

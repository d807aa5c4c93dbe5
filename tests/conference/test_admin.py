import pytest
from django.urls import reverse

from conference.models import Conference, Room, Track
from tests.admin_forms import opened_change_form
from tests.builders import make_conference, make_room, make_track

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("make", "url_name", "theirs", "mine", "changed"),
    [
        (
            lambda: make_room(name="Central Room", capacity=40),
            "admin:conference_room_change",
            {"capacity": "60"},
            {"name": "Central Hall"},
            [("Capacity", "40", "60")],
        ),
        (
            lambda: make_track(name="Security", colour="#b3261e"),
            "admin:conference_track_change",
            {"colour": "#123456"},
            {"description": "Mine."},
            [("Colour", "#b3261e", "#123456")],
        ),
    ],
)
def test_admin_refuses_a_room_or_track_save_from_a_page_opened_before_anothers_save(
    admin_client, make, url_name, theirs, mine, changed
):
    part = make()
    url = reverse(url_name, args=[part.pk])
    opened_by_b = opened_change_form(admin_client, url)
    assert (
        admin_client.post(url, {**opened_change_form(admin_client, url), **theirs}).status_code
        == 302
    )

    response = admin_client.post(url, {**opened_by_b, **mine})

    assert response.status_code == 200
    form = response.context["adminform"].form
    assert [
        (change.label, change.loaded, change.now) for change in form.changed_meanwhile
    ] == changed
    assert "Save my version anyway" in response.content.decode()
    stored = type(part).objects.get(pk=part.pk)
    assert {name: str(getattr(stored, name)) for name in {**theirs, **mine}} == {
        **{name: str(getattr(part, name)) for name in mine},
        **theirs,
    }


def test_conference_admin_refuses_a_room_row_changed_since_the_page_was_opened(admin_client):
    conference = make_conference(name="PyCon")
    room = make_room(conference, name="Central Room", capacity=40)
    make_track(conference, name="Security")
    url = reverse("admin:conference_conference_change", args=[conference.pk])
    opened = opened_change_form(admin_client, url)
    Room.objects.filter(pk=room.pk).update(name="Master Stage")

    response = admin_client.post(url, {**opened, "name": "PyCon 2026", "rooms-0-capacity": "60"})

    assert response.status_code == 200
    (room_form,) = response.context["inline_admin_formsets"][0].formset.forms
    assert room_form.non_field_errors() == [
        "Someone else saved “Master Stage” after you opened this page, so nothing was saved. "
        "Changed meanwhile: Name."
    ]
    assert Conference.objects.get(pk=conference.pk).name == "PyCon"
    assert Room.objects.get(pk=room.pk).capacity == 40


def test_conference_admin_saves_rooms_and_tracks_from_a_fresh_page(admin_client):
    conference = make_conference()
    room = make_room(conference, capacity=40)
    track = make_track(conference)
    url = reverse("admin:conference_conference_change", args=[conference.pk])
    opened = opened_change_form(admin_client, url)
    response = admin_client.post(
        url, {**opened, "rooms-0-capacity": "60", "tracks-0-description": "New."}
    )
    assert response.status_code == 302
    assert (Room.objects.get(pk=room.pk).capacity, Track.objects.get(pk=track.pk).version) == (
        60,
        2,
    )

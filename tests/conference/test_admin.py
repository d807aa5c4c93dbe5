import re
from html import unescape

import pytest
from django.urls import reverse

from conference.models import Conference, Room, Track
from tests.admin_forms import opened_change_form
from tests.builders import make_conference, make_room, make_session, make_speaker, make_track

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("make", "url_name", "theirs", "mine"),
    [
        (
            lambda: make_room(name="Central Room", capacity=40),
            "admin:conference_room_change",
            {"capacity": "60"},
            {"name": "Central Hall"},
        ),
        (
            lambda: make_track(name="Security", colour="#b3261e"),
            "admin:conference_track_change",
            {"colour": "#123456"},
            {"description": "Mine."},
        ),
    ],
)
def test_admin_merges_a_room_or_track_save_into_anothers_save_of_other_fields(
    admin_client, make, url_name, theirs, mine
):
    part = make()
    url = reverse(url_name, args=[part.pk])
    opened_by_b = opened_change_form(admin_client, url)
    assert (
        admin_client.post(url, {**opened_change_form(admin_client, url), **theirs}).status_code
        == 302
    )

    response = admin_client.post(url, {**opened_by_b, **mine})

    assert response.status_code == 302
    stored = type(part).objects.get(pk=part.pk)
    assert {name: str(getattr(stored, name)) for name in {**theirs, **mine}} == {
        **theirs,
        **mine,
    }


@pytest.mark.parametrize(
    ("make", "url_name", "theirs", "mine"),
    [
        (
            lambda: make_room(name="Central Room", capacity=40),
            "admin:conference_room_change",
            {"capacity": "60"},
            {"capacity": "80"},
        ),
        (
            lambda: make_track(name="Security", colour="#b3261e"),
            "admin:conference_track_change",
            {"colour": "#123456"},
            {"colour": "#654321"},
        ),
    ],
)
def test_admin_refuses_a_room_or_track_field_both_changed_and_shows_both_values(
    admin_client, make, url_name, theirs, mine
):
    part = make()
    url = reverse(url_name, args=[part.pk])
    opened_by_b = opened_change_form(admin_client, url)
    admin_client.post(url, {**opened_change_form(admin_client, url), **theirs})

    response = admin_client.post(url, {**opened_by_b, **mine})

    assert response.status_code == 200
    ((overlap, chosen),) = response.context["adminform"].form.overlap_choices
    ((name, value),) = mine.items()
    assert (overlap.name, overlap.theirs, overlap.mine, chosen) == (
        name,
        theirs[name],
        value,
        None,
    )
    assert str(getattr(type(part).objects.get(pk=part.pk), name)) == theirs[name]


def test_conference_admin_merges_a_room_row_changed_since_the_page_was_opened(admin_client):
    conference = make_conference(name="PyCon")
    room = make_room(conference, name="Central Room", capacity=40)
    url = reverse("admin:conference_conference_change", args=[conference.pk])
    opened = opened_change_form(admin_client, url)
    Room.objects.filter(pk=room.pk).update(name="Master Stage")

    response = admin_client.post(url, {**opened, "name": "PyCon 2026", "rooms-0-capacity": "60"})

    assert response.status_code == 302
    stored = Room.objects.get(pk=room.pk)
    assert (Conference.objects.get(pk=conference.pk).name, stored.name, stored.capacity) == (
        "PyCon 2026",
        "Master Stage",
        60,
    )


def test_conference_admin_refuses_a_room_row_whose_field_both_changed(admin_client):
    conference = make_conference(name="PyCon")
    room = make_room(conference, name="Central Room", capacity=40)
    url = reverse("admin:conference_conference_change", args=[conference.pk])
    opened = opened_change_form(admin_client, url)
    Room.objects.filter(pk=room.pk).update(capacity=50)

    response = admin_client.post(url, {**opened, "name": "PyCon 2026", "rooms-0-capacity": "60"})

    assert response.status_code == 200
    (room_form,) = response.context["inline_admin_formsets"][0].formset.forms
    assert room_form.non_field_errors() == [
        "Someone else saved “Central Room” after you opened this page and changed Capacity "
        "(theirs: “50”, yours: “60”) too, so nothing was saved. Reload the page to edit the "
        "current version."
    ]
    assert Conference.objects.get(pk=conference.pk).name == "PyCon"
    assert Room.objects.get(pk=room.pk).capacity == 50


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


@pytest.mark.parametrize(
    ("language", "shown"),
    [
        ("en", "the embeddable schedule (/&lt;conference&gt;/embed/) in a frame"),
        ("fr", "le programme intégrable (/&lt;conference&gt;/embed/) dans un"),
    ],
)
def test_embed_help_names_the_address_with_its_placeholder(admin_client, language, shown):
    """The admin prints help texts as HTML: an unescaped “<conference>” shows as “//embed/”."""
    conference = make_conference()
    url = reverse("admin:conference_conference_change", args=[conference.pk])

    html = admin_client.get(url, headers={"Accept-Language": language}).content.decode()

    assert shown in " ".join(html.split())
    assert "<conference>" not in html


def breadcrumbs(response) -> str:
    [trail] = re.findall(r'<div class="breadcrumbs">(.*?)</div>', response.content.decode(), re.S)
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", trail)).split())


@pytest.mark.parametrize(
    ("language", "trails"),
    [
        (
            "en",
            [
                "Home › Schedule › Sessions › Keynote",
                "Home › Speaker profiles › Speakers › Ada Lovelace",
                "Home › Setup › Conferences › PyCon",
            ],
        ),
        (
            "fr",
            [
                "Accueil › Programme › Sessions › Keynote",
                "Accueil › Profils des intervenants › Intervenants › Ada Lovelace",
                "Accueil › Configuration › Conférences › PyCon",
            ],
        ),
    ],
)
def test_admin_breadcrumbs_name_the_section_apart_from_its_objects(admin_client, language, trails):
    conference = make_conference(name="PyCon")
    session = make_session(conference, title="Keynote")
    speaker = make_speaker(conference, name="Ada Lovelace")
    pages = [
        reverse("admin:schedule_session_change", args=[session.pk]),
        reverse("admin:speakers_speaker_change", args=[speaker.pk]),
        reverse("admin:conference_conference_change", args=[conference.pk]),
    ]
    headers = {"Accept-Language": language}

    assert [breadcrumbs(admin_client.get(page, headers=headers)) for page in pages] == trails

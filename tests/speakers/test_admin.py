import datetime

import pytest
from django.urls import reverse

from speakers.models import Availability, Speaker, SpeakerInvitation, SpeakerLink
from tests.admin_forms import opened_change_form
from tests.builders import make_conference, make_speaker, paris

pytestmark = pytest.mark.django_db


@pytest.fixture
def speaker():
    """Ada Lovelace of a conference of her own, with a bio and a link: an inline to merge."""
    speaker = make_speaker(name="Ada Lovelace", company="Example Labs", bio="Wrote notes.")
    SpeakerLink.objects.create(speaker=speaker, title="Website", url="https://example.org/")
    return speaker


def change_url(speaker):
    return reverse("admin:speakers_speaker_change", args=[speaker.pk])


def test_admin_merges_a_speaker_save_into_anothers_save_of_other_fields(admin_client, speaker):
    opened_by_b = opened_change_form(admin_client, change_url(speaker))
    opened_by_a = opened_change_form(admin_client, change_url(speaker))
    assert (
        admin_client.post(
            change_url(speaker), {**opened_by_a, "company": "Babbage Ltd"}
        ).status_code
        == 302
    )

    response = admin_client.post(
        change_url(speaker),
        {
            **opened_by_b,
            "bio": "Wrote the first program.",
            "links-TOTAL_FORMS": "2",
            "links-1-title": "Mastodon",
            "links-1-url": "https://example.social/@ada",
            "links-1-position": "1",
        },
    )

    assert response.status_code == 302
    stored = Speaker.objects.get(pk=speaker.pk)
    assert (
        stored.company,
        stored.bio,
        list(stored.links.order_by("position").values_list("title", flat=True)),
    ) == ("Babbage Ltd", "Wrote the first program.", ["Website", "Mastodon"])


def test_admin_shows_a_changed_link_of_a_speaker(admin_client, speaker):
    opened = opened_change_form(admin_client, change_url(speaker))
    SpeakerLink.objects.filter(speaker=speaker).update(url="https://ada.example/")
    Speaker.objects.filter(pk=speaker.pk).update()  # as the change form saves the speaker too
    response = admin_client.post(change_url(speaker), {**opened, "bio": "Mine."})
    assert [
        (change.label, change.loaded, change.now)
        for change in response.context["adminform"].form.changed_meanwhile
    ] == [("Speaker links", "Website: https://example.org/", "Website: https://ada.example/")]


def test_admin_saves_over_a_newer_speaker_when_the_organizer_chooses_to(admin_client, speaker):
    opened_by_b = opened_change_form(admin_client, change_url(speaker))
    Speaker.objects.filter(pk=speaker.pk).update(company="Babbage Ltd", role="Countess")
    mine = {**opened_by_b, "bio": "Mine.", "company": "Analytical Ltd"}
    refused = admin_client.post(change_url(speaker), mine)
    offered = refused.context["adminform"].form.overwrite_offer

    response = admin_client.post(change_url(speaker), {**mine, "overwrite_version": str(offered)})

    assert response.status_code == 302
    stored = Speaker.objects.get(pk=speaker.pk)
    assert (stored.company, stored.role, stored.bio) == ("Analytical Ltd", "Engineer", "Mine.")


def availability_rows(*rows, initial=0):
    data = {
        "availability-TOTAL_FORMS": str(len(rows)),
        "availability-INITIAL_FORMS": str(initial),
    }
    for number, (day, starts, ends) in enumerate(rows):
        data |= {
            f"availability-{number}-starts_at_0": day,
            f"availability-{number}-starts_at_1": starts,
            f"availability-{number}-ends_at_0": day,
            f"availability-{number}-ends_at_1": ends,
        }
    return data


def test_admin_reads_availability_typed_in_the_conference_zone(admin_client):
    speaker = make_speaker(make_conference(time_zone="America/New_York"))
    opened = opened_change_form(admin_client, change_url(speaker))
    response = admin_client.post(
        change_url(speaker), {**opened, **availability_rows(("2026-04-08", "10:00", "12:00"))}
    )
    assert response.status_code == 302
    assert list(speaker.availability.values_list("starts_at", "ends_at")) == [
        (
            datetime.datetime(2026, 4, 8, 14, tzinfo=datetime.UTC),
            datetime.datetime(2026, 4, 8, 16, tzinfo=datetime.UTC),
        )
    ]


def test_admin_shows_availability_in_the_conference_zone(admin_client, speaker):
    Availability.objects.create(speaker=speaker, starts_at=paris(8, 10), ends_at=paris(8, 12))
    html = admin_client.get(change_url(speaker)).content.decode()
    assert 'name="availability-0-starts_at_1" value="10:00:00"' in html
    assert "In Europe/Paris, the conference&#x27;s time zone." in html


def test_admin_adds_a_speaker_with_availability_in_the_chosen_conference_zone(admin_client):
    make_conference(time_zone="Europe/Paris")
    new_york = make_conference(time_zone="America/New_York")
    response = admin_client.post(
        reverse("admin:speakers_speaker_add"),
        {
            "conference": new_york.pk,
            "name": "Ada Lovelace",
            "slug": "ada",
            "links-TOTAL_FORMS": "0",
            "links-INITIAL_FORMS": "0",
            **availability_rows(("2026-04-07", "09:00", "11:00")),
        },
    )
    assert response.status_code == 302
    window = Availability.objects.get()
    assert (window.speaker.name, window.starts_at) == (
        "Ada Lovelace",
        datetime.datetime(2026, 4, 7, 13, tzinfo=datetime.UTC),
    )


def test_admin_shows_a_window_ending_before_it_starts_and_saves_nothing(admin_client, speaker):
    opened = opened_change_form(admin_client, change_url(speaker))
    response = admin_client.post(
        change_url(speaker),
        {**opened, "bio": "Changed.", **availability_rows(("2026-04-08", "12:00", "10:00"))},
    )
    assert response.status_code == 200
    assert response.context["inline_admin_formsets"][1].formset.errors == [
        {"ends_at": ["An availability window must end after it starts."]}
    ]
    assert (Speaker.objects.get().bio, Availability.objects.count()) == ("Wrote notes.", 0)


def test_admin_refuses_overlapping_windows_and_saves_nothing(admin_client, speaker):
    opened = opened_change_form(admin_client, change_url(speaker))
    rows = availability_rows(("2026-04-08", "09:00", "12:00"), ("2026-04-08", "11:00", "13:00"))
    response = admin_client.post(change_url(speaker), {**opened, "bio": "Changed.", **rows})
    assert response.status_code == 200
    assert response.context["inline_admin_formsets"][1].formset.non_form_errors() == [
        "Two windows overlap: Wednesday 8 April, 09:00–12:00 CEST and Wednesday 8 April, "
        "11:00–13:00 CEST. Join them into one window, or change one so they no longer overlap."
    ]
    assert (Speaker.objects.get().bio, Availability.objects.count()) == ("Wrote notes.", 0)


def test_admin_removes_a_window(admin_client, speaker):
    window = Availability.objects.create(
        speaker=speaker, starts_at=paris(8, 10), ends_at=paris(8, 12)
    )
    opened = opened_change_form(admin_client, change_url(speaker))
    response = admin_client.post(
        change_url(speaker),
        {**opened, "availability-0-id": str(window.pk), "availability-0-DELETE": "on"},
    )
    assert response.status_code == 302
    assert Availability.objects.count() == 0


def test_admin_shows_availability_changed_meanwhile_in_the_conference_zone(admin_client, speaker):
    opened = opened_change_form(admin_client, change_url(speaker))
    Availability.objects.create(speaker=speaker, starts_at=paris(8, 10), ends_at=paris(8, 12))
    Speaker.objects.filter(pk=speaker.pk).update()  # as the change form saves the speaker too
    response = admin_client.post(change_url(speaker), {**opened, "bio": "Mine."})
    assert [
        (change.label, change.loaded, change.now)
        for change in response.context["adminform"].form.changed_meanwhile
    ] == [("Availability windows", "", "Wed 10:00–12:00 CEST")]


@pytest.mark.parametrize(
    ("language", "shown"),
    [("en", "6 Dec 2026, 19:42 EST"), ("fr", "6 déc. 2026, 19 h 42 EST")],
)
def test_invitations_inline_shows_when_in_the_conferences_zone_and_the_readers_format(
    admin_client, language, shown
):
    speaker = make_speaker(make_conference(time_zone="America/New_York"))
    SpeakerInvitation.objects.create(speaker=speaker, email="ada@example.org")
    SpeakerInvitation.objects.update(
        created_at=datetime.datetime(2026, 12, 7, 0, 42, tzinfo=datetime.UTC)
    )

    html = admin_client.get(change_url(speaker), headers={"Accept-Language": language})

    assert f"<p>{shown}</p>" in html.content.decode()  # 00:42 in UTC

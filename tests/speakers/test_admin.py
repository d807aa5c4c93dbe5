import pytest
from django.urls import reverse

from speakers.models import Speaker, SpeakerLink
from tests.admin_forms import opened_change_form
from tests.builders import make_speaker

pytestmark = pytest.mark.django_db


@pytest.fixture
def speaker():
    speaker = make_speaker(name="Ada Lovelace", company="Example Labs", bio="Wrote notes.")
    SpeakerLink.objects.create(speaker=speaker, title="Website", url="https://example.org/")
    return speaker


def change_url(speaker):
    return reverse("admin:speakers_speaker_change", args=[speaker.pk])


def test_admin_refuses_a_speaker_save_from_a_page_opened_before_anothers_save(
    admin_client, speaker
):
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

    assert response.status_code == 200
    form = response.context["adminform"].form
    assert [(change.label, change.loaded, change.now) for change in form.changed_meanwhile] == [
        ("Company", "Example Labs", "Babbage Ltd")
    ]
    stored = Speaker.objects.get(pk=speaker.pk)
    assert (stored.company, stored.bio, list(stored.links.values_list("title", flat=True))) == (
        "Babbage Ltd",
        "Wrote notes.",
        ["Website"],
    )


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
    Speaker.objects.filter(pk=speaker.pk).update(company="Babbage Ltd")
    refused = admin_client.post(change_url(speaker), {**opened_by_b, "bio": "Mine."})
    offered = refused.context["adminform"].form.overwrite_offer

    response = admin_client.post(
        change_url(speaker), {**opened_by_b, "bio": "Mine.", "overwrite_version": str(offered)}
    )

    assert response.status_code == 302
    stored = Speaker.objects.get(pk=speaker.pk)
    assert (stored.company, stored.bio) == ("Example Labs", "Mine.")

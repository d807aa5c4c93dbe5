import io

import pytest
from django.contrib.admin.models import CHANGE, LogEntry
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from PIL import Image

from conference.models import Conference
from sessions.models import SavedSession, Session
from sessions.releases import release_schedule
from speakers.models import Speaker, SpeakerLink
from tests.builders import make_conference, make_room, make_session, make_speaker, paris

pytestmark = pytest.mark.django_db


@pytest.fixture
def media_root(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    return tmp_path


@pytest.fixture
def ada(django_user_model):
    return django_user_model.objects.create_user("ada", "ada@example.org", "correct horse 42")


@pytest.fixture
def speaker(ada):
    """Ada Lovelace, the account ``ada``, with a bio and a link: a profile to edit herself."""
    speaker = make_speaker(name="Ada Lovelace", user=ada, bio="Wrote notes.")
    SpeakerLink.objects.create(speaker=speaker, title="Website", url="https://example.org/")
    return speaker


@pytest.fixture
def ada_client(client, ada):
    client.force_login(ada)
    return client


def my_talks_url(conference):
    return reverse("speakers:my_talks", kwargs={"conference_slug": conference.slug})


def profile_url(conference):
    return reverse("speakers:profile", kwargs={"conference_slug": conference.slug})


def png_upload(name="me.png") -> SimpleUploadedFile:
    buffer = io.BytesIO()
    Image.new("RGB", (64, 64), "red").save(buffer, format="PNG")
    return SimpleUploadedFile(name, buffer.getvalue(), content_type="image/png")


def profile_data(speaker, **changes) -> dict:
    """What the profile form posts when nothing is changed, with ``changes``."""
    links = list(speaker.links.all())
    data = {
        "loaded_version": speaker.version,
        "name": speaker.name,
        "pronouns": speaker.pronouns,
        "role": speaker.role,
        "company": speaker.company,
        "bio": speaker.bio,
        "links-TOTAL_FORMS": str(len(links) + 1),
        "links-INITIAL_FORMS": str(len(links)),
        "links-MIN_NUM_FORMS": "0",
        "links-MAX_NUM_FORMS": "10",
        f"links-{len(links)}-title": "",
        f"links-{len(links)}-url": "",
    }
    for index, link in enumerate(links):
        data.update(
            {
                f"links-{index}-id": link.pk,
                f"links-{index}-speaker": speaker.pk,
                f"links-{index}-title": link.title,
                f"links-{index}-url": link.url,
            }
        )
    return {**data, **changes}


# --- Doors -----------------------------------------------------------------------------------


@pytest.mark.parametrize("url_of", [my_talks_url, profile_url])
def test_a_logged_out_visitor_is_sent_to_log_in(client, speaker, url_of):
    response = client.get(url_of(speaker.conference))
    assert response.status_code == 302
    assert response.url.startswith("/accounts/login/?next=")


@pytest.mark.parametrize("url_of", [my_talks_url, profile_url])
def test_an_account_without_a_speaker_there_gets_404(client, django_user_model, speaker, url_of):
    client.force_login(django_user_model.objects.create_user("grace", "g@example.org", "x"))
    assert client.get(url_of(speaker.conference)).status_code == 404


@pytest.mark.parametrize("url_of", [my_talks_url, profile_url])
def test_another_conferences_slug_gets_404(ada_client, speaker, url_of):
    other = make_conference()
    make_speaker(other, name="Someone else")
    assert ada_client.get(url_of(other)).status_code == 404


def test_an_unknown_conference_gets_404(ada_client, speaker):
    assert ada_client.get("/no-such-conference/speaker/").status_code == 404


def test_a_post_to_another_conferences_profile_changes_nothing_there(ada_client, speaker):
    other = make_speaker(make_conference(), name="Grace Hopper")
    response = ada_client.post(profile_url(other.conference), profile_data(other, name="Hacked"))
    assert response.status_code == 404
    other.refresh_from_db()
    assert other.name == "Grace Hopper"


def test_the_speakers_pages_are_never_stored(ada_client, speaker):
    for url in (my_talks_url(speaker.conference), profile_url(speaker.conference)):
        assert "no-store" in ada_client.get(url)["Cache-Control"]


def test_a_speaker_of_an_unpublished_conference_reaches_their_profile(ada_client, ada):
    speaker = make_speaker(make_conference(is_published=False), user=ada)
    assert ada_client.get(profile_url(speaker.conference)).status_code == 200


# --- My talks ----------------------------------------------------------------------------------


def test_my_talks_lists_time_room_co_speakers_and_saves(ada_client, speaker, django_user_model):
    conference = speaker.conference
    grace = make_speaker(conference, name="Grace Hopper")
    talk = make_session(
        conference,
        title="Notes on the Engine",
        room=make_room(conference, name="Central Room"),
        starts_at=paris(8, 14),
        speakers=[speaker, grace],
    )
    make_session(conference, title="Someone else's", speakers=[grace])
    for name in ("u1", "u2"):
        user = django_user_model.objects.create_user(name, f"{name}@example.org", "x")
        SavedSession.objects.create(user=user, session=talk)

    response = ada_client.get(my_talks_url(conference))

    assert [session.title for session in response.context["sessions"]] == ["Notes on the Engine"]
    page = response.content.decode()
    assert "Wednesday 8 April 2026 14:00–14:30 CEST" in page
    assert "Central Room" in page
    assert ">Grace Hopper</a>" in page
    assert "2 attendees saved it" in page


def test_my_talks_leads_to_each_sessions_slides_and_to_the_availability(ada_client, speaker):
    talk = make_session(speaker.conference, slug="notes", speakers=[speaker])

    page = ada_client.get(my_talks_url(speaker.conference)).content.decode()

    slug = speaker.conference.slug
    assert f'href="/{slug}/speaker/sessions/{talk.slug}/materials/"' in page
    assert f'href="/{slug}/speaker/availability/"' in page


@pytest.mark.parametrize("n", [1, 6])
def test_my_talks_query_count_does_not_grow(ada_client, speaker, django_assert_max_num_queries, n):
    conference = speaker.conference
    for hour in range(n):
        make_session(conference, starts_at=paris(8, 9 + hour), speakers=[speaker])
    with django_assert_max_num_queries(16):
        response = ada_client.get(my_talks_url(conference))
    assert len(response.context["sessions"]) == n


def test_my_talks_shows_what_releases_changed_since_the_last_visit(ada_client, speaker):
    conference = speaker.conference
    room = make_room(conference, name="Central Room")
    talk = make_session(conference, title="Notes", room=room, speakers=[speaker])
    release_schedule(conference, version="v1", comment="", user=None)
    first = ada_client.get(my_talks_url(conference))
    assert [release.version for release, _ in first.context["releases"]] == ["v1"]

    talk.title = "Notes on the Engine"
    talk.save()
    make_session(conference, title="Not hers", room=room, starts_at=paris(8, 16))
    release_schedule(conference, version="v2", comment="Renamed.", user=None)
    second = ada_client.get(my_talks_url(conference))
    [(release, changes)] = second.context["releases"]
    assert release.version == "v2"
    assert [words for _, words in changes] == ["retitled from “Notes” to “Notes on the Engine”"]

    third = ada_client.get(my_talks_url(conference))
    assert third.context["releases"] == []
    assert "No release changed your sessions since then." in third.content.decode()


def test_looking_at_my_talks_moves_neither_the_speaker_nor_the_conference(ada_client, speaker):
    before = Conference.objects.get(pk=speaker.conference_id).changed_at
    ada_client.get(my_talks_url(speaker.conference))
    stored = Speaker.objects.get(pk=speaker.pk)
    assert stored.talks_seen_at is not None
    assert stored.version == speaker.version
    assert Conference.objects.get(pk=speaker.conference_id).changed_at == before


# --- Profile -----------------------------------------------------------------------------------


def test_a_profile_save_goes_live_and_is_recorded_in_the_admin_history(
    ada_client, ada, speaker, media_root
):
    conference = speaker.conference
    make_session(conference, speakers=[speaker])
    before = Conference.objects.get(pk=conference.pk).changed_at
    public_url = speaker.get_absolute_url()
    assert "Wrote the first program" not in ada_client.get(public_url).content.decode()

    data = profile_data(
        speaker,
        bio="Wrote the **first program**.",
        pronouns="she/her",
        photo=png_upload(),
        **{"links-1-title": "Mastodon", "links-1-url": "https://mastodon.example/@ada"},
    )
    response = ada_client.post(profile_url(conference), data)

    assert response.status_code == 302
    speaker.refresh_from_db()
    assert (speaker.bio, speaker.pronouns) == ("Wrote the **first program**.", "she/her")
    assert speaker.photo.name.endswith(".png")
    assert [link.title for link in speaker.links.all()] == ["Website", "Mastodon"]
    assert Conference.objects.get(pk=conference.pk).changed_at > before
    public = ada_client.get(public_url).content.decode()
    assert "Wrote the <strong>first program</strong>." in public
    assert "she/her" in public
    entry = LogEntry.objects.get(object_id=str(speaker.pk))
    assert (entry.user, entry.action_flag) == (ada, CHANGE)
    assert entry.change_message == (
        "Changed pronouns, bio, photo and links (by the speaker, on their profile page)."
    )


def test_the_bio_is_cleaned_like_an_organizers(ada_client, speaker):
    ada_client.post(
        profile_url(speaker.conference),
        profile_data(speaker, bio='Hi <script>alert(1)</script><a href="javascript:x">y</a>'),
    )
    page = ada_client.get(speaker.get_absolute_url()).content.decode()
    assert "<script>alert" not in page
    assert "javascript:x" not in page


def test_bad_input_anywhere_in_the_form_saves_nothing(ada_client, speaker, media_root):
    data = profile_data(
        speaker,
        name="A" * 201,
        bio="A new bio that must not be kept.",
        photo=SimpleUploadedFile("me.png", b"%PDF-1.4 not a picture", content_type="image/png"),
        **{"links-0-url": "not a url", "links-1-title": "Blog", "links-1-url": "https://b.example"},
    )
    response = ada_client.post(profile_url(speaker.conference), data)

    assert response.status_code == 200
    form, formset = response.context["form"], response.context["formset"]
    assert set(form.errors) == {"name", "photo"}
    assert "Ensure this value has at most 200 characters (it has 201)." in form.errors["name"]
    assert formset.errors[0] == {"url": ["Enter a valid URL."]}
    assert "Nothing was saved" in response.content.decode()
    stored = Speaker.objects.get(pk=speaker.pk)
    assert (stored.name, stored.bio, stored.photo.name, stored.version) == (
        "Ada Lovelace",
        "Wrote notes.",
        "",
        speaker.version,
    )
    assert list(stored.links.values_list("title", "url")) == [("Website", "https://example.org/")]
    assert LogEntry.objects.count() == 0


def test_a_photo_of_another_kind_is_refused_with_the_admins_words(ada_client, speaker, media_root):
    gif = SimpleUploadedFile("me.gif", b"GIF89a" + b"\0" * 20, content_type="image/gif")
    response = ada_client.post(profile_url(speaker.conference), profile_data(speaker, photo=gif))
    assert response.status_code == 200
    assert response.context["form"].errors["photo"]
    assert not Speaker.objects.get(pk=speaker.pk).photo


def test_a_save_over_an_organizers_edit_meanwhile_is_refused(ada_client, speaker):
    data = profile_data(speaker, bio="Mine.")
    organizer_copy = Speaker.objects.get(pk=speaker.pk)
    organizer_copy.company = "Babbage Ltd"
    organizer_copy.save()

    response = ada_client.post(profile_url(speaker.conference), data)

    assert response.status_code == 200
    assert "The organizers changed your profile while you were editing it" in (
        response.content.decode()
    )
    stored = Speaker.objects.get(pk=speaker.pk)
    assert (stored.bio, stored.company) == ("Wrote notes.", "Babbage Ltd")


def test_the_form_touches_no_session(ada_client, speaker):
    talk = make_session(speaker.conference, title="Notes", speakers=[speaker])
    ada_client.post(
        profile_url(speaker.conference),
        profile_data(speaker, title="Renamed", starts_at="2026-04-08 09:00", room="1"),
    )
    stored = Session.objects.get(pk=talk.pk)
    assert (stored.title, stored.starts_at, stored.version) == (
        "Notes",
        talk.starts_at,
        talk.version,
    )


def test_a_locked_profile_is_shown_read_only(ada_client, speaker):
    Speaker.objects.filter(pk=speaker.pk).update(profile_locked=True)
    response = ada_client.get(profile_url(speaker.conference))
    page = response.content.decode()
    assert "The organizers have locked this profile" in page
    assert "Save my profile" not in page
    assert all(field.disabled for field in response.context["form"].fields.values())


def test_a_locked_profile_refuses_a_post(ada_client, speaker):
    Speaker.objects.filter(pk=speaker.pk).update(profile_locked=True)
    speaker.refresh_from_db()
    response = ada_client.post(profile_url(speaker.conference), profile_data(speaker, bio="New."))
    assert response.status_code == 403
    assert Speaker.objects.get(pk=speaker.pk).bio == "Wrote notes."
    assert LogEntry.objects.count() == 0


def test_organizers_lock_a_profile_in_the_admin(admin_client, speaker):
    response = admin_client.get(reverse("admin:speakers_speaker_change", args=[speaker.pk]))
    assert "profile_locked" in response.context["adminform"].form.fields


def test_the_account_page_leads_a_speaker_to_their_pages(ada_client, speaker):
    page = ada_client.get(reverse("account")).content.decode()
    assert f'href="{my_talks_url(speaker.conference)}"' in page
    assert f'href="{profile_url(speaker.conference)}"' in page


def test_a_speaker_removes_their_photo(ada_client, speaker, media_root):
    ada_client.post(profile_url(speaker.conference), profile_data(speaker, photo=png_upload()))
    speaker.refresh_from_db()
    assert speaker.photo
    ada_client.post(profile_url(speaker.conference), profile_data(speaker, remove_photo="on"))
    speaker.refresh_from_db()
    assert not speaker.photo
    assert LogEntry.objects.first().change_message.startswith("Changed photo ")


FEEDBACK_TAB = ">Feedback</a>"


def test_the_feedback_tab_shows_only_while_feedback_can_be_given_or_read(
    ada_client, speaker, clock, django_user_model
):
    """PyCon runs 7–8 April 2026; feedback stays open 14 days after (until 22 April)."""
    conference = speaker.conference
    conference.is_published = True
    conference.save()
    session = make_session(conference, speakers=[speaker], starts_at=paris(8, 10))
    pages = [my_talks_url(conference), profile_url(conference)]

    def tab_shown() -> list[bool]:
        return [FEEDBACK_TAB in ada_client.get(url).content.decode() for url in pages]

    clock(paris(8, 9))  # before the session: nothing to give or read yet
    assert tab_shown() == [False, False]
    clock(paris(8, 11))  # feedback open
    assert tab_shown() == [True, True]
    clock(paris(23, 9))  # closed, and nobody gave any
    assert tab_shown() == [False, False]
    attendee = django_user_model.objects.create_user("grace")
    session.feedback.create(user=attendee, rating=5)
    assert tab_shown() == [True, True]  # closed, but there is feedback to read

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from sessions.models import Attachment, Session, material
from tests.builders import make_conference, make_room, make_session, make_speaker

pytestmark = pytest.mark.django_db

PDF = b"%PDF-1.7\n" + b"0" * 2000


@pytest.fixture(autouse=True)
def media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    return tmp_path


@pytest.fixture
def user(django_user_model):
    return django_user_model.objects.create_user("ada", "ada@example.org", "speak-2026")


@pytest.fixture
def speaker(conference, user):
    """Ada Lovelace of the shared conference, with the account ``user`` (``speaker_client``)."""
    return make_speaker(conference, name="Ada Lovelace", user=user)


@pytest.fixture
def session(conference, speaker):
    return make_session(
        conference, title="Engines", speakers=[speaker], room=make_room(conference, name="Hall")
    )


@pytest.fixture
def speaker_client(client, user):
    client.force_login(user)
    return client


def materials_url(session, conference=None):
    return reverse(
        "speaker-pages:session-materials",
        kwargs={"conference_slug": (conference or session.conference).slug, "slug": session.slug},
    )


def remove_url(attachment):
    session = attachment.session
    return reverse(
        "speaker-pages:remove-material",
        kwargs={
            "conference_slug": session.conference.slug,
            "slug": session.slug,
            "pk": attachment.pk,
        },
    )


def pdf(name="deck.pdf", content=PDF):
    return SimpleUploadedFile(name, content, content_type="application/pdf")


def test_a_speaker_adds_a_slide_file_to_their_session(speaker_client, session, user):
    response = speaker_client.post(
        materials_url(session), {"title": "Slides", "kind": "slides", "file": pdf(), "url": ""}
    )
    assert response.status_code == 302
    attachment = Attachment.objects.get()
    assert (attachment.session, attachment.title, attachment.kind) == (session, "Slides", "slides")
    assert attachment.added_by == user
    assert attachment.file.name.startswith("attachments/")
    assert attachment.file.name.endswith(".pdf")


def test_a_speaker_adds_a_link_after_the_organizers_attachments(speaker_client, session):
    Attachment.objects.create(
        session=session, title="Abstract", url="https://a.example/", position=4
    )
    speaker_client.post(
        materials_url(session), {"title": "Recording", "url": "https://v.example/engines"}
    )
    assert list(session.attachments.values_list("title", "url", "position")) == [
        ("Abstract", "https://a.example/", 4),
        ("Recording", "https://v.example/engines", 5),
    ]


def test_a_speakers_file_shows_on_the_session_page_and_in_the_exports(
    client, speaker_client, session
):
    speaker_client.post(materials_url(session), {"title": "Engines deck", "file": pdf()})
    attachment = Attachment.objects.get()
    download = attachment.href
    client.logout()
    html = client.get(session.get_absolute_url()).content.decode()
    assert f'<a href="{download}" download>Engines deck</a>' in html
    assert client.get(download)["Content-Disposition"] == 'attachment; filename="engines-deck.pdf"'

    exports = {
        form: reverse(f"sessions:schedule-{form}", kwargs={"conference_slug": "pycon"})
        for form in ("json", "xml")
    }
    schedule = json.loads(b"".join(client.get(exports["json"]).streaming_content))
    days = schedule["schedule"]["conference"]["days"]
    (event,) = [event for day in days for event in day["rooms"].get("Hall", [])]
    assert event["attachments"] == [
        {"url": f"https://schedule.example.org{download}", "title": "Engines deck"}
    ]
    xml = b"".join(client.get(exports["xml"]).streaming_content).decode()
    assert (
        f'<attachment href="https://schedule.example.org{download}">Engines deck</attachment>'
        in xml
    )


def test_an_oversized_file_and_a_link_in_one_post_save_nothing(
    speaker_client, session, monkeypatch
):
    (validator,) = Attachment._meta.get_field("file").validators
    monkeypatch.setattr(validator, "max_bytes", 1000)
    response = speaker_client.post(
        materials_url(session),
        {"title": "Slides", "file": pdf(), "url": "https://v.example/engines"},
    )
    assert response.status_code == 200
    assert response.context["form"].errors == {
        "file": ["This file is 2.0\xa0KB; the limit is 1000\xa0bytes."]
    }
    assert not Attachment.objects.exists()


def test_a_file_and_a_link_in_one_post_are_refused_together(speaker_client, session):
    response = speaker_client.post(
        materials_url(session),
        {"title": "Slides", "file": pdf(), "url": "https://v.example/engines"},
    )
    assert response.context["form"].errors == {
        "__all__": ["Give an attachment either a file or a URL, not both."]
    }
    assert not Attachment.objects.exists()


def test_a_file_that_is_not_slides_is_refused_whatever_its_name(speaker_client, session):
    page = pdf("slides.pdf", b"<html><script>alert(1)</script></html>")
    response = speaker_client.post(materials_url(session), {"title": "Slides", "file": page})
    assert response.context["form"].errors == {
        "file": [
            "This file is not one we accept. Upload one of: PDF, PowerPoint presentation, "
            "OpenDocument presentation, PNG image, JPEG image, WebP image."
        ]
    }
    assert "This file is not one we accept." in response.content.decode()
    assert not Attachment.objects.exists()


def test_a_speaker_must_give_a_file_or_a_link(speaker_client, session):
    response = speaker_client.post(materials_url(session), {"title": "Slides"})
    assert response.context["form"].errors == {
        "__all__": ["Choose a file to upload, or give a link."]
    }
    assert not Attachment.objects.exists()


def test_a_speaker_removes_what_they_or_a_co_speaker_added(
    speaker_client, session, conference, django_user_model
):
    co_user = django_user_model.objects.create_user("grace")
    co_speaker = make_speaker(conference, name="Grace Hopper", user=co_user)
    session.session_speakers.create(speaker=co_speaker, position=1)
    mine = Attachment.objects.create(
        session=session,
        title="Mine",
        url="https://m.example/",
        added_by=session.speakers.get(name="Ada Lovelace").user,
    )
    theirs = Attachment.objects.create(
        session=session, title="Theirs", url="https://t.example/", added_by=co_user
    )
    assert speaker_client.post(remove_url(mine)).status_code == 302
    assert speaker_client.post(remove_url(theirs)).status_code == 302
    assert not Attachment.objects.exists()


def test_a_speaker_cannot_remove_what_the_organizers_added(speaker_client, session):
    organizers = Attachment.objects.create(session=session, title="Deck", url="https://o.example/")
    assert speaker_client.post(remove_url(organizers)).status_code == 404
    assert list(Attachment.objects.all()) == [organizers]


def test_the_page_offers_remove_only_for_what_speakers_added(speaker_client, session, user):
    Attachment.objects.create(session=session, title="Abstract", url="https://o.example/")
    Attachment.objects.create(
        session=session, title="Deck", url="https://d.example/", added_by=user, position=1
    )
    response = speaker_client.get(materials_url(session))
    assert [
        (attachment.title, added_by, removable)
        for attachment, added_by, removable in response.context["materials"]
    ] == [("Abstract", "added by the organizers", False), ("Deck", "added by you", True)]
    assert response.content.decode().count(">Remove</button>") == 1


def test_a_speaker_cannot_remove_from_another_speakers_session(
    speaker_client, conference, django_user_model
):
    other = make_session(conference, title="Other", speakers=[make_speaker(conference)])
    theirs = Attachment.objects.create(
        session=other,
        title="Theirs",
        url="https://t.example/",
        added_by=django_user_model.objects.create_user("someone"),
    )
    assert speaker_client.post(remove_url(theirs)).status_code == 404
    assert Attachment.objects.count() == 1


def test_another_speakers_session_is_not_found(speaker_client, conference):
    other = make_session(conference, title="Other", speakers=[make_speaker(conference)])
    assert speaker_client.get(materials_url(other)).status_code == 404
    assert (
        speaker_client.post(
            materials_url(other), {"title": "x", "url": "https://x.example/"}
        ).status_code
        == 404
    )
    assert not Attachment.objects.exists()


def test_a_session_of_another_conference_is_not_found(speaker_client, conference, user):
    elsewhere = make_conference(slug="djangocon")
    own_there = make_session(
        elsewhere, title="Elsewhere", speakers=[make_speaker(elsewhere, user=user)]
    )
    assert speaker_client.get(materials_url(own_there, conference)).status_code == 404
    assert speaker_client.get(materials_url(own_there)).status_code == 200


def test_a_logged_out_visitor_is_sent_to_log_in(client, session):
    response = client.get(materials_url(session))
    assert response.status_code == 302
    assert response["Location"] == f"{reverse('login')}?next={materials_url(session)}"


def test_a_user_who_is_no_speaker_of_the_conference_gets_not_found(
    client, session, django_user_model
):
    client.force_login(django_user_model.objects.create_user("attendee"))
    assert client.get(materials_url(session)).status_code == 404


def test_a_speaker_prepares_a_draft_session_too(speaker_client, conference, speaker):
    draft = make_session(conference, title="Draft", status=Session.Status.DRAFT, speakers=[speaker])
    assert speaker_client.get(materials_url(draft)).status_code == 200


def test_the_materials_page_is_personal(speaker_client, session):
    response = speaker_client.get(materials_url(session))
    assert response.status_code == 200
    assert {"private", "no-store"} <= set(response["Cache-Control"].replace(",", " ").split())
    assert "ETag" not in response


@pytest.mark.parametrize("n", [1, 12])
def test_materials_page_query_count_does_not_grow(
    speaker_client, session, user, django_assert_max_num_queries, n
):
    for number in range(n):
        Attachment.objects.create(
            session=session, title=f"Link {number}", url="https://l.example/", added_by=user
        )
    with django_assert_max_num_queries(12):
        response = speaker_client.get(materials_url(session))
    assert len(response.context["materials"]) == n


def upload(client, session, title="Slides"):
    return client.post(
        materials_url(session), {"title": title, "kind": "slides", "file": pdf(), "url": ""}
    )


def test_a_session_takes_a_bounded_number_of_speaker_files(
    speaker_client, session, media, monkeypatch
):
    monkeypatch.setattr(material, "SPEAKER_FILES_PER_SESSION", 2, raising=False)
    assert [upload(speaker_client, session, f"v{n}").status_code for n in range(3)] == [
        302,
        302,
        200,
    ]
    response = upload(speaker_client, session, "v3")
    assert response.context["form"].errors["file"] == [
        "This session already has 2 files from its speakers, the most it takes. "
        "Remove one to add another."
    ]
    assert (Attachment.objects.count(), len(list(media.rglob("*.pdf")))) == (2, 2)


def test_a_session_takes_a_bounded_total_size_of_speaker_files(
    speaker_client, session, media, monkeypatch
):
    monkeypatch.setattr(material, "SPEAKER_BYTES_PER_SESSION", len(PDF) * 2, raising=False)
    assert [upload(speaker_client, session, f"v{n}").status_code for n in range(3)] == [
        302,
        302,
        200,
    ]
    response = upload(speaker_client, session, "v3")
    assert response.context["form"].errors["file"] == [
        "The files of this session's speakers would come to 5.9\xa0KB; the limit is "
        "3.9\xa0KB. Remove one, or upload a smaller file."
    ]
    assert Attachment.objects.count() == 2


def test_an_account_uploads_at_most_twenty_files_an_hour(speaker_client, conference, speaker):
    sessions = [make_session(conference, title=f"Talk {n}", speakers=[speaker]) for n in range(3)]
    statuses = [upload(speaker_client, sessions[n % 3]).status_code for n in range(20)]
    response = upload(speaker_client, sessions[2])

    assert statuses == [302] * 20
    assert response.status_code == 200
    assert "You uploaded many files in the last hour." in response.context["form"].errors["file"][0]
    assert Attachment.objects.count() == 20


def test_a_refused_file_counts_against_no_upload_limit(speaker_client, session, monkeypatch):
    monkeypatch.setattr(material.SPEAKER_UPLOADS_PER_ACCOUNT, "allowed", 1)
    page = SimpleUploadedFile("x.pdf", b"<html></html>", content_type="application/pdf")
    speaker_client.post(materials_url(session), {"title": "X", "file": page, "url": ""})

    assert upload(speaker_client, session).status_code == 302

import io
import re
import zipfile

import pytest
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from PIL import Image

from conference.uploads import FileKindValidator
from sessions.models import Attachment
from speakers.models import Speaker
from tests.builders import make_conference, make_session, make_speaker

pytestmark = pytest.mark.django_db

PDF_BYTES = b"%PDF-1.7\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n"


@pytest.fixture(autouse=True)
def media_root(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    return tmp_path


def png_bytes() -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (64, 64), "red").save(buffer, format="PNG")
    return buffer.getvalue()


def stored_files(media_root):
    return sorted(
        str(path.relative_to(media_root)) for path in media_root.rglob("*") if path.is_file()
    )


def attachment_form(session, upload, title="Slides"):
    """The session change form with one attachment row, as the admin posts it."""
    conference = session.conference
    local = session.local_starts_at
    return {
        "loaded_version": str(session.version),
        "conference": conference.pk,
        "title": session.title,
        "slug": session.slug,
        "kind": session.kind,
        "status": session.status,
        "starts_at_0": local.strftime("%Y-%m-%d"),
        "starts_at_1": local.strftime("%H:%M"),
        "ends_at_0": session.local_ends_at.strftime("%Y-%m-%d"),
        "ends_at_1": session.local_ends_at.strftime("%H:%M"),
        "audience_level": session.audience_level,
        "description": "",
        "session_speakers-TOTAL_FORMS": "0",
        "session_speakers-INITIAL_FORMS": "0",
        "attachments-TOTAL_FORMS": "1",
        "attachments-INITIAL_FORMS": "0",
        "links-TOTAL_FORMS": "0",
        "links-INITIAL_FORMS": "0",
        "attachments-0-title": title,
        "attachments-0-file": upload,
        "attachments-0-position": "0",
    }


def upload_in_admin(admin_client, session, upload, title="Slides"):
    session.refresh_from_db()  # the page opened at the current version
    return admin_client.post(
        reverse("admin:schedule_session_change", args=[session.pk]),
        attachment_form(session, upload, title),
    )


def test_an_uploaded_pdf_is_stored_under_a_random_name(admin_client, media_root):
    session = make_session()
    response = upload_in_admin(
        admin_client, session, SimpleUploadedFile("../../My Talk.pdf", PDF_BYTES)
    )
    assert response.status_code == 302
    (path,) = stored_files(media_root)
    assert re.fullmatch(r"attachments/[0-9a-f]{32}\.pdf", path)


def test_two_uploads_with_one_name_overwrite_nothing(admin_client, media_root):
    session = make_session()
    upload_in_admin(admin_client, session, SimpleUploadedFile("slides.pdf", PDF_BYTES))
    upload_in_admin(
        admin_client, session, SimpleUploadedFile("slides.pdf", PDF_BYTES), title="Again"
    )
    assert len(stored_files(media_root)) == 2


def test_a_web_page_named_pdf_is_refused_and_nothing_is_stored(admin_client, media_root):
    session = make_session()
    page = SimpleUploadedFile(
        "slides.pdf", b"<html><script>alert(1)</script></html>", content_type="application/pdf"
    )
    response = upload_in_admin(admin_client, session, page)
    assert response.status_code == 200
    assert "This file is not one we accept." in response.content.decode()
    assert (Attachment.objects.count(), stored_files(media_root)) == (0, [])


def test_a_file_over_the_limit_is_refused_with_both_sizes():
    with pytest.raises(ValidationError) as error:
        FileKindValidator("slides", max_bytes=10)(SimpleUploadedFile("big.pdf", PDF_BYTES))
    assert error.value.messages == ["This file is 48\xa0bytes; the limit is 10\xa0bytes."]


def test_an_attachment_downloads_with_its_type_and_a_safe_name(admin_client, client):
    session = make_session(title="Deep Dive")
    upload_in_admin(
        admin_client, session, SimpleUploadedFile("x.pdf", PDF_BYTES), title="Deep Dive <slides>"
    )
    attachment = Attachment.objects.get()
    response = client.get(attachment.href)
    assert response["Content-Type"] == "application/pdf"
    assert response["Content-Disposition"] == 'attachment; filename="deep-dive-slides.pdf"'
    assert response["X-Content-Type-Options"] == "nosniff"
    assert b"".join(response.streaming_content) == PDF_BYTES


def test_a_speaker_photo_must_be_an_image(media_root):
    speaker = make_speaker()
    speaker.photo = SimpleUploadedFile("me.png", PDF_BYTES)
    with pytest.raises(ValidationError) as error:
        speaker.full_clean()
    assert "photo" in error.value.message_dict


def test_a_speaker_photo_is_served_inline_as_an_image(client, media_root):
    conference = make_conference()
    speaker = make_speaker(conference, name="Ada")
    speaker.photo = SimpleUploadedFile("../me.png", png_bytes())
    speaker.full_clean()
    speaker.save()
    make_session(conference, speakers=[speaker])
    assert re.fullmatch(r"speakers/[0-9a-f]{32}\.png", Speaker.objects.get().photo.name)
    response = client.get(speaker.photo_url)
    assert response["Content-Type"] == "image/png"
    assert response["Content-Disposition"] == 'inline; filename="ada.png"'
    assert f'src="{speaker.photo_url}"' in client.get(speaker.get_absolute_url()).content.decode()


def jpeg_with_location(size=(320, 200), orientation=6) -> bytes:
    """A phone's photo: EXIF with GPS coordinates, and turned (orientation 6: rotate 90°)."""
    image = Image.new("RGB", size, "blue")
    exif = Image.Exif()
    exif[0x0112] = orientation
    exif[0x8825] = {2: (48.0, 51.0, 24.0), 4: (2.0, 21.0, 3.0)}  # GPSLatitude, GPSLongitude
    buffer = io.BytesIO()
    image.save(buffer, format="JPEG", exif=exif)
    return buffer.getvalue()


def test_a_speaker_photo_is_stored_without_its_metadata_and_turned_upright(media_root):
    speaker = make_speaker()
    speaker.photo = SimpleUploadedFile("phone.jpg", jpeg_with_location())
    speaker.full_clean()
    speaker.save()

    with Image.open(Speaker.objects.get().photo.path) as stored:
        assert stored.format == "JPEG"
        assert stored.size == (200, 320)  # upright, as the camera said
        assert not stored.getexif()


@pytest.mark.parametrize("size", [(20, 200), (7000, 100)], ids=["too small", "too large"])
def test_a_speaker_photo_too_small_or_too_large_is_refused_with_its_size(media_root, size):
    buffer = io.BytesIO()
    Image.new("L", size).save(buffer, format="PNG")
    speaker = make_speaker()
    speaker.photo = SimpleUploadedFile("me.png", buffer.getvalue())

    with pytest.raises(ValidationError) as refused:
        speaker.full_clean()

    assert f"{size[0]} × {size[1]} pixels" in " ".join(refused.value.message_dict["photo"])


def test_a_truncated_photo_is_refused_not_a_server_error(admin_client, media_root):
    speaker = make_speaker()
    broken = jpeg_with_location()[:400]  # its header says 320 × 200, then the data stops
    url = reverse("admin:speakers_speaker_change", args=[speaker.pk])
    from tests.admin_forms import opened_change_form

    response = admin_client.post(
        url, {**opened_change_form(admin_client, url), "photo": SimpleUploadedFile("x.jpg", broken)}
    )

    assert response.status_code == 200
    assert "photo" in response.context["adminform"].form.errors


ODP_TYPE = b"application/vnd.oasis.opendocument.presentation"


def odp_bytes() -> bytes:
    """An OpenDocument presentation as LibreOffice writes one: ``mimetype`` first, stored."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("mimetype", ODP_TYPE)
        archive.writestr("content.xml", "<office:document-content/>", zipfile.ZIP_DEFLATED)
    return buffer.getvalue()


def zip_bomb(unpacked=64 * 1024 * 1024) -> bytes:
    """A small file whose ``mimetype`` entry starts as an OpenDocument's and unpacks to
    ``unpacked`` bytes."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        info = zipfile.ZipInfo("mimetype")
        info.compress_type = zipfile.ZIP_DEFLATED
        with archive.open(info, "w") as entry:
            entry.write(ODP_TYPE)
            zeros = bytes(1024 * 1024)
            for _ in range(unpacked // len(zeros)):
                entry.write(zeros)
    return buffer.getvalue()


@pytest.fixture
def unpacked_bytes(monkeypatch):
    """How many bytes zipfile hands out of archives' entries, all reads together."""
    counted = [0]
    read = zipfile.ZipExtFile.read

    def counting_read(self, n=-1):
        data = read(self, n)
        counted[0] += len(data)
        return data

    monkeypatch.setattr(zipfile.ZipExtFile, "read", counting_read)
    return counted


def test_a_zip_bomb_claiming_to_be_opendocument_is_refused_without_unpacking_it(
    admin_client, media_root, unpacked_bytes
):
    bomb = zip_bomb()
    assert len(bomb) < 200 * 1024

    response = upload_in_admin(admin_client, make_session(), SimpleUploadedFile("x.odp", bomb))

    assert response.status_code == 200
    assert "would unpack to far more than its size" in response.content.decode()
    assert (Attachment.objects.count(), stored_files(media_root)) == (0, [])
    assert unpacked_bytes[0] <= 1024


def test_an_opendocument_presentation_is_accepted_reading_a_few_bytes(
    admin_client, media_root, unpacked_bytes
):
    response = upload_in_admin(
        admin_client, make_session(), SimpleUploadedFile("x.odp", odp_bytes())
    )

    assert response.status_code == 302
    (path,) = stored_files(media_root)
    assert path.endswith(".odp")
    assert unpacked_bytes[0] <= 2 * 101  # its mimetype, read once at most twice over


def test_a_download_sends_the_kind_found_at_upload_without_opening_the_file(
    admin_client, client, media_root, monkeypatch
):
    odp = odp_bytes()
    upload_in_admin(admin_client, make_session(), SimpleUploadedFile("x.odp", odp))
    attachment = Attachment.objects.get()

    def no_zip(*args, **kwargs):
        raise AssertionError("a download opened the zip")

    monkeypatch.setattr(zipfile, "ZipFile", no_zip)
    response = client.get(attachment.href)

    assert response.status_code == 200
    assert response["Content-Type"] == ODP_TYPE.decode()
    assert b"".join(response.streaming_content) == odp

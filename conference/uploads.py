"""Uploaded files: what we accept (by content, not by name), how big, and where it is stored.

A file's kind is read from its first bytes; its stored name is random with the extension of
that kind, so an upload can neither overwrite another, climb out of its folder, nor pass an
HTML page off as a PDF. Files are served through views that set the type and disposition.
"""

import io
import re
import struct
import uuid
import zipfile
import zlib
from dataclasses import dataclass

from django.core.exceptions import ValidationError
from django.core.files.base import ContentFile
from django.http import FileResponse, Http404
from django.template.defaultfilters import filesizeformat
from django.utils.deconstruct import deconstructible
from django.utils.translation import gettext as _
from PIL import Image, ImageOps, UnidentifiedImageError


@dataclass(frozen=True)
class FileKind:
    name: str
    extension: str
    content_type: str


PDF = FileKind("PDF", "pdf", "application/pdf")
PNG = FileKind("PNG image", "png", "image/png")
JPEG = FileKind("JPEG image", "jpg", "image/jpeg")
WEBP = FileKind("WebP image", "webp", "image/webp")
PPTX = FileKind(
    "PowerPoint presentation",
    "pptx",
    "application/vnd.openxmlformats-officedocument.presentationml.presentation",
)
ODP = FileKind(
    "OpenDocument presentation", "odp", "application/vnd.oasis.opendocument.presentation"
)

# Named groups, so validators deconstruct into migrations by name.
ACCEPTED = {
    "images": (PNG, JPEG, WEBP),
    "slides": (PDF, PPTX, ODP, PNG, JPEG, WEBP),
}


# RandomName's names: the folder, 32 random hex digits, and the detected kind's extension.
STORED_NAME = re.compile(r"[a-z]+/[0-9a-f]{32}\.([a-z]+)")


def kind_of_stored_name(name: str) -> FileKind | None:
    """The kind of a file we stored, from its name: RandomName gave it the extension of the
    kind its content showed at upload. None for a name RandomName did not make (a file stored
    before uploads were checked), whose content nobody judged."""
    match = STORED_NAME.fullmatch(name)
    if match is None:
        return None
    return next((kind for kind in ACCEPTED["slides"] if kind.extension == match[1]), None)


class UnsafeArchiveError(ValueError):
    """A zip whose directory promises far more than its size: a zip bomb, or a broken file."""


def detect_kind(file) -> FileKind | None:
    """The kind of ``file`` judged by its content, or None if it is none we know (or a zip
    that would unpack to far more than it holds)."""
    try:
        return judge_kind(file)
    except UnsafeArchiveError:
        return None


def judge_kind(file) -> FileKind | None:
    """``detect_kind()``, raising UnsafeArchiveError for a zip bomb so that a form can say so."""
    position = file.tell() if hasattr(file, "tell") else 0
    file.seek(0)
    head = file.read(16)
    try:
        if head.startswith(b"%PDF-"):
            return PDF
        if head.startswith(b"\x89PNG\r\n\x1a\n"):
            return PNG
        if head.startswith(b"\xff\xd8\xff"):
            return JPEG
        if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
            return WEBP
        if head.startswith(b"PK\x03\x04"):
            return zip_document_kind(file)
        return None
    finally:
        file.seek(position)


# What a zip may hold before we call it a bomb. An office document holds a few hundred entries;
# its XML packs some 10 to 30 times, its pictures not at all, while deflate packs a run of one
# byte about 1,000 times: a small file unpacking to gigabytes. Nothing of a document is ever
# unpacked here but the few bytes of ODF's ``mimetype``: these bounds refuse what a reader's
# office program would choke on.
ZIP_MAX_ENTRIES = 10_000
ZIP_MAX_UNPACKED = 1024 * 1024 * 1024  # declared, all entries together
ZIP_MAX_RATIO = 200  # unpacked to packed, for an entry over ZIP_RATIO_FROM bytes unpacked
ZIP_RATIO_FROM = 1024 * 1024
# ODF's ``mimetype`` entry is its media type, 47 bytes for a presentation.
MIMETYPE_MAX_BYTES = 100
# The end of a zip: its end-of-directory record (22 bytes) and a comment of up to 64 KiB.
ZIP_TAIL_BYTES = 22 + 0xFFFF


def zip_entry_count(file) -> int | None:
    """How many entries the end record of a zip declares, read before zipfile parses its whole
    directory; None if there is no end record (zipfile then refuses the file itself)."""
    file.seek(0, io.SEEK_END)
    size = file.tell()
    file.seek(max(0, size - ZIP_TAIL_BYTES))
    tail = file.read(ZIP_TAIL_BYTES)
    start = tail.rfind(b"PK\x05\x06")
    if start < 0 or len(tail) < start + 22:
        return None
    return struct.unpack("<H", tail[start + 10 : start + 12])[0]


def check_zip_entries(archive: zipfile.ZipFile) -> None:
    """Raise UnsafeArchiveError if any entry, or all together, declare an absurd unpacked size."""
    total = 0
    for info in archive.infolist():
        total += info.file_size
        packed = max(info.compress_size, 1)
        if info.file_size > ZIP_RATIO_FROM and info.file_size > ZIP_MAX_RATIO * packed:
            raise UnsafeArchiveError(info.filename)
        if total > ZIP_MAX_UNPACKED:
            raise UnsafeArchiveError(info.filename)


def zip_document_kind(file) -> FileKind | None:
    """PowerPoint or OpenDocument presentation, told by the zip's directory and at most
    MIMETYPE_MAX_BYTES of one entry; the file is read in place, never copied or unpacked."""
    count = zip_entry_count(file)
    if count is not None and count > ZIP_MAX_ENTRIES:  # 0xFFFF: ZIP64 holds more still
        raise UnsafeArchiveError("entries")
    file.seek(0)
    try:
        with zipfile.ZipFile(file) as archive:
            check_zip_entries(archive)
            names = set(archive.namelist())
            if "ppt/presentation.xml" in names:
                return PPTX
            if "mimetype" in names:
                info = archive.getinfo("mimetype")
                if info.file_size > MIMETYPE_MAX_BYTES:
                    return None
                with archive.open(info) as entry:
                    # One byte more than allowed: an entry longer than it declares shows.
                    declared = entry.read(MIMETYPE_MAX_BYTES + 1)
                if declared.strip() == ODP.content_type.encode():
                    return ODP
    except UnsafeArchiveError:
        raise
    except (
        zipfile.BadZipFile,
        OSError,
        ValueError,
        EOFError,
        NotImplementedError,  # a compression zipfile does not know
        RuntimeError,  # an encrypted entry
        zlib.error,
    ):
        return None
    return None


@deconstructible
class FileKindValidator:
    """Accept only files whose content is of the ``accepted`` group and no larger than ``max_bytes``."""

    def __init__(self, accepted: str, max_bytes: int):
        self.accepted = accepted
        self.max_bytes = max_bytes

    @property
    def kinds(self) -> tuple[FileKind, ...]:
        return ACCEPTED[self.accepted]

    def __call__(self, file) -> None:
        if file.size > self.max_bytes:
            raise ValidationError(
                _("This file is %(size)s; the limit is %(limit)s."),
                code="file_too_large",
                params={"size": filesizeformat(file.size), "limit": filesizeformat(self.max_bytes)},
            )
        try:
            kind = self.kind_of(file)
        except UnsafeArchiveError:
            raise ValidationError(
                _(
                    "This file is an archive that would unpack to far more than its size "
                    "(a “zip bomb”, or a broken file). Save it again from your presentation "
                    "program, or upload a PDF."
                ),
                code="file_unsafe_archive",
            ) from None
        if kind not in self.kinds:
            raise ValidationError(
                _("This file is not one we accept. Upload one of: %(kinds)s."),
                code="file_kind",
                params={"kinds": ", ".join(kind.name for kind in self.kinds)},
            )

    @staticmethod
    def kind_of(file) -> FileKind | None:
        """The file's kind, judged once: a file already stored is of the kind its name records
        (it was judged at its upload); a new one is read, and the verdict kept on it for
        ``RandomName`` to name it by."""
        if getattr(file, "_committed", False) and (kind := kind_of_stored_name(file.name)):
            return kind
        kind = judge_kind(file)
        if not getattr(file, "_committed", True):  # a model's new upload (a FieldFile)
            file.judged_kind = kind
        return kind

    def __eq__(self, other):
        return (
            isinstance(other, FileKindValidator)
            and self.accepted == other.accepted
            and self.max_bytes == other.max_bytes
        )


@deconstructible
class ImageSizeValidator:
    """Accept only images between ``smallest`` and ``largest`` pixels a side: a photo too small
    to show, or a small file that would unpack to a huge picture, is refused. Pillow reads the
    size from the file's header without decoding it."""

    def __init__(self, smallest: int, largest: int):
        self.smallest = smallest
        self.largest = largest

    def __call__(self, file) -> None:
        position = file.tell() if hasattr(file, "tell") else 0
        file.seek(0)
        try:
            with Image.open(file) as image:
                width, height = image.size
        except (UnidentifiedImageError, OSError, Image.DecompressionBombError):
            return  # not an image at all: FileKindValidator says so
        finally:
            file.seek(position)
        if min(width, height) < self.smallest or max(width, height) > self.largest:
            raise ValidationError(
                _(
                    "This image is %(width)s × %(height)s pixels; give one between %(smallest)s "
                    "and %(largest)s pixels a side."
                ),
                code="image_size",
                params={
                    "width": width,
                    "height": height,
                    "smallest": self.smallest,
                    "largest": self.largest,
                },
            )

    def __eq__(self, other):
        return isinstance(other, ImageSizeValidator) and (self.smallest, self.largest) == (
            other.smallest,
            other.largest,
        )


def reencoded_image(file) -> ContentFile | None:
    """The picture of an uploaded image saved afresh in its own format: turned upright as its
    camera said, without its metadata (a phone's photo carries where it was taken) or anything
    hidden after the image data. None for a file that is no image (validation refuses those;
    a writer that skipped it keeps what it gave)."""
    file.seek(0)
    try:
        with Image.open(file) as image:
            kind = image.format
            upright = ImageOps.exif_transpose(image)
            if kind == "JPEG" and upright.mode not in ("RGB", "L"):
                upright = upright.convert("RGB")
            output = io.BytesIO()
            upright.save(output, format=kind)
    except (UnidentifiedImageError, OSError, ValueError, Image.DecompressionBombError):
        return None
    return ContentFile(output.getvalue(), name=f"photo.{kind.lower()}")


@deconstructible
class RandomName:
    """upload_to: ``folder/<random>.<extension of the detected kind>``; the user's name is dropped."""

    def __init__(self, folder: str, field_name: str):
        self.folder = folder
        self.field_name = field_name

    def __call__(self, instance, filename: str) -> str:
        file = getattr(instance, self.field_name)
        # Judged by FileKindValidator; a writer that skipped validation gets it judged here.
        kind = file.judged_kind if hasattr(file, "judged_kind") else detect_kind(file)
        extension = kind.extension if kind else "bin"
        return f"{self.folder}/{uuid.uuid4().hex}.{extension}"

    def __eq__(self, other):
        return isinstance(other, RandomName) and (self.folder, self.field_name) == (
            other.folder,
            other.field_name,
        )


def serve_upload(file, *, filename: str, as_attachment: bool) -> FileResponse:
    """Send a stored upload with the type its content showed at upload and a name we chose.

    The kind is the one its stored name records (``RandomName``): the file is neither read
    nor unpacked here, so a download costs what sending the file costs.
    """
    kind = kind_of_stored_name(file.name)
    if kind is None:  # stored before uploads were checked: nobody judged its content
        raise Http404("This file cannot be served.")
    file.open("rb")
    return FileResponse(
        file,
        as_attachment=as_attachment,
        filename=f"{filename}.{kind.extension}",
        content_type=kind.content_type,
    )

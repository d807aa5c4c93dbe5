"""Uploaded files: what we accept (by content, not by name), how big, and where it is stored.

A file's kind is read from its first bytes; its stored name is random with the extension of
that kind, so an upload can neither overwrite another, climb out of its folder, nor pass an
HTML page off as a PDF. Files are served through views that set the type and disposition.
"""

import io
import uuid
import zipfile
from dataclasses import dataclass

from django.core.exceptions import ValidationError
from django.core.files.base import ContentFile
from django.http import FileResponse, Http404
from django.template.defaultfilters import filesizeformat
from django.utils.deconstruct import deconstructible
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


def kind_of_stored_name(name: str) -> FileKind | None:
    """The kind of a file we stored, from its name: RandomName gives it its kind's extension."""
    extension = name.rpartition(".")[2].lower()
    return next((kind for kind in ACCEPTED["slides"] if kind.extension == extension), None)


def detect_kind(file) -> FileKind | None:
    """The kind of ``file`` judged by its content, or None if it is none we know."""
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


def zip_document_kind(file) -> FileKind | None:
    file.seek(0)
    try:
        with zipfile.ZipFile(io.BytesIO(file.read())) as archive:
            names = set(archive.namelist())
            if "ppt/presentation.xml" in names:
                return PPTX
            if (
                "mimetype" in names
                and archive.read("mimetype").strip() == ODP.content_type.encode()
            ):
                return ODP
    except (zipfile.BadZipFile, OSError, ValueError):
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
                "This file is %(size)s; the limit is %(limit)s.",
                code="file_too_large",
                params={"size": filesizeformat(file.size), "limit": filesizeformat(self.max_bytes)},
            )
        if detect_kind(file) not in self.kinds:
            raise ValidationError(
                "This file is not one we accept. Upload one of: %(kinds)s.",
                code="file_kind",
                params={"kinds": ", ".join(kind.name for kind in self.kinds)},
            )

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
                "This image is %(width)s × %(height)s pixels; give one between %(smallest)s and "
                "%(largest)s pixels a side.",
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
        kind = detect_kind(getattr(instance, self.field_name))
        extension = kind.extension if kind else "bin"
        return f"{self.folder}/{uuid.uuid4().hex}.{extension}"

    def __eq__(self, other):
        return isinstance(other, RandomName) and (self.folder, self.field_name) == (
            other.folder,
            other.field_name,
        )


def serve_upload(file, *, filename: str, as_attachment: bool) -> FileResponse:
    """Send a stored upload with the type its content shows and a name we chose."""
    kind = detect_kind(file)
    if kind is None:  # stored before these checks existed, or tampered with on disk
        raise Http404("This file cannot be served.")
    file.open("rb")
    return FileResponse(
        file,
        as_attachment=as_attachment,
        filename=f"{filename}.{kind.extension}",
        content_type=kind.content_type,
    )

"""Every bulk write to what a conference's pages show moves its version (``changed_at``), as
save() and delete() do through signals: ChangesConferenceQuerySet in conference/content_version.py."""

import datetime

import pytest
from django.utils import timezone

from conference.models import Conference, Room, Track
from sessions.models import Attachment, Session, SessionLink, SessionSpeaker
from speakers.models import Availability, Speaker, SpeakerLink
from tests.builders import make_conference, make_room, make_session, make_speaker, make_track, paris

pytestmark = pytest.mark.django_db


@pytest.fixture
def rows():
    conference = make_conference(slug="pycon")
    speaker = make_speaker(conference, name="Ada")
    session = make_session(conference, title="Talk", speakers=[speaker])
    return {
        Conference: conference,
        Room: make_room(conference, name="Spare room"),
        Track: make_track(conference, name="Web"),
        Session: session,
        Speaker: speaker,
        SessionSpeaker: session.session_speakers.get(),
        SessionLink: SessionLink.objects.create(session=session, url="https://example.org/a"),
        Attachment: Attachment.objects.create(session=session, title="Slides"),
        SpeakerLink: SpeakerLink.objects.create(speaker=speaker, title="Web", url="https://a.eu"),
        Availability: Availability.objects.create(
            speaker=speaker, starts_at=paris(8, 9), ends_at=paris(8, 18)
        ),
    }


# For each model: a field its pages show, and a new value for it.
SHOWN = {
    Conference: ("name", "Renamed"),
    Room: ("name", "Renamed"),
    Track: ("name", "Renamed"),
    Session: ("title", "Renamed"),
    Speaker: ("name", "Renamed"),
    SessionSpeaker: ("position", 3),
    SessionLink: ("title", "Renamed"),
    Attachment: ("title", "Renamed"),
    SpeakerLink: ("title", "Renamed"),
    Availability: ("ends_at", paris(8, 19)),
}
PARTS = [model for model in SHOWN if model is not Conference]


def new_row(model, rows):
    """An unsaved row of ``model`` in the conference, for bulk_create()."""
    conference, session, speaker = rows[Conference], rows[Session], rows[Speaker]
    other_speaker = make_speaker(conference, name="Grace")
    return {
        Room: lambda: Room(conference=conference, name="New", slug="new"),
        Track: lambda: Track(conference=conference, name="New", slug="new", colour="#123456"),
        Session: lambda: Session(
            conference=conference,
            title="New",
            slug="new",
            starts_at=paris(8, 11),
            ends_at=paris(8, 12),
            status=Session.Status.PUBLISHED,
        ),
        Speaker: lambda: Speaker(conference=conference, name="New", slug="new"),
        SessionSpeaker: lambda: SessionSpeaker(session=session, speaker=other_speaker, position=1),
        SessionLink: lambda: SessionLink(session=session, url="https://example.org/b"),
        Attachment: lambda: Attachment(session=session, title="Paper"),
        SpeakerLink: lambda: SpeakerLink(speaker=speaker, title="Blog", url="https://b.eu"),
        Availability: lambda: Availability(
            speaker=speaker, starts_at=paris(7, 9), ends_at=paris(7, 18)
        ),
    }[model]()


def changed_at(rows) -> datetime.datetime:
    return Conference.objects.values_list("changed_at", flat=True).get(pk=rows[Conference].pk)


def moves_changed_at(rows, write) -> bool:
    before = changed_at(rows)
    write()
    return changed_at(rows) > before


@pytest.mark.parametrize("model", SHOWN, ids=lambda model: model.__name__)
def test_a_bulk_update_moves_the_conference_version(rows, model):
    name, value = SHOWN[model]
    assert moves_changed_at(
        rows, lambda: model.objects.filter(pk=rows[model].pk).update(**{name: value})
    )


@pytest.mark.parametrize("model", PARTS, ids=lambda model: model.__name__)
def test_a_bulk_create_moves_the_conference_version(rows, model):
    row = new_row(model, rows)
    assert moves_changed_at(rows, lambda: model.objects.bulk_create([row]))


@pytest.mark.parametrize("model", SHOWN, ids=lambda model: model.__name__)
def test_a_bulk_update_of_objects_moves_the_conference_version(rows, model):
    name, value = SHOWN[model]
    row = rows[model]
    setattr(row, name, value)
    assert moves_changed_at(rows, lambda: model.objects.bulk_update([row], [name]))


@pytest.mark.parametrize("model", PARTS, ids=lambda model: model.__name__)
def test_a_queryset_delete_moves_the_conference_version(rows, model):
    assert moves_changed_at(rows, lambda: model.objects.filter(pk=rows[model].pk).delete())


def test_a_bulk_update_changes_the_cached_page_and_its_etag(client, rows):
    first = client.get("/pycon/schedule/")
    Session.objects.filter(pk=rows[Session].pk).update(title="Moved on")
    second = client.get("/pycon/schedule/")
    assert second["ETag"] != first["ETag"]
    assert "Moved on" in second.content.decode()


def test_moving_rows_to_another_conference_moves_both_versions(rows):
    other = make_conference(slug="other")
    before = {rows[Conference].pk: changed_at(rows), other.pk: other.changed_at}
    Room.objects.filter(pk=rows[Room].pk).update(conference=other)
    after = dict(Conference.objects.values_list("pk", "changed_at"))
    assert all(after[pk] > moment for pk, moment in before.items())


def test_writing_only_what_no_page_shows_leaves_the_version(rows):
    speakers = Speaker.objects.filter(pk=rows[Speaker].pk)
    assert not moves_changed_at(rows, lambda: speakers.update(talks_seen_at=timezone.now()))
    assert not moves_changed_at(rows, lambda: speakers.touch())


def test_a_bulk_writer_marks_its_conference_once_at_the_end(rows, django_assert_num_queries):
    conference = rows[Conference]
    # two writes, then one mark
    with django_assert_num_queries(3), Conference.changes_marked_at_end(conference.pk):
        Session.objects.filter(conference=conference).update(title="A")
        Room.objects.filter(conference=conference).update(name="B")

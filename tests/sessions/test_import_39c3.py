"""The 39th Chaos Communication Congress's published schedule, imported once for the module.

Importing its 186 events takes seconds; these tests read the one import, and each test's own
writes roll back (see ``module_db``).
"""

import datetime

import pytest

from conference.models import Room, Track
from sessions.importers import import_schedule
from sessions.models import Session, SessionSpeaker
from speakers.models import Speaker
from tests.builders import make_conference
from tests.sessions.conftest import reference_folder

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def xml_import(module_db, django_db_blocker):
    """The conference and the report of importing 39c3's schedule.xml into it."""
    schedules = reference_folder("schedules")
    with django_db_blocker.unblock():
        congress = make_conference(
            slug="39c3",
            starts_on=datetime.date(2025, 12, 27),
            ends_on=datetime.date(2025, 12, 30),
            time_zone="Europe/Berlin",
        )
        report = import_schedule(congress, schedules / "39c3-himmel.schedule.xml")
    return congress, report


def test_import_39c3_xml_creates_rooms_tracks_speakers_and_sessions(xml_import):
    _, report = xml_import

    assert report.created == {"room": 5, "track": 9, "speaker": 274, "session": 186}
    assert {
        model.__name__: model.objects.count()
        for model in (Room, Track, Speaker, Session, SessionSpeaker)
    } == {"Room": 5, "Track": 9, "Speaker": 274, "Session": 186, "SessionSpeaker": 292}


def test_import_39c3_reads_the_opening_ceremony(xml_import):
    opening = Session.objects.get(guid="7839bb58-30e3-5f36-ac06-59f292c0974c")

    assert (opening.title, opening.slug, opening.kind, opening.status) == (
        "Opening Ceremony",
        "opening-ceremony",
        Session.Kind.TALK,
        Session.Status.PUBLISHED,
    )
    assert opening.local_time_range == "Saturday 27 December 2025 10:30–11:00 CET"
    assert (opening.room.name, opening.track.name) == ("Saal One", "CCC & Community")
    assert [speaker.name for speaker in opening.ordered_speakers] == ["pajowu", "Stella"]


def test_import_39c3_json_after_its_xml_twin_adds_only_what_xml_lacks(
    xml_import, reference_schedules
):
    congress, _ = xml_import

    report = import_schedule(congress, reference_schedules / "39c3-himmel.schedule.json")

    # XML has no room capacities or descriptions, no biographies and no avatars; the sessions
    # read the same from both.
    assert report.created == {}
    assert report.updated == {"room": 5, "speaker": 257}
    assert report.unchanged == {"track": 9, "speaker": 17, "session": 186}

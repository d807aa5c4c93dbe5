import datetime
import importlib
import json
import re
import uuid

import icalendar
import jsonschema
import pytest
import vobject
from django.apps import apps as django_apps
from django.core.management import call_command
from lxml import etree

from conference.models import Conference
from sessions.exports.frab_schedule import build_frab_data, build_frab_xml
from sessions.exports.ical import build_calendar
from sessions.frab import VENUE_ROOM_GUID, export_guid, room_guid
from sessions.models import Attachment, Session
from speakers.models import SpeakerLink
from tests.builders import make_conference, make_room, make_session, make_speaker, make_track, paris

BASE_URL = "https://schedule.example.org"
LIVE_MIGRATION = "Live Migration of PyTorch GPU Nodes From Azure To European Clouds"
UTC = datetime.UTC

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def demo_loaded(module_db, django_db_blocker):
    """The demo conference, loaded once for the module (each test's writes roll back)."""
    with django_db_blocker.unblock():
        call_command("loaddata", "pytorch-eu-2026", verbosity=0)


@pytest.fixture
def demo(demo_loaded):
    return Conference.objects.get(slug="pytorch-eu-2026")


@pytest.fixture
def xml_schema(reference_formats):
    return etree.XMLSchema(etree.parse(reference_formats / "schedule.xml.xsd"))


@pytest.fixture
def json_validator(reference_formats):
    schema = json.loads((reference_formats / "schedule.schema.json").read_text())
    return jsonschema.Draft6Validator(schema, format_checker=jsonschema.FormatChecker())


@pytest.fixture
def with_breaks():
    """A conference with a roomless break, a break in a room, a cancelled talk and attachments."""
    conference = make_conference(slug="breaks-2026", venue="Palais des Congrès")
    hall = make_room(conference, name="Hall", position=0)
    studio = make_room(conference, name="Studio", position=1)
    track = make_track(conference, name="3D Vision", slug="3d-vision")
    speaker = make_speaker(conference, name="Ada Lovelace", bio="Writes *programs*.")
    SpeakerLink.objects.create(speaker=speaker, title="Website", url="https://ada.example.org/")
    talk = make_session(
        conference,
        title="Opening",
        room=hall,
        track=track,
        speakers=[speaker],
        starts_at=paris(8, 9),
    )
    Attachment.objects.create(session=talk, title="Slides", url="https://slides.example.org/o.pdf")
    Attachment.objects.create(session=talk, title="Deck", file="attachments/deck.pdf", position=1)
    Attachment.objects.create(session=talk, title="Announced only", position=2)
    make_session(
        conference,
        title="Lunch",
        kind=Session.Kind.BREAK,
        starts_at=paris(8, 12),
        ends_at=paris(8, 13, 30),
    )
    make_session(
        conference, title="Coffee", kind=Session.Kind.BREAK, room=studio, starts_at=paris(8, 15)
    )
    make_session(
        conference,
        title="Dropped",
        room=hall,
        starts_at=paris(8, 9),
        status=Session.Status.CANCELLED,
    )
    return conference


def listing(conference):
    return list(Session.objects.public().for_listing().filter(conference=conference))


def calendar_of(conference, name="Schedule"):
    return build_calendar(conference, listing(conference), base_url=BASE_URL, name=name)


def frab_data(conference):
    return build_frab_data(conference, listing(conference), base_url=BASE_URL)


def frab_xml(conference):
    return etree.fromstring(build_frab_xml(conference, listing(conference), base_url=BASE_URL))


def events_of(data):
    return [
        event
        for day in data["schedule"]["conference"]["days"]
        for events in day["rooms"].values()
        for event in events
    ]


def vevent(ics: bytes, summary: str) -> icalendar.Event:
    calendar = icalendar.Calendar.from_ical(ics)
    (event,) = [event for event in calendar.walk("VEVENT") if event["SUMMARY"] == summary]
    return event


# iCalendar ------------------------------------------------------------------------------------


def test_calendar_gives_demo_session_its_paris_time_read_by_icalendar(demo):
    event = vevent(calendar_of(demo), f"Lightning Talk: {LIVE_MIGRATION}")

    assert str(event.decoded("DTSTART").tzinfo) == "Europe/Paris"
    assert event.decoded("DTSTART") == datetime.datetime(2026, 4, 8, 8, 35, tzinfo=UTC)
    assert event.decoded("DTEND") == datetime.datetime(2026, 4, 8, 8, 45, tzinfo=UTC)


def test_calendar_gives_demo_session_its_paris_time_read_by_vobject(demo):
    calendar = vobject.readOne(calendar_of(demo).decode())
    (event,) = [
        event
        for event in calendar.vevent_list
        if event.summary.value == f"Lightning Talk: {LIVE_MIGRATION}"
    ]

    assert event.dtstart.value.utcoffset() == datetime.timedelta(hours=2)
    assert event.dtstart.value.astimezone(UTC) == datetime.datetime(2026, 4, 8, 8, 35, tzinfo=UTC)
    assert event.dtend.value.astimezone(UTC) == datetime.datetime(2026, 4, 8, 8, 45, tzinfo=UTC)


def test_calendar_has_one_event_per_session(demo):
    calendar = icalendar.Calendar.from_ical(calendar_of(demo))

    assert len(calendar.walk("VEVENT")) == 29


def test_calendar_describes_the_calendar(demo):
    calendar = icalendar.Calendar.from_ical(calendar_of(demo, name="PyTorch EU 2026"))

    assert calendar["VERSION"] == "2.0"
    assert calendar["PRODID"] == "-//confsched//pytorch-eu-2026//EN"
    assert calendar["CALSCALE"] == "GREGORIAN"
    assert calendar["METHOD"] == "PUBLISH"
    assert calendar["X-WR-CALNAME"] == "PyTorch EU 2026"
    assert calendar["X-WR-TIMEZONE"] == "Europe/Paris"


def test_calendar_lines_end_with_crlf(demo):
    ics = calendar_of(demo)

    assert ics.endswith(b"END:VCALENDAR\r\n")
    assert b"\n" not in ics.replace(b"\r\n", b"")
    assert b"\r" not in ics.replace(b"\r\n", b"")


def test_calendar_lines_are_at_most_75_octets(demo):
    lines = calendar_of(demo).split(b"\r\n")

    assert max(len(line) for line in lines) <= 75
    assert any(line.startswith(b" ") for line in lines)  # long descriptions were folded


def test_calendar_has_europe_paris_vtimezone_before_the_events(demo):
    calendar = icalendar.Calendar.from_ical(calendar_of(demo))

    assert [timezone["TZID"] for timezone in calendar.walk("VTIMEZONE")] == ["Europe/Paris"]
    assert calendar.subcomponents[0].name == "VTIMEZONE"


def test_calendar_has_no_floating_times(demo):
    events = calendar_of(demo).decode().split("BEGIN:VEVENT", 1)[1]  # after the VTIMEZONE
    starts_and_ends = re.findall(r"^(?:DTSTART|DTEND)([;:][^:]*):", events, re.MULTILINE)
    stamps = re.findall(r"^(?:DTSTAMP|LAST-MODIFIED):(\d{8}T\d{6}Z?)\r$", events, re.MULTILINE)

    assert len(starts_and_ends) == 29 * 2
    assert set(starts_and_ends) == {";TZID=Europe/Paris"}
    assert len(stamps) == 29 * 2
    assert {stamp[-1] for stamp in stamps} == {"Z"}


def test_calendar_uid_is_stable_across_exports(demo):
    first = vevent(calendar_of(demo), f"Lightning Talk: {LIVE_MIGRATION}")
    second = vevent(calendar_of(demo), f"Lightning Talk: {LIVE_MIGRATION}")

    assert (
        first["UID"] == second["UID"] == "051b5f4b-d46d-5b3e-9813-65c7da4b3d12@schedule.example.org"
    )


def test_calendar_is_byte_identical_for_one_generation_time(demo):
    moment = datetime.datetime(2026, 4, 1, 12, tzinfo=UTC)

    def export():
        return build_calendar(
            demo, listing(demo), base_url=BASE_URL, name="Schedule", generated_at=moment
        )

    assert export() == export()
    assert b"DTSTAMP:20260401T120000Z\r\n" in export()


def test_calendar_sequence_rises_with_every_edit_even_within_one_second():
    session = make_session(title="Tensors")
    sequences = [vevent(calendar_of(session.conference), "Tensors")["SEQUENCE"]]
    for description in ("Now with an abstract.", "Now with a better abstract."):
        session.description = description
        session.save()
        sequences.append(vevent(calendar_of(session.conference), "Tensors")["SEQUENCE"])
    Session.objects.filter(pk=session.pk).cancel()  # the admin action
    sequences.append(vevent(calendar_of(session.conference), "Tensors")["SEQUENCE"])

    assert sequences == [0, 1, 2, 3]


def test_sequence_migration_continues_from_the_seconds_exported_before():
    migration = importlib.import_module("sessions.migrations.0007_session_sequence")
    session = make_session(title="Tensors")
    created = datetime.datetime(2026, 3, 1, tzinfo=UTC)
    Session.objects.filter(pk=session.pk).update(
        created_at=created, updated_at=created + datetime.timedelta(minutes=2), sequence=0
    )

    migration.continue_from_seconds(django_apps, schema_editor=None)
    session.refresh_from_db()
    session.save()

    assert session.sequence == 121


def test_calendar_marks_cancelled_session_cancelled_and_others_confirmed():
    conference = make_conference()
    make_session(conference, title="Kept")
    make_session(conference, title="Dropped", status=Session.Status.CANCELLED)
    ics = calendar_of(conference)

    assert vevent(ics, "Dropped")["STATUS"] == "CANCELLED"
    assert vevent(ics, "Kept")["STATUS"] == "CONFIRMED"


def test_calendar_event_describes_the_session(demo):
    event = vevent(calendar_of(demo), f"Lightning Talk: {LIVE_MIGRATION}")

    assert event["DESCRIPTION"].startswith("Many European PyTorch teams run their GPU workloads")
    assert event["DESCRIPTION"].endswith(
        "without rewriting your stack\n\nSpeaker: Mike Krom (Partner, ACF Cybersolutions)"
    )
    assert event["LOCATION"] == "Central Room, Paris"
    assert event["URL"] == (
        "https://schedule.example.org/pytorch-eu-2026/sessions/"
        "live-migration-of-pytorch-gpu-nodes-from-azure-to-european-clouds/"
    )
    assert event["CATEGORIES"].cats == ["Security & Privacy"]
    assert event.decoded("LAST-MODIFIED") == datetime.datetime(2026, 3, 1, tzinfo=UTC)
    assert event["SEQUENCE"] == 0


AWKWARD_TITLE = "Données; café, \\escapes\\ and 漢字 — \U0001f680 everywhere"
# Long enough to fold many times, with multi-byte characters straddling every possible fold point.
AWKWARD_DESCRIPTION = "Première ligne.\r\nZweite Zeile, mit Komma; und Semikolon.\n\n" + (
    "é漢\U0001f680x" * 40
)


@pytest.fixture
def awkward_calendar():
    conference = make_conference()
    track = make_track(conference, name="Data, AI; Ops")
    make_session(
        conference, title=AWKWARD_TITLE, description=AWKWARD_DESCRIPTION + "\x07\x1b", track=track
    )
    return calendar_of(conference)


def test_calendar_folds_multibyte_text_without_breaking_a_character(awkward_calendar):
    lines = awkward_calendar.split(b"\r\n")

    assert max(len(line) for line in lines) <= 75
    assert sum(line.startswith(b" ") for line in lines) > 5
    for line in lines:
        line.decode()  # raises if a fold cut a character in two


def test_calendar_text_reads_back_exactly_in_icalendar(awkward_calendar):
    event = vevent(awkward_calendar, AWKWARD_TITLE)

    assert event["SUMMARY"] == AWKWARD_TITLE
    assert event["DESCRIPTION"] == AWKWARD_DESCRIPTION.replace("\r\n", "\n")


def test_calendar_text_reads_back_exactly_in_vobject(awkward_calendar):
    (event,) = vobject.readOne(awkward_calendar.decode()).vevent_list

    assert event.summary.value == AWKWARD_TITLE
    assert event.description.value == AWKWARD_DESCRIPTION.replace("\r\n", "\n")
    # icalendar's reader splits CATEGORIES at escaped commas too, so only vobject checks this.
    assert event.categories.value == ["Data, AI; Ops"]


def test_calendar_locates_roomless_break_at_the_venue(with_breaks):
    event = vevent(calendar_of(with_breaks), "Lunch")

    assert event["LOCATION"] == "Palais des Congrès, Paris"
    assert "DESCRIPTION" not in event


# frab schedule.xml and schedule.json ----------------------------------------------------------


def test_frab_xml_of_demo_validates_against_the_xsd(demo, xml_schema):
    document = frab_xml(demo)

    assert xml_schema.validate(document), xml_schema.error_log
    assert len(document.findall("day/room/event")) == 29


def test_frab_json_of_demo_validates_against_the_json_schema(demo, json_validator):
    data = frab_data(demo)

    assert [error.message for error in json_validator.iter_errors(data)] == []
    assert len(events_of(data)) == 29


def test_frab_xml_with_breaks_and_cancelled_sessions_validates(with_breaks, xml_schema):
    document = frab_xml(with_breaks)

    assert xml_schema.validate(document), xml_schema.error_log
    assert len(document.findall("day/room/event")) == 4


def test_frab_json_with_breaks_and_cancelled_sessions_validates(with_breaks, json_validator):
    data = frab_data(with_breaks)

    assert [error.message for error in json_validator.iter_errors(data)] == []
    assert len(events_of(data)) == 4


def test_streamed_schedule_xml_validates_against_the_xsd(client, with_breaks, xml_schema):
    response = client.get("/breaks-2026/schedule.xml")
    document = etree.fromstring(response.getvalue())

    assert response.streaming
    assert xml_schema.validate(document), xml_schema.error_log
    assert len(document.findall("day/room/event")) == 4


def test_streamed_schedule_json_validates_against_the_json_schema(
    client, with_breaks, json_validator
):
    response = client.get("/breaks-2026/schedule.json")
    data = json.loads(response.getvalue())

    assert response.streaming
    assert [error.message for error in json_validator.iter_errors(data)] == []
    assert len(events_of(data)) == 4


def test_frab_json_survives_json_dumps_unchanged(demo):
    data = frab_data(demo)

    assert json.loads(json.dumps(data)) == data


def test_frab_export_is_identical_across_exports(demo):
    assert frab_data(demo) == frab_data(demo)
    assert build_frab_xml(demo, listing(demo), base_url=BASE_URL) == build_frab_xml(
        demo, listing(demo), base_url=BASE_URL
    )


def test_frab_event_guids_are_the_session_guids(demo):
    guids = {event["guid"] for event in events_of(frab_data(demo))}

    assert guids == set(Session.objects.values_list("guid", flat=True))


def test_frab_xml_and_json_list_the_same_events(demo):
    xml_guids = [event.get("guid") for event in frab_xml(demo).iterfind("day/room/event")]

    assert xml_guids == [event["guid"] for event in events_of(frab_data(demo))]


def test_frab_room_guids_derive_from_conference_and_room_slugs(demo):
    rooms = frab_data(demo)["schedule"]["conference"]["rooms"]
    expected = uuid.uuid5(
        uuid.uuid5(uuid.NAMESPACE_URL, "urn:confsched:conference:pytorch-eu-2026"),
        "room:master-stage",
    )

    assert [room["name"] for room in rooms] == [
        "Master Stage",
        "Central Room",
        "Junior Stage",
        "Founders Cafe",
    ]
    assert rooms[0]["guid"] == str(expected) == room_guid(demo, demo.rooms.get(slug="master-stage"))


def test_frab_person_guids_are_the_speaker_guids(demo):
    event = next(e for e in events_of(frab_data(demo)) if e["title"] == LIVE_MIGRATION)

    assert event["persons"] == [
        {
            "guid": "9d625d4f-7d2b-5624-aa96-ab88a1725ddb",
            "name": "Mike Krom",
            "public_name": "Mike Krom",
            "avatar": None,
            "biography": (
                "I am a software architect and lead developer of the open-source project "
                "DigitalNomadSky. I have extensive experience with Microsoft Azure from working at "
                "Microsoft and supporting large-scale cloud migrations."
            ),
            "role": "Partner",
            "company": "ACF Cybersolutions",
            "url": "https://schedule.example.org/pytorch-eu-2026/speakers/mike-krom/",
            "links": [],
        }
    ]


def test_frab_person_carries_speaker_links(with_breaks):
    event = next(e for e in events_of(frab_data(with_breaks)) if e["title"] == "Opening")

    assert event["persons"][0]["links"] == [{"url": "https://ada.example.org/", "title": "Website"}]


def test_frab_event_describes_the_demo_session(demo):
    event = next(e for e in events_of(frab_data(demo)) if e["title"] == LIVE_MIGRATION)

    assert {
        key: value for key, value in event.items() if key not in ("description", "persons")
    } == {
        "guid": "051b5f4b-d46d-5b3e-9813-65c7da4b3d12",
        "id": Session.objects.get(guid="051b5f4b-d46d-5b3e-9813-65c7da4b3d12").pk,
        "date": "2026-04-08T10:35:00+02:00",
        "start": "10:35",
        "end": "2026-04-08T10:45:00+02:00",
        "duration": "00:10",
        "room": "Central Room",
        "slug": "pytorch_eu_2026-live-migration-of-pytorch-gpu-nodes-from-azure-to-european-clouds",
        "url": (
            "https://schedule.example.org/pytorch-eu-2026/sessions/"
            "live-migration-of-pytorch-gpu-nodes-from-azure-to-european-clouds/"
        ),
        "title": LIVE_MIGRATION,
        "subtitle": None,
        "track": "Security & Privacy",
        "type": "Lightning Talk",
        "language": None,
        "abstract": "",
        "logo": None,
        "do_not_record": False,
        "recording_license": "",
        "links": [],
        "attachments": [],
    }


def test_frab_durations_are_hours_and_minutes():
    conference = make_conference()
    make_session(conference, title="Workshop", starts_at=paris(8, 9), ends_at=paris(8, 10, 30))
    make_session(conference, title="Lightning", starts_at=paris(8, 11), ends_at=paris(8, 11, 5))

    durations = {event["title"]: event["duration"] for event in events_of(frab_data(conference))}

    assert durations == {"Workshop": "01:30", "Lightning": "00:05"}


def test_frab_roomless_break_sits_in_the_venue_room(with_breaks):
    conference = frab_data(with_breaks)["schedule"]["conference"]
    day = conference["days"][1]

    assert list(day["rooms"]) == ["Hall", "Studio", "Palais des Congrès"]
    assert [event["title"] for event in day["rooms"]["Palais des Congrès"]] == ["Lunch"]
    assert conference["rooms"][-1] == {"name": "Palais des Congrès", "guid": VENUE_ROOM_GUID}


def test_frab_breaks_appear_with_their_type(with_breaks):
    types = {event["title"]: event["type"] for event in events_of(frab_data(with_breaks))}

    assert types == {
        "Opening": "Talk",
        "Cancelled: Dropped": "Talk",
        "Lunch": "Break",
        "Coffee": "Break",
    }


def test_frab_xml_puts_roomless_break_in_the_venue_room(with_breaks):
    (room,) = frab_xml(with_breaks).findall("day/room[@name='Palais des Congrès']")

    assert room.get("guid") == VENUE_ROOM_GUID
    assert [event.findtext("title") for event in room.iterfind("event")] == ["Lunch"]


def test_frab_venue_room_is_left_out_when_every_session_has_a_room(demo):
    rooms = frab_data(demo)["schedule"]["conference"]["rooms"]

    assert VENUE_ROOM_GUID not in [room["guid"] for room in rooms]


def test_frab_cancelled_session_is_marked_in_its_title(with_breaks):
    titles = [event["title"] for event in events_of(frab_data(with_breaks))]

    assert titles == ["Cancelled: Dropped", "Opening", "Coffee", "Lunch"]


def test_frab_urls_are_absolute(with_breaks):
    schedule = frab_data(with_breaks)["schedule"]
    event = next(e for e in events_of({"schedule": schedule}) if e["title"] == "Opening")

    assert schedule["base_url"] == "https://schedule.example.org/"
    assert schedule["conference"]["url"] == "https://schedule.example.org/breaks-2026/"
    assert event["url"] == "https://schedule.example.org/breaks-2026/sessions/opening/"
    assert (
        event["persons"][0]["url"]
        == "https://schedule.example.org/breaks-2026/speakers/ada-lovelace/"
    )


def test_frab_attachments_without_a_link_are_left_out(with_breaks):
    event = next(e for e in events_of(frab_data(with_breaks)) if e["title"] == "Opening")
    deck = Attachment.objects.get(title="Deck")

    assert event["attachments"] == [
        {"url": "https://slides.example.org/o.pdf", "title": "Slides"},
        {
            "url": f"https://schedule.example.org/breaks-2026/sessions/opening/attachments/{deck.pk}/",
            "title": "Deck",
        },
    ]


def test_frab_xml_attachments_have_absolute_hrefs(with_breaks):
    attachments = frab_xml(with_breaks).findall("day/room/event/attachments/attachment")
    deck = Attachment.objects.get(title="Deck")

    assert [(a.get("href"), a.text) for a in attachments] == [
        ("https://slides.example.org/o.pdf", "Slides"),
        (
            f"https://schedule.example.org/breaks-2026/sessions/opening/attachments/{deck.pk}/",
            "Deck",
        ),
    ]


def test_frab_xml_leaves_out_track_slugs_the_xsd_refuses(with_breaks):
    (track,) = frab_xml(with_breaks).findall("conference/track")

    assert dict(track.attrib) == {"name": "3D Vision", "color": "#5b6b7f"}


def test_frab_acronym_suits_both_schemas(demo):
    assert frab_data(demo)["schedule"]["conference"]["acronym"] == "pytorch_eu_2026"


def test_frab_days_run_from_midnight_by_default(demo):
    days = frab_data(demo)["schedule"]["conference"]["days"]

    assert [(day["index"], day["date"], day["day_start"], day["day_end"]) for day in days] == [
        (1, "2026-04-07", "2026-04-07T00:00:00+02:00", "2026-04-08T00:00:00+02:00"),
        (2, "2026-04-08", "2026-04-08T00:00:00+02:00", "2026-04-09T00:00:00+02:00"),
    ]


def test_frab_days_run_from_day_change_to_day_change():
    conference = make_conference(day_change=datetime.time(4, 0))
    data = frab_data(conference)["schedule"]["conference"]

    assert [(day["day_start"], day["day_end"]) for day in data["days"]] == [
        ("2026-04-07T04:00:00+02:00", "2026-04-08T04:00:00+02:00"),
        ("2026-04-08T04:00:00+02:00", "2026-04-09T04:00:00+02:00"),
    ]
    assert data["meta"]["day_change"] == "04:00"


def test_frab_session_after_midnight_belongs_to_the_previous_day():
    conference = make_conference(day_change=datetime.time(4, 0))
    make_session(conference, title="Late party", starts_at=paris(8, 1), ends_at=paris(8, 3))
    days = frab_data(conference)["schedule"]["conference"]["days"]

    assert [[e["title"] for events in day["rooms"].values() for e in events] for day in days] == [
        ["Late party"],
        [],
    ]


def test_frab_first_day_widens_to_cover_a_session_before_day_change():
    conference = make_conference(day_change=datetime.time(4, 0))
    make_session(conference, title="Early", starts_at=paris(7, 1), ends_at=paris(7, 2))
    first = frab_data(conference)["schedule"]["conference"]["days"][0]

    assert (first["day_start"], first["day_end"]) == (
        "2026-04-07T01:00:00+02:00",
        "2026-04-08T04:00:00+02:00",
    )
    assert [e["title"] for events in first["rooms"].values() for e in events] == ["Early"]


def test_frab_version_changes_when_a_session_changes():
    session = make_session(title="Tensors")
    before = frab_data(Conference.objects.get(pk=session.conference_id))["schedule"]["version"]

    session.title = "Tensors, revisited"
    session.save()
    after = frab_data(Conference.objects.get(pk=session.conference_id))["schedule"]["version"]

    assert after != before


def test_frab_version_changes_when_a_speaker_is_renamed():
    ada = make_speaker(name="Ada")
    make_session(ada.conference, speakers=[ada])
    before = frab_data(Conference.objects.get(pk=ada.conference_id))["schedule"]["version"]

    ada.name = "Ada Lovelace"
    ada.save()
    after = frab_data(Conference.objects.get(pk=ada.conference_id))["schedule"]["version"]

    assert after != before


def test_frab_legacy_guid_is_exported_as_its_uuid5():
    session = make_session(guid="HOqeNIb6G7M4hYFKFRkCmQ")
    (event,) = events_of(frab_data(session.conference))

    assert event["guid"] == export_guid("HOqeNIb6G7M4hYFKFRkCmQ")
    assert event["guid"] == str(
        uuid.uuid5(uuid.NAMESPACE_URL, "urn:confsched:legacy-guid:HOqeNIb6G7M4hYFKFRkCmQ")
    )


def test_frab_xml_drops_characters_xml_cannot_carry():
    session = make_session(title="Bell\x07 and tab\t")
    (event,) = frab_xml(session.conference).iterfind("day/room/event")

    assert event.findtext("title") == "Bell and tab\t"


# Query counts ---------------------------------------------------------------------------------


def make_listed_sessions(n: int) -> Conference:
    conference = make_conference()
    room = make_room(conference)
    track = make_track(conference)
    for number in range(n):
        speaker = make_speaker(conference)
        SpeakerLink.objects.create(speaker=speaker, title="Website", url="https://example.org/")
        session = make_session(
            conference,
            room=room,
            track=track,
            speakers=[speaker],
            starts_at=paris(8, 9) + datetime.timedelta(minutes=30 * number),
        )
        Attachment.objects.create(session=session, title="Slides", url="https://example.org/s.pdf")
    return conference


@pytest.mark.parametrize("n", [1, 12])
def test_calendar_export_runs_no_queries_after_loading(django_assert_max_num_queries, n):
    conference = make_listed_sessions(n)
    sessions = listing(conference)

    with django_assert_max_num_queries(0):
        ics = build_calendar(conference, sessions, base_url=BASE_URL, name="Schedule")

    assert len(icalendar.Calendar.from_ical(ics).walk("VEVENT")) == n


@pytest.mark.parametrize("n", [1, 12])
def test_frab_json_export_query_count_does_not_grow(django_assert_max_num_queries, n):
    conference = make_listed_sessions(n)
    sessions = listing(conference)

    with django_assert_max_num_queries(4):  # rooms, tracks, speaker links, latest release
        data = build_frab_data(conference, sessions, base_url=BASE_URL)

    assert len(events_of(data)) == n


@pytest.mark.parametrize("n", [1, 12])
def test_frab_xml_export_query_count_does_not_grow(django_assert_max_num_queries, n):
    conference = make_listed_sessions(n)
    sessions = listing(conference)

    with django_assert_max_num_queries(4):  # rooms, tracks, speaker links, latest release
        xml = build_frab_xml(conference, sessions, base_url=BASE_URL)

    assert len(etree.fromstring(xml).findall("day/room/event")) == n

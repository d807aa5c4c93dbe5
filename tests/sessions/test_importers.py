import datetime
import io
import json
import uuid
from collections import Counter
from contextlib import contextmanager

import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.db.models.signals import post_save
from django.test.utils import CaptureQueriesContext

from conference.models import Conference, Room, Track
from sessions.exports.frab_schedule import build_frab_data, build_frab_xml
from sessions.frab import export_guid
from sessions.importers import MAX_IMPORT_BYTES, ScheduleImportError, import_schedule
from sessions.models import Attachment, Session, SessionSpeaker
from speakers.models import Speaker
from tests.builders import make_conference, make_room, make_session, make_speaker, paris
from tests.sessions.frab_files import json_document

pytestmark = pytest.mark.django_db

BASE_URL = "https://schedule.example.org"
GUID_A = "aaaaaaaa-0000-4000-8000-000000000001"
GUID_B = "bbbbbbbb-0000-4000-8000-000000000002"
PERSON = "cccccccc-0000-4000-8000-000000000003"
# A talk at 14:00 that stays where it is while others move.
THIRD = {
    "guid": "dddddddd-0000-4000-8000-000000000004",
    "title": "Third",
    "date": "2026-04-08T14:00:00+02:00",
}


@pytest.fixture
def demo():
    call_command("loaddata", "pytorch-eu-2026", verbosity=0)
    return Conference.objects.get(slug="pytorch-eu-2026")


@pytest.fixture
def conference():
    """A conference "target-2026": the one the tests' ``import_schedule`` commands name."""
    return make_conference(slug="target-2026")


def counts():
    return {
        model.__name__: model.objects.count()
        for model in (Room, Track, Speaker, Session, SessionSpeaker)
    }


def schedule_of(conference):
    """What a schedule shows of each session, comparable across conferences."""
    return sorted(
        (
            session.guid,
            session.title,
            session.kind,
            session.status,
            session.starts_at,
            session.ends_at,
            session.room.name if session.room else None,
            session.track.name if session.track else None,
            tuple((speaker.guid, speaker.name) for speaker in session.ordered_speakers),
        )
        for session in Session.objects.filter(conference=conference).for_listing()
    )


def listing(conference):
    return list(Session.objects.public().for_listing().filter(conference=conference))


def export(conference, kind):
    if kind == "xml":
        return io.BytesIO(build_frab_xml(conference, listing(conference), base_url=BASE_URL))
    data = build_frab_data(conference, listing(conference), base_url=BASE_URL)
    return io.BytesIO(json.dumps(data).encode())


def event(**fields):
    """One schedule.json event: a 30-minute talk in Hall at 10:00 Paris time on 8 April 2026."""
    return {
        "guid": GUID_A,
        "id": 1,
        "date": "2026-04-08T10:00:00+02:00",
        "start": "10:00",
        "duration": "00:30",
        "room": "Hall",
        "slug": "test-first-talk",
        "url": "https://example.org/first-talk",
        "title": "First talk",
        "subtitle": None,
        "track": None,
        "type": "Talk",
        "language": "en",
        "abstract": "",
        "persons": [],
        "links": [],
        **fields,
    }


def json_file(*events, rooms=None):
    return io.BytesIO(json.dumps(json_document(*events, rooms=rooms)).encode())


def xml_event(guid=GUID_A, title="First talk", date="2026-04-08T10:00:00+02:00", room="Hall"):
    return (
        f'<event guid="{guid}" id="1"><date>{date}</date><start>10:00</start>'
        f"<duration>00:30</duration><room>{room}</room><title>{title}</title><type>Talk</type>"
        "<abstract/><track/></event>"
    )


def xml_file(*events, room="Hall", prolog='<?xml version="1.0"?>\n'):
    body = "\n".join(events)
    return io.BytesIO(
        (
            f"{prolog}<schedule>\n<version>1</version>\n"
            "<conference><acronym>test</acronym><title>Test</title></conference>\n"
            '<day index="1" date="2026-04-08" start="2026-04-08T00:00:00+02:00" '
            f'end="2026-04-09T00:00:00+02:00">\n<room name="{room}">\n{body}\n</room>\n</day>\n'
            "</schedule>\n"
        ).encode()
    )


@contextmanager
def saved_sessions():
    """The (title, status) of every session saved inside the block, as post_save reports them."""
    saved = []

    def remember(sender, instance, **kwargs):
        saved.append((instance.title, instance.status))

    post_save.connect(remember, sender=Session)
    try:
        yield saved
    finally:
        post_save.disconnect(remember, sender=Session)


def import_error(conference, source) -> ScheduleImportError:
    with pytest.raises(ScheduleImportError) as caught:
        import_schedule(conference, source)
    return caught.value


# The real published schedules -----------------------------------------------------------------


def test_import_39c3_json_creates_rooms_tracks_speakers_and_sessions(reference_schedules):
    congress = make_conference(
        slug="39c3",
        starts_on=datetime.date(2025, 12, 27),
        ends_on=datetime.date(2025, 12, 30),
        time_zone="Europe/Berlin",
    )

    report = import_schedule(congress, reference_schedules / "39c3-himmel.schedule.json")

    assert report.created == {"room": 5, "track": 9, "speaker": 274, "session": 186}
    assert Room.objects.get(name="Saal One").capacity == 3025


def test_import_camp2019_json_creates_everything_and_lowercases_slugs(reference_schedules):
    camp = make_conference(
        slug="camp2019",
        starts_on=datetime.date(2019, 8, 21),
        ends_on=datetime.date(2019, 8, 25),
        time_zone="Europe/Berlin",
    )

    report = import_schedule(camp, reference_schedules / "camp2019-frab.schedule.json")

    assert report.created == {"room": 2, "track": 7, "speaker": 90, "session": 79}
    assert Session.objects.get(guid="a0a0fcfe-b7fb-46e3-84b6-97a5406016b4").slug == (
        "10386-opening_ceremony"
    )
    # Links and attachments: 26 and 10 events; attachment paths resolved against its base_url.
    assert (
        Session.objects.filter(links__isnull=False).distinct().count(),
        Session.objects.filter(attachments__isnull=False).distinct().count(),
    ) == (26, 10)
    assert all(
        url.startswith("https://fahrplan.events.ccc.de/")
        for url in Attachment.objects.values_list("url", flat=True)
    )


def test_import_31c3_reports_its_two_speaker_double_bookings(reference_schedules):
    congress = make_conference(
        slug="31c3",
        starts_on=datetime.date(2014, 12, 27),
        ends_on=datetime.date(2014, 12, 30),
        time_zone="Europe/Berlin",
    )

    error = import_error(congress, reference_schedules / "31c3-frab-legacy.schedule.xml")

    # The “(Stream)” twins repeat a talk in a second hall with the same speaker at the same time.
    assert error.problems == [
        "Event “Fnord News Show (Stream)” (guid 74711c06-8813-4158-b102-36dbbe374d13, line 1979): "
        "persons: Fefe already gives “Fnord News Show” then (Monday 29 December 2014 00:15–01:45 CET).",
        "Event “Security Nightmares (Stream)” (guid 78d34ebe-e910-4d26-98e3-71c0f07cedb6, "
        "line 4615): persons: Ron already gives “Security Nightmares” then "
        "(Tuesday 30 December 2014 17:15–18:15 CET).",
    ]
    assert counts() == dict.fromkeys(("Room", "Track", "Speaker", "Session", "SessionSpeaker"), 0)


def test_import_jev22_reports_every_room_and_speaker_clash(reference_schedules):
    jev = make_conference(
        slug="jev22",
        starts_on=datetime.date(2022, 12, 26),
        ends_on=datetime.date(2022, 12, 31),
        time_zone="Europe/Amsterdam",
    )

    error = import_error(jev, reference_schedules / "jev22-everything.schedule.xml")

    assert error.problems[0] == (
        "Event “Kleidertausch” (guid f8734889-2c55-55ef-9d81-cb9b69953f04, line 409): persons: "
        "Forum für Freiraum already gives “Urbane Praxis, Stadt von unten & Raum für alle” then "
        "(Monday 26 December 2022 10:00–16:00 CET)."
    )
    # Its logos are paths (/media/…) with no base_url to resolve them: left out, not refused.
    assert Counter(problem.split("): ", 1)[1].split(":")[0] for problem in error.problems) == {
        "room": 5,
        "persons": 24,
    }
    assert counts() == dict.fromkeys(("Room", "Track", "Speaker", "Session", "SessionSpeaker"), 0)


# Round trips ----------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["json", "xml"])
def test_round_trip_keeps_sessions_times_rooms_tracks_and_speakers(demo, kind):
    copy = make_conference(slug="copy-2026")

    import_schedule(copy, export(demo, kind))

    assert schedule_of(copy) == schedule_of(demo)


@pytest.mark.parametrize("kind", ["json", "xml"])
def test_round_trip_exports_the_same_events_again(demo, kind):
    copy = make_conference(slug="copy-2026")
    import_schedule(copy, export(demo, kind))

    def events(conference):
        data = build_frab_data(conference, listing(conference), base_url=BASE_URL)
        return [
            (
                item["guid"],
                item["title"],
                item["date"],
                item["duration"],
                item["room"],
                item["track"],
                item["type"],
                item["abstract"],
                [(person["guid"], person["name"]) for person in item["persons"]],
            )
            for day in data["schedule"]["conference"]["days"]
            for items in day["rooms"].values()
            for item in items
        ]

    assert events(copy) == events(demo)


def test_round_trip_keeps_speaker_biographies_through_json(demo):
    copy = make_conference(slug="copy-2026")

    import_schedule(copy, export(demo, "json"))

    assert Speaker.objects.get(conference=copy, name="Mike Krom").bio == (
        Speaker.objects.get(conference=demo, name="Mike Krom").bio
    )


@pytest.mark.parametrize("kind", ["json", "xml"])
def test_round_trip_keeps_roomless_breaks_and_cancelled_sessions(kind):
    source = make_conference(slug="source-2026")
    hall = make_room(source, name="Hall")
    make_session(source, title="Opening", room=hall, starts_at=paris(8, 9))
    make_session(source, title="Lunch", kind=Session.Kind.BREAK, starts_at=paris(8, 12))
    make_session(
        source, title="Dropped", room=hall, starts_at=paris(8, 9), status=Session.Status.CANCELLED
    )
    copy = make_conference(slug="copy-2026")

    import_schedule(copy, export(source, kind))

    assert schedule_of(copy) == schedule_of(source)
    assert Room.objects.filter(conference=copy).count() == 1


# Re-imports -----------------------------------------------------------------------------------


def test_reimport_of_the_same_file_changes_nothing(demo):
    copy = make_conference(slug="copy-2026")
    data = export(demo, "json").getvalue()
    import_schedule(copy, io.BytesIO(data))
    before = counts()

    report = import_schedule(copy, io.BytesIO(data))

    assert report.created == report.updated == {}
    assert report.unchanged == {"room": 4, "track": 8, "speaker": 43, "session": 29}
    assert report.changes == []
    assert counts() == before


def test_reimport_updates_a_moved_session_instead_of_duplicating_it(conference):
    import_schedule(conference, json_file(event()))

    report = import_schedule(
        conference, json_file(event(date="2026-04-08T11:00:00+02:00", title="First talk, moved"))
    )

    session = Session.objects.get()
    assert report.updated == {"session": 1}
    assert report.changes == [
        "update session “First talk, moved”: title First talk → First talk, moved "
        "(changed in the file)",
        "update session “First talk, moved”: starts Wed 8 Apr 2026 10:00 CEST → "
        "Wed 8 Apr 2026 11:00 CEST (changed in the file)",
        "update session “First talk, moved”: ends Wed 8 Apr 2026 10:30 CEST → "
        "Wed 8 Apr 2026 11:30 CEST (changed in the file)",
    ]
    assert (session.guid, session.title, session.local_starts_at.time()) == (
        GUID_A,
        "First talk, moved",
        datetime.time(11, 0),
    )


def test_reimport_keeps_the_session_slug(conference):
    import_schedule(conference, json_file(event(slug="test-first-talk")))

    import_schedule(conference, json_file(event(slug="test-renamed-talk")))

    assert Session.objects.get().slug == "first-talk"


def test_reimport_lets_two_sessions_swap_slots(conference):
    ten, eleven = "2026-04-08T10:00:00+02:00", "2026-04-08T11:00:00+02:00"
    import_schedule(
        conference,
        json_file(event(guid=GUID_A, date=ten), event(guid=GUID_B, date=eleven, title="Second")),
    )

    report = import_schedule(
        conference,
        json_file(event(guid=GUID_A, date=eleven), event(guid=GUID_B, date=ten, title="Second")),
    )

    assert report.updated == {"session": 2}
    assert [session.guid for session in Session.objects.order_by("starts_at")] == [GUID_B, GUID_A]


def test_reimport_lets_two_sessions_swap_rooms_without_touching_any_status(conference):
    first, second = {"guid": GUID_A}, {"guid": GUID_B, "title": "Second"}
    import_schedule(
        conference,
        json_file(event(**first, room="Hall"), event(**second, room="Attic"), event(**THIRD)),
    )

    with saved_sessions() as saved, CaptureQueriesContext(connection) as queries:
        report = import_schedule(
            conference,
            json_file(event(**first, room="Attic"), event(**second, room="Hall"), event(**THIRD)),
        )

    assert report.updated == {"session": 2}
    assert report.unchanged == {"room": 2, "session": 1}
    assert sorted(Session.objects.values_list("title", "room__name", "status")) == [
        ("First talk", "Attic", "published"),
        ("Second", "Hall", "published"),
        ("Third", "Hall", "published"),
    ]
    # Each moved session is saved once, as published, and signals see it; nothing else is written.
    assert sorted(saved) == [("First talk", "published"), ("Second", "published")]
    assert [
        query["sql"]
        for query in queries.captured_queries
        if query["sql"].startswith("UPDATE") and "cancelled" in query["sql"]
    ] == []


def test_reimport_into_the_room_of_a_session_missing_from_the_file_is_refused(conference):
    import_schedule(conference, json_file(event()))
    make_session(
        conference,
        title="Organizer's own",
        room=Room.objects.get(name="Hall"),
        starts_at=paris(8, 11),
    )

    error = import_error(conference, json_file(event(date="2026-04-08T11:00:00+02:00")))

    assert error.problems == [
        f'Event “First talk” (guid {GUID_A}, schedule.conference.days[0].rooms["Hall"][0]): '
        "room: Hall already hosts “Organizer's own” then (Wednesday 8 April 2026 11:00–11:30 CEST)."
    ]
    assert Session.objects.get(guid=GUID_A).starts_at == paris(8, 10)


def test_reimport_onto_a_speakers_session_missing_from_the_file_is_refused(conference):
    ada = {"guid": PERSON, "name": "Ada"}
    import_schedule(conference, json_file(event(persons=[ada])))
    make_session(
        conference,
        title="Organizer's own",
        starts_at=paris(8, 11),
        speakers=[Speaker.objects.get(guid=PERSON)],
    )

    error = import_error(
        conference, json_file(event(persons=[ada], date="2026-04-08T11:00:00+02:00"))
    )

    assert error.problems == [
        f'Event “First talk” (guid {GUID_A}, schedule.conference.days[0].rooms["Hall"][0]): '
        "date: Ada already gives “Organizer's own” then (Wednesday 8 April 2026 11:00–11:30 CEST)."
    ]
    assert Session.objects.get(guid=GUID_A).starts_at == paris(8, 10)


def test_reimport_that_moves_a_session_moves_the_conference_changed_at(conference):
    import_schedule(conference, json_file(event()))
    before = Conference.objects.get(pk=conference.pk).changed_at

    import_schedule(conference, json_file(event(date="2026-04-08T11:00:00+02:00")))

    assert Conference.objects.get(pk=conference.pk).changed_at > before


def test_unchanged_reimport_saves_nothing_and_leaves_the_conference_changed_at(conference):
    import_schedule(conference, json_file(event(), event(**THIRD)))
    before = Conference.objects.get(pk=conference.pk).changed_at

    with saved_sessions() as saved:
        import_schedule(conference, json_file(event(), event(**THIRD)))

    assert saved == []
    assert Conference.objects.get(pk=conference.pk).changed_at == before


def test_reimport_updates_speaker_list(conference):
    ada = {"guid": PERSON, "name": "Ada"}
    grace = {"guid": GUID_B, "name": "Grace"}
    import_schedule(conference, json_file(event(persons=[ada])))

    report = import_schedule(conference, json_file(event(persons=[grace, ada])))

    assert report.changes == [
        "create speaker “Grace”",
        "update session “First talk”: speakers Ada → Grace, Ada (changed in the file)",
    ]
    assert [speaker.name for speaker in Session.objects.get().ordered_speakers] == ["Grace", "Ada"]


def test_reimport_matches_a_legacy_guid_by_the_uuid_exports_publish(conference):
    session = make_session(conference, guid="HOqeNIb6G7M4hYFKFRkCmQ", title="Legacy")

    report = import_schedule(conference, export(conference, "json"))

    assert report.unchanged == {"session": 1}
    assert list(Session.objects.values_list("pk", "guid")) == [
        (session.pk, "HOqeNIb6G7M4hYFKFRkCmQ")
    ]


def test_reimport_leaves_sessions_missing_from_the_file_alone(conference):
    kept = make_session(conference, title="Organizer's own", starts_at=paris(8, 14))

    import_schedule(conference, json_file(event()))

    assert sorted(Session.objects.values_list("title", flat=True)) == [
        "First talk",
        "Organizer's own",
    ]
    assert Session.objects.get(pk=kept.pk).title == "Organizer's own"


def test_unchanged_reimport_does_not_touch_updated_at(conference):
    import_schedule(conference, json_file(event()))
    before = Session.objects.get().updated_at

    import_schedule(conference, json_file(event()))

    assert Session.objects.get().updated_at == before


# Re-imports over edits made here -----------------------------------------------------------------


def test_reimport_keeps_a_session_the_organizer_set_back_to_draft(conference):
    import_schedule(conference, json_file(event()))
    Session.objects.filter(guid=GUID_A).unpublish()

    report = import_schedule(conference, json_file(event()))

    assert Session.objects.get().status == Session.Status.DRAFT
    assert report.changes == [
        "keep session “First talk”: status draft (edited here after the last import; the file "
        "still says published)"
    ]
    assert report.unchanged == {"room": 1, "session": 1}


def test_reimport_keeps_hand_edits_of_a_session(conference):
    import_schedule(conference, json_file(event(abstract="From the file.")))
    session = Session.objects.get()
    session.title, session.description = "First talk, retitled", "Written here."
    session.room = make_room(conference, name="Attic")
    session.save()

    with saved_sessions() as saved:
        import_schedule(conference, json_file(event(abstract="From the file.")))

    session = Session.objects.get()
    assert (session.title, session.description, session.room.name) == (
        "First talk, retitled",
        "Written here.",
        "Attic",
    )
    assert saved == []


def test_reimport_keeps_hand_edits_of_a_speaker(conference):
    ada = {"guid": PERSON, "name": "Ada", "biography": "From the file."}
    import_schedule(conference, json_file(event(persons=[ada])))
    Speaker.objects.filter(guid=PERSON).update(name="Ada Lovelace", bio="Written here.")

    report = import_schedule(conference, json_file(event(persons=[ada])))

    assert list(Speaker.objects.values_list("name", "bio")) == [("Ada Lovelace", "Written here.")]
    assert report.kept == {"speaker": 2}


def test_reimport_applies_what_the_file_changed_since_the_last_import(conference):
    import_schedule(conference, json_file(event(abstract="Old abstract.")))
    Session.objects.filter(guid=GUID_A).unpublish()

    report = import_schedule(
        conference, json_file(event(abstract="New abstract.", title="Cancelled: First talk"))
    )

    session = Session.objects.get()
    assert (session.abstract, session.status) == ("New abstract.", Session.Status.CANCELLED)
    assert report.changes == [
        "update session “First talk”: abstract Old abstract. → New abstract. (changed in the file)",
        "update session “First talk”: status draft → cancelled (changed in the file, "
        "overriding an edit made here after the last import)",
    ]
    assert report.overridden == {"session": 1}


def test_reimport_applies_a_speaker_name_the_file_changed(conference):
    import_schedule(conference, json_file(event(persons=[{"guid": PERSON, "name": "Ada"}])))
    Speaker.objects.filter(guid=PERSON).update(name="Ada L.")

    import_schedule(conference, json_file(event(persons=[{"guid": PERSON, "name": "Ada King"}])))

    assert Speaker.objects.get().name == "Ada King"


def test_reimport_remembers_the_file_not_the_kept_edit(conference):
    import_schedule(conference, json_file(event()))
    Session.objects.filter(guid=GUID_A).update(title="Retitled here")
    import_schedule(conference, json_file(event()))  # keeps the edit

    import_schedule(conference, json_file(event()))

    assert Session.objects.get().title == "Retitled here"


def test_reimport_of_a_session_the_file_puts_back_on_applies_the_booking_rules(conference):
    import_schedule(conference, json_file(event(title="Cancelled: First talk")))
    make_session(conference, title="Organizer's own", room=Room.objects.get(name="Hall"))

    error = import_error(conference, json_file(event()))

    assert error.problems == [
        f'Event “First talk” (guid {GUID_A}, schedule.conference.days[0].rooms["Hall"][0]): '
        "room: Hall already hosts “Organizer's own” then (Wednesday 8 April 2026 10:00–10:30 CEST)."
    ]
    assert Session.objects.get(guid=GUID_A).status == Session.Status.CANCELLED


# Reading the records --------------------------------------------------------------------------


def test_import_reads_event_fields(conference):
    import_schedule(
        conference,
        json_file(
            event(
                title="Tiny tensors",
                type="Lightning Talk",
                track="Compilers",
                slug="test-tiny-tensors",
                abstract="Short.",
                description="Longer.",
                persons=[{"guid": PERSON, "name": "Ada", "biography": "Counts."}],
            )
        ),
    )

    session = Session.objects.get()
    assert (session.title, session.slug, session.kind, session.status) == (
        "Tiny tensors",
        "tiny-tensors",
        Session.Kind.LIGHTNING_TALK,
        Session.Status.PUBLISHED,
    )
    assert (session.room.name, session.track.name) == ("Hall", "Compilers")
    assert (session.abstract, session.description) == ("Short.", "Longer.")
    assert [(s.guid, s.name, s.bio) for s in session.ordered_speakers] == [
        (PERSON, "Ada", "Counts.")
    ]


def test_import_takes_track_colours_the_model_accepts_in_lower_case_and_ignores_others(
    conference,
):
    document = json_document(event(track="Compilers"))
    document["schedule"]["conference"]["tracks"] = [
        {"name": "Compilers", "color": "#EE4C2C"},
        {"name": "Kernels", "color": "red"},
    ]

    import_schedule(conference, io.BytesIO(json.dumps(document).encode()))

    assert sorted(Track.objects.values_list("name", "colour")) == [
        ("Compilers", "#ee4c2c"),
        ("Kernels", "#5b6b7f"),
    ]


def test_import_stores_a_legacy_guid_as_the_uuid_exports_publish_and_matches_it_again(
    conference,
):
    source = xml_event(guid="HOqeNIb6G7M4hYFKFRkCmQ")
    import_schedule(conference, xml_file(source))

    report = import_schedule(conference, xml_file(source))

    assert report.unchanged == {"session": 1, "room": 1}
    assert Session.objects.get().guid == export_guid("HOqeNIb6G7M4hYFKFRkCmQ")


def test_import_derives_a_stable_guid_for_a_frab_person_without_one(conference):
    frab_person = {"id": 1544, "public_name": "erdgeist"}
    import_schedule(conference, json_file(event(persons=[frab_person])))

    report = import_schedule(conference, json_file(event(persons=[frab_person])))

    assert report.unchanged == {"room": 1, "speaker": 1, "session": 1}
    assert Speaker.objects.get().guid == str(
        uuid.uuid5(uuid.NAMESPACE_URL, "urn:confsched:person:id:1544:erdgeist")
    )


def test_import_gives_sessions_with_one_title_distinct_slugs(conference):
    import_schedule(
        conference,
        json_file(
            event(guid=GUID_A, slug=None),
            event(guid=GUID_B, slug=None, date="2026-04-08T11:00:00+02:00"),
        ),
    )

    assert sorted(Session.objects.values_list("slug", flat=True)) == ["first-talk", "first-talk-2"]


def test_import_reads_a_date_without_offset_in_the_conference_zone(conference):
    import_schedule(conference, json_file(event(date="2026-04-08T10:00:00")))

    assert Session.objects.get().starts_at == paris(8, 10)


def test_import_maps_frab_lecture_type_to_talk(conference):
    import_schedule(conference, json_file(event(type="lecture")))

    assert Session.objects.get().kind == Session.Kind.TALK


# Refusals: a clear message naming the record, and nothing written ----------------------------


def test_broken_xml_is_refused_with_its_line(conference):
    broken = io.BytesIO(b'<?xml version="1.0"?>\n<schedule>\n<version>1</versio>\n</schedule>')

    error = import_error(conference, broken)

    assert str(error) == "The file is not well-formed XML: mismatched tag (line 3, column 13)."
    assert Session.objects.count() == 0


def test_invalid_json_is_refused_with_its_line(conference):
    error = import_error(conference, io.BytesIO(b'{"schedule":\n {"version": 1,}}'))

    assert str(error) == (
        "The file is not valid JSON: Expecting property name enclosed in double quotes "
        "(line 2, column 16)."
    )


def test_json_value_of_the_wrong_type_names_the_event_and_field(conference):
    error = import_error(conference, json_file(event(title=42)))

    assert error.problems == [
        f'Event (guid {GUID_A}, schedule.conference.days[0].rooms["Hall"][0]): title: '
        "expected a string, got 42."
    ]
    assert counts() == dict.fromkeys(("Room", "Track", "Speaker", "Session", "SessionSpeaker"), 0)


def test_json_persons_that_are_not_a_list_are_refused(conference):
    error = import_error(conference, json_file(event(persons="Ada")))

    assert error.problems == [
        f'Event “First talk” (guid {GUID_A}, schedule.conference.days[0].rooms["Hall"][0]): '
        'persons: expected a list, got "Ada".'
    ]


def test_json_without_days_is_refused(conference):
    document = json_document(event())
    del document["schedule"]["conference"]["days"]

    error = import_error(conference, io.BytesIO(json.dumps(document).encode()))

    assert str(error) == "schedule.conference: days: missing."


def test_json_room_missing_from_the_declared_rooms_is_refused(conference):
    error = import_error(
        conference,
        json_file(event(room="Attic"), rooms=[{"name": "Hall", "guid": GUID_B}]),
    )

    assert error.problems == [
        'schedule.conference.days[0].rooms["Attic"]: room: “Attic” is not in '
        "schedule.conference.rooms."
    ]
    assert counts() == dict.fromkeys(("Room", "Track", "Speaker", "Session", "SessionSpeaker"), 0)


def test_xml_event_naming_another_room_is_refused(conference):
    error = import_error(conference, xml_file(xml_event(room="Attic")))

    assert error.problems == [
        f"Event “First talk” (guid {GUID_A}, line 7): room: “Attic” is not the room it is "
        "listed under (“Hall”)."
    ]
    assert counts() == dict.fromkeys(("Room", "Track", "Speaker", "Session", "SessionSpeaker"), 0)


def test_overlapping_sessions_in_one_room_are_refused_and_nothing_is_written(conference):
    error = import_error(
        conference,
        xml_file(
            xml_event(guid=GUID_A, title="First"),
            xml_event(guid=GUID_B, title="Second", date="2026-04-08T10:15:00+02:00"),
        ),
    )

    assert error.problems == [
        f"Event “Second” (guid {GUID_B}, line 8): room: Hall already hosts “First” then "
        "(Wednesday 8 April 2026 10:00–10:30 CEST)."
    ]
    assert counts() == dict.fromkeys(("Room", "Track", "Speaker", "Session", "SessionSpeaker"), 0)


def test_clash_with_an_existing_session_is_refused(conference):
    make_session(conference, title="Already there", room=make_room(conference, name="Hall"))

    error = import_error(conference, json_file(event()))

    assert error.problems == [
        f'Event “First talk” (guid {GUID_A}, schedule.conference.days[0].rooms["Hall"][0]): '
        "room: Hall already hosts “Already there” then (Wednesday 8 April 2026 10:00–10:30 CEST)."
    ]


def test_event_outside_the_conference_days_is_refused(conference):
    error = import_error(conference, json_file(event(date="2026-04-10T10:00:00+02:00")))

    assert error.problems == [
        f'Event “First talk” (guid {GUID_A}, schedule.conference.days[0].rooms["Hall"][0]): '
        f"date: {conference} runs from Tuesday 7 April 2026 to Wednesday 8 April 2026 "
        "(Europe/Paris); this session must lie within those days."
    ]
    assert counts() == dict.fromkeys(("Room", "Track", "Speaker", "Session", "SessionSpeaker"), 0)


def test_failed_import_leaves_the_existing_schedule_untouched(conference):
    import_schedule(conference, json_file(event(guid=GUID_A, title="Original")))

    import_error(
        conference,
        json_file(
            event(guid=GUID_A, title="Renamed"),
            event(guid=GUID_B, date="2026-04-10T10:00:00+02:00"),
        ),
    )

    assert list(Session.objects.values_list("title", "status")) == [("Original", "published")]


def test_every_problem_is_listed(conference):
    error = import_error(
        conference,
        json_file(event(guid=GUID_A, duration="half an hour"), event(guid=GUID_B, date="soon")),
    )

    assert str(error) == (
        "2 problems:\n"
        f'- Event “First talk” (guid {GUID_A}, schedule.conference.days[0].rooms["Hall"][0]): '
        "duration: “half an hour” is not a duration like 00:30 or 1:30.\n"
        f'- Event “First talk” (guid {GUID_B}, schedule.conference.days[0].rooms["Hall"][1]): '
        "date: “soon” is not a date and time like 2026-04-08T10:35:00+02:00."
    )


def test_duplicate_event_guid_is_refused(conference):
    error = import_error(
        conference,
        xml_file(
            xml_event(guid=GUID_A, title="First"),
            xml_event(guid=GUID_A, title="Again", date="2026-04-08T11:00:00+02:00"),
        ),
    )

    assert error.problems == [
        f"Event “Again” (guid {GUID_A}, line 8): guid: also used by "
        f"Event “First” (guid {GUID_A}, line 7)."
    ]


def test_title_too_long_for_the_model_is_refused(conference):
    error = import_error(conference, json_file(event(title="T" * 301)))

    assert error.problems == [
        f'Event “{"T" * 301}” (guid {GUID_A}, schedule.conference.days[0].rooms["Hall"][0]): '
        "title: Ensure this value has at most 300 characters (it has 301)."
    ]


NOTHING_WRITTEN = dict.fromkeys(("Room", "Track", "Speaker", "Session", "SessionSpeaker"), 0)


def test_room_capacity_too_large_for_any_number_names_the_room_and_writes_nothing(conference):
    source = json_file(event(), rooms=[{"name": "Hall", "capacity": 1}])
    source = io.BytesIO(source.getvalue().replace(b'"capacity": 1', b'"capacity": 1e999'))

    error = import_error(conference, source)

    assert error.problems == [
        "Room “Hall” (schedule.conference.rooms[0]): capacity: Infinity is not a number of "
        "seats like 120."
    ]
    assert counts() == NOTHING_WRITTEN


@pytest.mark.parametrize("kind", ["json", "xml"])
def test_end_after_the_year_9999_names_the_event_and_writes_nothing(conference, kind):
    late = "9999-12-31T23:50:00+02:00"
    source = json_file(event(date=late)) if kind == "json" else xml_file(xml_event(date=late))
    location = 'schedule.conference.days[0].rooms["Hall"][0]' if kind == "json" else "line 7"

    error = import_error(conference, source)

    assert error.problems == [
        f"Event “First talk” (guid {GUID_A}, {location}): duration: "
        "9999-12-31T23:50:00+02:00 plus 0:30:00 ends after the year 9999."
    ]
    assert counts() == NOTHING_WRITTEN


def test_date_beyond_the_year_9999_in_utc_names_the_event_and_writes_nothing(conference):
    error = import_error(conference, json_file(event(date="9999-12-31T23:50:00-02:00")))

    assert error.problems == [
        f'Event “First talk” (guid {GUID_A}, schedule.conference.days[0].rooms["Hall"][0]): '
        "date: “9999-12-31T23:50:00-02:00” lies outside the years 1 to 9999 in UTC."
    ]
    assert counts() == NOTHING_WRITTEN


def test_nul_in_a_title_names_the_event_and_field_and_writes_nothing(conference):
    error = import_error(conference, json_file(event(title="First\x00talk")))

    assert error.problems == [
        f'Event “First\u2400talk” (guid {GUID_A}, schedule.conference.days[0].rooms["Hall"][0]): '
        "title: contains a NUL character (U+0000), which no text here may hold."
    ]
    assert counts() == NOTHING_WRITTEN


def test_nul_in_a_person_name_names_the_person_and_field_and_writes_nothing(conference):
    error = import_error(
        conference, json_file(event(persons=[{"guid": PERSON, "name": "Ada\x00Lovelace"}]))
    )

    assert error.problems == [
        f'Event “First talk” (guid {GUID_A}, schedule.conference.days[0].rooms["Hall"][0]), '
        "persons[0]: name: contains a NUL character (U+0000), which no text here may hold."
    ]
    assert counts() == NOTHING_WRITTEN


def test_nul_in_xml_is_refused_as_not_well_formed(conference):
    error = import_error(conference, xml_file(xml_event(title="First&#0;talk")))

    assert str(error) == (
        "The file is not well-formed XML: reference to invalid character number "
        "(line 7, column 172)."
    )
    assert counts() == NOTHING_WRITTEN


def test_huge_input_is_refused(conference):
    error = import_error(conference, io.BytesIO(b" " * (MAX_IMPORT_BYTES + 1)))

    assert (
        str(error) == "The file is larger than 20 MB; a schedule is far smaller, so it is refused."
    )


def test_huge_file_is_refused_before_reading(conference, tmp_path):
    path = tmp_path / "schedule.xml"
    with path.open("wb") as file:
        file.truncate(MAX_IMPORT_BYTES + 1)

    error = import_error(conference, path)

    assert (
        str(error) == "The file is larger than 20 MB; a schedule is far smaller, so it is refused."
    )


def test_doctype_is_refused(conference):
    error = import_error(
        conference,
        xml_file(
            xml_event(), prolog='<?xml version="1.0"?>\n<!DOCTYPE schedule [<!ENTITY x "y">]>'
        ),
    )

    assert str(error) == (
        "The file declares a DOCTYPE or ENTITY. Schedules never need one, and entity expansion "
        "can exhaust the server, so such files are refused."
    )
    assert Session.objects.count() == 0


def test_entity_declaration_is_refused(conference):
    error = import_error(conference, io.BytesIO(b'<!ENTITY lol "lol"><schedule/>'))

    assert str(error).startswith("The file declares a DOCTYPE or ENTITY.")


def test_doctype_hidden_by_utf16_encoding_is_refused(conference):
    document = '<?xml version="1.0" encoding="UTF-16"?>\n<!DOCTYPE schedule>\n<schedule/>'

    error = import_error(conference, io.BytesIO(document.encode("utf-16")))

    assert str(error).startswith("The file declares a DOCTYPE or ENTITY.")


def test_file_that_is_neither_xml_nor_json_is_refused(conference):
    error = import_error(conference, io.BytesIO(b"BEGIN:VCALENDAR\r\n"))

    assert str(error) == (
        "The file is neither schedule.xml nor JSON (frab or Sessionize): it starts with neither "
        "“<” nor “{”; nor is it a CSV table, whose first row names a “title” column."
    )


def test_missing_file_is_refused(conference, tmp_path):
    error = import_error(conference, tmp_path / "nowhere.xml")

    assert str(error) == f"No such file: {tmp_path / 'nowhere.xml'}"


# Dry runs -------------------------------------------------------------------------------------


def test_dry_run_writes_nothing(demo):
    copy = make_conference(slug="copy-2026")
    before = counts()

    report = import_schedule(copy, export(demo, "json"), dry_run=True)

    assert counts() == before
    assert report.created == {"room": 4, "track": 8, "speaker": 43, "session": 29}


def test_dry_run_reports_what_would_change(conference):
    make_speaker(conference, name="Ada", guid=PERSON)

    report = import_schedule(
        conference,
        json_file(event(persons=[{"guid": PERSON, "name": "Ada Lovelace"}])),
        dry_run=True,
    )

    assert report.dry_run is True
    assert report.changes == [
        "create room “Hall”",
        "update speaker “Ada Lovelace”: name Ada → Ada Lovelace (no earlier import recorded)",
        "create session “First talk”",
    ]
    assert Speaker.objects.get().name == "Ada"


def test_dry_run_still_reports_problems(conference):
    with pytest.raises(ScheduleImportError) as caught:
        import_schedule(
            conference, json_file(event(date="2026-04-10T10:00:00+02:00")), dry_run=True
        )

    assert caught.value.problems[0].endswith("this session must lie within those days.")


# The command ----------------------------------------------------------------------------------


def write(tmp_path, source, name="schedule.json"):
    path = tmp_path / name
    path.write_bytes(source.getvalue())
    return path


def test_command_imports_and_summarises(conference, tmp_path):
    path = write(tmp_path, json_file(event(persons=[{"guid": PERSON, "name": "Ada"}])))
    output = io.StringIO()

    call_command("import_schedule", str(path), conference="target-2026", stdout=output)

    assert output.getvalue().splitlines() == [
        "rooms: 1 created, 0 updated, 0 unchanged",
        "tracks: 0 created, 0 updated, 0 unchanged",
        "speakers: 1 created, 0 updated, 0 unchanged",
        "sessions: 1 created, 0 updated, 0 unchanged",
        f"Imported schedule.json into {conference}.",
    ]
    assert Session.objects.get().title == "First talk"


def test_command_dry_run_lists_changes_and_writes_nothing(conference, tmp_path):
    path = write(tmp_path, json_file(event()))
    output = io.StringIO()

    call_command(
        "import_schedule", str(path), conference="target-2026", dry_run=True, stdout=output
    )

    assert output.getvalue().splitlines() == [
        "would create room “Hall”",
        "would create session “First talk”",
        "rooms: 1 created, 0 updated, 0 unchanged",
        "tracks: 0 created, 0 updated, 0 unchanged",
        "speakers: 0 created, 0 updated, 0 unchanged",
        "sessions: 1 created, 0 updated, 0 unchanged",
        "Dry run: nothing was written.",
    ]
    assert Session.objects.count() == 0


def test_command_dry_run_says_which_fields_would_change_and_why(conference, tmp_path):
    import_schedule(conference, json_file(event()))
    Session.objects.filter(guid=GUID_A).unpublish()
    Session.objects.filter(guid=GUID_A).update(title="Tensors, retitled")
    path = write(tmp_path, json_file(event(room="Attic")))
    output = io.StringIO()

    call_command(
        "import_schedule", str(path), conference="target-2026", dry_run=True, stdout=output
    )

    assert output.getvalue().splitlines() == [
        "would create room “Attic”",
        "would keep session “First talk”: title Tensors, retitled (edited here after the last "
        "import; the file still says First talk)",
        "would update session “First talk”: room Hall → Attic (changed in the file)",
        "would keep session “First talk”: status draft (edited here after the last import; "
        "the file still says published)",
        "rooms: 1 created, 0 updated, 0 unchanged",
        "tracks: 0 created, 0 updated, 0 unchanged",
        "speakers: 0 created, 0 updated, 0 unchanged",
        "sessions: 0 created, 1 updated, 0 unchanged; fields edited here: 2 kept, "
        "0 overridden by the file",
        "Dry run: nothing was written.",
    ]
    assert Session.objects.get().room.name == "Hall"


def test_command_says_which_edits_made_here_the_file_overrode(conference, tmp_path):
    import_schedule(conference, json_file(event()))
    Session.objects.filter(guid=GUID_A).update(room=make_room(conference, name="Stage"))
    path = write(tmp_path, json_file(event(room="Attic")))
    output = io.StringIO()

    call_command("import_schedule", str(path), conference="target-2026", stdout=output)

    assert output.getvalue().splitlines()[0] == (
        "update session “First talk”: room Stage → Attic (changed in the file, overriding an "
        "edit made here after the last import)"
    )
    assert Session.objects.get().room.name == "Attic"


def test_command_reports_import_problems_as_command_error(conference, tmp_path):
    path = write(tmp_path, xml_file(xml_event(room="Attic")), name="schedule.xml")

    with pytest.raises(CommandError) as caught:
        call_command("import_schedule", str(path), conference="target-2026")

    assert str(caught.value) == (
        f"Event “First talk” (guid {GUID_A}, line 7): room: “Attic” is not the room it is "
        "listed under (“Hall”).\nNothing was imported."
    )


def test_command_refuses_an_unknown_conference(tmp_path):
    path = write(tmp_path, json_file(event()))

    with pytest.raises(CommandError) as caught:
        call_command("import_schedule", str(path), conference="nope")

    assert str(caught.value) == "There is no conference with the slug “nope”."


def test_command_refuses_a_missing_file(conference, tmp_path):
    with pytest.raises(CommandError) as caught:
        call_command("import_schedule", str(tmp_path / "nowhere.json"), conference="target-2026")

    assert str(caught.value) == f"No such file: {tmp_path / 'nowhere.json'}"


# Versions: what an import changes is stale for forms opened before it -------------------------


def test_reimport_moves_the_version_of_what_it_changes_and_of_nothing_else(conference):
    second = event(guid=GUID_B, title="Second talk", date="2026-04-08T11:00:00+02:00")
    import_schedule(conference, json_file(event(), second))

    import_schedule(conference, json_file(event(title="First talk, renamed"), second))

    assert sorted(Session.objects.values_list("title", "version")) == [
        ("First talk, renamed", 2),
        ("Second talk", 1),
    ]
    assert Room.objects.get().version == 1


def test_an_import_refuses_a_session_someone_saves_while_it_runs(conference, monkeypatch):
    import_schedule(conference, json_file(event()))
    full_clean = Session.full_clean

    def organizer_saves_meanwhile(session, *args, **kwargs):
        full_clean(session, *args, **kwargs)
        Session.objects.filter(pk=session.pk).update(description="Edited in the admin.")

    monkeypatch.setattr(Session, "full_clean", organizer_saves_meanwhile)
    error = import_error(conference, json_file(event(title="First talk, renamed")))

    assert error.problems == [
        f'Event “First talk, renamed” (guid {GUID_A}, schedule.conference.days[0].rooms["Hall"][0]): '
        "Someone else saved this session after the version this change is based on "
        "(version 1; it is now at version 2)."
    ]
    assert Session.objects.values_list("title", "version").get() == ("First talk", 1)


# Holding conflicts for review ------------------------------------------------------------------


def make_31c3():
    return make_conference(
        slug="31c3",
        starts_on=datetime.date(2014, 12, 27),
        ends_on=datetime.date(2014, 12, 30),
        time_zone="Europe/Berlin",
    )


def make_jev22():
    return make_conference(
        slug="jev22",
        starts_on=datetime.date(2022, 12, 26),
        ends_on=datetime.date(2022, 12, 31),
        time_zone="Europe/Amsterdam",
    )


def test_import_31c3_holding_conflicts_imports_everything_and_holds_the_two_stream_twins(
    reference_schedules,
):
    congress = make_31c3()

    report = import_schedule(
        congress, reference_schedules / "31c3-frab-legacy.schedule.xml", hold_conflicts=True
    )

    assert report.created["session"] == 138
    # Every event's links kept: 63 events carry some.
    assert Session.objects.filter(links__isnull=False).distinct().count() == 63
    held = Session.objects.filter(conference=congress).exclude(held_reason="")
    assert sorted((session.title, session.status, session.starts_at) for session in held) == [
        ("Fnord News Show (Stream)", "draft", None),
        ("Security Nightmares (Stream)", "draft", None),
    ]
    fnord = held.get(title="Fnord News Show (Stream)")
    assert fnord.held_reason == (
        "Fefe already gives “Fnord News Show” then (Monday 29 December 2014 00:15–01:45 CET)."
    )
    assert fnord.planned_minutes == 90
    assert [speaker.name for speaker in fnord.ordered_speakers] == ["Fefe", "Frank Rieger"]
    assert report.held == [
        f"hold session “Fnord News Show (Stream)”: {fnord.held_reason}",
        "hold session “Security Nightmares (Stream)”: Ron already gives “Security Nightmares” "
        "then (Tuesday 30 December 2014 17:15–18:15 CET).",
    ]


def test_reimporting_31c3_matches_held_sessions_and_writes_nothing(reference_schedules):
    congress = make_31c3()
    path = reference_schedules / "31c3-frab-legacy.schedule.xml"
    import_schedule(congress, path, hold_conflicts=True)
    before = counts()

    report = import_schedule(congress, path, hold_conflicts=True)

    assert counts() == before
    assert report.created["session"] == 0
    assert report.updated["session"] == 0
    assert len(report.held) == 2


def test_held_session_is_placed_by_a_reimport_once_its_conflict_is_gone(reference_schedules):
    jev = make_jev22()
    path = reference_schedules / "jev22-everything.schedule.xml"
    import_schedule(jev, path, hold_conflicts=True)
    kleidertausch = Session.objects.get(guid="f8734889-2c55-55ef-9d81-cb9b69953f04")
    assert kleidertausch.starts_at is None

    Speaker.objects.filter(conference=jev, name="Forum für Freiraum").update(
        appears_in_parallel=True
    )
    import_schedule(jev, path, hold_conflicts=True)

    kleidertausch.refresh_from_db()
    assert kleidertausch.held_reason == ""
    assert kleidertausch.local_starts_at.isoformat() == "2022-12-26T12:00:00+01:00"


def test_import_jev22_holding_conflicts_holds_each_clashing_session(reference_schedules):
    jev = make_jev22()

    report = import_schedule(
        jev, reference_schedules / "jev22-everything.schedule.xml", hold_conflicts=True
    )

    held = Session.objects.filter(conference=jev).exclude(held_reason="")
    assert report.created["session"] == Session.objects.filter(conference=jev).count()
    assert len(report.held) == held.count() == 29
    assert not held.exclude(starts_at=None).exists()
    assert held.get(guid="f8734889-2c55-55ef-9d81-cb9b69953f04").held_reason == (
        "Forum für Freiraum already gives “Urbane Praxis, Stadt von unten & Raum für alle” then "
        "(Monday 26 December 2022 10:00–16:00 CET)."
    )


def test_hold_conflicts_still_refuses_a_record_that_breaks_another_rule(conference):
    document = json_file(
        event(guid=GUID_A, title="Fine"),
        event(guid=GUID_B, title="Same slot, same room"),  # held
        event(guid=THIRD["guid"], title="T" * 301, date=THIRD["date"]),  # refused
    )

    with pytest.raises(ScheduleImportError) as caught:
        import_schedule(conference, document, hold_conflicts=True)

    assert [problem.split("): ", 1)[1] for problem in caught.value.problems] == [
        "title: Ensure this value has at most 300 characters (it has 301)."
    ]
    assert Session.objects.count() == 0


def test_command_hold_conflicts_prints_each_held_session(reference_schedules):
    make_31c3()
    out = io.StringIO()

    call_command(
        "import_schedule",
        str(reference_schedules / "31c3-frab-legacy.schedule.xml"),
        conference="31c3",
        hold_conflicts=True,
        stdout=out,
    )

    assert "hold session “Fnord News Show (Stream)”: Fefe already gives" in out.getvalue()
    assert "sessions: 138 created, 0 updated, 0 unchanged; 2 held for review" in out.getvalue()


@pytest.mark.parametrize("n", [5, 20])
def test_import_queries_grow_by_at_most_seven_a_session(
    conference, django_assert_max_num_queries, n
):
    """Per session: its room's clash check, its speakers' one, three INSERTs, and the webhooks'
    outbox rows of the session and its speaker (conference/webhooks/delivery.py)."""
    events = [
        event(
            guid=str(uuid.UUID(int=number + 1)),
            title=f"Talk {number}",
            slug=f"talk-{number}",
            date=(paris(8, 8) + datetime.timedelta(minutes=30 * number)).isoformat(),
            persons=[{"name": f"Speaker {number}"}],
        )
        for number in range(n)
    ]

    with django_assert_max_num_queries(25 + 7 * n):
        report = import_schedule(conference, json_file(*events))

    assert report.created["session"] == n


@pytest.mark.parametrize("dry_run", [True, False])
def test_an_import_refreshes_the_query_planners_statistics(reference_schedules, dry_run):
    """Without them SQLite reads every session of a conference to list one speaker's."""
    congress = make_conference(
        slug="39c3",
        starts_on=datetime.date(2025, 12, 27),
        ends_on=datetime.date(2025, 12, 30),
        time_zone="Europe/Berlin",
    )
    with CaptureQueriesContext(connection) as queries:
        import_schedule(
            congress, reference_schedules / "39c3-himmel.schedule.json", dry_run=dry_run
        )
    analyzed = any(query["sql"].strip().upper().startswith("ANALYZE") for query in queries)
    assert analyzed is not dry_run


@pytest.mark.skipif(connection.vendor != "sqlite", reason="SQLite's planner and statistics")
def test_after_an_import_the_schedule_finds_its_speakers_through_the_sessions_shown(
    reference_schedules,
):
    """With statistics of every table SQLite walked every speaker, looking each up in the list
    of sessions shown: seconds for a schedule of 10,000 sessions."""
    congress = make_conference(
        slug="39c3",
        starts_on=datetime.date(2025, 12, 27),
        ends_on=datetime.date(2025, 12, 30),
        time_zone="Europe/Berlin",
    )
    import_schedule(congress, reference_schedules / "39c3-himmel.schedule.json")
    sessions = list(Session.objects.filter(conference=congress).for_cards())

    query = str(Speaker.objects.filter(session_links__session__in=sessions).query)
    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN QUERY PLAN {query}")
        plan = " | ".join(row[3] for row in cursor.fetchall())

    assert plan.startswith("SEARCH schedule_sessionspeaker"), plan


def test_reimport_keeps_the_links_speakers_added(conference, django_user_model):
    first = [{"url": "https://a.example/1", "title": "One", "type": "slides"}]
    import_schedule(conference, json_file(event(attachments=first)))
    session = Session.objects.get()
    speaker_user = django_user_model.objects.create_user("ada")
    session.speakers.add(make_speaker(conference, user=speaker_user), through_defaults={})
    Attachment.objects.create(
        session=session, title="Recording", url="https://v.example/r", added_by=speaker_user
    )

    second = [{"url": "https://a.example/2", "title": "Two", "type": "slides"}]
    import_schedule(conference, json_file(event(attachments=second)))

    assert sorted(session.attachments.values_list("title", "url", "added_by")) == [
        ("Recording", "https://v.example/r", speaker_user.pk),
        ("Two", "https://a.example/2", None),
    ]


def test_reimport_of_an_export_adds_a_speakers_link_no_second_time(conference, django_user_model):
    import_schedule(conference, json_file(event()))
    session = Session.objects.get()
    Attachment.objects.create(
        session=session,
        title="Recording",
        url="https://v.example/r",
        added_by=django_user_model.objects.create_user("ada"),
    )
    exported = [{"url": "https://v.example/r", "title": "Recording", "type": "media"}]
    for _ in range(2):
        import_schedule(conference, json_file(event(attachments=exported)))

    assert list(session.attachments.values_list("url", flat=True)) == ["https://v.example/r"]

"""CSV tables and Sessionize's “All Data” JSON: parsed into the same records as frab files and
written by the same writer under the same rules."""

import datetime
import io
import json
import uuid
from pathlib import Path

import pytest
from django.core.management import call_command
from django.urls import reverse
from lxml import etree

from sessions.exports.frab_schedule import build_frab_data, build_frab_xml
from sessions.importers import ScheduleImportError, import_schedule
from sessions.importers.spreadsheet import EXAMPLE_CSV
from sessions.models import Session
from speakers.models import Speaker
from tests.builders import make_conference, make_room, make_session, make_speaker, paris

pytestmark = pytest.mark.django_db

SESSIONIZE = Path(__file__).parent / "data" / "sessionize-all-data.json"
HEADER = "id,title,kind,track,room,date,start,end,duration,speakers,description,level,status\n"


def csv_file(*rows, header=HEADER, name="sessions.csv"):
    upload = io.BytesIO((header + "".join(f"{row}\n" for row in rows)).encode())
    upload.name = name
    return upload


def problems_of(conference, upload, **options):
    with pytest.raises(ScheduleImportError) as caught:
        import_schedule(conference, upload, **options)
    return caught.value.problems


def described(conference):
    return [
        (
            session.title,
            session.kind,
            session.track.name if session.track else None,
            session.room.name if session.room else None,
            session.local_starts_at.strftime("%d %H:%M") if session.starts_at else None,
            session.local_ends_at.strftime("%H:%M") if session.ends_at else None,
            [speaker.name for speaker in session.ordered_speakers],
            session.audience_level,
            session.status,
        )
        for session in Session.objects.filter(conference=conference).order_by("title")
    ]


# CSV ------------------------------------------------------------------------------------------


def test_example_csv_imports_every_row(conference):
    report = import_schedule(conference, csv_file(*EXAMPLE_CSV.splitlines(), header=""))

    assert report.created == {"room": 2, "track": 2, "speaker": 4, "session": 4}
    assert described(conference) == [
        ("Lunch", "break", None, None, "08 12:30", "13:30", [], "any", "published"),
        (
            "Opening keynote",
            "keynote",
            None,
            "Main Hall",
            "08 09:00",
            "09:45",
            ["Ada Lovelace"],
            "any",
            "published",
        ),
        (
            "Tensors from scratch",
            "workshop",
            "Training",
            "Room B",
            "08 14:00",
            "15:30",
            ["Grace Hopper", "Alan Turing"],
            "beginner",
            "published",
        ),
        (
            "The future of compilers",
            "panel",
            "Compilers",
            None,
            None,
            None,
            ["Grace Hopper", "Edsger Dijkstra"],
            "advanced",
            "draft",
        ),
    ]
    assert Session.objects.get(title="The future of compilers").planned_minutes == 45


def test_csv_reimport_matches_by_id_and_keeps_edits(conference):
    row = "talk-1,Tensors,talk,,Hall,2026-04-08,10:00,10:30,,Grace Hopper,,,"
    import_schedule(conference, csv_file(row))
    Session.objects.update(title="Tensors, retitled here")

    report = import_schedule(conference, csv_file(row))

    assert report.created["session"] == 0
    assert Session.objects.get().title == "Tensors, retitled here"


def test_csv_session_has_one_guid_in_the_api_and_both_exports(client, conference):
    import_schedule(
        conference, csv_file("csv-701,Tensors,talk,,Hall,2026-04-08,10:00,10:30,,Ada,,,")
    )
    session = Session.objects.get()
    api = client.get(
        reverse(
            "api:session-detail",
            kwargs={"conference_slug": conference.slug, "slug": session.slug},
        )
    ).json()
    listing = list(Session.objects.public().for_listing().filter(conference=conference))
    frab_json = build_frab_data(conference, listing, base_url="https://example.org")
    [event] = frab_json["schedule"]["conference"]["days"][1]["rooms"]["Hall"]
    xml = etree.fromstring(build_frab_xml(conference, listing, base_url="https://example.org"))

    # The UUID frab requires, the one our exports always gave this id: a re-import still finds it.
    assert session.guid == str(uuid.uuid5(uuid.NAMESPACE_URL, "urn:confsched:legacy-guid:csv-701"))
    assert [api["guid"], event["guid"], xml.find("day/room/event").get("guid")] == [
        session.guid
    ] * 3


def test_csv_reimport_by_id_matches_a_session_imported_before_its_guid_was_a_uuid(conference):
    make_session(conference, guid="talk-1", title="Tensors, retitled here")
    row = "talk-1,Tensors,talk,,Hall,2026-04-08,10:00,10:30,,Grace Hopper,,,"

    report = import_schedule(conference, csv_file(row))

    assert report.created["session"] == 0
    assert list(Session.objects.values_list("guid", flat=True)) == ["talk-1"]


def test_csv_speaker_matches_a_speaker_made_in_the_admin_by_name(conference):
    grace = make_speaker(conference=conference, name="Grace Hopper")

    import_schedule(
        conference, csv_file("t1,Tensors,talk,,Hall,2026-04-08,10:00,,30,grace hopper,,,")
    )

    assert Speaker.objects.get() == grace
    assert list(Session.objects.get().ordered_speakers) == [grace]


def test_csv_accepts_semicolons_and_a_byte_order_mark(conference):
    upload = io.BytesIO("\ufefftitle;date;start;duration\nTensors;2026-04-08;10:00;30\n".encode())
    upload.name = "export.csv"

    import_schedule(conference, upload)

    assert Session.objects.get().local_ends_at.strftime("%H:%M") == "10:30"


@pytest.mark.parametrize(
    ("row", "problem"),
    [
        (",,talk,,,,,,,,,,", "Row 2, column title: missing."),
        (
            "x,Tensors,tlak,,,,,,,,,,",
            "Row 2 (“Tensors”), column kind: “tlak” is not one of keynote, talk, "
            "lightning-talk, panel, workshop, break.",
        ),
        (
            "x,Tensors,,,Hall,2026-04-08,25:00,,30,,,,",
            "Row 2 (“Tensors”), column start: “25:00” is not a time like 10:35.",
        ),
        (
            "x,Tensors,,,Hall,08/04/2026,10:00,,30,,,,",
            "Row 2 (“Tensors”), column date: “08/04/2026” is not a date like 2026-04-08.",
        ),
        (
            "x,Tensors,,,Hall,2026-04-08,10:00,,,,,,",
            "Row 2 (“Tensors”), column end: missing; give an end or a duration.",
        ),
        (
            "x,Tensors,,,Hall,,,,30,,,,",
            "Row 2 (“Tensors”), column room: a session without a date and start waits "
            "unscheduled and has no room yet; give it a date and start, or leave the room empty.",
        ),
        (
            "x,Tensors,,,,,,,30,,,expert,",
            "Row 2 (“Tensors”), column level: “expert” is not one of any, beginner, "
            "intermediate, advanced.",
        ),
        (
            "x,Tensors,,,Hall,2026-04-09,10:00,,30,,,,",
            "Row 2 (“Tensors”): start: Conference 1 runs from Tuesday 7 April 2026 to Wednesday "
            "8 April 2026 (Europe/Paris); this session must lie within those days.",
        ),
    ],
)
def test_csv_problem_names_row_and_column(row, problem):
    conference = make_conference(name="Conference 1")

    assert problems_of(conference, csv_file(row)) == [problem]
    assert Session.objects.count() == 0


# The nights the clocks change in Berlin: they skip 02:00–03:00 on 29 March 2026 and pass it
# twice on 25 October 2026. Rows are refused as the admin refuses such a typed time.
SKIPPED = (
    "02:30 does not exist on Sunday 29 March 2026 in Europe/Berlin: the clocks jump from 02:00 "
    "to 03:00 that night."
)
TWICE = (
    "02:30 happens twice on Sunday 25 October 2026 in Europe/Berlin: the clocks go back from "
    "03:00 to 02:00 that night."
)


@pytest.fixture
def berlin():
    return make_conference(
        time_zone="Europe/Berlin",
        starts_on=datetime.date(2026, 3, 28),
        ends_on=datetime.date(2026, 10, 25),
    )


@pytest.mark.parametrize(
    ("row", "problem"),
    [
        ("x,Tensors,,,Hall,2026-03-29,02:30,03:30,,,,,", f"column start: {SKIPPED}"),
        ("x,Tensors,,,Hall,2026-03-29,02:30,,30,,,,", f"column start: {SKIPPED}"),
        ("x,Tensors,,,Hall,2026-03-29,01:30,02:30,,,,,", f"column end: {SKIPPED}"),
        (
            "x,Tensors,,,Hall,2026-10-25,02:30,03:30,,,,,",
            f"column start: {TWICE} Write “02:30 CEST” for the first or “02:30 CET” for the "
            "second.",
        ),
        (
            "x,Tensors,,,Hall,2026-10-25,02:30 CET,03:30 CEST,,,,,",
            "column end: “03:30 CEST” is not how the clocks of Europe/Berlin read on "
            "2026-10-25: “03:30 CET”.",
        ),
    ],
)
def test_csv_time_the_clocks_skip_or_pass_twice_is_refused_with_row_and_column(
    berlin, row, problem
):
    assert problems_of(berlin, csv_file(row)) == [f"Row 2 (“Tensors”), {problem}"]
    assert Session.objects.count() == 0


@pytest.mark.parametrize(
    ("start", "end", "utc"),
    [
        ("02:30 CEST", "02:30 CET", ("00:30", "01:30")),
        ("02:30 cet", "03:30", ("01:30", "02:30")),
    ],
)
def test_csv_time_the_clocks_pass_twice_is_imported_when_the_cell_says_which(
    berlin, start, end, utc
):
    import_schedule(berlin, csv_file(f"x,Tensors,,,Hall,2026-10-25,{start},{end},,,,,"))

    session = Session.objects.get()
    assert (session.starts_at, session.ends_at) == tuple(
        datetime.datetime.fromisoformat(f"2026-10-25T{time}:00+00:00") for time in utc
    )


def test_csv_session_over_the_skipped_hour_lasts_what_the_clocks_show(berlin):
    import_schedule(berlin, csv_file("x,Tensors,,,Hall,2026-03-29,01:30,03:30,60,,,,"))

    session = Session.objects.get()
    assert session.ends_at - session.starts_at == datetime.timedelta(hours=1)


def test_csv_rows_are_numbered_as_the_spreadsheet_shows_them(conference):
    upload = csv_file(
        'a,First,talk,,,,,,30,,"Two\nlines",,',
        "b,Second,tlak,,,,,,30,,,,",
    )

    assert problems_of(conference, upload) == [
        "Row 3 (“Second”), column kind: “tlak” is not one of keynote, talk, lightning-talk, "
        "panel, workshop, break."
    ]


def test_csv_unknown_column_is_named(conference):
    problems = problems_of(conference, csv_file("Tensors,10:00", header="title,strat\n"))

    assert problems == [
        "Row 1, column 2: “strat” is not a column of the template (id, title, kind, track, "
        "room, date, start, end, duration, speakers, description, level, status)."
    ]


def test_csv_room_clash_is_refused_or_held_on_request(conference):
    rows = (
        "a,First,talk,,Hall,2026-04-08,10:00,10:30,,,,,",
        "b,Second,talk,,Hall,2026-04-08,10:15,10:45,,,,,",
    )
    assert problems_of(conference, csv_file(*rows)) == [
        "Row 3 (“Second”): room: Hall already hosts “First” then "
        "(Wednesday 8 April 2026 10:00–10:30 CEST)."
    ]

    report = import_schedule(conference, csv_file(*rows), hold_conflicts=True)

    assert report.held == [
        "hold session “Second”: Hall already hosts “First” then "
        "(Wednesday 8 April 2026 10:00–10:30 CEST)."
    ]
    second = Session.objects.get(title="Second")
    assert (second.starts_at, second.room, second.status) == (None, None, "draft")


# Sessionize -------------------------------------------------------------------------------------


def test_sessionize_all_data_imports_sessions_speakers_rooms_and_categories(conference):
    report = import_schedule(conference, SESSIONIZE)

    assert report.created == {"room": 2, "track": 3, "speaker": 2, "session": 4}
    assert described(conference) == [
        (
            "Compilers for people in a hurry",
            "talk",
            "Compilers",
            "Room B",
            "08 10:00",
            "10:30",
            ["Alan Turing"],
            "any",
            "published",
        ),
        ("Lunch", "break", None, None, "08 12:30", "13:30", [], "any", "published"),
        (
            "Open questions in sparse training",
            "panel",
            "Research",
            None,
            None,
            None,
            ["Grace Hopper"],
            "any",
            "draft",
        ),
        (
            "Tensors from scratch",
            "workshop",
            "Training",
            "Main Hall",
            "08 14:00",
            "15:30",
            ["Grace Hopper", "Alan Turing"],
            "beginner",
            "published",
        ),
    ]
    assert Speaker.objects.get(name="Grace Hopper").bio == "Wrote the first compiler."


def test_sessionize_reimport_changes_nothing(conference):
    import_schedule(conference, SESSIONIZE)

    report = import_schedule(conference, SESSIONIZE)

    assert report.unchanged == {"room": 2, "track": 3, "speaker": 2, "session": 4}
    assert report.changes == []


def test_sessionize_unknown_speaker_id_names_the_session(conference):
    document = json.loads(SESSIONIZE.read_text())
    document["sessions"][1]["speakers"] = ["no-such-speaker"]

    problems = problems_of(conference, io.BytesIO(json.dumps(document).encode()))

    assert problems == [
        "Session “Compilers for people in a hurry” (sessions[1]): speakers: "
        '"no-such-speaker" is not in speakers.'
    ]


@pytest.mark.parametrize(
    ("starts_at", "problem"),
    [
        ("2026-03-29T02:30:00", SKIPPED),
        (
            "2026-10-25T02:30:00",
            f"{TWICE} Write “2026-10-25T02:30:00+02:00” for the first or "
            "“2026-10-25T02:30:00+01:00” for the second.",
        ),
    ],
)
def test_sessionize_time_the_clocks_skip_or_pass_twice_names_the_session_and_field(
    berlin, starts_at, problem
):
    document = {
        "sessions": [
            {
                "id": "1",
                "title": "Tensors",
                "startsAt": starts_at,
                "endsAt": starts_at.replace("02:30", "03:30"),
                "roomId": 1,
            }
        ],
        "rooms": [{"id": 1, "name": "Hall"}],
    }
    upload = io.BytesIO(json.dumps(document).encode())

    assert problems_of(berlin, upload) == [f"Session “Tensors” (sessions[0]): startsAt: {problem}"]
    assert Session.objects.count() == 0


def test_sessionize_session_clashing_with_one_made_here_is_held(conference):
    make_session(
        conference=conference,
        title="Already here",
        room=make_room(conference, name="Room B"),
        starts_at=paris(8, 10, 0),
        ends_at=paris(8, 10, 30),
    )

    report = import_schedule(conference, SESSIONIZE, hold_conflicts=True)

    assert [line.split(":")[0] for line in report.held] == [
        "hold session “Compilers for people in a hurry”"
    ]
    assert report.created["session"] == 4


def test_every_format_reads_the_same_session_alike():
    """A talk given in frab JSON, CSV and Sessionize JSON lands as the same session."""
    results = []
    documents = {
        "csv": csv_file(
            "t,Tensors,talk,Training,Hall,2026-04-08,10:00,10:30,,Grace Hopper,Intro.,,"
        ),
        "frab": io.BytesIO(
            json.dumps(
                {
                    "schedule": {
                        "conference": {
                            "acronym": "t",
                            "days": [
                                {
                                    "rooms": {
                                        "Hall": [
                                            {
                                                "guid": "t",
                                                "title": "Tensors",
                                                "date": "2026-04-08T10:00:00+02:00",
                                                "duration": "00:30",
                                                "type": "Talk",
                                                "track": "Training",
                                                "abstract": "Intro.",
                                                "persons": [{"name": "Grace Hopper"}],
                                            }
                                        ]
                                    }
                                }
                            ],
                        }
                    }
                }
            ).encode()
        ),
        "sessionize": io.BytesIO(
            json.dumps(
                {
                    "sessions": [
                        {
                            "id": "1",
                            "title": "Tensors",
                            "description": "Intro.",
                            "startsAt": "2026-04-08T10:00:00",
                            "endsAt": "2026-04-08T10:30:00",
                            "speakers": ["s"],
                            "categoryItems": [1],
                            "roomId": 1,
                        }
                    ],
                    "speakers": [{"id": "s", "fullName": "Grace Hopper"}],
                    "categories": [{"title": "Track", "items": [{"id": 1, "name": "Training"}]}],
                    "rooms": [{"id": 1, "name": "Hall"}],
                }
            ).encode()
        ),
    }
    for upload in documents.values():
        conference = make_conference()
        import_schedule(conference, upload)
        results.append(described(conference))

    assert (
        results[0]
        == results[1]
        == results[2]
        == [
            (
                "Tensors",
                "talk",
                "Training",
                "Hall",
                "08 10:00",
                "10:30",
                ["Grace Hopper"],
                "any",
                "published",
            )
        ]
    )


def test_command_imports_a_csv_file(conference, tmp_path):
    table = tmp_path / "sessions.csv"
    table.write_text(HEADER + "t1,Tensors,talk,,Hall,2026-04-08,10:00,10:30,,Grace Hopper,,,\n")
    out = io.StringIO()

    call_command("import_schedule", str(table), conference=conference.slug, stdout=out)

    assert "sessions: 1 created, 0 updated, 0 unchanged" in out.getvalue()
    assert described(conference)[0][:5] == ("Tensors", "talk", None, "Hall", "08 10:00")

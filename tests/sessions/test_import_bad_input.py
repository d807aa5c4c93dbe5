"""Malformed files in every format the importer reads: each refused with a message naming the
record and the field, nothing written, whether the file comes by the command, the function or
the admin's import page (where it is a message on the page, never a server error)."""

import copy
import io
import json
import re
from html import unescape

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.urls import reverse

from conference.models import Room, Track
from sessions.importers import ScheduleImportError, import_schedule
from sessions.models import ScheduleImport, Session
from speakers.models import Speaker
from tests.sessions.frab_files import schedule_json

pytestmark = pytest.mark.django_db

GUID = "0f3c6f43-5d3c-4a4e-8f1a-4b0a8c2a7d11"
OTHER_GUID = "0f3c6f43-5d3c-4a4e-8f1a-4b0a8c2a7d12"
DROP = object()  # as a field's value: the field left out

FRAB_EVENT = {
    "guid": GUID,
    "id": 1,
    "date": "2026-04-08T10:00:00+02:00",
    "start": "10:00",
    "duration": "00:30",
    "room": "Hall",
    "slug": "test-talk",
    "url": "https://example.org/talk",
    "title": "Tensors",
    "subtitle": None,
    "track": None,
    "type": "Talk",
    "language": "en",
    "abstract": "",
    "persons": [{"guid": OTHER_GUID, "name": "Ada Lovelace"}],
    "links": [],
}


def frab_json(*events: dict, **event_fields) -> bytes:
    """schedule.json with one good event changed by ``event_fields`` (DROP: the key left out), or
    the ``events`` given."""
    event = {key: value for key, value in (FRAB_EVENT | event_fields).items() if value is not DROP}
    return schedule_json(*(events or [event]))


XML_EVENT = {
    "date": "2026-04-08T10:00:00+02:00",
    "start": "10:00",
    "duration": "00:30",
    "room": "Hall",
    "slug": "test-talk",
    "title": "Tensors",
    "type": "Talk",
    "abstract": "",
    "track": "",
}


def xml_event(guid=GUID, event_id=1, **children) -> str:
    fields = {key: value for key, value in (XML_EVENT | children).items() if value is not DROP}
    inner = "".join(f"<{tag}>{value}</{tag}>" for tag, value in fields.items())
    return f'<event guid="{guid}" id="{event_id}">{inner}<persons /></event>'


def frab_xml(*events: str, **children) -> bytes:
    body = "\n" + "\n".join(events or [xml_event(**children)]) + "\n"
    return (
        "<?xml version='1.0' encoding='utf-8'?><schedule><version>1</version><conference>"
        "<title>Test</title><acronym>test</acronym><start>2026-04-07</start>"
        "<end>2026-04-08</end><time_zone_name>Europe/Paris</time_zone_name></conference>"
        '<day index="1" date="2026-04-08" start="2026-04-08T00:00:00+02:00" '
        f'end="2026-04-09T00:00:00+02:00"><room name="Hall">{body}</room></day></schedule>'
    ).encode()


CSV_HEADER = "id,title,kind,track,room,date,start,end,duration,speakers,description,level,status"


def csv_table(*rows: str, header: str = CSV_HEADER) -> bytes:
    return "\n".join([header, *rows, ""]).encode()


CSV_ROW = "t1,Tensors,talk,,Hall,2026-04-08,10:00,,30,Ada Lovelace,,,published"

SESSIONIZE = {
    "sessions": [
        {
            "id": "612345",
            "title": "Tensors",
            "description": "",
            "startsAt": "2026-04-08T10:00:00",
            "endsAt": "2026-04-08T10:30:00",
            "isServiceSession": False,
            "isPlenumSession": False,
            "speakers": [OTHER_GUID],
            "categoryItems": [],
            "questionAnswers": [],
            "roomId": 1001,
        }
    ],
    "speakers": [{"id": OTHER_GUID, "fullName": "Ada Lovelace", "bio": ""}],
    "questions": [],
    "categories": [],
    "rooms": [{"id": 1001, "name": "Hall", "sort": 1}],
}


def sessionize(**session_fields) -> bytes:
    document = copy.deepcopy(SESSIONIZE)
    document["sessions"][0].update(session_fields)
    return json.dumps(document).encode()


def sessionize_with(change) -> bytes:
    document = copy.deepcopy(SESSIONIZE)
    change(document)
    return json.dumps(document).encode()


BILLION_LAUGHS = (
    b'<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">'
    b'<!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">'
    b'<!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">]>'
    b"<schedule><version>&lol2;</version></schedule>"
)

JSON_EVENT = f'Event “Tensors” (guid {GUID}, schedule.conference.days[0].rooms["Hall"][0])'
XML_EVENT_AT = f"Event “Tensors” (guid {GUID}, line 2)"
SESSIONIZE_SESSION = "Session “Tensors” (sessions[0])"
LONE_SURROGATE = (
    "contains a lone surrogate (U+D800), half of a UTF-16 pair and no character, which no text "
    "here may hold."
)
ENTITIES_REFUSED = (
    "The file declares a DOCTYPE or ENTITY. Schedules never need one, and entity expansion can "
    "exhaust the server, so such files are refused."
)

# What each malformed file is refused with: (its name, its content, the one problem listed).
# An XML event's id is not listed: the importer matches events by guid and does not read it.
# A CSV room or track of a new name is no error: it is created (docs/import.md).
CASES = {
    # frab schedule.json
    "json wrong type": (
        "schedule.json",
        frab_json(title=5),
        f'Event (guid {GUID}, schedule.conference.days[0].rooms["Hall"][0]): title: expected a '
        "string, got 5.",
    ),
    "json missing key": ("schedule.json", frab_json(date=DROP), f"{JSON_EVENT}: date: missing."),
    "json bad date": (
        "schedule.json",
        frab_json(date="next Tuesday"),
        f"{JSON_EVENT}: date: “next Tuesday” is not a date and time like 2026-04-08T10:35:00+02:00.",
    ),
    "json bad duration": (
        "schedule.json",
        frab_json(duration="half an hour"),
        f"{JSON_EVENT}: duration: “half an hour” is not a duration like 00:30 or 1:30.",
    ),
    "json negative duration": (
        "schedule.json",
        frab_json(duration="-0:30"),
        f"{JSON_EVENT}: duration: “-0:30” is not a duration like 00:30 or 1:30.",
    ),
    "json duplicate guid": (
        "schedule.json",
        frab_json(FRAB_EVENT, FRAB_EVENT | {"id": 2, "date": "2026-04-08T11:00:00+02:00"}),
        f"{JSON_EVENT.replace('[0])', '[1])')}: guid: also used by {JSON_EVENT}.",
    ),
    "json person of the wrong type": (
        "schedule.json",
        frab_json(persons=[3]),
        f"{JSON_EVENT}, persons[0]: expected an object.",
    ),
    "json invalid utf-8": (
        "schedule.json",
        frab_json(title="TENSORS").replace(b"TENSORS", b"Tens\xffors"),
        "The file is not UTF-8 text: line 1, column 571 holds the byte 0xff, which UTF-8 does "
        "not allow there.",
    ),
    "json conference detail of the wrong type": (
        "schedule.json",
        frab_json().replace(b'"acronym"', b'"meta": {"venue": 5}, "acronym"'),
        "schedule.conference.meta: venue: expected a string, got 5.",
    ),
    "json lone surrogate": (
        "schedule.json",
        frab_json(title="Tens\ud800ors"),
        f'Event “Tens\ufffdors” (guid {GUID}, schedule.conference.days[0].rooms["Hall"][0]): '
        f"title: {LONE_SURROGATE}",
    ),
    "json lone surrogate in a date": (
        "schedule.json",
        frab_json(date="2026-04-08T10:00:00\ud800"),
        f"{JSON_EVENT}: date: “2026-04-08T10:00:00\ufffd” is not a date and time like "
        "2026-04-08T10:35:00+02:00.",
    ),
    "json lone surrogate in a person id": (
        "schedule.json",
        frab_json(persons=[{"id": "\udc00", "name": "Ada Lovelace"}]),
        f"{JSON_EVENT}, persons[0]: id: {LONE_SURROGATE.replace('D800', 'DC00')}",
    ),
    "json empty": ("schedule.json", b"", "The file is empty."),
    "json list at the top": (
        "schedule.json",
        b"[]",
        "The file: expected an object with a “schedule” key.",
    ),
    # frab schedule.xml
    "xml missing element": (
        "schedule.xml",
        frab_xml(date=DROP),
        f"{XML_EVENT_AT}: date: missing.",
    ),
    "xml bad date": (
        "schedule.xml",
        frab_xml(date="next Tuesday"),
        f"{XML_EVENT_AT}: date: “next Tuesday” is not a date and time like "
        "2026-04-08T10:35:00+02:00.",
    ),
    "xml bad duration": (
        "schedule.xml",
        frab_xml(duration="half an hour"),
        f"{XML_EVENT_AT}: duration: “half an hour” is not a duration like 00:30 or 1:30.",
    ),
    "xml missing title": (
        "schedule.xml",
        frab_xml(title=DROP),
        f"Event (guid {GUID}, line 2): title: missing.",
    ),
    "xml duplicate guid": (
        "schedule.xml",
        frab_xml(xml_event(), xml_event(event_id=2, date="2026-04-08T11:00:00+02:00")),
        f"{XML_EVENT_AT.replace('line 2', 'line 3')}: guid: also used by {XML_EVENT_AT}.",
    ),
    "xml invalid utf-8": (
        "schedule.xml",
        frab_xml(title="TENSORS").replace(b"TENSORS", b"Tens\xffors"),
        "The file is not well-formed XML: not well-formed (invalid token) (line 2, column 193).",
    ),
    "xml empty": ("schedule.xml", b"", "The file is empty."),
    "xml entity bomb": ("schedule.xml", BILLION_LAUGHS, ENTITIES_REFUSED),
    "xml external entity": (
        "schedule.xml",
        b'<?xml version="1.0"?><!DOCTYPE s [<!ENTITY x SYSTEM "file:///etc/passwd">]>'
        b"<schedule><version>&x;</version></schedule>",
        ENTITIES_REFUSED,
    ),
    # CSV
    "csv bad date": (
        "sessions.csv",
        csv_table(CSV_ROW.replace("2026-04-08", "8.4.2026")),
        "Row 2 (“Tensors”), column date: “8.4.2026” is not a date like 2026-04-08.",
    ),
    "csv bad duration": (
        "sessions.csv",
        csv_table(CSV_ROW.replace(",30,", ",half,")),
        "Row 2 (“Tensors”), column duration: “half” is not a number of minutes like 30 or a "
        "length like 1:30.",
    ),
    "csv end and duration disagree": (
        "sessions.csv",
        csv_table(CSV_ROW.replace(",,30,", ",11:00,30,")),
        "Row 2 (“Tensors”), column duration: 30 minutes, but 10:00 to 11:00 is 60.",
    ),
    "csv without a title column": (
        "sessions.csv",
        csv_table("t1,talk", header="id,kind"),
        "Row 1: the header has no “title” column (the columns: id, title, kind, track, room, "
        "date, start, end, duration, speakers, description, level, status).",
    ),
    "csv row longer than its one-column header": (
        "sessions.csv",
        csv_table("Tensors,Hall", header="title"),
        "Row 2: it has 2 cells but the header names 1 column.",
    ),
    "csv duplicate id": (
        "sessions.csv",
        csv_table(CSV_ROW, CSV_ROW.replace("10:00", "11:00")),
        "Row 3 (“Tensors”): guid: also used by Row 2 (“Tensors”).",
    ),
    "csv invalid utf-8": (
        "sessions.csv",
        csv_table(CSV_ROW).replace(b"Tensors", b"Tens\xffors"),
        "The file is not UTF-8 text: line 2, column 8 holds the byte 0xff, which UTF-8 does not "
        "allow there. Save it from your spreadsheet as “CSV UTF-8”.",
    ),
    "csv empty": ("sessions.csv", b"", "The file is empty."),
    "csv header only": (
        "sessions.csv",
        csv_table(),
        "Row 2: the table has no sessions below its header.",
    ),
    # Sessionize "All Data"
    "sessionize wrong type": (
        "sessionize.json",
        sessionize(title=5),
        "Session (sessions[0]): title: expected a string, got 5.",
    ),
    "sessionize missing title": (
        "sessionize.json",
        sessionize_with(lambda document: document["sessions"][0].pop("title")),
        "Session (sessions[0]): title: missing.",
    ),
    "sessionize bad date": (
        "sessionize.json",
        sessionize(startsAt="soon"),
        f"{SESSIONIZE_SESSION}: startsAt: “soon” is not a date and time like "
        "2026-04-08T10:35:00+02:00.",
    ),
    "sessionize end before start": (
        "sessionize.json",
        sessionize(endsAt="2026-04-08T09:00:00"),
        f"{SESSIONIZE_SESSION}: endsAt: A session must end after it starts.",
    ),
    "sessionize unknown room": (
        "sessionize.json",
        sessionize(roomId=9999),
        f"{SESSIONIZE_SESSION}: roomId: 9999 is not in rooms.",
    ),
    "sessionize duplicate id": (
        "sessionize.json",
        sessionize_with(
            lambda document: document["sessions"].append(
                document["sessions"][0]
                | {"startsAt": "2026-04-08T11:00:00", "endsAt": "2026-04-08T11:30:00"}
            )
        ),
        f"Session “Tensors” (sessions[1]): guid: also used by {SESSIONIZE_SESSION}.",
    ),
    "sessionize speakers of the wrong type": (
        "sessionize.json",
        sessionize_with(lambda document: document.update(speakers={})),
        "The file: speakers: expected a list, got {}.",
    ),
    "sessionize lone surrogate": (
        "sessionize.json",
        sessionize(title="Tens\ud800ors"),
        f"Session “Tens\ufffdors” (sessions[0]): title: {LONE_SURROGATE}",
    ),
    "sessionize lone surrogate in a speaker id": (
        "sessionize.json",
        sessionize_with(
            lambda document: (
                document["speakers"][0].update(id="\ud800"),
                document["sessions"][0].update(speakers=[]),
            )
        ),
        f"speakers[0]: id: {LONE_SURROGATE}",
    ),
    "sessionize invalid utf-8": (
        "sessionize.json",
        sessionize(title="TENSORS").replace(b"TENSORS", b"Tens\xffors"),
        "The file is not UTF-8 text: line 1, column 46 holds the byte 0xff, which UTF-8 does "
        "not allow there.",
    ),
}


def upload_of(case: str) -> io.BytesIO:
    name, content, _ = CASES[case]
    upload = io.BytesIO(content)
    upload.name = name
    return upload


def nothing_written(conference) -> bool:
    return not any(
        model.objects.filter(conference=conference).exists()
        for model in (Session, Speaker, Room, Track)
    )


@pytest.mark.parametrize("case", list(CASES))
def test_malformed_file_names_record_and_field_and_writes_nothing(conference, case):
    with pytest.raises(ScheduleImportError) as caught:
        import_schedule(conference, upload_of(case))

    assert caught.value.problems == [CASES[case][2]]
    assert nothing_written(conference)


@pytest.mark.parametrize("case", list(CASES))
def test_command_refuses_a_malformed_file_with_the_same_message(conference, case, tmp_path):
    name, content, problem = CASES[case]
    path = tmp_path / name
    path.write_bytes(content)

    with pytest.raises(CommandError) as caught:
        call_command("import_schedule", str(path), conference=conference.slug, stdout=io.StringIO())

    assert problem in str(caught.value)
    assert nothing_written(conference)


@pytest.mark.parametrize("case", list(CASES))
def test_admin_page_refuses_a_malformed_file_with_the_message_never_an_error(
    admin_client, conference, case
):
    name, content, problem = CASES[case]
    url = reverse("admin:schedule_session_import", args=[conference.pk])

    response = admin_client.post(url, {"file": SimpleUploadedFile(name, content)}, follow=True)

    if content:
        assert response.status_code == 200
        assert problem in page_text(response)
        assert ScheduleImport.objects.get().status == ScheduleImport.Status.REFUSED
    else:  # the upload form itself refuses an empty file, before any import is recorded
        assert response.status_code == 400
        assert "The submitted file is empty." in page_text(response)
        assert not ScheduleImport.objects.exists()
    assert nothing_written(conference)


def page_text(response) -> str:
    html = re.sub(r"<[^>]+>", " ", response.content.decode())
    return " ".join(unescape(html).split())

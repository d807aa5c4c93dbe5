"""What the frab formats can carry survives our exports and imports: field by field, in both
formats, and as whole documents (the demo conference). 39c3's real file: test_import_39c3.py."""

import datetime
import io
import json
import re

import jsonschema
import pytest
from django.core.exceptions import ValidationError
from django.core.management import CommandError, call_command
from django.urls import reverse
from lxml import etree

from conference.models import Conference
from sessions.exports.frab_schedule import build_frab_data, build_frab_xml
from sessions.frab import frab_acronym
from sessions.importers import ScheduleImportError, import_schedule
from sessions.models import Attachment, Session, SessionLink
from speakers.models import Speaker, SpeakerLink
from tests.builders import (
    make_conference,
    make_room,
    make_session,
    make_speaker,
    make_track,
    paris,
)
from tests.sessions.frab_files import schedule_json

BASE_URL = "https://schedule.example.org"
GUID = "0f3c6f43-5d3c-4a4e-8f1a-4b0a8c2a7d11"

pytestmark = pytest.mark.django_db


def listing(conference):
    return list(Session.objects.public().for_listing().filter(conference=conference))


def exported(conference, kind) -> bytes:
    if kind == "xml":
        return build_frab_xml(conference, listing(conference), base_url=BASE_URL)
    return json.dumps(build_frab_data(conference, listing(conference), base_url=BASE_URL)).encode()


def copy_of(conference, kind, **fields) -> Conference:
    """A new, empty conference like ``conference``, into which its export was imported."""
    copy = make_conference(
        name=conference.name,
        starts_on=conference.starts_on,
        ends_on=conference.ends_on,
        time_zone=conference.time_zone,
        **fields,
    )
    import_schedule(copy, io.BytesIO(exported(conference, kind)))
    return copy


def first_event(conference, kind) -> dict:
    """The first event of the export, as comparable values whatever the format."""
    if kind == "json":
        data = json.loads(exported(conference, kind))
        days = data["schedule"]["conference"]["days"]
        return next(event for day in days for events in day["rooms"].values() for event in events)
    event = etree.fromstring(exported(conference, kind)).find("day/room/event")
    values = {child.tag: child.text or "" for child in event}
    values["code"] = event.get("code", "")
    values["do_not_record"] = event.findtext("recording/optout") == "true"
    values["recording_license"] = event.findtext("recording/license")
    values["links"] = [
        (link.get("href"), link.text, link.get("type")) for link in event.find("links")
    ]
    values["attachments"] = [
        (item.get("href"), item.text, item.get("type")) for item in event.find("attachments")
    ]
    return values


SESSION_FIELDS = {
    "subtitle": ("subtitle", "Why small tensors matter"),
    "language": ("language", "de"),
    "abstract": ("abstract", "Short."),
    "description": ("description", "Long, in *Markdown*."),
    "type_label": ("type", "Ceremony"),
    "do_not_record": ("do_not_record", True),
    "recording_license": ("recording_license", "CC BY 4.0"),
    "feedback_url": ("feedback_url", "https://feedback.example.org/talk/1"),
    "logo_url": ("logo", "https://cfp.example.org/media/logo.png"),
    "origin_url": ("origin_url", "https://cfp.example.org/talk/ABC123/"),
    "code": ("code", "ABC123"),
}


@pytest.mark.parametrize("kind", ["json", "xml"])
@pytest.mark.parametrize("name", list(SESSION_FIELDS))
def test_session_field_survives_export_then_import_then_export(conference, kind, name):
    key, value = SESSION_FIELDS[name]
    make_session(conference, room=make_room(conference), **{name: value})

    copy = copy_of(conference, kind)

    assert getattr(copy.sessions.get(), name) == value
    assert first_event(copy, kind)[key] == first_event(conference, kind)[key] == value


@pytest.mark.parametrize("kind", ["json", "xml"])
def test_links_and_attachments_survive_with_their_types(conference, kind):
    session = make_session(conference, room=make_room(conference))
    SessionLink.objects.create(
        session=session, title="Video", url="https://v.example/1", kind="media"
    )
    SessionLink.objects.create(
        session=session, title="Repo", url="https://git.example/r", position=1
    )
    Attachment.objects.create(
        session=session, title="Slides", url="https://s.example/s.pdf", kind="slides"
    )

    copy = copy_of(conference, kind).sessions.get()

    assert [(link.title, link.url, link.kind) for link in copy.link_list] == [
        ("Video", "https://v.example/1", "media"),
        ("Repo", "https://git.example/r", ""),
    ]
    assert [(item.title, item.url, item.kind) for item in copy.attachment_list] == [
        ("Slides", "https://s.example/s.pdf", "slides")
    ]


@pytest.mark.parametrize("kind", ["json", "xml"])
def test_room_guid_and_conference_colour_and_logo_survive(conference, kind):
    make_session(conference, room=make_room(conference, name="Hall", guid=GUID))
    conference.colour, conference.logo_url = "#ee4c2c", "https://example.org/logo.svg"
    conference.save()

    copy = copy_of(conference, kind)

    assert copy.rooms.get().guid == GUID
    assert (copy.colour, copy.logo_url) == ("#ee4c2c", "https://example.org/logo.svg")


def test_room_description_speaker_avatar_role_company_links_and_audience_level_survive_json(
    conference,
):
    ada = make_speaker(
        conference, name="Ada", role="Analyst", company="AE", avatar_url="https://a.example/a.png"
    )
    SpeakerLink.objects.create(speaker=ada, title="Website", url="https://ada.example.org/")
    make_session(
        conference,
        room=make_room(conference, description="Level 2, left"),
        speakers=[ada],
        audience_level=Session.AudienceLevel.ADVANCED,
    )

    copy = copy_of(conference, "json")

    speaker = Speaker.objects.get(conference=copy)
    assert (speaker.role, speaker.company, speaker.avatar_url) == (
        "Analyst",
        "AE",
        "https://a.example/a.png",
    )
    assert [(link.title, link.url) for link in speaker.links.all()] == [
        ("Website", "https://ada.example.org/")
    ]
    assert copy.rooms.get().description == "Level 2, left"
    assert copy.sessions.get().audience_level == Session.AudienceLevel.ADVANCED


@pytest.mark.parametrize("kind", ["json", "xml"])
def test_day_change_survives_into_an_empty_conference(kind):
    original = make_conference(day_change=datetime.time(4, 0))
    make_session(original, starts_at=paris(9, 1, 30), ends_at=paris(9, 2))

    copy = copy_of(original, kind)

    assert copy.day_change == datetime.time(4, 0)
    assert copy.sessions.get().starts_at == paris(9, 1, 30)


def test_day_change_of_the_file_leaves_a_conference_with_sessions_alone_unless_asked(conference):
    make_session(conference, room=make_room(conference))
    late = make_conference(slug="late-2026", day_change=datetime.time(4, 0))
    make_session(late, room=make_room(late))

    import_schedule(conference, io.BytesIO(exported(late, "json")))
    conference.refresh_from_db()
    assert conference.day_change == datetime.time(0, 0)

    import_schedule(conference, io.BytesIO(exported(late, "json")), adopt_day_change=True)
    conference.refresh_from_db()
    assert conference.day_change == datetime.time(4, 0)


@pytest.mark.parametrize("kind", ["json", "xml"])
def test_export_with_every_field_validates(conference, kind, reference_formats):
    ada = make_speaker(
        conference, role="Analyst", avatar_url="https://a.example/a.png", appears_in_parallel=True
    )
    session = make_session(
        conference,
        room=make_room(conference, guid=GUID, description="Upstairs"),
        track=make_track(conference, description="From graphs to kernels."),
        speakers=[ada],
        audience_level=Session.AudienceLevel.BEGINNER,
        **{name: value for name, (_, value) in SESSION_FIELDS.items()},
    )
    SessionLink.objects.create(
        session=session, title="Video", url="https://v.example/1", kind="web"
    )
    Attachment.objects.create(
        session=session, title="Paper", url="https://p.example/", kind="paper"
    )
    conference.colour, conference.logo_url = "#ee4c2c", "https://example.org/logo.svg"
    conference.day_change = datetime.time(4, 0)
    conference.venue, conference.description = "Palais", "Two days."
    conference.contact_email = "team@example.org"
    conference.save()

    if kind == "xml":
        schema = etree.XMLSchema(etree.parse(reference_formats / "schedule.xml.xsd"))
        assert schema.validate(etree.fromstring(exported(conference, kind))), schema.error_log
    else:
        validator = jsonschema.Draft6Validator(
            json.loads((reference_formats / "schedule.schema.json").read_text()),
            format_checker=jsonschema.FormatChecker(),
        )
        data = json.loads(exported(conference, kind))
        assert [error.message for error in validator.iter_errors(data)] == []


# Round trips of whole documents ---------------------------------------------------------------


def normalized(document: bytes, conference: Conference) -> str:
    """The export without what must differ between two conferences: ids, version, and the
    conference's slug in our own URLs and in the acronym that prefixes event slugs."""
    text = document.decode()
    text = re.sub(r'"id": \d+|id="\d+"', "id", text)
    text = re.sub(r"/attachments/\d+/", "/attachments/N/", text)
    text = re.sub(r"(\"version\": |<version>)[^<,]+", "version", text)
    text = text.replace(f"{BASE_URL}/{conference.slug}/", f"{BASE_URL}/SLUG/")
    acronym = frab_acronym(conference)
    return re.sub(rf'([">]){re.escape(acronym)}([-"<])', r"\1ACRONYM\2", text)


@pytest.fixture
def demo():
    call_command("loaddata", "pytorch-eu-2026", verbosity=0)
    return Conference.objects.get(slug="pytorch-eu-2026")


@pytest.mark.parametrize("kind", ["json", "xml"])
def test_demo_round_trip_exports_the_same_document(demo, kind):
    demo.sessions.filter(title__startswith="Live Migration").update(
        do_not_record=True, language="en", subtitle="From Azure"
    )

    copy = copy_of(demo, kind, slug="copy-2026")

    assert normalized(exported(copy, kind), copy) == normalized(exported(demo, kind), demo)


def test_demo_round_trip_keeps_what_organizers_entered(demo):
    copy = copy_of(demo, "json", slug="copy-2026")

    def entered(conference):
        speakers = Speaker.objects.filter(conference=conference, sessions__isnull=False)
        sessions = Session.objects.public().filter(conference=conference)
        return (
            sorted(set(speakers.values_list("guid", "name", "role", "company", "bio"))),
            sorted(sessions.values_list("guid", "audience_level", "abstract", "description")),
        )

    assert entered(copy) == entered(demo)


# Do not record --------------------------------------------------------------------------------


def event_document(**fields) -> io.BytesIO:
    event = {
        "guid": GUID,
        "id": 1,
        "date": "2026-04-08T10:00:00+02:00",
        "start": "10:00",
        "duration": "00:30",
        "room": "Hall",
        "slug": "test-talk",
        "url": "https://example.org/talk",
        "title": "Talk",
        "subtitle": None,
        "track": None,
        "type": "Talk",
        "language": "en",
        "abstract": "",
        "persons": [],
        "links": [],
        **fields,
    }
    return io.BytesIO(schedule_json(event))


def test_do_not_record_is_never_lost_on_reimport_export_or_api(conference, client):
    import_schedule(conference, event_document(do_not_record=True))
    # A later file that no longer says so (or says false) does not undo a speaker's wish.
    import_schedule(conference, event_document())
    import_schedule(conference, event_document(do_not_record=False))
    session = Session.objects.get()

    assert session.do_not_record is True
    assert first_event(conference, "json")["do_not_record"] is True
    assert first_event(conference, "xml")["do_not_record"] is True
    api = client.get(
        reverse(
            "api:session-detail",
            kwargs={"conference_slug": conference.slug, "slug": session.slug},
        )
    )
    assert api.json()["do_not_record"] is True


def test_do_not_record_set_here_is_marked_again_by_a_file_that_says_so(conference):
    import_schedule(conference, event_document(do_not_record=True))
    Session.objects.update(do_not_record=False)  # an organizer cleared it by mistake

    import_schedule(conference, event_document(do_not_record=True))

    assert Session.objects.get().do_not_record is True


def test_card_and_session_page_say_not_recorded_and_the_language(conference, client):
    import_schedule(conference, event_document(do_not_record=True, language="de"))
    session = Session.objects.get()

    schedule = client.get(reverse("sessions:schedule", kwargs={"conference_slug": conference.slug}))
    page = client.get(session.get_absolute_url())

    assert '<span class="not-recorded">Not recorded</span>' in schedule.text
    assert '<span class="language">In German</span>' in schedule.text
    assert "Not recorded: the speakers asked not to be recorded" in page.text
    assert "<dt>Language</dt><dd>German</dd>" in page.text


# Malformed values -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fields", "problem"),
    [
        ({"do_not_record": "yes"}, 'do_not_record: expected true or false, got "yes".'),
        ({"links": [{"title": "No URL"}]}, "links[0]: url: missing."),
        ({"links": [{"url": "/relative"}]}, "links[0]: url: Enter a valid URL."),
        ({"attachments": ["x"]}, "attachments[0]: expected an object."),
        ({"feedback_url": "not a url"}, "feedback_url: Enter a valid URL."),
        ({"language": 7}, "language: expected a string, got 7."),
    ],
)
def test_malformed_value_names_the_event_and_field_and_writes_nothing(conference, fields, problem):
    with pytest.raises(ScheduleImportError) as caught:
        import_schedule(conference, event_document(**fields))

    where = f'Event “Talk” (guid {GUID}, schedule.conference.days[0].rooms["Hall"][0])'
    assert caught.value.problems == [f"{where}: {problem}"]
    assert Session.objects.count() == 0


# Time zones -----------------------------------------------------------------------------------


def test_file_of_another_time_zone_is_refused_with_the_way_out(conference):
    new_york = make_conference(slug="nyc-2026", time_zone="America/New_York")

    with pytest.raises(ScheduleImportError) as caught:
        import_schedule(new_york, event_document(), dry_run=True)

    assert str(caught.value) == (
        f"The file's time zone is Europe/Paris (time_zone_name) but {new_york} is in "
        "America/New_York, so every session would show at another hour than the file's. "
        "Import it into a conference in Europe/Paris, or convert: each session keeps its "
        "moment and is shown in America/New_York (import_schedule --convert-time-zone)."
    )
    assert Session.objects.count() == 0


def test_file_of_another_time_zone_is_converted_when_asked(tmp_path):
    new_york = make_conference(
        slug="nyc-2026",
        time_zone="America/New_York",
        starts_on=datetime.date(2026, 4, 7),
        ends_on=datetime.date(2026, 4, 8),
    )
    path = tmp_path / "schedule.json"
    path.write_bytes(event_document().getvalue())

    with pytest.raises(CommandError):
        call_command("import_schedule", str(path), conference="nyc-2026", verbosity=0)
    call_command(
        "import_schedule", str(path), conference="nyc-2026", convert_time_zone=True, verbosity=0
    )

    session = Session.objects.get(conference=new_york)
    assert session.starts_at == paris(8, 10)
    assert session.local_time_range == "Wednesday 8 April 2026 04:00–04:30 EDT"


def test_time_zone_name_that_is_no_zone_is_refused(conference):
    document = json.loads(event_document().getvalue())
    document["schedule"]["conference"]["time_zone_name"] = "Mars/Olympus"

    with pytest.raises(ScheduleImportError) as caught:
        import_schedule(conference, io.BytesIO(json.dumps(document).encode()))

    assert caught.value.problems == [
        "schedule.conference: time_zone_name: “Mars/Olympus” is not an IANA time zone name "
        "such as Europe/Berlin."
    ]


# Past midnight --------------------------------------------------------------------------------


@pytest.fixture
def night_owls():
    """Two days, 7 and 8 April 2026 in Paris, whose days change at 04:00."""
    return make_conference(slug="night-2026", day_change=datetime.time(4, 0))


def test_session_at_half_past_one_after_the_last_day_belongs_to_it(night_owls):
    late = make_session(
        night_owls, room=make_room(night_owls), starts_at=paris(9, 1, 30), ends_at=paris(9, 2)
    )

    late.full_clean()

    assert night_owls.day_of(late.starts_at) == datetime.date(2026, 4, 8)


def test_session_at_five_after_the_last_day_is_refused_naming_the_day_change(night_owls):
    session = Session(
        conference=night_owls,
        title="Too late",
        slug="too-late",
        starts_at=paris(9, 5),
        ends_at=paris(9, 5, 30),
    )

    with pytest.raises(ValidationError) as caught:
        session.full_clean()

    assert caught.value.message_dict["starts_at"] == [
        f"{night_owls} runs from Tuesday 7 April 2026 to Wednesday 8 April 2026 (Europe/Paris); "
        "this session must lie within those days. Its days change at 04:00: from 04:00 on the "
        "first day to 04:00 the morning after the last."
    ]


def test_session_after_midnight_shows_on_the_last_days_tab_and_grid(night_owls, client):
    room = make_room(night_owls, name="Club")
    make_session(night_owls, room=room, title="Evening", starts_at=paris(8, 22))
    make_session(night_owls, room=room, title="Night", starts_at=paris(9, 1, 30))
    grid_url = reverse("sessions:schedule-grid", kwargs={"conference_slug": night_owls.slug})

    last_day = client.get(grid_url, {"day": "2026-04-08"})
    list_page = client.get(
        reverse("sessions:schedule", kwargs={"conference_slug": night_owls.slug})
    )

    assert [
        block.session.title for time in last_day.context["grid"].times for block in time.blocks
    ] == [
        "Evening",
        "Night",
    ]
    assert [
        (day.date, [s.title for slot in day.slots for s in slot.sessions])
        for day in list_page.context["days"]
    ] == [(datetime.date(2026, 4, 8), ["Evening", "Night"])]


def test_import_accepts_a_session_after_midnight_of_the_last_day(night_owls):
    document = json.loads(
        event_document(date="2026-04-09T01:30:00+02:00", start="01:30").getvalue()
    )

    import_schedule(night_owls, io.BytesIO(json.dumps(document).encode()))

    assert night_owls.day_of(Session.objects.get().starts_at) == datetime.date(2026, 4, 8)


def xml_document(recording: str) -> io.BytesIO:
    return io.BytesIO(
        (
            "<schedule><version>1</version><conference><acronym>test</acronym>"
            "<time_zone_name>Europe/Paris</time_zone_name></conference>"
            '<day index="1" date="2026-04-08" start="2026-04-08T00:00:00+02:00" '
            'end="2026-04-09T00:00:00+02:00"><room name="Hall">'
            f'<event guid="{GUID}" id="1"><date>2026-04-08T10:00:00+02:00</date>'
            "<start>10:00</start><duration>00:30</duration><room>Hall</room><title>Talk</title>"
            f"<type>Talk</type><abstract/><track/>{recording}</event>"
            "</room></day></schedule>"
        ).encode()
    )


def test_xml_recording_optout_marks_do_not_record(conference):
    import_schedule(
        conference, xml_document("<recording><license/><optout>true</optout></recording>")
    )

    assert Session.objects.get().do_not_record is True


def test_xml_recording_optout_that_is_no_boolean_names_event_and_field(conference):
    with pytest.raises(ScheduleImportError) as caught:
        import_schedule(
            conference, xml_document("<recording><license/><optout>maybe</optout></recording>")
        )

    assert caught.value.problems == [
        f"Event “Talk” (guid {GUID}, line 1): recording/optout: “maybe” is not true or false."
    ]
    assert Session.objects.count() == 0


def test_reimport_replaces_changed_links_and_keeps_attachments_made_here(conference):
    link = {"url": "https://v.example/1", "title": "Video", "type": "media"}
    import_schedule(conference, event_document(links=[link], attachments=[link]))
    session = Session.objects.get()
    Attachment.objects.create(session=session, title="Announced", position=5)
    Attachment.objects.create(session=session, title="Deck", file="attachments/d.pdf", position=6)

    moved = {**link, "url": "https://v.example/2"}
    report = import_schedule(conference, event_document(links=[moved], attachments=[moved]))

    assert [(item.url, item.kind) for item in session.link_list] == [
        ("https://v.example/2", "media")
    ]
    assert [(item.title, item.url) for item in session.attachment_list] == [
        ("Video", "https://v.example/2"),
        ("Announced", ""),
        ("Deck", ""),
    ]
    assert report.changes == [
        "update session “Talk”: links https://v.example/1 → https://v.example/2 "
        "(changed in the file)",
        "update session “Talk”: attachments https://v.example/1 → https://v.example/2 "
        "(changed in the file)",
    ]

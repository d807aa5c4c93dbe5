"""Nothing an organizer entered is lost when a conference is exported and imported into an empty
one: every field of the conference, its rooms, tracks, speakers and sessions, compared field by
field. What a format has no place for is listed here and in docs/import.md."""

import copy
import datetime
import io
import json

import pytest

from conference.models import Conference, Room
from sessions.exports.frab_schedule import build_frab_data, build_frab_xml
from sessions.importers import import_schedule
from sessions.models import Attachment, Session, SessionLink
from speakers.models import Speaker, SpeakerLink
from tests.builders import make_conference, make_room, make_session, make_speaker, make_track, paris
from tests.sessions.frab_files import json_document, schedule_json
from tests.sessions.test_import_bad_input import FRAB_EVENT, OTHER_GUID, SESSIONIZE, frab_xml

BASE_URL = "https://schedule.example.org"

pytestmark = pytest.mark.django_db


# Every field an organizer enters, by model. Not here: a conference's name, slug, days, zone and
# published flag (entered when creating the conference imported into), and what is private or
# not a published schedule's (docs/import.md).
ENTERED = {
    "conference": (
        "day_change",
        "venue",
        "city",
        "description",
        "registration_url",
        "help_url",
        "contact_email",
        "colour",
        "logo_url",
    ),
    "room": ("name", "slug", "kind", "capacity", "position", "guid", "description"),
    "track": ("name", "slug", "colour", "description"),
    "speaker": (
        "guid",
        "name",
        "slug",
        "role",
        "company",
        "bio",
        "avatar_url",
        "appears_in_parallel",
        "links",
    ),
    "session": (
        "guid",
        "title",
        "slug",
        "kind",
        "type_label",
        "status",
        "starts_at",
        "ends_at",
        "subtitle",
        "language",
        "abstract",
        "description",
        "do_not_record",
        "recording_license",
        "feedback_url",
        "logo_url",
        "source_url",
        "origin_url",
        "code",
        "audience_level",
    ),
}

# What schedule.xml has no element or attribute for (docs/import.md, "What a round trip keeps").
XML_CANNOT_CARRY = {
    "conference": {
        "venue",
        "city",
        "description",
        "registration_url",
        "help_url",
        "contact_email",
    },
    "room": {"slug", "kind", "capacity", "description"},
    "track": {"description"},
    "speaker": {"role", "company", "bio", "avatar_url", "appears_in_parallel", "links"},
    "session": {"audience_level", "kind", "source_url"},
}


@pytest.fixture
def everything():
    """A conference with every field an organizer can enter filled, none at its default."""
    conference = make_conference(
        name="Everything Conf",
        slug="everything-2026",
        day_change=datetime.time(4, 0),
        venue="Palais des Congrès",
        city="Paris",
        description="Two days of *tensors*.",
        registration_url="https://tickets.example.org/",
        help_url="https://help.example.org/",
        contact_email="team@example.org",
        colour="#ee4c2c",
        logo_url="https://example.org/logo.svg",
    )
    hall = make_room(
        conference,
        name="Grand Hall",
        slug="grand-hall",
        capacity=800,
        position=0,
        guid="5b0e5f3e-5f55-4f52-9a55-8d51c0a3d001",
        description="Ground floor, left.",
        kind=Room.Kind.LECTURE_HALL,
    )
    loft = make_room(
        conference,
        name="Loft",
        slug="the-loft",
        capacity=40,
        position=1,
        guid="5b0e5f3e-5f55-4f52-9a55-8d51c0a3d002",
        description="Third floor; stairs only.",
        kind=Room.Kind.WORKSHOP,
    )
    compilers = make_track(
        conference,
        name="Compilers",
        slug="compilers",
        colour="#1f77b4",
        description="From graphs to kernels.",
    )
    training = make_track(
        conference, name="Training", slug="training", colour="#2ca02c", description="Loops."
    )
    ada = make_speaker(
        conference,
        name="Ada Lovelace",
        slug="ada-lovelace",
        role="Analyst",
        company="Analytical Engines",
        bio="Wrote the *first* program.",
        avatar_url="https://avatars.example.org/ada.png",
    )
    SpeakerLink.objects.create(speaker=ada, title="Website", url="https://ada.example.org/")
    SpeakerLink.objects.create(
        speaker=ada, title="Mastodon", url="https://social.example/@ada", position=1
    )
    crew = make_speaker(
        conference,
        name="Orga Crew",
        slug="orga-crew",
        role="Hosts",
        company="",
        bio="The people on stage between talks.",
        appears_in_parallel=True,
    )
    grace = make_speaker(conference, name="Grace Hopper", slug="grace-hopper")
    common = {
        "subtitle": "A subtitle",
        "language": "de",
        "abstract": "Short.",
        "description": "Long, in *Markdown*.",
        "recording_license": "CC BY 4.0",
        "feedback_url": "https://feedback.example.org/",
        "logo_url": "https://cfp.example.org/media/logo.png",
        "source_url": "https://cfp.example.org/schedule/talk/",
        "origin_url": "https://cfp.example.org/talk/",
    }
    sessions = []
    for index, kind in enumerate(Session.Kind):
        if kind == Session.Kind.BREAK:
            continue
        sessions.append(
            make_session(
                conference,
                title=f"A {kind.label}",
                slug=f"a-{kind.value}",
                kind=kind,
                room=hall if index % 2 else loft,
                track=compilers if index % 2 else training,
                starts_at=paris(7, 10 + index),
                ends_at=paris(7, 10 + index, 45),
                speakers=[ada, crew] if index % 2 else [grace, crew],
                audience_level=list(Session.AudienceLevel)[index % 4],
                code=f"ABC12{index}",
                **{name: f"{value}{index}" for name, value in common.items()},
            )
        )
    make_session(
        conference,
        title="Lunch",
        slug="lunch",
        kind=Session.Kind.BREAK,
        room=None,
        starts_at=paris(7, 12, 30),
        ends_at=paris(7, 13, 30),
    )
    make_session(
        conference,
        title="Opening ceremony",
        slug="opening-ceremony",
        kind=Session.Kind.KEYNOTE,
        type_label="Ceremony",
        room=hall,
        starts_at=paris(8, 9),
        ends_at=paris(8, 9, 30),
        speakers=[crew],
        do_not_record=True,
    )
    make_session(
        conference,
        title="Late hack night",
        slug="late-hack-night",
        kind=Session.Kind.WORKSHOP,
        room=loft,
        starts_at=paris(9, 1, 30),  # after midnight: still 8 April with the day change at 04:00
        ends_at=paris(9, 3),
        speakers=[grace],
        status=Session.Status.CANCELLED,
    )
    talk = sessions[0]
    SessionLink.objects.create(
        session=talk, title="Video", url="https://video.example.org/1", kind="media"
    )
    SessionLink.objects.create(
        session=talk, title="Repository", url="https://git.example.org/r", position=1
    )
    Attachment.objects.create(
        session=talk, title="Slides", url="https://files.example.org/s.pdf", kind="slides"
    )
    Attachment.objects.create(
        session=talk, title="Paper", url="https://files.example.org/p.pdf", kind="paper", position=1
    )
    return conference


def exported(conference: Conference, kind: str) -> bytes:
    sessions = list(Session.objects.public().for_listing().filter(conference=conference))
    if kind == "xml":
        return build_frab_xml(conference, sessions, base_url=BASE_URL)
    return json.dumps(build_frab_data(conference, sessions, base_url=BASE_URL)).encode()


def entered(conference: Conference, omit: dict[str, set[str]]) -> dict[str, object]:
    """What organizers entered, without ids, and without the fields in ``omit``."""

    def values(instance, kind: str) -> dict:
        names = ENTERED[kind]
        return {name: value(instance, name) for name in names if name not in omit.get(kind, ())}

    def value(instance, name):
        if name == "links":
            return [(link.title, link.url, link.position) for link in instance.links.all()]
        return getattr(instance, name)

    speakers = Speaker.objects.filter(conference=conference).order_by("guid")
    sessions = Session.objects.filter(conference=conference).order_by("guid")
    return {
        "conference": values(conference, "conference"),
        "rooms": [values(room, "room") for room in conference.rooms.order_by("position")],
        "tracks": [values(track, "track") for track in conference.tracks.order_by("name")],
        "speakers": [values(speaker, "speaker") for speaker in speakers],
        "sessions": [
            values(session, "session")
            | {
                "day": session.starts_at and conference.day_of(session.starts_at),
                "room": session.room and session.room.name,
                "track": session.track and session.track.name,
                "speakers": [speaker.guid for speaker in session.ordered_speakers],
                "links": [
                    (link.title, link.url, link.kind, link.position) for link in session.links.all()
                ],
                "attachments": [
                    (item.title, item.url, item.kind, item.position)
                    for item in session.attachments.all()
                ],
            }
            for session in sessions
        ],
    }


@pytest.mark.parametrize("kind", ["json", "xml"])
def test_every_field_an_organizer_entered_survives_export_and_import(everything, kind):
    copy = make_conference(
        name=everything.name,
        slug="copy-2026",
        starts_on=everything.starts_on,
        ends_on=everything.ends_on,
        time_zone=everything.time_zone,
        city="",
    )

    import_schedule(copy, io.BytesIO(exported(everything, kind)))

    omit = XML_CANNOT_CARRY if kind == "xml" else {}
    copy.refresh_from_db()
    original, imported = entered(everything, omit), entered(copy, omit)
    found = differences(imported, original)
    assert found == [], "\n".join(found)


def differences(imported: dict, original: dict) -> list[str]:
    """Each field whose value the copy lost, as “part[index].field: copy != original”."""
    found = []
    for part, value in original.items():
        rows = value if isinstance(value, list) else [value]
        copies = imported[part] if isinstance(value, list) else [imported[part]]
        if len(copies) != len(rows):
            found.append(f"{part}: {len(copies)} rows != {len(rows)}")
            continue
        for index, (row, copied) in enumerate(zip(rows, copies, strict=True)):
            found += [
                f"{part}[{index}].{name}: {copied[name]!r} != {row[name]!r}"
                for name in row
                if copied[name] != row[name]
            ]
    return found


@pytest.mark.parametrize("kind", ["json", "xml"])
def test_our_export_reimported_into_its_own_conference_changes_nothing(everything, kind):
    # A room without a GUID is exported with one derived from its slug.
    Room.objects.filter(conference=everything, slug="the-loft").update(guid="")

    report = import_schedule(everything, io.BytesIO(exported(everything, kind)))

    assert report.changes == []
    assert report.unchanged == {"room": 2, "track": 2, "speaker": 3, "session": 8}


@pytest.mark.parametrize("kind", ["json", "xml"])
def test_our_export_never_makes_our_session_pages_source_urls(everything, kind):
    copy = make_conference(slug="copy-2026", time_zone=everything.time_zone)

    import_schedule(copy, io.BytesIO(exported(everything, kind)))

    sources = set(Session.objects.filter(conference=copy).values_list("source_url", flat=True))
    # schedule.json carries each session's own source URL; schedule.xml has no place for it.
    original = set(
        Session.objects.filter(conference=everything).values_list("source_url", flat=True)
    )
    assert sources == (original if kind == "json" else {""})


# Files from elsewhere: what they say that has a home here is exported again ---------------------


def exported_json(conference: Conference) -> dict:
    return json.loads(exported(conference, "json"))["schedule"]["conference"]


def test_room_type_and_description_per_language_are_imported_and_exported(conference):
    rooms = [
        {
            "name": "Hall",
            "guid": "5b0e5f3e-5f55-4f52-9a55-8d51c0a3d001",
            "type": "lecturehall",
            "description": {"de": "Erdgeschoss.", "en": "Ground floor."},
            "features": {"recording": "record_by_default"},
        },
        {
            "name": "Lab",
            "guid": "5b0e5f3e-5f55-4f52-9a55-8d51c0a3d002",
            "type": "a greenhouse",
            "description_de": "Im Garten.",
        },
    ]
    events = [FRAB_EVENT, FRAB_EVENT | {"guid": OTHER_GUID, "room": "Lab", "persons": []}]
    document = json_document(*events, rooms=rooms, time_zone_name="Europe/Paris")

    import_schedule(conference, io.BytesIO(json.dumps(document).encode()))

    assert [
        (room["name"], room.get("type"), room["description"])
        for room in exported_json(conference)["rooms"]
    ] == [("Hall", "lecturehall", "Ground floor."), ("Lab", None, "Im Garten.")]


@pytest.mark.parametrize("kind", ["json", "xml"])
def test_video_download_url_is_kept_as_a_media_link_and_exported(conference, kind):
    video = "https://import.c3voc.de/videos/097127f9.mp4"
    if kind == "json":
        source = schedule_json(FRAB_EVENT | {"video_download_url": video})
    else:
        source = frab_xml(video_download_url=video)

    import_schedule(conference, io.BytesIO(source))
    report = import_schedule(conference, io.BytesIO(source))

    [event] = exported_json(conference)["days"][1]["rooms"]["Hall"]
    assert event["links"] == [{"url": video, "title": "Video download", "type": "media"}]
    assert report.changes == []


@pytest.mark.parametrize("kind", ["json", "xml"])
def test_carriage_returns_survive_export_and_reimport(conference, kind):
    text = "Line one\r\nline two\rline three"
    event = FRAB_EVENT | {"abstract": text, "description": text}
    import_schedule(conference, io.BytesIO(schedule_json(event)))

    report = import_schedule(conference, io.BytesIO(exported(conference, kind)))

    assert report.changes == []
    session = Session.objects.get()
    assert (session.abstract, session.description) == (text, text)


# As 39c3's and 31c3's files give them: an IDN host, a path with typographic quotes.
NON_ASCII_URLS = ["https://zügli.app", "http://www.example.org/2013/“making-famine”"]


@pytest.mark.parametrize("kind", ["json", "xml"])
def test_non_ascii_link_urls_are_exported_as_given_and_reimport_unchanged(conference, kind):
    links = [{"url": url, "title": f"Link {n}"} for n, url in enumerate(NON_ASCII_URLS)]
    import_schedule(conference, io.BytesIO(schedule_json(FRAB_EVENT | {"links": links})))
    Attachment.objects.create(
        session=Session.objects.get(), title="Slides", url="https://zügli.app/folien.pdf"
    )

    export = exported(conference, kind)
    report = import_schedule(conference, io.BytesIO(export))

    [event] = exported_json(conference)["days"][1]["rooms"]["Hall"]
    assert [link["url"] for link in event["links"]] == NON_ASCII_URLS
    assert [item["url"] for item in event["attachments"]] == ["https://zügli.app/folien.pdf"]
    assert report.changes == []


def test_sessionize_tag_line_picture_and_links_are_imported_and_exported(conference):
    document = copy.deepcopy(SESSIONIZE)
    document["speakers"][0] |= {
        "tagLine": "Analyst, Analytical Engines",
        "profilePicture": "https://sessionize.com/image/ada.jpg",
        "links": [
            {"title": "Website", "url": "https://ada.example.org/", "linkType": "Blog"},
            {"title": "", "url": "https://social.example/@ada", "linkType": "Twitter"},
        ],
    }

    import_schedule(conference, io.BytesIO(json.dumps(document).encode()))

    [event] = exported_json(conference)["days"][1]["rooms"]["Hall"]
    [person] = event["persons"]
    assert (person["role"], person["avatar"], person["links"]) == (
        "Analyst, Analytical Engines",
        "https://sessionize.com/image/ada.jpg",
        [
            {"url": "https://ada.example.org/", "title": "Website"},
            {"url": "https://social.example/@ada", "title": "Twitter"},
        ],
    )

"""Each session's part of an export is cached under a key of everything it shows
(sessions/exports/fragments.py): an edit of any of those shows in the next export, and an
export built from cached parts is the one built from scratch."""

import json
import re

import icalendar
import pytest
from django.conf import settings
from django.core.cache import cache
from django.urls import reverse
from lxml import etree

from conference.models import Conference
from sessions.exports import fragments
from sessions.exports.frab_schedule import build_frab_data
from sessions.models import Attachment, SessionLink
from speakers.models import SpeakerLink
from tests.builders import make_conference, make_room, make_session, make_speaker, make_track, paris

pytestmark = pytest.mark.django_db

EXPORTS = ["schedule-ics", "schedule-xml", "schedule-json"]


@pytest.fixture
def conference():
    """PyCon with a venue, which each session's iCalendar LOCATION names."""
    return make_conference(slug="pycon", venue="Palais")


@pytest.fixture
def talk(conference):
    room = make_room(conference, name="Hall")
    track = make_track(conference, name="Data")
    speaker = make_speaker(conference, name="Ada Lovelace", bio="Counts.")
    SpeakerLink.objects.create(speaker=speaker, title="Website", url="https://ada.example.org/")
    session = make_session(
        conference,
        title="Graphs",
        room=room,
        track=track,
        speakers=[speaker],
        starts_at=paris(8, 9),
    )
    SessionLink.objects.create(session=session, title="Recording", url="https://video.example.org/")
    Attachment.objects.create(session=session, title="Slides", url="https://slides.example.org/")
    make_session(conference, title="Other talk", starts_at=paris(8, 11))
    return session


def export(client, name):
    response = client.get(reverse(f"sessions:{name}", kwargs={"conference_slug": "pycon"}))
    assert response.status_code == 200
    return response.getvalue().decode()


def without_stamps(text):
    return re.sub(r"DTSTAMP:\d{8}T\d{6}Z", "DTSTAMP", text)


def graphs_event(text, name):
    """The talk's room and track as its event in the export says them."""
    if name == "schedule-ics":
        calendar = icalendar.Calendar.from_ical(text)
        event = next(e for e in calendar.walk("VEVENT") if e["SUMMARY"] == "Graphs")
        return str(event["LOCATION"]), str(event["CATEGORIES"].cats[0])
    if name == "schedule-json":
        days = json.loads(text)["schedule"]["conference"]["days"]
        events = [e for day in days for room in day["rooms"].values() for e in room]
        event = next(e for e in events if e["title"] == "Graphs")
        return event["room"], event["track"]
    event = next(
        e for e in etree.fromstring(text.encode()).iter("event") if e.findtext("title") == "Graphs"
    )
    return event.findtext("room"), event.findtext("track")


def reload(instance):
    instance.refresh_from_db()
    return instance


@pytest.mark.parametrize("name", EXPORTS)
def test_a_speakers_new_name_shows_in_the_next_export(client, talk, name):
    export(client, name)
    speaker = reload(talk.ordered_speakers[0])
    speaker.name = "Ada King"
    speaker.save()

    text = export(client, name)

    assert "Ada King" in text
    assert "Ada Lovelace" not in text


@pytest.mark.parametrize("name", EXPORTS)
def test_a_rooms_new_name_shows_in_the_next_export(client, talk, name):
    export(client, name)
    room = reload(talk.room)
    room.name = "Grand Hall"
    room.save()

    assert "Grand Hall" in graphs_event(export(client, name), name)[0]


@pytest.mark.parametrize("name", EXPORTS)
def test_a_tracks_new_name_shows_in_the_next_export(client, talk, name):
    export(client, name)
    track = reload(talk.track)
    track.name = "Machine Learning"
    track.save()

    assert graphs_event(export(client, name), name)[1] == "Machine Learning"


@pytest.mark.parametrize("name", EXPORTS)
def test_a_session_moved_to_another_track_shows_it_in_the_next_export(client, talk, name):
    export(client, name)
    session = reload(talk)
    session.track = make_track(talk.conference, name="Compilers")
    session.save()

    assert graphs_event(export(client, name), name)[1] == "Compilers"


@pytest.mark.parametrize("name", ["schedule-xml", "schedule-json"])
def test_a_links_new_title_shows_in_the_next_export(client, talk, name):
    export(client, name)
    link = SessionLink.objects.get(session=talk)
    link.title = "Video of the talk"
    link.save()

    assert "Video of the talk" in export(client, name)


@pytest.mark.parametrize("name", ["schedule-xml", "schedule-json"])
def test_a_new_attachment_shows_in_the_next_export(client, talk, name):
    export(client, name)
    Attachment.objects.create(
        session=talk, title="Paper", url="https://paper.example.org/", position=1
    )

    assert "https://paper.example.org/" in export(client, name)


def test_a_speakers_new_link_shows_in_the_next_json_export(client, talk):
    export(client, "schedule-json")
    link = SpeakerLink.objects.get(speaker=talk.ordered_speakers[0])
    link.url = "https://ada.example.net/"
    link.save()

    assert "https://ada.example.net/" in export(client, "schedule-json")


@pytest.mark.parametrize("name", EXPORTS)
def test_a_new_time_zone_shows_in_the_next_export(client, talk, name):
    before = export(client, name)
    conference = Conference.objects.get(pk=talk.conference_id)
    conference.time_zone = "Europe/London"
    conference.save()

    after = export(client, name)

    assert "09:00:00+02:00" in before or "T090000" in before
    assert "08:00:00+01:00" in after or "T080000" in after


@pytest.mark.parametrize("name", ["schedule-xml", "schedule-json"])
def test_a_new_day_change_moves_a_night_session_to_the_day_before(client, conference, name):
    make_session(conference, title="Night owls", starts_at=paris(8, 1))
    export(client, name)
    conference.day_change = "04:00"
    conference.save()

    text = export(client, name)

    if name == "schedule-json":
        days = json.loads(text)["schedule"]["conference"]["days"]
        titles = [[e["title"] for r in d["rooms"].values() for e in r] for d in days]
    else:
        days = etree.fromstring(text.encode()).findall("day")
        titles = [[e.findtext("title") for e in d.iter("event")] for d in days]
    assert titles == [["Night owls"], []]


@pytest.mark.parametrize("name", EXPORTS)
def test_an_export_from_cached_parts_is_the_export_built_from_scratch(client, talk, name):
    export(client, name)
    session = reload(talk)
    session.title = "Graphs, revised"
    session.save()
    from_parts = export(client, name)
    cache.clear()

    assert without_stamps(from_parts) == without_stamps(export(client, name))


@pytest.mark.parametrize("name", EXPORTS)
def test_past_the_fragment_limit_an_export_is_written_whole_and_its_parts_not_kept(
    client, talk, name, settings
):
    kept = export(client, name)
    cache.clear()
    settings.EXPORT_FRAGMENT_MAX_SESSIONS = 1  # the conference has two sessions

    written = export(client, name)

    assert without_stamps(written) == without_stamps(kept)
    assert not [key for key in cache._cache if "fragment:export-" in key]


def test_the_json_export_is_build_frab_data_written_out(client, talk):
    conference = Conference.objects.get(pk=talk.conference_id)
    listing = list(conference.sessions.public().for_export().in_schedule_order())
    data = build_frab_data(conference, listing, base_url=settings.SITE_URL)

    assert json.loads(export(client, "schedule-json")) == data


def test_after_an_edit_only_the_edited_session_is_written_again(client, talk, monkeypatch):
    export(client, "schedule-ics")
    written = []
    calendar_event = fragments.calendar_event

    def counting(conference, session, *args):
        written.append(session.title)
        return calendar_event(conference, session, *args)

    monkeypatch.setattr(fragments, "calendar_event", counting)
    session = reload(talk)
    session.title = "Graphs, revised"
    session.save()

    text = export(client, "schedule-ics")

    assert written == ["Graphs, revised"]
    summaries = [
        str(event["SUMMARY"]) for event in icalendar.Calendar.from_ical(text).walk("VEVENT")
    ]
    assert summaries == ["Graphs, revised", "Other talk"]


@pytest.mark.parametrize("name", EXPORTS)
def test_a_streamed_export_is_kept_whole_and_served_again_unchanged(client, talk, name):
    first = client.get(reverse(f"sessions:{name}", kwargs={"conference_slug": "pycon"}))
    assert first.streaming
    body = first.getvalue()

    again = client.get(reverse(f"sessions:{name}", kwargs={"conference_slug": "pycon"}))

    assert (again.streaming, again.content) == (False, body)
    assert (again["ETag"], again["Content-Type"]) == (first["ETag"], first["Content-Type"])
    assert again["Content-Disposition"] == first["Content-Disposition"]


@pytest.mark.parametrize("name", EXPORTS)
@pytest.mark.parametrize("n", [1, 12])
def test_export_query_count_does_not_grow(
    client, conference, django_assert_max_num_queries, name, n
):
    speaker = make_speaker(conference)
    for number in range(n):
        session = make_session(
            conference, title=f"Talk {number}", starts_at=paris(8, 9, number), speakers=[speaker]
        )
        SessionLink.objects.create(session=session, url="https://example.org/")
        Attachment.objects.create(session=session, title="Slides", url="https://example.org/s")

    with django_assert_max_num_queries(20):
        text = export(client, name)
    session.title = "Edited"
    session.save()
    with django_assert_max_num_queries(20):
        edited = export(client, name)

    assert text.count("https://example.org/s") == (0 if name == "schedule-ics" else n)
    assert "Edited" in edited

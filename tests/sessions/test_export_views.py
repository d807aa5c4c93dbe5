import datetime
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import icalendar
import pytest
import vobject
from django.urls import reverse
from django.utils.text import slugify
from lxml import etree

from sessions.models import CalendarFeed, SavedSession, Session
from sessions.releases import release_schedule
from tests.builders import make_conference, make_session, make_track, paris

pytestmark = pytest.mark.django_db


def url(name, **kwargs):
    return reverse(f"sessions:{name}", kwargs={"conference_slug": "pycon", **kwargs})


def summaries(response):
    calendar = icalendar.Calendar.from_ical(response.getvalue())
    return sorted(str(event["SUMMARY"]) for event in calendar.walk("VEVENT"))


@pytest.mark.parametrize(
    ("name", "content_type", "filename"),
    [
        ("schedule-ics", "text/calendar; charset=utf-8", "pycon.ics"),
        ("schedule-xml", "application/xml; charset=utf-8", "schedule.xml"),
        ("schedule-json", "application/json", "schedule.json"),
    ],
)
def test_exports_have_the_right_type_and_file_name(
    client, conference, name, content_type, filename
):
    make_session(conference)
    response = client.get(url(name))
    assert response.status_code == 200
    assert response["Content-Type"] == content_type
    assert response["Content-Disposition"] == f'inline; filename="{filename}"'


def test_schedule_calendar_exports_what_the_filters_show(client, conference):
    data = make_track(conference, name="Data")
    make_session(conference, title="Data talk", track=data)
    make_session(conference, title="Other talk", starts_at=paris(8, 14))
    assert summaries(client.get(url("schedule-ics"), {"track": "data"})) == ["Data talk"]


def test_schedule_calendar_refuses_a_bad_filter_with_a_clear_400(client, conference):
    response = client.get(url("schedule-ics"), {"track": "nope"})
    assert response.status_code == 400
    assert response.content.decode().startswith("Bad filter: track: Select a valid choice.")


def test_exports_leave_out_drafts_even_for_staff(admin_client, conference):
    make_session(conference, title="Public")
    make_session(conference, title="Draft", status=Session.Status.DRAFT, starts_at=paris(8, 14))
    assert summaries(admin_client.get(url("schedule-ics"))) == ["Public"]


def test_session_calendar_holds_that_one_session(client, conference):
    session = make_session(conference, title="Only me")
    make_session(conference, title="Not me", starts_at=paris(8, 14))
    response = client.get(url("session-ics", slug=session.slug))
    assert summaries(response) == ["Only me"]
    assert response["Content-Disposition"] == f'inline; filename="{session.slug}.ics"'


def test_calendar_files_keep_the_english_kind_in_titles_for_french_visitors(client, conference):
    make_session(conference, title="Live Migration", kind=Session.Kind.LIGHTNING_TALK)
    french = {"Accept-Language": "fr"}

    assert summaries(client.get(url("schedule-ics"), headers=french)) == [
        "Lightning Talk: Live Migration"
    ]


def test_session_calendar_of_a_draft_is_a_404(client, conference):
    session = make_session(conference, status=Session.Status.DRAFT)
    assert client.get(url("session-ics", slug=session.slug)).status_code == 404


def test_session_page_links_its_calendar_file(client, conference):
    session = make_session(conference)
    html = client.get(session.get_absolute_url()).content.decode()
    assert f'href="/pycon/sessions/{session.slug}.ics">Add to my calendar (.ics)</a>' in html


@pytest.mark.parametrize(
    "name", ["schedule-ics", "schedule-xml", "schedule-json", "schedule", "schedule-grid"]
)
def test_an_up_to_date_client_gets_304(client, conference, name):
    make_session(conference)
    first = client.get(url(name))
    again = client.get(url(name), headers={"If-None-Match": first["ETag"]})
    since = client.get(url(name), headers={"If-Modified-Since": first["Last-Modified"]})
    assert (again.status_code, since.status_code) == (304, 304)
    assert again.content == b""


@pytest.mark.parametrize("name", ["schedule-ics", "schedule"])
def test_any_change_in_the_conference_changes_the_etag(client, conference, name):
    session = make_session(conference)
    first = client.get(url(name))["ETag"]
    session.title = "Renamed"
    session.save()
    assert client.get(url(name), headers={"If-None-Match": first}).status_code == 200


def test_etag_differs_per_filter_and_time_zone(client, conference):
    make_session(conference)
    tags = {
        client.get(url("schedule"), query).get("ETag")
        for query in ({}, {"q": "x"}, {"tz": "Asia/Tokyo"})
    }
    assert len(tags) == 3


def test_pages_that_show_saved_markers_are_not_cached_for_logged_in_users(
    client, conference, django_user_model
):
    make_session(conference)
    client.force_login(django_user_model.objects.create_user("ada"))
    response = client.get(url("schedule"))
    assert "ETag" not in response


@pytest.mark.parametrize("name", ["schedule-ics", "schedule-xml", "schedule-json"])
def test_exports_take_links_and_uids_from_the_site_address_not_the_host_asked(
    client, conference, settings, name
):
    """A calendar subscribed via two host names, before and after an edit, sees one event."""
    settings.ALLOWED_HOSTS = ["localhost", "127.0.0.1"]
    session = make_session(conference, title="Talk")
    first = client.get(url(name), HTTP_HOST="localhost").getvalue().decode()
    session.title = "Talk, renamed"
    session.save()  # a new content version: the export is rendered again, for another host
    second = client.get(url(name), HTTP_HOST="127.0.0.1").getvalue().decode()
    assert "localhost" not in first + second
    assert "127.0.0.1" not in first + second
    assert "https://schedule.example.org/pycon/sessions/" in second
    if name == "schedule-ics":
        uids = [
            [str(event["UID"]) for event in icalendar.Calendar.from_ical(text).walk("VEVENT")]
            for text in (first, second)
        ]
        assert uids[0] == uids[1] == [f"{session.guid}@schedule.example.org"]


def frab_versions(client, conference):
    data = json.loads(client.get(url("schedule-json")).getvalue())
    xml = client.get(url("schedule-xml")).getvalue()
    return data["schedule"]["version"], etree.fromstring(xml).findtext("version")


def test_frab_exports_carry_the_latest_release_name(client, conference):
    make_session(conference, title="Keynote")
    release_schedule(conference, version="v1", comment="", user=None)
    assert frab_versions(client, conference) == ("v1", "v1")
    make_session(conference, title="Late addition", starts_at=paris(8, 15))
    release_schedule(conference, version="v2", comment="", user=None)

    assert frab_versions(client, conference) == ("v2", "v2")


def test_frab_exports_add_a_content_stamp_for_changes_since_the_release(client, conference):
    session = make_session(conference, title="Keynote")
    release_schedule(conference, version="v1", comment="", user=None)
    session.title = "Renamed after the release"
    session.save()

    json_version, xml_version = frab_versions(client, conference)
    session.title = "Renamed once more"
    session.save()
    later_version, _ = frab_versions(client, conference)

    assert json_version == xml_version
    assert re.fullmatch(r"v1\+\d{4}-\d\d-\d\d \d\d:\d\d [0-9a-f]{8}", json_version)
    assert later_version.startswith("v1+")
    assert later_version != json_version


# The night the clocks go back: 02:00–03:00 happens twice in Berlin on 25 October 2026 ----------

NODE_MODULES = Path(__file__).resolve().parents[2] / "node_modules"
ICAL_INSTANTS = Path(__file__).with_name("ical_instants.mjs")
FIRST_0215 = datetime.datetime(2026, 10, 25, 0, 15, tzinfo=datetime.UTC)  # 02:15 CEST
SECOND_0215 = datetime.datetime(2026, 10, 25, 1, 15, tzinfo=datetime.UTC)  # 02:15 CET
HOUR = datetime.timedelta(hours=1)
# Each session's start and end in UTC, as every calendar app must read them back.
REPEATED_HOUR = {
    "First 02:15": (FIRST_0215, FIRST_0215 + datetime.timedelta(minutes=30)),
    "Second 02:15": (SECOND_0215, SECOND_0215 + datetime.timedelta(minutes=30)),
    "Across the change": (FIRST_0215, SECOND_0215),
    "After the change": (SECOND_0215 + HOUR, SECOND_0215 + HOUR + datetime.timedelta(minutes=30)),
}


@pytest.fixture
def berlin_night(django_user_model):
    berlin = make_conference(
        slug="pycon",
        time_zone="Europe/Berlin",
        starts_on=datetime.date(2026, 10, 24),
        ends_on=datetime.date(2026, 10, 26),
    )
    user = django_user_model.objects.create_user("ada")
    for title, (starts_at, ends_at) in REPEATED_HOUR.items():
        SavedSession.objects.add(
            user, make_session(berlin, title=title, starts_at=starts_at, ends_at=ends_at)
        )
    return berlin, user


def calendars_of_the_night(client, berlin_night) -> list[bytes]:
    """The whole feed, each session's own file, and a private feed."""
    berlin, user = berlin_night
    paths = [
        url("schedule-ics"),
        *(url("session-ics", slug=slugify(title)) for title in REPEATED_HOUR),
        CalendarFeed.issue(user, berlin).get_absolute_url(),
    ]
    return [client.get(path).getvalue() for path in paths]


# In UTC: Python never finds a time in the repeated hour equal to one of another zone (PEP 495).
def in_utc(*moments: datetime.datetime) -> tuple:
    return tuple(moment.astimezone(datetime.UTC) for moment in moments)


def instants_read_by_icalendar(ics: bytes) -> dict[str, tuple]:
    return {
        str(event["SUMMARY"]): in_utc(event.decoded("DTSTART"), event.decoded("DTEND"))
        for event in icalendar.Calendar.from_ical(ics).walk("VEVENT")
    }


def instants_read_by_vobject(ics: bytes) -> dict[str, tuple]:
    return {
        event.summary.value: in_utc(event.dtstart.value, event.dtend.value)
        for event in vobject.readOne(ics.decode()).vevent_list
    }


def instants_read_by_ical_js(ics: bytes) -> dict[str, tuple]:
    found = subprocess.run(["node", str(ICAL_INSTANTS)], input=ics, capture_output=True, check=True)
    return {
        summary: in_utc(*(datetime.datetime.fromisoformat(moment) for moment in (start, end)))
        for summary, start, end in json.loads(found.stdout)
    }


def expected(ics: bytes) -> dict[str, tuple]:
    return {
        title: moments
        for title, moments in REPEATED_HOUR.items()
        if f"SUMMARY:{title}".encode() in ics
    }


def test_repeated_hour_instants_read_back_the_same_in_icalendar(client, berlin_night):
    for ics in calendars_of_the_night(client, berlin_night):
        assert instants_read_by_icalendar(ics) == expected(ics)


def test_repeated_hour_instants_read_back_the_same_in_vobject(client, berlin_night):
    for ics in calendars_of_the_night(client, berlin_night):
        assert instants_read_by_vobject(ics) == expected(ics)


def test_repeated_hour_instants_read_back_the_same_in_ical_js(client, berlin_night):
    if not (NODE_MODULES / "ical.js").is_dir() or shutil.which("node") is None:
        if os.environ.get("CI") == "true":
            pytest.fail("node_modules/ical.js is missing (make test runs npm ci)")
        pytest.skip("node_modules/ical.js is missing (make test runs npm ci)")
    for ics in calendars_of_the_night(client, berlin_night):
        assert instants_read_by_ical_js(ics) == expected(ics)


def test_times_in_the_repeated_hour_are_written_in_utc_and_others_on_berlin_clocks(
    client, berlin_night
):
    events = calendars_of_the_night(client, berlin_night)[0].decode().split("BEGIN:VEVENT", 1)[1]
    starts_and_ends = re.findall(r"^(DTSTART|DTEND)([;:].*)\r$", events, re.MULTILINE)
    assert sorted(starts_and_ends) == [
        ("DTEND", ":20261025T004500Z"),
        ("DTEND", ":20261025T011500Z"),
        ("DTEND", ":20261025T014500Z"),
        ("DTEND", ";TZID=Europe/Berlin:20261025T034500"),
        ("DTSTART", ":20261025T001500Z"),
        ("DTSTART", ":20261025T001500Z"),
        ("DTSTART", ":20261025T011500Z"),
        ("DTSTART", ";TZID=Europe/Berlin:20261025T031500"),
    ]

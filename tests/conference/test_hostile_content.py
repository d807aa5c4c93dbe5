"""Markup and script in every field an organizer, a script or an import can fill: always inert."""

import datetime
import json
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

import icalendar
import pytest
from django.urls import reverse

from sessions.importers import import_schedule
from sessions.models import SavedSession, Session
from sessions.releases import release_schedule
from speakers.models import Speaker
from tests.builders import make_conference, paris

pytestmark = pytest.mark.django_db

SCRIPT = '<script>alert("owned")</script>'
IMAGE = "<img src=x onerror=alert(1)>"
SVG = '"><svg onload=alert(1)>'
MARKDOWN_LINK = "[click me](javascript:alert(1))"
HTML_LINK = '<a href="javascript:alert(1)">click</a>'
ALL = f"{SCRIPT} {IMAGE} {SVG} {MARKDOWN_LINK} {HTML_LINK}"


class ActiveMarkup(HTMLParser):
    """Collects what a browser would run: inline scripts, event handlers, javascript: links."""

    def __init__(self):
        super().__init__()
        self.found = []

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if tag == "script" and "src" not in attributes:
            self.found.append("inline <script>")
        if tag in {"iframe", "object", "embed"}:
            self.found.append(f"<{tag}>")
        for name, value in attrs:
            if name.startswith("on"):
                self.found.append(f"{tag} {name}=")
            if name in {"href", "src", "action", "formaction"} and (
                value or ""
            ).strip().lower().startswith("javascript:"):
                self.found.append(f"{tag} {name}=javascript:")


def assert_inert(html: str) -> None:
    parser = ActiveMarkup()
    parser.feed(html)
    assert parser.found == []


@pytest.fixture
def conference():
    """PyCon with markup and script in its name, venue and description."""
    return make_conference(slug="pycon", name=f"Conf {SCRIPT}", venue=IMAGE, description=ALL)


@pytest.fixture
def hostile_session(admin_client, conference):
    """Everything created through the organizer admin, as an organizer would (or an attacker with a stolen login)."""
    admin_client.post(
        reverse("admin:conference_room_add"),
        {"conference": conference.pk, "name": f"Room {SVG}", "slug": "room", "position": 0},
    )
    admin_client.post(
        reverse("admin:conference_track_add"),
        {
            "conference": conference.pk,
            "name": f"Track {IMAGE}",
            "slug": "track",
            "colour": "#123456",
        },
    )
    admin_client.post(
        reverse("admin:speakers_speaker_add"),
        {
            "conference": conference.pk,
            "name": f"Eve {SCRIPT}",
            "slug": "eve",
            "role": SVG,
            "company": IMAGE,
            "bio": ALL,
            "links-TOTAL_FORMS": "0",
            "links-INITIAL_FORMS": "0",
            "availability-TOTAL_FORMS": "0",
            "availability-INITIAL_FORMS": "0",
        },
    )
    speaker = Speaker.objects.get(slug="eve")
    admin_client.post(
        reverse("admin:schedule_session_add"),
        {
            "conference": conference.pk,
            "title": f"Talk {SCRIPT}{IMAGE}",
            "slug": "talk",
            "kind": "talk",
            "status": "published",
            "starts_at_0": "2026-04-08",
            "starts_at_1": "10:00",
            "ends_at_0": "2026-04-08",
            "ends_at_1": "10:30",
            "room": conference.rooms.get().pk,
            "track": conference.tracks.get().pk,
            "description": ALL,
            "audience_level": "any",
            "session_speakers-TOTAL_FORMS": "1",
            "session_speakers-INITIAL_FORMS": "0",
            "session_speakers-0-speaker": speaker.pk,
            "session_speakers-0-position": "0",
            "attachments-TOTAL_FORMS": "1",
            "attachments-INITIAL_FORMS": "0",
            "links-TOTAL_FORMS": "0",
            "links-INITIAL_FORMS": "0",
            "attachments-0-title": SCRIPT,
            "attachments-0-url": "https://example.org/slides.pdf",
            "attachments-0-position": "0",
        },
    )
    return Session.objects.get(slug="talk")


def test_the_admin_stores_hostile_text_as_text(hostile_session):
    assert hostile_session.title == f"Talk {SCRIPT}{IMAGE}"
    assert hostile_session.ordered_speakers[0].bio == ALL


@pytest.mark.parametrize(
    "path",
    [
        "/pycon/",
        "/pycon/schedule/",
        "/pycon/schedule/grid/",
        "/pycon/sessions/talk/",
        "/pycon/speakers/",
        "/pycon/speakers/eve/",
        "/pycon/schedule/?q=%3Cscript%3Ealert(1)%3C/script%3E",
        "/pycon/schedule/?track=%3Cscript%3Ealert(1)%3C/script%3E",
        "/pycon/schedule/?tz=%3Cscript%3Ealert(1)%3C/script%3E",
        "/pycon/speakers/?q=%3Cscript%3Ealert(1)%3C/script%3E",
    ],
)
def test_every_page_shows_hostile_text_inert(client, hostile_session, path):
    response = client.get(path)
    assert response.status_code == 200
    assert_inert(response.content.decode())


@pytest.mark.parametrize("path", ["/pycon/now/", "/pycon/now/room/"])
@pytest.mark.parametrize("minute", [0, 20], ids=["talk next", "talk now"])
def test_now_pages_show_hostile_text_inert(client, clock, hostile_session, path, minute):
    clock(paris(8, 9, 50) + datetime.timedelta(minutes=minute))
    response = client.get(path)
    assert "Talk &lt;script&gt;" in response.content.decode()
    assert_inert(response.content.decode())


def test_my_schedule_shows_hostile_text_inert(client, hostile_session, django_user_model):
    user = django_user_model.objects.create_user("ada")
    SavedSession.objects.add(user, hostile_session)
    client.force_login(user)
    assert_inert(client.get("/pycon/my-schedule/").content.decode())


@pytest.mark.parametrize(
    "name",
    [
        "admin:schedule_session_changelist",
        "admin:speakers_speaker_changelist",
        "admin:conference_room_changelist",
    ],
)
def test_the_admin_lists_show_hostile_text_inert(admin_client, hostile_session, name):
    assert_inert(admin_client.get(reverse(name)).content.decode())


def test_the_admin_form_shows_hostile_text_inert(admin_client, hostile_session):
    html = admin_client.get(
        reverse("admin:schedule_session_change", args=[hostile_session.pk])
    ).content.decode()
    assert_inert(html)


def test_schedule_xml_carries_hostile_text_as_text(client, hostile_session):
    body = client.get("/pycon/schedule.xml").getvalue()
    assert b"<script>" not in body
    titles = [event.findtext("title") for event in ET.fromstring(body).iter("event")]
    assert titles == [f"Talk {SCRIPT}{IMAGE}"]


def test_schedule_json_carries_hostile_text_as_text(client, hostile_session):
    data = json.loads(client.get("/pycon/schedule.json").getvalue())
    events = [
        event
        for day in data["schedule"]["conference"]["days"]
        for room in day["rooms"].values()
        for event in room
    ]
    assert [event["title"] for event in events] == [f"Talk {SCRIPT}{IMAGE}"]


def test_calendar_carries_hostile_text_as_text(client, hostile_session):
    calendar = icalendar.Calendar.from_ical(client.get("/pycon/schedule.ics").getvalue())
    (event,) = calendar.walk("VEVENT")
    assert str(event["SUMMARY"]) == f"Talk {SCRIPT}{IMAGE}"


def test_imported_hostile_text_is_inert_on_every_page(client, conference, tmp_path):
    schedule = {
        "schedule": {
            "version": "1",
            "conference": {
                "acronym": "pycon",
                "title": SCRIPT,
                "start": "2026-04-07",
                "end": "2026-04-08",
                "daysCount": 2,
                "timeslot_duration": "00:05",
                "time_zone_name": "Europe/Paris",
                "rooms": [
                    {"name": f"Hall {IMAGE}", "guid": "8c1f1a9e-2c3b-4f0e-9a55-0a1b2c3d4e5f"}
                ],
                "days": [
                    {
                        "index": 1,
                        "date": "2026-04-08",
                        "day_start": "2026-04-08T04:00:00+02:00",
                        "day_end": "2026-04-09T03:59:00+02:00",
                        "rooms": {
                            f"Hall {IMAGE}": [
                                {
                                    "guid": "5d7e0c3a-8a7e-4a7b-9d1e-2f3a4b5c6d7e",
                                    "id": 1,
                                    "date": "2026-04-08T11:00:00+02:00",
                                    "start": "11:00",
                                    "duration": "00:30",
                                    "room": f"Hall {IMAGE}",
                                    "slug": "imported",
                                    "url": "https://example.org/imported",
                                    "title": f"Imported {SCRIPT}",
                                    "subtitle": "",
                                    "track": f"Track {SVG}",
                                    "type": "Talk",
                                    "language": "en",
                                    "abstract": ALL,
                                    "description": ALL,
                                    "logo": "",
                                    "persons": [
                                        {
                                            "guid": "0b9a8c7d-6e5f-4a3b-2c1d-0e9f8a7b6c5d",
                                            "name": f"Mallory {SCRIPT}",
                                            "public_name": f"Mallory {SCRIPT}",
                                            "biography": ALL,
                                        }
                                    ],
                                    "links": [],
                                    "attachments": [],
                                    "recording_license": "",
                                    "do_not_record": False,
                                }
                            ]
                        },
                    }
                ],
            },
        }
    }
    path = tmp_path / "schedule.json"
    path.write_text(json.dumps(schedule))
    import_schedule(conference, path)
    session = Session.objects.get(title=f"Imported {SCRIPT}")
    for url in ["/pycon/schedule/", session.get_absolute_url(), "/pycon/speakers/"]:
        assert_inert(client.get(url).content.decode())


@pytest.fixture
def api_hostile_session(conference, organizer):
    """The same payloads written through the REST API by an organizer's client."""
    from rest_framework.test import APIClient

    api = APIClient()
    api.force_authenticate(organizer)
    base = "/api/v1/conferences/pycon"
    writes = [
        api.post(f"{base}/rooms/", {"name": f"Room {SVG}", "slug": "room"}, format="json"),
        api.post(
            f"{base}/tracks/",
            {"name": f"Track {IMAGE}", "slug": "track", "colour": "#123456"},
            format="json",
        ),
        api.post(
            f"{base}/speakers/",
            {"name": f"Eve {SCRIPT}", "slug": "eve", "role": SVG, "company": IMAGE, "bio": ALL},
            format="json",
        ),
        api.post(
            f"{base}/sessions/",
            {
                "slug": "talk",
                "title": f"Talk {SCRIPT}{IMAGE}",
                "kind": "talk",
                "status": "published",
                "starts_at": "2026-04-08T10:00:00+02:00",
                "ends_at": "2026-04-08T10:30:00+02:00",
                "room": "room",
                "track": "track",
                "speakers": ["eve"],
                "description": ALL,
            },
            format="json",
        ),
    ]
    assert [response.status_code for response in writes] == [201, 201, 201, 201]
    return Session.objects.get(slug="talk")


@pytest.mark.parametrize(
    "path", ["/pycon/schedule/", "/pycon/sessions/talk/", "/pycon/speakers/eve/"]
)
def test_text_written_through_the_api_is_inert_on_pages(client, api_hostile_session, path):
    assert_inert(client.get(path).content.decode())


def test_the_api_returns_hostile_text_as_json_strings(client, api_hostile_session):
    response = client.get("/api/v1/conferences/pycon/sessions/talk/")
    assert response["Content-Type"] == "application/json"
    assert response.json()["title"] == f"Talk {SCRIPT}{IMAGE}"


@pytest.fixture
def hostile_release(hostile_session):
    """The hostile session released, with a hostile comment, then retitled and released again."""
    conference = hostile_session.conference
    release_schedule(conference, version=f"v1 {SCRIPT}", comment=ALL, user=None)
    hostile_session.title = f"Renamed {IMAGE}"
    hostile_session.save()
    return release_schedule(conference, version=f"v2 {SVG}", comment=ALL, user=None)


def test_the_change_log_shows_hostile_text_inert(client, hostile_release):
    html = client.get("/pycon/changes/").content.decode()
    assert "retitled from “Talk &lt;script&gt;" in html
    assert_inert(html)


def test_the_change_feed_carries_hostile_text_as_text(client, hostile_release):
    feed = ET.fromstring(client.get("/pycon/changes.atom").content)
    atom = "{http://www.w3.org/2005/Atom}"
    entries = feed.findall(f"{atom}entry")
    assert [entry.findtext(f"{atom}title") for entry in entries] == [
        f"v2 {SVG}: 1 retitled",
        f"v1 {SCRIPT}: 1 new",
    ]
    for entry in entries:
        # The summary is HTML a feed reader renders: the hostile text must be escaped inside it.
        assert_inert(entry.findtext(f"{atom}summary"))


def test_the_release_review_and_the_release_admin_show_hostile_text_inert(
    admin_client, hostile_release
):
    hostile_release.conference.sessions.update(title=f"Again {SCRIPT}")
    review = reverse("admin:schedule_session_release", args=[hostile_release.conference_id])
    for url in (
        review,
        reverse("admin:schedule_release_changelist"),
        reverse("admin:schedule_release_change", args=[hostile_release.pk]),
    ):
        assert_inert(admin_client.get(url).content.decode())


def test_the_release_api_carries_hostile_text_as_text(client, hostile_release):
    results = client.get("/api/v1/conferences/pycon/releases/").json()["results"]
    assert [(release["version"], release["comment"]) for release in results] == [
        (f"v2 {SVG}", ALL),
        (f"v1 {SCRIPT}", ALL),
    ]


@pytest.fixture
def hostile_proposal(conference, django_user_model, admin_user):
    """A proposal with markup and script in every text a speaker writes, reviewed with some."""
    from sessions.models import CallQuestion, ProposalAnswer, Review
    from tests.builders import make_call, make_proposal

    call = make_call(conference)
    question = CallQuestion.objects.create(call=call, text=f"Why {SCRIPT}?")
    speaker = django_user_model.objects.create_user("mallory", first_name=IMAGE)
    proposal = make_proposal(
        conference,
        speaker,
        state="submitted",
        title=f"Talk {SCRIPT}",
        abstract=ALL,
        description=ALL,
        notes=ALL,
    )
    proposal.proposal_speakers.update(bio=ALL)
    ProposalAnswer.objects.create(proposal=proposal, question=question, value=ALL)
    Review.objects.create(proposal=proposal, reviewer=admin_user, score=2, comment=ALL)
    return proposal


def test_the_review_list_and_page_show_hostile_text_inert(admin_client, hostile_proposal):
    for url in (
        reverse("admin:schedule_proposal_changelist"),
        reverse("admin:schedule_proposal_change", args=[hostile_proposal.pk]),
    ):
        assert_inert(admin_client.get(url).content.decode())

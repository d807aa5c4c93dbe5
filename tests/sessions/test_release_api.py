import datetime

import pytest
from django.urls import reverse

from sessions.models import Session
from sessions.releases import release_schedule
from tests.api_fixtures import *  # noqa: F403 -- pytest fixtures, the autouse one included
from tests.builders import make_conference, make_room, make_session, make_speaker, paris

pytestmark = pytest.mark.django_db


def releases_url(conference):
    return reverse("api:release-list", kwargs={"conference_slug": conference.slug})


def release(conference, version, comment=""):
    return release_schedule(conference, version=version, comment=comment, user=None)


def test_releases_are_listed_newest_first_with_their_change_records(anonymous, conference):
    central = make_room(conference, name="Central Room", position=1)
    junior = make_room(conference, name="Junior Stage", position=2)
    ann = make_speaker(conference, name="Ann Lee")
    talk = make_session(
        conference, title="Graphs", room=central, starts_at=paris(8, 10, 35), speakers=[ann]
    )
    release(conference, "v1", "First schedule.")
    talk.room, talk.starts_at, talk.ends_at = junior, paris(8, 14), paris(8, 14, 30)
    talk.save()
    second = release(conference, "v2", "Graphs moves.")

    body = anonymous.get(releases_url(conference)).json()

    assert body["count"] == 2
    newest, oldest = body["results"]
    assert newest == {
        "version": "v2",
        "comment": "Graphs moves.",
        "released_at": second.released_at.astimezone(datetime.UTC)
        .isoformat()
        .replace("+00:00", "Z"),
        "summary": "1 moved",
        "url": "https://schedule.example.org/pycon/changes/#" + second.anchor,
        "changes": [
            {
                "kind": "moved",
                "session_id": talk.pk,
                "title": "Graphs",
                "slug": "graphs",
                "description": "moved from Wed 10:35 Central Room to Wed 14:00 Junior Stage (CEST)",
                "before": {
                    "id": talk.pk,
                    "guid": talk.guid,
                    "slug": "graphs",
                    "title": "Graphs",
                    "kind": "talk",
                    "status": "published",
                    "starts_at": "2026-04-08T08:35:00+00:00",
                    "ends_at": "2026-04-08T09:05:00+00:00",
                    "room_id": central.pk,
                    "room_name": "Central Room",
                    "track_name": "",
                    "speaker_ids": [ann.pk],
                    "speaker_names": ["Ann Lee"],
                },
                "after": {
                    "id": talk.pk,
                    "guid": talk.guid,
                    "slug": "graphs",
                    "title": "Graphs",
                    "kind": "talk",
                    "status": "published",
                    "starts_at": "2026-04-08T12:00:00+00:00",
                    "ends_at": "2026-04-08T12:30:00+00:00",
                    "room_id": junior.pk,
                    "room_name": "Junior Stage",
                    "track_name": "",
                    "speaker_ids": [ann.pk],
                    "speaker_names": ["Ann Lee"],
                },
            }
        ],
    }
    assert (oldest["version"], oldest["summary"]) == ("v1", "1 new")
    assert oldest["changes"][0]["before"] is None


def test_a_page_of_releases_is_compared_with_the_release_before_it(anonymous, conference):
    make_session(conference, title="Graphs")
    release(conference, "v1")
    make_session(conference, title="Trees", starts_at=paris(8, 11))
    release(conference, "v2")

    body = anonymous.get(releases_url(conference), {"offset": 0, "limit": 1}).json()

    assert [(entry["version"], entry["summary"]) for entry in body["results"]] == [("v2", "1 new")]
    assert [change["title"] for change in body["results"][0]["changes"]] == ["Trees"]


def test_a_deleted_session_stays_in_the_changes_it_was_part_of(anonymous, conference):
    talk = make_session(conference, title="Graphs")
    release(conference, "v1")
    Session.objects.filter(pk=talk.pk).delete()
    release(conference, "v2")

    results = anonymous.get(releases_url(conference)).json()["results"]

    assert [(entry["version"], entry["changes"][0]["kind"]) for entry in results] == [
        ("v2", "removed"),
        ("v1", "new"),
    ]
    assert results[0]["changes"][0]["after"] is None


def test_releases_of_an_unpublished_conference_are_not_found(anonymous):
    conference = make_conference(is_published=False)
    assert anonymous.get(releases_url(conference)).status_code == 404


@pytest.mark.parametrize("method", ["post", "put", "patch", "delete"])
def test_releases_cannot_be_written_through_the_api(organizer_client, conference, method):
    response = getattr(organizer_client, method)(releases_url(conference), {}, format="json")

    assert response.status_code == 405
    assert not conference.releases.exists()


@pytest.mark.parametrize("n", [1, 8])
def test_release_list_query_count_does_not_grow(
    anonymous, django_assert_max_num_queries, conference, n
):
    speaker = make_speaker(conference)
    for number in range(n):
        make_session(conference, starts_at=paris(8, 8 + number), speakers=[speaker])
        release(conference, f"v{number + 1}")

    # Conference, count, page, the release before the page; the throttle's counter.
    with django_assert_max_num_queries(6):
        response = anonymous.get(releases_url(conference))

    assert len(response.json()["results"]) == n


def test_schema_documents_the_release_list_and_its_change_kinds(api_schema):
    schema = api_schema

    operation = schema["paths"]["/api/v1/conferences/{conference_slug}/releases/"]
    assert list(operation) == ["get"]
    components = schema["components"]["schemas"]
    assert components["SessionChangeKindEnum"]["enum"] == [
        "new",
        "reinstated",
        "moved",
        "room",
        "retitled",
        "speakers",
        "cancelled",
        "removed",
    ]
    assert components["KindEnum"]["enum"][:2] == ["keynote", "talk"]
    change = components["SessionChange"]["properties"]
    assert set(change) == {"kind", "session_id", "title", "slug", "description", "before", "after"}

"""A client syncing with ?updated_since= and removed/ (docs/api.md, “Syncing”)."""

import datetime

import pytest
from django.db.models import F
from django.urls import reverse
from django.utils import timezone

from conference.models import Conference
from sessions.models import Removal, Session, SessionSpeaker
from speakers.models import Speaker, SpeakerLink
from tests.api_fixtures import *  # noqa: F403 -- pytest fixtures, the autouse one included
from tests.builders import make_conference, make_room, make_session, make_speaker, paris

pytestmark = pytest.mark.django_db

LONG_AGO = datetime.datetime(2000, 1, 1, tzinfo=datetime.UTC)


def url(conference, name):
    return reverse(f"api:{name}-list", kwargs={"conference_slug": conference.slug})


def synced(conference):
    """Everything in ``conference`` as of long ago; the moment a client's last sync started."""
    Session.objects.update(updated_at=LONG_AGO, version=F("version"))
    Speaker.objects.update(updated_at=LONG_AGO, version=F("version"))
    return timezone.now()


def changed(client, conference, name, since):
    response = client.get(url(conference, name), {"updated_since": since.isoformat()})
    assert response.status_code == 200, response.json()
    return sorted(row["slug"] for row in response.json()["results"])


def removed(client, conference, since):
    response = client.get(url(conference, "removal"), {"updated_since": since.isoformat()})
    assert response.status_code == 200, response.json()
    return [(row["type"], row["id"], row["reason"]) for row in response.json()["results"]]


def test_a_sync_after_editing_one_session_returns_only_it(anonymous, organizer_client, conference):
    edited = make_session(conference, title="Edited")
    make_session(conference, title="Untouched", starts_at=paris(8, 11))
    since = synced(conference)
    response = organizer_client.patch(
        reverse("api:session-detail", kwargs={"conference_slug": "pycon", "slug": edited.slug}),
        {"title": "Edited again"},
        format="json",
    )
    assert response.status_code == 200
    assert changed(anonymous, conference, "session", since) == ["edited"]
    assert removed(anonymous, conference, since) == []


def test_renaming_a_speaker_changes_their_sessions_and_no_other(anonymous, conference):
    ada = make_speaker(conference, name="Ada")
    make_session(conference, title="Ada's talk", speakers=[ada])
    make_session(conference, title="Other talk", starts_at=paris(8, 11))
    since = synced(conference)
    ada.name = "Ada Lovelace"
    ada.save()
    assert changed(anonymous, conference, "session", since) == ["adas-talk"]
    assert changed(anonymous, conference, "speaker", since) == ["ada"]


def test_a_speakers_new_link_changes_them_and_their_sessions(anonymous, conference):
    ada = make_speaker(conference, name="Ada")
    make_session(conference, title="Ada's talk", speakers=[ada])
    make_session(
        conference, title="Other talk", starts_at=paris(8, 11), speakers=[make_speaker(conference)]
    )
    since = synced(conference)
    SpeakerLink.objects.create(speaker=ada, title="Site", url="https://ada.example")
    assert changed(anonymous, conference, "session", since) == ["adas-talk"]
    assert changed(anonymous, conference, "speaker", since) == ["ada"]


def test_taking_a_speaker_off_a_session_changes_both(anonymous, conference):
    ada = make_speaker(conference, name="Ada")
    bob = make_speaker(conference, name="Bob")
    talk = make_session(conference, title="Talk", speakers=[ada, bob])
    make_session(conference, title="Ada again", starts_at=paris(8, 11), speakers=[ada])
    since = synced(conference)
    SessionSpeaker.objects.get(session=talk, speaker=ada).delete()
    assert changed(anonymous, conference, "session", since) == ["talk"]
    assert changed(anonymous, conference, "speaker", since) == ["ada"]
    assert removed(anonymous, conference, since) == []  # Ada still gives a public session


def test_renaming_a_room_changes_its_sessions(anonymous, conference):
    hall = make_room(conference, name="Hall")
    make_session(conference, title="In the hall", room=hall)
    make_session(conference, title="Elsewhere", starts_at=paris(8, 11))
    since = synced(conference)
    hall.name = "Great Hall"
    hall.save()
    assert changed(anonymous, conference, "session", since) == ["in-the-hall"]


def test_a_speaker_whose_session_is_published_appears_in_the_speaker_sync(anonymous, conference):
    ada = make_speaker(conference, name="Ada")
    talk = make_session(conference, title="Talk", status=Session.Status.DRAFT, speakers=[ada])
    since = synced(conference)
    assert changed(anonymous, conference, "speaker", since) == []
    talk.status = Session.Status.PUBLISHED
    talk.save()
    assert changed(anonymous, conference, "speaker", since) == ["ada"]


def test_deleting_a_session_lists_it_as_removed(anonymous, organizer_client, conference):
    gone = make_session(conference, title="Gone")
    make_session(conference, title="Kept", starts_at=paris(8, 11))
    since = synced(conference)
    response = organizer_client.delete(
        reverse("api:session-detail", kwargs={"conference_slug": "pycon", "slug": "gone"})
    )
    assert response.status_code == 204
    assert changed(anonymous, conference, "session", since) == []
    assert removed(anonymous, conference, since) == [("session", gone.pk, "deleted")]


def test_removed_before_the_last_sync_is_not_listed_again(anonymous, conference):
    make_session(conference, title="Gone").delete()
    since = timezone.now()
    assert removed(anonymous, conference, since) == []


def test_deleting_a_speaker_lists_them_as_removed(anonymous, conference):
    ada = make_speaker(conference, name="Ada")
    make_session(conference, title="Talk", speakers=[ada])
    since = synced(conference)
    ada_id = ada.pk
    ada.delete()
    assert removed(anonymous, conference, since) == [("speaker", ada_id, "deleted")]
    assert changed(anonymous, conference, "session", since) == ["talk"]


def test_a_session_made_draft_is_removed_for_anonymous_clients(anonymous, conference):
    ada = make_speaker(conference, name="Ada")
    talk = make_session(conference, title="Talk", speakers=[ada])
    since = synced(conference)
    talk.status = Session.Status.DRAFT
    talk.save()
    assert changed(anonymous, conference, "session", since) == []
    assert changed(anonymous, conference, "speaker", since) == []
    assert removed(anonymous, conference, since) == [
        ("session", talk.pk, "hidden"),
        ("speaker", ada.pk, "hidden"),
    ]


def test_a_session_made_draft_is_changed_not_removed_for_staff(organizer_client, conference):
    talk = make_session(conference, title="Talk", speakers=[make_speaker(conference)])
    since = synced(conference)
    talk.status = Session.Status.DRAFT
    talk.save()
    assert changed(organizer_client, conference, "session", since) == ["talk"]
    assert removed(organizer_client, conference, since) == []


def test_a_session_published_again_is_no_longer_removed(anonymous, conference):
    talk = make_session(conference, title="Talk")
    since = synced(conference)
    talk.status = Session.Status.DRAFT
    talk.save()
    talk.status = Session.Status.PUBLISHED
    talk.save()
    assert removed(anonymous, conference, since) == []
    assert changed(anonymous, conference, "session", since) == ["talk"]


def test_a_deleted_draft_stays_unknown_to_anonymous_clients(
    anonymous, organizer_client, conference
):
    draft = make_session(conference, title="Secret", status=Session.Status.DRAFT)
    draft_id = draft.pk
    since = synced(conference)
    draft.delete()
    assert removed(anonymous, conference, since) == []
    assert removed(organizer_client, conference, since) == [("session", draft_id, "deleted")]


def test_deleting_a_conference_leaves_no_removals(conference):
    make_session(conference, speakers=[make_speaker(conference)])
    other = make_session(make_conference())
    other_id = other.pk
    other.delete()
    Conference.objects.filter(pk=conference.pk).delete()
    assert list(Removal.objects.values_list("kind", "object_id")) == [("session", other_id)]


@pytest.mark.parametrize(
    ("since", "count"),
    [("2026-01-01T13:00+01:00", 1), ("2026-01-01T13:00:01+01:00", 0), ("2026-01-01T12:00Z", 1)],
)
def test_updated_since_reads_an_offset(anonymous, conference, since, count):
    make_session(conference, speakers=[make_speaker(conference, name="Ada")])
    Speaker.objects.update(updated_at=datetime.datetime(2026, 1, 1, 12, tzinfo=datetime.UTC))
    response = anonymous.get(url(conference, "speaker"), {"updated_since": since})
    assert response.json()["count"] == count


@pytest.mark.parametrize("name", ["session", "speaker", "removal"])
@pytest.mark.parametrize(
    "value", ["yesterday", "2026-13-01T00:00Z", "2026-01-01T25:00", "2026-04-07", "20260407"]
)
def test_an_updated_since_that_is_no_date_time_is_a_400_naming_it(
    anonymous, conference, name, value
):
    response = anonymous.get(url(conference, name), {"updated_since": value})
    assert response.status_code == 400
    assert list(response.json()) == ["updated_since"]


def test_the_schema_documents_updated_since_and_the_removed_list(api_schema):
    schema = api_schema
    paths = schema["paths"]
    for name in ("sessions", "speakers", "removed"):
        operation = paths[f"/api/v1/conferences/{{conference_slug}}/{name}/"]["get"]
        assert "updated_since" in [p["name"] for p in operation["parameters"]]
    removal = schema["components"]["schemas"]["Removal"]
    assert sorted(removal["properties"]) == ["id", "reason", "removed_at", "type"]


@pytest.mark.parametrize("n", [1, 12])
def test_removed_list_query_count_does_not_grow(
    anonymous, django_assert_max_num_queries, conference, n
):
    for _ in range(n):
        make_session(conference, speakers=[make_speaker(conference)]).delete()
    with django_assert_max_num_queries(4):
        response = anonymous.get(
            url(conference, "removal"), {"updated_since": LONG_AGO.isoformat()}
        )
    assert response.json()["count"] == 2 * n  # each session, and its speaker, left with none


# The same budgets as the lists without updated_since (test_api.py of each app).
@pytest.mark.parametrize(("name", "queries"), [("session", 9), ("speaker", 4)])
@pytest.mark.parametrize("n", [1, 12])
def test_updated_since_list_query_count_does_not_grow(
    anonymous, django_assert_max_num_queries, conference, name, queries, n
):
    for _ in range(n):
        make_session(conference, speakers=[make_speaker(conference)])
    with django_assert_max_num_queries(queries):
        response = anonymous.get(url(conference, name), {"updated_since": LONG_AGO.isoformat()})
    assert response.json()["count"] == n

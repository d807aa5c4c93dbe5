import datetime
import zoneinfo

import pytest
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.utils import translation

from sessions.changes import CANCELLED
from sessions.models import Release, Session, SessionSpeaker
from sessions.releases import (
    changes_between,
    preview_release,
    public_snapshot,
    release_schedule,
    schedule_released,
    suggested_version,
)
from tests.builders import (
    PARIS,
    make_conference,
    make_room,
    make_session,
    make_speaker,
    make_unscheduled_session,
    paris,
)

pytestmark = pytest.mark.django_db


def kinds(changes):
    return [(change.kind, change.title) for change in changes]


def release(conference, version="v1", **kwargs):
    return release_schedule(conference, version=version, comment="", user=None, **kwargs)


@pytest.fixture
def central(conference):
    return make_room(conference, name="Central Room", position=1)


@pytest.fixture
def junior(conference):
    return make_room(conference, name="Junior Stage", position=2)


def test_public_snapshot_holds_what_the_public_sees_of_each_session(conference, central):
    ann = make_speaker(conference, name="Ann Lee")
    bob = make_speaker(conference, name="Bob Roe")
    talk = make_session(
        conference, title="Graphs", room=central, starts_at=paris(8, 10, 35), speakers=[bob, ann]
    )

    assert public_snapshot(conference) == {
        str(talk.pk): {
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
            "speaker_ids": [bob.pk, ann.pk],
            "speaker_names": ["Bob Roe", "Ann Lee"],
        }
    }


def test_public_snapshot_keeps_cancelled_sessions_and_leaves_out_drafts(conference):
    cancelled = make_session(conference, title="Off", status=Session.Status.CANCELLED)
    make_session(conference, title="Draft", status=Session.Status.DRAFT, starts_at=paris(8, 11))
    make_unscheduled_session(conference, title="Waiting")
    make_session(make_conference(), title="Elsewhere")

    snapshot = public_snapshot(conference)

    assert list(snapshot) == [str(cancelled.pk)]
    assert snapshot[str(cancelled.pk)]["status"] == "cancelled"


@pytest.mark.parametrize("n", [1, 12])
def test_public_snapshot_query_count_does_not_grow(conference, django_assert_num_queries, n):
    speaker = make_speaker(conference)
    for index in range(n):
        make_session(conference, starts_at=paris(8, 9) + index * datetime.timedelta(hours=1))
        SessionSpeaker.objects.create(session=Session.objects.last(), speaker=speaker)

    with django_assert_num_queries(2):
        snapshot = public_snapshot(conference)

    assert len(snapshot) == n


def test_a_new_session_is_announced_with_its_time_and_room(conference, central):
    old = public_snapshot(conference)
    make_session(conference, title="Graphs", room=central, starts_at=paris(8, 10, 35))

    [change] = changes_between(old, public_snapshot(conference))

    assert change.kind == "new"
    assert change.before is None
    assert change.describe(PARIS) == "new: Wed 10:35–11:05 CEST, Central Room"


def test_a_session_moved_in_time_and_room_says_both(conference, central, junior):
    talk = make_session(conference, title="Graphs", room=central, starts_at=paris(8, 10, 35))
    old = public_snapshot(conference)
    talk.room, talk.starts_at, talk.ends_at = junior, paris(8, 14), paris(8, 14, 30)
    talk.save()

    [change] = changes_between(old, public_snapshot(conference))

    assert change.kind == "moved"
    assert (change.before["room_name"], change.after["room_name"]) == (
        "Central Room",
        "Junior Stage",
    )
    assert (
        change.describe(PARIS)
        == "moved from Wed 10:35 Central Room to Wed 14:00 Junior Stage (CEST)"
    )


def test_a_session_moved_in_its_room_names_the_room_once(conference, central):
    talk = make_session(conference, title="Graphs", room=central, starts_at=paris(8, 10, 35))
    old = public_snapshot(conference)
    talk.starts_at, talk.ends_at = paris(7, 9), paris(7, 9, 30)
    talk.save()

    [change] = changes_between(old, public_snapshot(conference))

    assert change.describe(PARIS) == "moved from Wed 10:35 to Tue 09:00 (CEST), Central Room"


def test_a_longer_session_is_a_move_that_says_its_new_end(conference, central):
    talk = make_session(conference, title="Graphs", room=central, starts_at=paris(8, 10))
    old = public_snapshot(conference)
    talk.ends_at = paris(8, 10, 45)
    talk.save()

    [change] = changes_between(old, public_snapshot(conference))

    assert change.kind == "moved"
    assert change.describe(PARIS) == "now ends at 10:45 instead of 10:30 (CEST)"


def test_a_longer_session_in_another_room_says_both(conference, central, junior):
    talk = make_session(conference, title="Graphs", room=central, starts_at=paris(8, 10))
    old = public_snapshot(conference)
    talk.ends_at, talk.room = paris(8, 10, 45), junior
    talk.save()

    [change] = changes_between(old, public_snapshot(conference))

    assert change.describe(PARIS) == (
        "now ends at 10:45 instead of 10:30 (CEST), in Junior Stage instead of Central Room"
    )


def test_a_session_moved_across_the_clock_change_says_each_zone():
    conference = make_conference(
        starts_on=datetime.date(2026, 10, 24), ends_on=datetime.date(2026, 10, 25)
    )
    room = make_room(conference, name="Central Room")
    talk = make_session(conference, title="Graphs", room=room, starts_at=paris(24, 10, 0, month=10))
    old = public_snapshot(conference)
    talk.starts_at, talk.ends_at = paris(25, 10, 0, month=10), paris(25, 10, 30, month=10)
    talk.save()

    [change] = changes_between(old, public_snapshot(conference))

    # The clocks went back in the night: the same wall-clock time, 25 hours later.
    assert change.kind == "moved"
    assert change.describe(PARIS) == "moved from Sat 10:00 CEST to Sun 10:00 CET, Central Room"
    new_york = zoneinfo.ZoneInfo("America/New_York")
    assert change.describe(new_york) == "moved from Sat 04:00 to Sun 05:00 (EDT), Central Room"


def test_a_session_that_only_changed_room_is_a_room_change(conference, central, junior):
    talk = make_session(conference, title="Graphs", room=central)
    old = public_snapshot(conference)
    talk.room = junior
    talk.save()

    [change] = changes_between(old, public_snapshot(conference))

    assert change.kind == "room"
    assert change.describe(PARIS) == "changed room from Central Room to Junior Stage"


def test_a_cancelled_session_is_announced_once(conference, central):
    talk = make_session(conference, title="Graphs", room=central)
    first = public_snapshot(conference)
    Session.objects.filter(pk=talk.pk).cancel()
    second = public_snapshot(conference)

    assert kinds(changes_between(first, second)) == [("cancelled", "Graphs")]
    assert changes_between(first, second)[0].describe(PARIS) == (
        "cancelled (was Wed 10:00–10:30 CEST, Central Room)"
    )
    assert changes_between(second, second) == []


def test_snapshots_are_compared_with_the_status_cancelled_sessions_store():
    assert CANCELLED == Session.Status.CANCELLED


def test_a_session_moved_and_cancelled_is_cancelled_where_the_public_saw_it(
    conference, central, junior
):
    talk = make_session(conference, title="Graphs", room=central)
    old = public_snapshot(conference)
    talk.room, talk.status = junior, Session.Status.CANCELLED
    talk.save()

    [change] = changes_between(old, public_snapshot(conference))

    assert change.describe(PARIS) == "cancelled (was Wed 10:00–10:30 CEST, Central Room)"


def test_a_reinstated_session_is_announced_with_its_move(conference, central):
    talk = make_session(conference, title="Graphs", room=central, status=Session.Status.CANCELLED)
    old = public_snapshot(conference)
    talk.status, talk.starts_at, talk.ends_at = "published", paris(8, 15), paris(8, 15, 30)
    talk.save()

    changes = changes_between(old, public_snapshot(conference))

    assert kinds(changes) == [("reinstated", "Graphs"), ("moved", "Graphs")]
    assert changes[0].describe(PARIS) == "back on the schedule: Wed 15:00–15:30 CEST, Central Room"


@pytest.mark.parametrize("how", ["deleted", "unpublished"])
def test_a_session_no_longer_public_is_removed(conference, central, how):
    talk = make_session(conference, title="Graphs", room=central)
    old, pk = public_snapshot(conference), talk.pk
    if how == "deleted":
        talk.delete()
    else:
        Session.objects.filter(pk=talk.pk).unpublish()

    [change] = changes_between(old, public_snapshot(conference))

    assert (change.kind, change.session_id, change.after) == ("removed", pk, None)
    assert change.describe(PARIS) == (
        "removed from the schedule (was Wed 10:00–10:30 CEST, Central Room)"
    )


def test_a_retitled_session_says_both_titles(conference):
    talk = make_session(conference, title="Graphs")
    old = public_snapshot(conference)
    talk.title = "Graphs at scale"
    talk.save()

    [change] = changes_between(old, public_snapshot(conference))

    assert (change.kind, change.title) == ("retitled", "Graphs at scale")
    assert change.describe(PARIS) == "retitled from “Graphs” to “Graphs at scale”"


def test_speakers_added_and_removed_are_named(conference):
    ann = make_speaker(conference, name="Ann Lee")
    bob = make_speaker(conference, name="Bob Roe")
    cy = make_speaker(conference, name="Cy Dee")
    talk = make_session(conference, title="Graphs", speakers=[ann, bob])
    old = public_snapshot(conference)
    SessionSpeaker.objects.filter(session=talk, speaker=bob).delete()
    SessionSpeaker.objects.create(session=talk, speaker=cy, position=5)

    [change] = changes_between(old, public_snapshot(conference))

    assert change.kind == "speakers"
    assert change.describe(PARIS) == "speakers changed: Cy Dee added; Bob Roe removed"


def test_speakers_added_and_removed_agree_in_number_in_french(conference):
    ann = make_speaker(conference, name="Ann Lee")
    bob = make_speaker(conference, name="Bob Roe")
    talk = make_session(conference, title="Graphs", speakers=[ann, bob])
    old = public_snapshot(conference)
    SessionSpeaker.objects.filter(session=talk).delete()
    SessionSpeaker.objects.create(session=talk, speaker=make_speaker(conference, name="Cy Dee"))

    [change] = changes_between(old, public_snapshot(conference))

    with translation.override("fr"):
        assert change.describe(PARIS) == (
            "intervenants modifiés : Cy Dee ajouté ; Ann Lee, Bob Roe retirés"
        )


def test_speakers_in_another_order_are_no_change(conference):
    ann = make_speaker(conference, name="Ann Lee")
    bob = make_speaker(conference, name="Bob Roe")
    talk = make_session(conference, speakers=[ann, bob])
    old = public_snapshot(conference)
    SessionSpeaker.objects.filter(session=talk, speaker=ann).update(position=9)

    assert changes_between(old, public_snapshot(conference)) == []


def test_one_record_per_kind_for_a_session_changed_in_several_ways(conference, central, junior):
    ann = make_speaker(conference, name="Ann Lee")
    talk = make_session(conference, title="Graphs", room=central)
    old = public_snapshot(conference)
    talk.title, talk.room = "Trees", junior
    talk.save()
    SessionSpeaker.objects.create(session=talk, speaker=ann)

    changes = changes_between(old, public_snapshot(conference))

    assert kinds(changes) == [("room", "Trees"), ("retitled", "Trees"), ("speakers", "Trees")]


def test_changes_come_in_schedule_order(conference, central):
    old = public_snapshot(conference)
    make_session(conference, title="Late", room=central, starts_at=paris(8, 16))
    make_session(conference, title="Early", room=central, starts_at=paris(7, 9))

    assert kinds(changes_between(old, public_snapshot(conference))) == [
        ("new", "Early"),
        ("new", "Late"),
    ]


def test_a_release_stores_the_snapshot_and_who_released_it(conference):
    organizer = get_user_model().objects.create_user("organizer", is_staff=True)
    make_session(conference, title="Graphs")

    stored = release_schedule(conference, version=" v1 ", comment="First cut.", user=organizer)

    stored.refresh_from_db()
    assert (stored.version, stored.comment, stored.released_by) == ("v1", "First cut.", organizer)
    assert stored.snapshot == public_snapshot(conference)


def test_release_changes_are_against_the_previous_release_even_after_deletes(conference):
    graphs = make_session(conference, title="Graphs")
    first = release(conference, "v1")
    make_session(conference, title="Trees", starts_at=paris(8, 11))
    graphs.delete()
    second = release(conference, "v2")
    make_session(conference, title="Later", starts_at=paris(8, 12))

    assert kinds(first.changes()) == [("new", "Graphs")]
    assert kinds(second.changes()) == [("removed", "Graphs"), ("new", "Trees")]


def test_a_release_name_is_unique_per_conference(conference):
    release(conference, "v1")
    release(make_conference(), "v1")

    with pytest.raises(ValidationError) as error:
        release(conference, "v1")

    assert error.value.message_dict == {
        "version": ["There is already a release “v1”: choose another name."]
    }
    assert Release.objects.filter(conference=conference).count() == 1


def test_an_unpublished_conference_cannot_be_released():
    conference = make_conference(is_published=False)

    with pytest.raises(ValidationError, match="not published"):
        release(conference)

    assert not Release.objects.exists()


def test_a_release_is_refused_when_the_schedule_changed_since_it_was_shown(conference):
    shown = preview_release(conference).digest
    make_session(conference, title="Graphs")

    with pytest.raises(ValidationError, match="changed while you were reviewing"):
        release(conference, expected_digest=shown)

    assert not Release.objects.exists()
    assert release(conference, expected_digest=preview_release(conference).digest)


def test_a_release_is_refused_when_another_was_made_since_it_was_shown(conference):
    make_session(conference, title="Graphs")
    shown = preview_release(conference).digest
    release(conference, "v1")  # by another organizer, announcing the same changes

    with pytest.raises(ValidationError, match="releases changed while you were reviewing"):
        release(conference, "v2", expected_digest=shown)

    assert list(Release.objects.values_list("version", flat=True)) == ["v1"]


def test_schedule_released_is_sent_once_the_release_is_committed(
    conference, django_capture_on_commit_callbacks
):
    received = []

    def receiver(sender, release, **kwargs):
        received.append(release)

    schedule_released.connect(receiver)
    try:
        with django_capture_on_commit_callbacks(execute=True) as callbacks:
            stored = release(conference)
            assert received == []
    finally:
        schedule_released.disconnect(receiver)

    assert len(callbacks) == 1
    assert received == [stored]


def test_releasing_moves_the_conference_content_version(conference):
    before = conference.changed_at

    stored = release(conference)

    conference.refresh_from_db()
    assert before < conference.changed_at <= stored.released_at


def test_the_suggested_version_is_the_next_free_number(conference):
    assert suggested_version(conference) == "v1"
    release(conference, "v1")
    release(conference, "v3")
    assert suggested_version(conference) == "v4"
    release(conference, "beta")
    assert suggested_version(conference) == "v4"


def publish(conference):
    conference.is_published = True
    conference.save()


@pytest.fixture
def unpublished():
    return make_conference(is_published=False)


def test_publishing_a_conference_keeps_its_schedule_as_an_unannounced_first_release(
    unpublished, django_capture_on_commit_callbacks
):
    graphs = make_session(unpublished, title="Graphs", room=make_room(unpublished))
    received = []

    def receiver(sender, release, **kwargs):
        received.append(release)

    schedule_released.connect(receiver)
    try:
        with django_capture_on_commit_callbacks(execute=True):
            publish(unpublished)
    finally:
        schedule_released.disconnect(receiver)

    [baseline] = unpublished.releases.all()
    assert (baseline.version, baseline.comment) == ("v1", "The schedule as first published.")
    assert list(baseline.snapshot) == [str(graphs.pk)]
    assert received == []  # nobody is mailed: the public saw this schedule as it was published


def test_the_first_release_after_publishing_lists_moves_and_retitles_not_new(unpublished):
    central = make_room(unpublished, name="Central Room")
    graphs = make_session(unpublished, title="Graphs", room=central, starts_at=paris(8, 10))
    vision = make_session(unpublished, title="Vision", room=central, starts_at=paris(8, 11))
    publish(unpublished)
    graphs.starts_at, graphs.ends_at = paris(8, 14), paris(8, 14, 30)
    graphs.save()
    vision.title = "Vision, revisited"
    vision.save()
    make_session(unpublished, title="Compilers", room=central, starts_at=paris(8, 12))

    preview = preview_release(unpublished)

    assert kinds(preview.changes) == [
        ("retitled", "Vision, revisited"),
        ("new", "Compilers"),
        ("moved", "Graphs"),
    ]
    assert preview.summary == "1 new, 1 moved, 1 retitled"
    assert release(unpublished, "v2").changes() == preview.changes


def test_saving_a_published_conference_again_keeps_its_first_baseline(unpublished):
    graphs = make_session(unpublished, title="Graphs", room=make_room(unpublished))
    publish(unpublished)
    graphs.title = "Graphs, revisited"
    graphs.save()
    unpublished.is_published = False
    unpublished.save()
    publish(unpublished)

    [baseline] = unpublished.releases.all()
    assert baseline.snapshot[str(graphs.pk)]["title"] == "Graphs"


def test_a_conference_published_with_nothing_public_has_no_baseline(unpublished):
    make_unscheduled_session(unpublished)

    publish(unpublished)

    assert list(unpublished.releases.all()) == []


@pytest.mark.parametrize("n", [1, 12])
def test_publishing_query_count_does_not_grow(unpublished, django_assert_max_num_queries, n):
    room = make_room(unpublished)
    speaker = make_speaker(unpublished)
    for index in range(n):
        make_session(
            unpublished,
            room=room,
            starts_at=paris(8, 9) + index * datetime.timedelta(hours=1),
            speakers=[speaker],
        )

    with django_assert_max_num_queries(9):
        publish(unpublished)

    assert len(unpublished.releases.get().snapshot) == n

import datetime

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, connection, transaction
from django.utils import translation

from sessions.models import SavedSession, Session, SessionSpeaker, room_bookings_checked_at_end
from tests.builders import (
    make_conference,
    make_room,
    make_session,
    make_speaker,
    make_team,
    make_unscheduled_session,
    paris,
)

pytestmark = pytest.mark.django_db


def unsaved_session(conference, **fields):
    defaults = {
        "title": "New talk",
        "slug": "new-talk",
        "starts_at": paris(8, 10),
        "ends_at": paris(8, 10, 30),
        "status": Session.Status.PUBLISHED,
    }
    return Session(conference=conference, **{**defaults, **fields})


def test_session_clean_rejects_ending_before_it_starts():
    session = unsaved_session(make_conference(), starts_at=paris(8, 11), ends_at=paris(8, 10))
    with pytest.raises(ValidationError) as error:
        session.full_clean()
    assert error.value.message_dict["ends_at"] == ["A session must end after it starts."]


def test_database_refuses_a_session_ending_before_it_starts():
    with pytest.raises(IntegrityError), transaction.atomic():
        make_session(starts_at=paris(8, 11), ends_at=paris(8, 10))


def test_session_clean_rejects_a_day_outside_the_conference():
    session = unsaved_session(make_conference(), starts_at=paris(9, 10), ends_at=paris(9, 11))
    with pytest.raises(ValidationError) as error:
        session.full_clean()
    assert error.value.message_dict["starts_at"] == [
        f"{session.conference} runs from Tuesday 7 April 2026 to Wednesday 8 April 2026 (Europe/Paris); "
        "this session must lie within those days."
    ]


def test_session_clean_uses_local_days_not_utc_days():
    # 00:30 in Paris on the first day is still the day before in UTC.
    session = unsaved_session(make_conference(), starts_at=paris(7, 0, 30), ends_at=paris(7, 1, 0))
    session.full_clean()
    assert session.starts_at.astimezone(datetime.UTC).date() == datetime.date(2026, 4, 6)


def test_session_clean_rejects_room_double_booking_naming_the_clash():
    booked = make_session(title="Scaling Inference", room=make_room(name="Central Room"))
    session = unsaved_session(
        booked.conference,
        room=booked.room,
        starts_at=paris(8, 10, 15),
        ends_at=paris(8, 11),
    )
    with pytest.raises(ValidationError) as error:
        session.full_clean()
    assert error.value.message_dict["room"] == [
        "Central Room already hosts “Scaling Inference” then (Wednesday 8 April 2026 10:00–10:30 CEST)."
    ]


def test_session_clean_allows_back_to_back_sessions_in_one_room():
    booked = make_session(room=make_room())
    unsaved_session(
        booked.conference,
        room=booked.room,
        starts_at=booked.ends_at,
        ends_at=paris(8, 11),
    ).full_clean()


def test_session_clean_allows_a_cancelled_session_to_be_overlapped():
    booked = make_session(room=make_room(), status=Session.Status.CANCELLED)
    unsaved_session(booked.conference, room=booked.room).full_clean()


def test_session_clean_lets_a_cancelled_session_keep_its_clashing_slot():
    booked = make_session(room=make_room())
    unsaved_session(
        booked.conference, room=booked.room, status=Session.Status.CANCELLED
    ).full_clean()


def test_session_clean_lets_a_venue_wide_break_overlap_talks():
    booked = make_session(room=make_room())
    unsaved_session(
        booked.conference, kind=Session.Kind.BREAK, title="Coffee", slug="coffee"
    ).full_clean()


def test_session_clean_lets_a_session_keep_its_own_slot_when_edited():
    session = make_session(room=make_room())
    session.title = "Renamed"
    session.full_clean()


def test_session_clean_rejects_a_room_of_another_conference():
    session = unsaved_session(
        make_conference(), room=make_room(make_conference(), name="Elsewhere")
    )
    with pytest.raises(ValidationError) as error:
        session.full_clean()
    assert error.value.message_dict["room"] == ["Elsewhere is a room of another conference."]


def test_adding_a_busy_speaker_is_rejected_naming_the_clash():
    conference = make_conference()
    speaker = make_speaker(conference, name="Ada Lovelace")
    make_session(conference, title="Engines", speakers=[speaker])
    other = make_session(conference, title="Looms", starts_at=paris(8, 10, 15))
    with pytest.raises(ValidationError) as error:
        SessionSpeaker(session=other, speaker=speaker).full_clean()
    assert error.value.message_dict["speaker"] == [
        "Ada Lovelace already gives “Engines” then (Wednesday 8 April 2026 10:00–10:30 CEST)."
    ]


def test_an_organisation_marked_as_appearing_in_parallel_may_be_on_sessions_at_once():
    conference = make_conference()
    forum = make_speaker(conference, name="Forum für Freiraum", appears_in_parallel=True)
    make_session(conference, title="Urban practice", speakers=[forum])
    other = make_session(conference, title="Clothes swap", starts_at=paris(8, 10, 15))

    SessionSpeaker(session=other, speaker=forum).full_clean()

    assert list(Session.objects.clashing_for_speaker(forum, paris(8, 10), paris(8, 11))) == []


def test_placing_a_held_session_clears_why_it_was_held():
    conference = make_conference()
    session = make_session(conference, title="Relay")
    session.hold("Fefe already gives “Fnord News Show” then.")
    session.full_clean()
    session.save()
    assert (session.status, session.starts_at, session.planned_minutes) == ("draft", None, 30)

    session.place(None, paris(8, 14))
    session.full_clean()

    assert session.held_reason == ""


def test_moving_a_session_onto_its_speakers_other_session_is_rejected():
    conference = make_conference()
    speaker = make_speaker(conference, name="Ada Lovelace")
    make_session(conference, title="Engines", speakers=[speaker])
    later = make_session(conference, title="Looms", starts_at=paris(8, 14), speakers=[speaker])
    later.starts_at, later.ends_at = paris(8, 10, 15), paris(8, 10, 45)
    with pytest.raises(ValidationError) as error:
        later.full_clean()
    assert error.value.message_dict["starts_at"] == [
        "Ada Lovelace already gives “Engines” then (Wednesday 8 April 2026 10:00–10:30 CEST)."
    ]


def test_a_speaker_may_give_a_session_when_the_other_is_cancelled():
    conference = make_conference()
    speaker = make_speaker(conference)
    make_session(conference, speakers=[speaker], status=Session.Status.CANCELLED)
    SessionSpeaker(session=make_session(conference), speaker=speaker).full_clean()


def test_session_clean_skips_the_slot_of_a_session_being_replaced():
    booked = make_session(room=make_room())
    session = unsaved_session(booked.conference, room=booked.room)
    session.being_replaced = frozenset({booked.pk})
    session.full_clean()


def test_a_speaker_may_take_the_slot_of_their_session_being_replaced():
    conference = make_conference()
    speaker = make_speaker(conference)
    booked = make_session(conference, speakers=[speaker])
    session = make_session(conference, title="Newcomer")
    session.being_replaced = frozenset({booked.pk})
    SessionSpeaker(session=session, speaker=speaker).full_clean()


def test_a_speaker_of_another_conference_is_rejected():
    session = make_session()
    speaker = make_speaker(make_conference(), name="Grace Hopper")
    with pytest.raises(ValidationError) as error:
        SessionSpeaker(session=session, speaker=speaker).full_clean()
    assert error.value.message_dict["speaker"] == [
        "Grace Hopper is a speaker of another conference."
    ]


def test_session_times_across_the_autumn_dst_change_keep_their_real_length():
    # On 25 October 2026 Paris clocks go from 03:00 CEST back to 02:00 CET.
    conference = make_conference(
        starts_on=datetime.date(2026, 10, 24), ends_on=datetime.date(2026, 10, 25)
    )
    starts_at = datetime.datetime(2026, 10, 25, 0, 30, tzinfo=datetime.UTC)  # 02:30 CEST
    session = unsaved_session(
        conference, starts_at=starts_at, ends_at=starts_at + datetime.timedelta(hours=1)
    )
    session.full_clean()
    assert session.local_time_range == "Sunday 25 October 2026 02:30 CEST–02:30 CET"
    assert session.duration == datetime.timedelta(hours=1)
    assert str(session.local_times) == "02:30 CEST–02:30 CET"  # the admin's time column


def test_a_session_ending_after_midnight_says_which_day_it_ends():
    conference = make_conference(
        starts_on=datetime.date(2026, 4, 7), ends_on=datetime.date(2026, 4, 8)
    )
    session = unsaved_session(conference, starts_at=paris(7, 23, 30), ends_at=paris(8, 0, 30))
    assert session.local_time_range == "Tuesday 7 April 2026 23:30–00:30 CEST (+1 day)"


def test_in_schedule_order_sorts_by_start_then_room_position_then_title():
    conference = make_conference()
    front, back = make_room(conference, position=0), make_room(conference, position=1)
    later = make_session(conference, title="A later talk", room=front, starts_at=paris(8, 11))
    back_b = make_session(conference, title="B", room=back)
    back_a = make_session(conference, title="A", room=back, status=Session.Status.CANCELLED)
    front_z = make_session(conference, title="Z", room=front)

    assert list(Session.objects.in_schedule_order()) == [front_z, back_a, back_b, later]


def test_keep_only_drops_overlapping_saves_but_not_back_to_back_ones(django_user_model):
    conference = make_conference()
    kept = make_session(conference, title="Kept", room=make_room(conference))
    overlapping = make_session(
        conference, title="Overlapping", room=make_room(conference), starts_at=paris(8, 10, 15)
    )
    right_after = make_session(conference, title="Right after", starts_at=paris(8, 10, 30))
    user = django_user_model.objects.create_user("ada")
    for session in (kept, overlapping, right_after):
        SavedSession.objects.add(user, session)

    assert SavedSession.objects.keep_only(user, kept) == 1
    assert sorted(SavedSession.objects.values_list("session__title", flat=True)) == [
        "Kept",
        "Right after",
    ]


def test_ordered_speakers_follow_billing_order():
    conference = make_conference()
    second, first = (
        make_speaker(conference, name="Second"),
        make_speaker(conference, name="First"),
    )
    session = make_session(conference)
    SessionSpeaker.objects.create(session=session, speaker=second, position=1)
    SessionSpeaker.objects.create(session=session, speaker=first, position=0)
    loaded = Session.objects.for_listing().get(pk=session.pk)
    assert loaded.ordered_speakers == [first, second]


def test_display_title_prefixes_the_kind_as_schedules_print_it():
    session = Session(title="Debugging the Undebuggable", kind=Session.Kind.LIGHTNING_TALK)
    assert session.display_title == "Lightning Talk: Debugging the Undebuggable"


@pytest.mark.parametrize("title", ["Panel: Future of APIs", "panel: Future of APIs"])
def test_display_title_never_prints_the_kind_twice(title):
    assert Session(title=title, kind=Session.Kind.PANEL).display_title == title


@pytest.mark.parametrize(
    ("kind", "badge"),
    [
        (Session.Kind.LIGHTNING_TALK, "Lightning"),
        (Session.Kind.KEYNOTE, "Keynote"),
        (Session.Kind.TALK, ""),
        (Session.Kind.BREAK, ""),
    ],
)
def test_kind_badge_is_a_word_for_kinds_schedules_prefix(kind, badge):
    assert Session(title="Debugging", kind=kind).kind_badge == badge


@pytest.mark.parametrize(
    ("language", "title", "shown"),
    [
        ("en", "Debugging", "Lightning Talk: Debugging"),
        ("fr", "Debugging", "Présentation éclair : Debugging"),
        ("en", "Lightning Talk: Debugging", "Lightning Talk: Debugging"),
        ("fr", "Lightning Talk: Debugging", "Présentation éclair : Debugging"),
    ],
)
def test_display_title_says_the_kind_in_the_readers_language(language, title, shown):
    """The stored title, even one written with Sched's English prefix, stays as it is."""
    session = Session(title=title, kind=Session.Kind.LIGHTNING_TALK)
    with translation.override(language):
        assert (session.display_title, session.title) == (shown, title)


@pytest.mark.parametrize("language", ["en", "fr"])
def test_export_title_keeps_the_english_kind_whoever_downloads_it(language):
    keynote = Session(title="The Road Ahead", kind=Session.Kind.KEYNOTE)
    workshop = Session(title="Workshop: Triton", kind=Session.Kind.WORKSHOP)
    with translation.override(language):
        assert (keynote.export_title, workshop.export_title) == (
            "Keynote: The Road Ahead",
            "Workshop: Triton",
        )


def test_title_without_kind_drops_a_prefix_its_author_wrote():
    panel = Session(title="panel: Future of APIs", kind=Session.Kind.PANEL)
    talk = Session(title="Panel: Future of APIs", kind=Session.Kind.TALK)
    assert (panel.title_without_kind, talk.title_without_kind) == (
        "Future of APIs",
        "Panel: Future of APIs",
    )


def statuses(*sessions):
    return [Session.objects.get(pk=session.pk).status for session in sessions]


def test_publish_publishes_drafts_and_leaves_cancelled_and_published_sessions_alone():
    conference = make_conference()
    draft = make_session(conference, title="Draft", status=Session.Status.DRAFT)
    cancelled = make_session(
        conference, title="Cancelled", status=Session.Status.CANCELLED, starts_at=paris(8, 11)
    )
    live = make_session(conference, title="Live", starts_at=paris(8, 12))

    change = Session.objects.filter(conference=conference).publish()

    assert (change.changed, change.left_alone, change.refused) == ([draft], [cancelled, live], [])
    assert statuses(draft, cancelled, live) == ["published", "cancelled", "published"]


def test_unpublish_leaves_cancelled_sessions_cancelled():
    conference = make_conference()
    live = make_session(conference, title="Live")
    cancelled = make_session(
        conference, title="Cancelled", status=Session.Status.CANCELLED, starts_at=paris(8, 11)
    )

    change = Session.objects.filter(conference=conference).unpublish()

    assert (change.changed, change.left_alone) == ([live], [cancelled])
    assert statuses(live, cancelled) == ["draft", "cancelled"]


def test_reinstate_publishes_cancelled_sessions_only():
    conference = make_conference()
    cancelled = make_session(conference, title="Cancelled", status=Session.Status.CANCELLED)
    draft = make_session(
        conference, title="Draft", status=Session.Status.DRAFT, starts_at=paris(8, 11)
    )

    change = Session.objects.filter(conference=conference).reinstate()

    assert (change.changed, change.left_alone) == ([cancelled], [draft])
    assert statuses(cancelled, draft) == ["published", "draft"]


def test_reinstate_refuses_a_session_whose_room_is_taken_and_reinstates_the_rest():
    conference = make_conference()
    room = make_room(conference, name="Central Room")
    blocked = make_session(conference, title="Old slot", room=room, status="cancelled")
    free = make_session(conference, title="Free", status="cancelled", starts_at=paris(8, 14))
    make_session(conference, title="New slot", room=room)

    change = Session.objects.filter(pk__in=[blocked.pk, free.pk]).reinstate()

    assert change.changed == [free]
    assert change.refused == [
        (
            blocked,
            "Central Room already hosts “New slot” then (Wednesday 8 April 2026 10:00–10:30 CEST).",
        )
    ]
    assert statuses(blocked, free) == ["cancelled", "published"]


def test_reinstate_refuses_a_session_whose_speaker_gives_another_then():
    conference = make_conference()
    ada = make_speaker(conference, name="Ada")
    blocked = make_session(conference, title="Old slot", status="cancelled", speakers=[ada])
    make_session(conference, title="Ada's new talk", speakers=[ada])

    change = Session.objects.filter(pk=blocked.pk).reinstate()

    assert change.refused == [
        (
            blocked,
            "Ada already gives “Ada's new talk” then (Wednesday 8 April 2026 10:00–10:30 CEST).",
        )
    ]
    assert statuses(blocked) == ["cancelled"]


def test_reinstate_of_two_cancelled_sessions_clashing_with_each_other_reinstates_the_first():
    room = make_room()
    first = make_session(room.conference, title="A", room=room, status="cancelled")
    second = make_session(room.conference, title="B", room=room, status="cancelled")

    change = Session.objects.filter(pk__in=[first.pk, second.pk]).reinstate()

    assert [session.title for session in change.changed] == ["A"]
    assert [session.title for session, _ in change.refused] == ["B"]
    assert statuses(first, second) == ["published", "cancelled"]


@pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason="exclusion constraints exist on PostgreSQL only",
)
def test_postgresql_refuses_an_overlapping_room_booking_that_skips_validation():
    booked = make_session(room=make_room())
    with (
        pytest.raises(IntegrityError, match="session_room_not_double_booked"),
        transaction.atomic(),
    ):
        Session.objects.create(
            conference=booked.conference,
            title="Sneaked in",
            slug="sneaked-in",
            room=booked.room,
            starts_at=paris(8, 10, 15),
            ends_at=paris(8, 10, 45),
            status=Session.Status.PUBLISHED,
        )


@pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason="exclusion constraints exist on PostgreSQL only",
)
def test_postgresql_checks_room_bookings_deferred_by_a_writer_when_its_block_ends():
    booked = make_session(room=make_room())
    steps = []

    def book_the_same_slot():
        with transaction.atomic(), room_bookings_checked_at_end():
            Session.objects.create(
                conference=booked.conference,
                title="Swapped in",
                slug="swapped-in",
                room=booked.room,
                starts_at=booked.starts_at,
                ends_at=booked.ends_at,
                status=Session.Status.PUBLISHED,
            )
            steps.append("written")

    with pytest.raises(IntegrityError, match="session_room_not_double_booked"):
        book_the_same_slot()
    assert steps == ["written"]


@pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason="exclusion constraints exist on PostgreSQL only",
)
def test_postgresql_allows_a_cancelled_session_in_a_booked_slot():
    booked = make_session(room=make_room())
    Session.objects.create(
        conference=booked.conference,
        title="Called off",
        slug="called-off",
        room=booked.room,
        starts_at=booked.starts_at,
        ends_at=booked.ends_at,
        status=Session.Status.CANCELLED,
    )
    assert Session.objects.filter(room=booked.room).count() == 2


# Unscheduled sessions ---------------------------------------------------------------------


def unscheduled(conference, **fields):
    no_time = {"starts_at": None, "ends_at": None, "status": Session.Status.DRAFT}
    return unsaved_session(conference, **{**no_time, **fields})


def test_an_accepted_talk_can_wait_without_a_time_or_room(django_user_model):
    conference = make_conference(is_published=True)
    session = unscheduled(conference)
    session.full_clean()
    session.save()
    assert list(Session.objects.unscheduled()) == [session]
    assert not Session.objects.public().exists()
    team = django_user_model.objects.create_user("team", is_staff=True)
    make_team(team, conferences=[conference], is_programme=True)
    assert not Session.objects.visible_to(team).exists()  # not even in its team's preview


@pytest.mark.parametrize(
    ("fields", "field", "message"),
    [
        (
            {"status": Session.Status.PUBLISHED},
            "status",
            "An unscheduled session cannot be published: give it a time first.",
        ),
        (
            {"status": Session.Status.CANCELLED},
            "status",
            "An unscheduled session cannot be cancelled: give it a time first.",
        ),
        ({"starts_at": paris(8, 10)}, "ends_at", "Give the end too"),
        ({"ends_at": paris(8, 10)}, "starts_at", "Give the start too"),
    ],
)
def test_an_unscheduled_session_cannot_be_published_or_half_timed(fields, field, message):
    session = unscheduled(make_conference(), **fields)
    with pytest.raises(ValidationError) as error:
        session.full_clean()
    assert error.value.message_dict[field][0].startswith(message)


def test_an_unscheduled_session_cannot_hold_a_room():
    conference = make_conference()
    session = unscheduled(conference, room=make_room(conference))
    with pytest.raises(ValidationError) as error:
        session.full_clean()
    assert "give it a time first" in error.value.message_dict["room"][0]


@pytest.mark.parametrize(
    "change",
    [
        {"status": Session.Status.PUBLISHED},
        {"starts_at": paris(8, 10)},
    ],
)
def test_the_database_refuses_what_the_rules_refuse_even_past_the_model(change):
    """A bulk UPDATE skips full_clean(); the constraints still hold."""
    session = unscheduled(make_conference())
    session.save()
    with pytest.raises(IntegrityError), transaction.atomic():
        Session.objects.filter(pk=session.pk).update(**change)


# Planning: lengths, placing and unscheduling -------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "minutes"),
    [
        (Session.Kind.TALK, 30),
        (Session.Kind.LIGHTNING_TALK, 10),
        (Session.Kind.KEYNOTE, 45),
        (Session.Kind.PANEL, 45),
        (Session.Kind.WORKSHOP, 90),
        (Session.Kind.BREAK, 30),
    ],
)
def test_an_unscheduled_session_without_a_planned_length_takes_its_kinds_usual_length(
    kind, minutes
):
    session = make_unscheduled_session(make_conference(), kind=kind)
    assert session.planned_length == datetime.timedelta(minutes=minutes)


def test_a_placed_session_takes_its_own_duration_wherever_it_goes():
    conference = make_conference()
    session = make_session(conference, starts_at=paris(8, 10), ends_at=paris(8, 10, 25))
    session.place(make_room(conference), paris(8, 14))
    assert (session.starts_at, session.ends_at) == (paris(8, 14), paris(8, 14, 25))


def test_unscheduling_keeps_the_duration_as_the_planned_length():
    session = make_session(
        make_conference(), status="draft", starts_at=paris(8, 10), ends_at=paris(8, 10, 40)
    )
    session.unschedule()
    session.full_clean()
    session.save()
    session.refresh_from_db()
    assert (session.starts_at, session.room, session.planned_minutes) == (None, None, 40)
    assert session.planned_length == datetime.timedelta(minutes=40)


def test_only_a_draft_can_be_unscheduled():
    session = make_session(make_conference(), status="cancelled")
    with pytest.raises(ValidationError) as error:
        session.unschedule()
    assert error.value.messages == [
        f"“{session}” is cancelled and stays in the schedule, marked as such: only a draft can "
        "wait unscheduled."
    ]


def test_a_published_session_is_unscheduled_only_once_its_unpublishing_is_confirmed():
    session = make_session(make_conference(), starts_at=paris(8, 10), ends_at=paris(8, 10, 40))
    with pytest.raises(ValidationError) as error:
        session.unschedule()
    assert error.value.messages == [
        f"“{session}” is published: taking it off the schedule unpublishes it, and the next "
        "release announces it as removed. Confirm that to go on."
    ]
    assert (session.status, session.starts_at) == ("published", paris(8, 10))

    session.unschedule(unpublish=True)
    session.full_clean()

    assert (session.status, session.starts_at, session.planned_minutes) == ("draft", None, 40)


def test_a_cancelled_session_is_not_unscheduled_though_unpublishing_is_confirmed():
    session = make_session(make_conference(), status="cancelled")
    with pytest.raises(ValidationError):
        session.unschedule(unpublish=True)
    assert session.status == "cancelled"


@pytest.mark.parametrize(
    ("status", "publish", "after"),
    [
        ("draft", True, "published"),
        ("draft", False, "draft"),
        ("cancelled", True, "cancelled"),
    ],
)
def test_placing_publishes_only_a_draft_and_only_when_asked(status, publish, after):
    conference = make_conference()
    session = make_session(conference, status=status, starts_at=paris(8, 10))
    session.place(make_room(conference), paris(8, 14), publish=publish)
    assert session.status == after


def test_the_database_refuses_a_planned_length_of_zero():
    session = make_unscheduled_session(make_conference())
    with pytest.raises(IntegrityError), transaction.atomic():
        Session.objects.filter(pk=session.pk).update(planned_minutes=0)

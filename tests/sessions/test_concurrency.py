"""Many writers at once on PostgreSQL: no duplicates, no lost writes, no double booking."""

import threading

import pytest
from django.core.exceptions import ValidationError
from django.db import connection, connections, transaction

from conference.versioning import EditConflictError
from sessions.models import SavedSession, Session, SessionSpeaker
from tests.builders import make_conference, make_room, make_session, make_speaker, paris

pytestmark = [
    pytest.mark.skipif(
        connection.vendor != "postgresql", reason="needs real parallel connections (PostgreSQL)"
    ),
    pytest.mark.django_db(transaction=True),
]


def run_together(jobs) -> list[Exception]:
    """Start every job at the same moment, each on its own connection; return what they raised."""
    barrier = threading.Barrier(len(jobs))
    errors = []

    def run(job):
        try:
            barrier.wait()
            job()
        except Exception as error:
            errors.append(error)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(job,)) for job in jobs]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return errors


def test_many_users_saving_many_sessions_at_once_lose_and_duplicate_nothing(django_user_model):
    conference = make_conference()
    sessions = [make_session(conference, starts_at=paris(8, 9 + number)) for number in range(6)]
    users = [django_user_model.objects.create_user(f"user{number}") for number in range(6)]

    def save_all(user):
        for session in sessions:
            SavedSession.objects.add(
                user, Session.objects.select_related("conference").get(pk=session.pk)
            )

    # Every user saves every session, twice over, all at once.
    assert run_together([lambda user=user: save_all(user) for user in users * 2]) == []
    assert SavedSession.objects.count() == len(users) * len(sessions)


def test_saving_and_removing_one_session_at_once_ends_saved_or_not_without_error(
    django_user_model,
):
    user = django_user_model.objects.create_user("attendee")
    session = make_session(make_conference())

    def toggle(action):
        mine = Session.objects.select_related("conference").get(pk=session.pk)
        for _ in range(40):
            action(user, mine)

    # Save and Remove pressed together, over and over, from three tabs each.
    actions = [SavedSession.objects.add, SavedSession.objects.remove] * 3
    assert run_together([lambda action=action: toggle(action) for action in actions]) == []
    assert SavedSession.objects.filter(user=user).count() in {0, 1}


def test_organizers_booking_one_room_at_once_get_one_booking(django_user_model):
    conference = make_conference()
    room = make_room(conference)

    def book(number):
        session = Session(
            conference=conference,
            title=f"Contender {number}",
            slug=f"contender-{number}",
            room=room,
            starts_at=paris(8, 10),
            ends_at=paris(8, 11),
            status=Session.Status.PUBLISHED,
        )
        with transaction.atomic():  # as the admin, the API and the importer write
            session.full_clean()
            session.save()

    errors = run_together([lambda number=number: book(number) for number in range(8)])
    assert Session.objects.filter(room=room).count() == 1
    assert len(errors) == 7
    # The room lock makes each loser wait and then fail validation with the usual message; the
    # exclusion constraint (IntegrityError) stays as the last line of defence.
    assert all(isinstance(error, ValidationError) for error in errors)
    assert "already hosts" in errors[0].message_dict["room"][0]


def test_adding_one_speaker_to_overlapping_sessions_at_once_books_them_once():
    conference = make_conference()
    speaker = make_speaker(conference)
    sessions = [make_session(conference, room=make_room(conference)) for _ in range(6)]

    def add(session):
        with transaction.atomic():
            link = SessionSpeaker(session=Session.objects.get(pk=session.pk), speaker=speaker)
            link.full_clean()
            link.save()

    errors = run_together([lambda session=session: add(session) for session in sessions])
    assert SessionSpeaker.objects.filter(speaker=speaker).count() == 1
    assert len(errors) == 5
    assert all(isinstance(error, ValidationError) for error in errors)


def test_parallel_edits_of_different_sessions_all_land():
    conference = make_conference()
    room = make_room(conference)
    sessions = [
        make_session(conference, room=room, starts_at=paris(8, 9 + number)) for number in range(8)
    ]

    def rename(session):
        with transaction.atomic():
            fresh = Session.objects.get(pk=session.pk)
            fresh.title = f"Renamed {session.pk}"
            fresh.full_clean()
            fresh.save()

    assert run_together([lambda session=session: rename(session) for session in sessions]) == []
    assert sorted(Session.objects.values_list("title", flat=True)) == sorted(
        f"Renamed {session.pk}" for session in sessions
    )


def test_organizers_saving_one_session_from_one_version_at_once_get_one_save():
    session = make_session(title="Talk")
    writers = 6
    all_checked = threading.Barrier(writers, timeout=20)

    def edit(number):
        with transaction.atomic():  # as the admin, the API and the importer write
            mine = Session.objects.get(pk=session.pk)
            mine.check_version(1)
            mine.title = f"Edit {number}"
            mine.full_clean()
            all_checked.wait()  # every writer has passed the check before any of them writes
            mine.save()

    errors = run_together([lambda number=number: edit(number) for number in range(writers)])

    assert len(errors) == writers - 1
    assert all(isinstance(error, EditConflictError) for error in errors)
    stored = Session.objects.get(pk=session.pk)
    assert (stored.version, stored.title in {f"Edit {n}" for n in range(writers)}) == (2, True)


def test_a_save_and_a_delete_from_one_version_at_once_do_not_both_happen():
    session = make_session(title="Talk")
    both_loaded = threading.Barrier(2, timeout=20)

    def load():
        with transaction.atomic():
            mine = Session.objects.get(pk=session.pk)
            both_loaded.wait()
            return mine

    def save():
        mine = load()
        mine.title = "Saved"
        mine.save()

    def delete():
        load().delete()

    errors = run_together([save, delete])

    assert [type(error) for error in errors] == [EditConflictError]
    survivors = list(Session.objects.values_list("title", "version"))
    assert survivors in ([], [("Saved", 2)])

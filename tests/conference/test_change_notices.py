"""On PostgreSQL, each worker learns which conferences changed from the server's notifications,
and answers anonymous repeats without asking (conference.change_notices)."""

import select
import time
from unittest import mock

import pytest
from django.db import connection, connections

from conference import change_notices
from tests.builders import make_conference, make_session

pytestmark = [
    pytest.mark.django_db(transaction=True),  # notifications are delivered when a write commits
    pytest.mark.skipif(
        connection.vendor != "postgresql", reason="notifications are PostgreSQL's (LISTEN)"
    ),
]

SCHEDULE = "/pycon/schedule/"


@pytest.fixture
def conference():
    conference = make_conference(slug="pycon", name="PyCon Lisbon")
    make_session(conference, title="Opening talk")
    return conference


def answered_early(response) -> bool:
    return not hasattr(response.wsgi_request, "user")


@pytest.fixture
def persistent_connections():
    """As deployed (docs/deploy.md): connections kept between requests."""
    with mock.patch.dict(connection.settings_dict, {"CONN_MAX_AGE": 60}):
        yield


@pytest.fixture
def listening(client, conference, persistent_connections):
    """The page remembered, the connection listening, the conference confirmed unchanged."""
    client.get(SCHEDULE)  # the full way: remembered
    client.get(SCHEDULE)  # early, with a query: starts listening
    client.get(SCHEDULE)  # early, with a query made while listening: confirmed
    return client


def notification_arrived() -> None:
    """Waits (5 s at most) until the server has sent this connection something to read."""
    readable, _, _ = select.select([connection.connection.fileno()], [], [], 5)
    assert readable, "no notification came"


def test_an_anonymous_repeat_is_answered_without_a_query(listening, django_assert_num_queries):
    with django_assert_num_queries(0):
        response = listening.get(SCHEDULE)
    assert answered_early(response)
    assert b"Opening talk" in response.content


def test_an_edit_committed_by_another_worker_shows_on_the_next_request(listening, conference):
    other_worker = connections.create_connection("default")
    try:
        with other_worker.cursor() as cursor:
            cursor.execute(
                "UPDATE conference_conference SET name = %s, changed_at = now() WHERE id = %s",
                ["PyCon Porto", conference.pk],
            )
    finally:
        other_worker.close()
    notification_arrived()
    response = listening.get(SCHEDULE)
    assert b"PyCon Porto" in response.content
    assert b"PyCon Lisbon" not in response.content


def test_an_edit_made_by_this_worker_shows_on_the_next_request(listening, conference):
    session = conference.sessions.get()
    session.title = "Opening keynote"
    session.save()  # moves the conference's changed_at, which notifies this connection too
    response = listening.get(SCHEDULE)
    assert b"Opening keynote" in response.content


def test_unpublishing_shows_at_once(listening, conference):
    conference.is_published = False
    conference.save()
    assert listening.get(SCHEDULE).status_code == 404


def test_a_confirmation_stands_for_a_second_at_most(listening, django_assert_num_queries):
    later = time.monotonic() + change_notices.TRUSTED_FOR
    with (
        mock.patch.object(change_notices.time, "monotonic", return_value=later),
        django_assert_num_queries(1),  # asked again
    ):
        assert listening.get(SCHEDULE).status_code == 200


def test_a_new_connection_asks_until_it_listens(listening, django_assert_num_queries):
    connection.close()  # as when the server dropped it, or CONN_MAX_AGE passed
    with django_assert_num_queries(2):  # the check, and LISTEN on the new connection
        listening.get(SCHEDULE)
    with django_assert_num_queries(1):  # the check, made while listening
        listening.get(SCHEDULE)
    with django_assert_num_queries(0):
        listening.get(SCHEDULE)


def test_without_persistent_connections_every_repeat_asks_once(
    client, conference, django_assert_num_queries
):
    """Each request has a connection of its own: no LISTEN, which no later request would use."""
    with mock.patch.dict(connection.settings_dict, {"CONN_MAX_AGE": 0}):
        for _ in range(3):
            client.get(SCHEDULE)
        with django_assert_num_queries(1):
            assert answered_early(client.get(SCHEDULE))


def test_behind_a_transaction_pooler_every_repeat_asks(
    client, conference, persistent_connections, django_assert_num_queries
):
    """A LISTEN does not stay with a connection that PgBouncer lends per transaction."""
    settings_dict = {**connection.settings_dict, "DISABLE_SERVER_SIDE_CURSORS": True}
    with mock.patch.object(connection, "settings_dict", settings_dict):
        for _ in range(3):
            client.get(SCHEDULE)
        with django_assert_num_queries(1):
            assert answered_early(client.get(SCHEDULE))

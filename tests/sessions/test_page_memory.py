"""A page's rows are freed as soon as it has been answered, not at the garbage collector's leisure.

Objects caught in a reference cycle outlive their request until the collector's next full pass,
which walks every object of the process: with a 1,000-session schedule's 12,000 rows left over
each time, those passes came every few pages and cost a tenth of a second each (bench/results/).

Not covered: the speaker pages. A speaker's photo (Django's FieldFile) refers back to its
speaker, a cycle in Django itself; those pages show far fewer rows than a schedule.
"""

import datetime
import gc

import pytest
from django.core.handlers.wsgi import WSGIHandler
from django.core.signals import request_started
from django.db import close_old_connections
from django.test import RequestFactory
from django.urls import reverse

from sessions.models import Session
from speakers.models import Speaker
from tests.builders import make_room, make_session, make_speaker, make_track, paris


def rows_left_in_cycles(path: str) -> dict[str, int]:
    """Serve ``path`` as gunicorn would (no test client, which ties its responses in a cycle of
    its own), then count the sessions and speakers only the garbage collector would free."""
    handler = WSGIHandler()
    # As the test client does: the test's transaction is on the connection a request would close.
    request_started.disconnect(close_old_connections)
    collecting = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        response = handler(RequestFactory().get(path).environ, lambda status, headers: None)
        assert response.status_code == 200
        b"".join(response)
        del response
        gc.set_debug(gc.DEBUG_SAVEALL)
        gc.collect()
        left = {Session: 0, Speaker: 0}
        for thing in gc.garbage:
            if type(thing) in left:  # type(), not isinstance(): lazy objects would evaluate
                left[type(thing)] += 1
        return {model.__name__: count for model, count in left.items()}
    finally:
        request_started.connect(close_old_connections)
        gc.set_debug(0)
        gc.garbage.clear()
        if collecting:
            gc.enable()


@pytest.mark.django_db
@pytest.mark.parametrize("page", ["schedule", "filtered schedule", "grid", "session"])
def test_a_page_leaves_no_session_or_speaker_for_the_garbage_collector(conference, page):
    room, track = make_room(conference), make_track(conference)
    speaker = make_speaker(conference)
    sessions = [
        make_session(
            conference,
            room=room,
            track=track,
            starts_at=paris(8, 9) + datetime.timedelta(minutes=30 * number),
            speakers=[speaker, make_speaker(conference)],
        )
        for number in range(6)
    ]
    on_conference = {"conference_slug": conference.slug}
    path = {
        "schedule": reverse("sessions:schedule", kwargs=on_conference),
        "filtered schedule": reverse("sessions:schedule", kwargs=on_conference)
        + f"?track={track.slug}",
        "grid": reverse("sessions:schedule-grid", kwargs=on_conference),
        "session": sessions[0].get_absolute_url(),
    }[page]
    assert rows_left_in_cycles(path) == {"Session": 0, "Speaker": 0}

"""A hole's data are plain values: personal() refuses anything else where it is called."""

import datetime

import pytest
from django.template import engines

from conference.models import Conference
from conference.pages.holes import HoleDataNotPlainError, HoleRecorder
from tests.builders import make_conference

pytestmark = pytest.mark.django_db

HOLE = '{{ personal("includes/account.html", thing=thing) }}'


def render(thing, recorder):
    template = engines["jinja2"].env.from_string(HOLE)
    return template.render({"thing": thing, "hole_recorder": recorder})


@pytest.mark.parametrize("shared", [True, False], ids=["shared", "in place"])
@pytest.mark.parametrize(
    ("make_thing", "type_name"),
    [
        (make_conference, "conference.models.conference.Conference"),
        (lambda: Conference.objects.all(), "conference.models.conference.ConferenceQuerySet"),
        (lambda: [1, {"conference": make_conference()}], "conference.models.conference.Conference"),
    ],
    ids=["model instance", "queryset", "nested model instance"],
)
def test_personal_refuses_a_value_that_is_not_plain(
    django_assert_num_queries, make_thing, type_name, shared
):
    thing, recorder = make_thing(), HoleRecorder() if shared else None
    with django_assert_num_queries(0), pytest.raises(HoleDataNotPlainError) as refused:
        render(thing, recorder)
    assert str(refused.value).startswith(
        f"personal('includes/account.html'): thing holds a {type_name}, not a plain value."
    )
    assert recorder is None or recorder.holes == []  # refused before anything was recorded


def test_personal_refuses_a_request(rf):
    with pytest.raises(
        HoleDataNotPlainError, match=r"thing holds a django\.core\.handlers\.wsgi\.WSGIRequest"
    ):
        render(rf.get("/"), HoleRecorder())


def test_personal_records_plain_values():
    thing = {
        "id": 3,
        "shown": True,
        "score": 1.5,
        "on": datetime.date(2026, 4, 8),
        "ids": [1, (2, 3), {4}, frozenset({5})],
        "none": None,
    }
    recorder = HoleRecorder()
    assert render(thing, recorder) == recorder.marker
    assert recorder.holes == [("includes/account.html", {"thing": thing})]

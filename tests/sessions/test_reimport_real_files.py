"""Our own export of each real published schedule in tests/data/, imported back into the
conference it came from, changes nothing: what we write is what we read.

Each file is imported once for the module; each test's re-import rolls back (see ``module_db``).
"""

import datetime
import io
import json

import pytest

from sessions.exports.frab_schedule import build_frab_data, build_frab_xml
from sessions.importers import import_schedule
from sessions.models import Session
from tests.builders import make_conference
from tests.sessions.conftest import SCHEDULES

BASE_URL = "https://schedule.example.org"

pytestmark = pytest.mark.django_db

# Each file with its conference's first and last day and its zone.
FILES = {
    "39c3-himmel.schedule.xml": ((2025, 12, 27), (2025, 12, 30), "Europe/Berlin"),
    "39c3-himmel.schedule.json": ((2025, 12, 27), (2025, 12, 30), "Europe/Berlin"),
    "camp2019-frab.schedule.json": ((2019, 8, 21), (2019, 8, 25), "Europe/Berlin"),
    "jev22-everything.schedule.xml": ((2022, 12, 26), (2022, 12, 31), "Europe/Amsterdam"),
    "31c3-frab-legacy.schedule.xml": ((2014, 12, 27), (2014, 12, 30), "Europe/Berlin"),
}


@pytest.fixture(scope="module", params=FILES)
def imported(request, module_db, django_db_blocker):
    """A conference holding one real file's schedule. jev22 and 31c3 double-book rooms and
    speakers: those sessions are held, as an organizer importing them would."""
    starts_on, ends_on, zone = FILES[request.param]
    with django_db_blocker.unblock():
        conference = make_conference(
            slug=request.param.replace(".", "-"),
            starts_on=datetime.date(*starts_on),
            ends_on=datetime.date(*ends_on),
            time_zone=zone,
        )
        import_schedule(conference, SCHEDULES / request.param, hold_conflicts=True)
    return conference


def export(conference, kind: str) -> bytes:
    listing = list(Session.objects.public().for_listing().filter(conference=conference))
    if kind == "xml":
        return build_frab_xml(conference, listing, base_url=BASE_URL)
    return json.dumps(build_frab_data(conference, listing, base_url=BASE_URL)).encode()


@pytest.mark.parametrize("kind", ["xml", "json"])
def test_our_export_of_a_real_schedule_reimported_changes_nothing(imported, kind):
    report = import_schedule(imported, io.BytesIO(export(imported, kind)), hold_conflicts=True)

    assert report.changes == []

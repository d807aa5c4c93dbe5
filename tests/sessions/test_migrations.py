import datetime

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from sessions.frab import export_guid

pytestmark = pytest.mark.django_db(transaction=True)

CONFERENCE = ("conference", "0010_room_kind")
BEFORE = [("schedule", "0018_schedule_import"), CONFERENCE]
AFTER = [("schedule", "0019_release_baseline"), CONFERENCE]


@pytest.fixture(autouse=True)
def latest_schema_afterwards():
    """Each test moves the schema back in time; the tests after it need today's."""
    yield
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())


def migrate(targets):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


def test_a_published_conference_without_releases_gets_its_schedule_as_baseline():
    apps = migrate(BEFORE)
    Conference = apps.get_model("conference", "Conference")
    Session = apps.get_model("schedule", "Session")
    fields = {
        "starts_on": datetime.date(2026, 4, 7),
        "ends_on": datetime.date(2026, 4, 8),
        "time_zone": "Europe/Paris",
    }
    published = Conference.objects.create(name="On", slug="on", is_published=True, **fields)
    hidden = Conference.objects.create(name="Off", slug="off", is_published=False, **fields)
    starts_at = datetime.datetime(2026, 4, 8, 8, 0, tzinfo=datetime.UTC)
    for conference in (published, hidden):
        Session.objects.create(
            conference=conference,
            title="Graphs",
            slug="graphs",
            guid=f"guid-{conference.slug}",
            status="published",
            starts_at=starts_at,
            ends_at=starts_at + datetime.timedelta(minutes=30),
        )

    apps = migrate(AFTER)

    Release = apps.get_model("schedule", "Release")
    [baseline] = Release.objects.all()
    assert (baseline.conference.slug, baseline.version) == ("on", "v1")
    [entry] = baseline.snapshot.values()
    assert (entry["title"], entry["starts_at"]) == ("Graphs", "2026-04-08T08:00:00+00:00")


def test_an_import_stored_before_languages_keeps_its_report_sections():
    conference_now = ("conference", "0015_translatable_names")
    apps = migrate([("schedule", "0023_translatable_names"), conference_now])
    Conference = apps.get_model("conference", "Conference")
    ScheduleImport = apps.get_model("schedule", "ScheduleImport")
    conference = Conference.objects.create(
        name="On",
        slug="on",
        starts_on=datetime.date(2026, 4, 7),
        ends_on=datetime.date(2026, 4, 8),
        time_zone="Europe/Paris",
    )
    changes = [
        "create room “Hall”",
        "update session “Graphs”: starts 2026-04-08 10:00 → 2026-04-08 10:30 (changed in the file)",
        "keep session “Tensors”: title Tensors, edited (edited here after the last import; "
        "the file still says Tensors)",
    ]
    ScheduleImport.objects.create(
        conference=conference, file_name="s.csv", data=b"", report={"changes": changes}
    )

    apps = migrate([("schedule", "0024_import_language"), conference_now])

    schedule_import = apps.get_model("schedule", "ScheduleImport").objects.get()
    assert schedule_import.language == "en"
    assert schedule_import.report["sections"] == {
        "created": changes[:1],
        "updated": changes[1:2],
        "kept": changes[2:],
    }


def test_a_session_imported_with_an_id_that_is_no_uuid_gets_the_uuid_exports_published():
    conference_now = ("conference", "0015_translatable_names")
    apps = migrate([("schedule", "0024_import_language"), conference_now])
    Conference = apps.get_model("conference", "Conference")
    Session = apps.get_model("schedule", "Session")
    conference = Conference.objects.create(
        name="On",
        slug="on",
        starts_on=datetime.date(2026, 4, 7),
        ends_on=datetime.date(2026, 4, 8),
        time_zone="Europe/Paris",
    )
    uuid_guid = "7839bb58-30e3-5f36-ac06-59f292c0974c"
    for slug, guid in (
        ("csv", "csv-701"),
        ("legacy", "HOqeNIb6G7M4hYFKFRkCmQ"),
        ("uuid", uuid_guid),
    ):
        Session.objects.create(conference=conference, title=slug, slug=slug, guid=guid)

    apps = migrate([("schedule", "0025_session_guids_are_uuids"), conference_now])

    guids = dict(apps.get_model("schedule", "Session").objects.values_list("slug", "guid"))
    assert guids == {
        "csv": export_guid("csv-701"),
        "legacy": export_guid("HOqeNIb6G7M4hYFKFRkCmQ"),
        "uuid": uuid_guid,
    }

import datetime
import re
from html import unescape
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import override_settings
from django.urls import reverse
from django_tasks_db.models import DBTaskResult

from sessions.importers import runs
from sessions.importers.spreadsheet import EXAMPLE_CSV
from sessions.importers.tasks import run_schedule_import
from sessions.models import ScheduleImport, Session
from tests.builders import make_room, make_session, make_team, paris

pytestmark = pytest.mark.django_db

HEADER = "id,title,room,date,start,duration,speakers\n"
# The example workshop day of docs/import.md: a venue-wide lunch, a keynote in a room.
WORKSHOP_DAY = (Path(__file__).parents[2] / "docs/examples/sessions.csv").read_text()
IMMEDIATE = {"default": {"BACKEND": "django_tasks.backends.immediate.ImmediateBackend"}}


def import_url(conference):
    return reverse("admin:schedule_session_import", args=[conference.pk])


def upload(client, conference, text, name="sessions.csv", **data):
    file = SimpleUploadedFile(name, text.encode(), content_type="text/csv")
    return client.post(import_url(conference), {"file": file, **data})


def page_text(response) -> str:
    html = re.sub(r"<[^>]+>", " ", response.content.decode())
    return " ".join(unescape(html).split())


def test_upload_shows_a_preview_and_writes_nothing(admin_client, conference):
    make_session(
        conference, title="Kept as it is", guid="kept", room=make_room(conference, name="Hall")
    )
    rows = "kept,Kept as it is,Hall,2026-04-08,10:00,30,\nnew,Tensors,Hall,2026-04-08,11:00,30,Grace Hopper\n"

    response = upload(admin_client, conference, HEADER + rows)

    schedule_import = ScheduleImport.objects.get()
    assert response.status_code == 302
    assert response["Location"].endswith(f"/import/{conference.pk}/{schedule_import.pk}/")
    page = page_text(admin_client.get(response["Location"]))
    assert "Nothing has been written yet." in page
    assert "Created (1) create speaker “Grace Hopper” Sessions created or changed (1)" in page
    assert "Tensors Wed 8 Apr 2026 11:00–11:30 CEST Hall new session" in page
    assert "Left alone: 2" in page
    assert Session.objects.count() == 1


def test_preview_says_the_day_times_and_room_of_each_new_session(admin_client, conference):
    response = admin_client.get(upload(admin_client, conference, WORKSHOP_DAY)["Location"])

    page = page_text(response)
    assert "times in Europe/Paris, the conference's time zone" in page
    assert "Lunch Tue 7 Apr 2026 12:00–13:00 CEST whole venue new session" in page
    assert (
        "Welcome to the workshop day Tue 7 Apr 2026 09:30–09:50 CEST Master Stage new session"
        in page
    )


def test_preview_shows_where_a_changed_session_goes_and_each_field_old_and_new(
    admin_client, conference
):
    admin_client.post(upload(admin_client, conference, WORKSHOP_DAY)["Location"])
    moved = WORKSHOP_DAY.replace(
        "Welcome to the workshop day,keynote,,Master Stage,2026-04-07,09:30,09:50",
        "Welcome to the workshop day,keynote,,Founders Cafe,2026-04-07,10:00,10:20",
    )

    response = admin_client.get(upload(admin_client, conference, moved)["Location"])

    assert (
        "Welcome to the workshop day Tue 7 Apr 2026 10:00–10:20 CEST Founders Cafe "
        "room: Master Stage → Founders Cafe (changed in the file) "
        "starts: Tue 7 Apr 2026 09:30 CEST → Tue 7 Apr 2026 10:00 CEST (changed in the file) "
        "ends: Tue 7 Apr 2026 09:50 CEST → Tue 7 Apr 2026 10:20 CEST (changed in the file)"
    ) in page_text(response)


def test_preview_names_the_day_and_times_in_french_as_french_writes_them(admin_client, conference):
    french = {"HTTP_ACCEPT_LANGUAGE": "fr"}
    file = SimpleUploadedFile("sessions.csv", WORKSHOP_DAY.encode(), content_type="text/csv")
    location = admin_client.post(import_url(conference), {"file": file}, **french)["Location"]

    page = page_text(admin_client.get(location, **french))

    assert "Lunch mar. 7 avr. 2026 12 h 00–13 h 00 CEST" in page


def test_preview_shows_a_changed_field_old_and_new_in_french(admin_client, conference):
    admin_client.post(upload(admin_client, conference, WORKSHOP_DAY)["Location"])
    moved = WORKSHOP_DAY.replace(",2026-04-07,09:30,09:50", ",2026-04-07,10:00,10:20")
    french = {"HTTP_ACCEPT_LANGUAGE": "fr"}
    file = SimpleUploadedFile("sessions.csv", moved.encode(), content_type="text/csv")
    location = admin_client.post(import_url(conference), {"file": file}, **french)["Location"]

    page = page_text(admin_client.get(location, **french))

    assert (
        "début : mar. 7 avr. 2026 9 h 30 CEST → mar. 7 avr. 2026 10 h 00 CEST "
        "(modifié dans le fichier)"
    ) in page


@pytest.mark.parametrize(
    ("language", "when"), [("en", "7 Dec 2026, 01:42 CET"), ("fr", "7 déc. 2026, 1 h 42 CET")]
)
def test_import_pages_show_the_upload_time_in_the_conferences_zone_named(
    admin_client, conference, language, when
):
    location = upload(admin_client, conference, HEADER + "t1,Tensors,,,,,\n")["Location"]
    ScheduleImport.objects.update(
        created_at=datetime.datetime(2026, 12, 7, 0, 42, tzinfo=datetime.UTC)
    )
    headers = {"Accept-Language": language}

    listing = page_text(admin_client.get(import_url(conference), headers=headers))
    detail = page_text(admin_client.get(location, headers=headers))

    assert f"{when} " in listing  # 00:42 in UTC
    assert f"{when} " in detail


def test_confirm_imports_what_the_preview_showed(admin_client, conference):
    upload(admin_client, conference, HEADER + "t1,Tensors,Hall,2026-04-08,11:00,30,Grace Hopper\n")
    schedule_import = ScheduleImport.objects.get()
    detail = reverse(
        "admin:schedule_session_import_detail", args=[conference.pk, schedule_import.pk]
    )

    admin_client.post(detail)
    admin_client.post(detail)  # a double click imports once

    schedule_import.refresh_from_db()
    assert schedule_import.status == "imported"
    session = Session.objects.get()
    assert (session.title, session.local_starts_at.hour, session.room.name) == (
        "Tensors",
        11,
        "Hall",
    )
    assert "Imported" in page_text(admin_client.get(detail))


def test_a_clash_refuses_the_file_naming_row_and_column(admin_client, conference):
    rows = "a,First,Hall,2026-04-08,10:00,30,\nb,Second,Hall,2026-04-08,10:15,30,\n"

    response = admin_client.get(upload(admin_client, conference, HEADER + rows)["Location"])

    assert "Row 3 (“Second”): room: Hall already hosts “First” then" in page_text(response)
    assert ScheduleImport.objects.get().status == "refused"
    assert "Confirm the import" not in page_text(response)


def test_hold_conflicts_previews_the_held_session_and_imports_it_unscheduled(
    admin_client, conference
):
    rows = "a,First,Hall,2026-04-08,10:00,30,\nb,Second,Hall,2026-04-08,10:15,30,\n"
    location = upload(admin_client, conference, HEADER + rows, hold_conflicts="on")["Location"]

    assert (
        "Held for review (unscheduled, with the reason) (1) hold session “Second”: Hall already hosts “First”"
        in page_text(admin_client.get(location))
    )
    admin_client.post(location)

    second = Session.objects.get(title="Second")
    assert (second.starts_at, second.held_reason[:23]) == (None, "Hall already hosts “Fir")


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"\x00\x01\x02", "neither schedule.xml nor JSON"),
        (b'{"schedule": 3}', "schedule: expected an object, got 3."),
        (b"<schedule><day", "not well-formed"),
    ],
)
def test_a_bad_file_is_refused_with_a_message_never_an_error(
    admin_client, conference, content, message
):
    file = SimpleUploadedFile("schedule.bin", content)
    response = admin_client.post(import_url(conference), {"file": file}, follow=True)

    assert response.status_code == 200
    assert message in page_text(response)


def test_no_file_is_a_form_error(admin_client, conference):
    response = admin_client.post(import_url(conference), {})

    assert response.status_code == 400
    assert "This field is required." in page_text(response)


def test_example_csv_downloads(admin_client):
    response = admin_client.get(reverse("admin:schedule_session_import_example"))

    assert response["Content-Disposition"] == 'attachment; filename="sessions-example.csv"'
    assert response.content.decode() == EXAMPLE_CSV


@pytest.mark.parametrize(
    ("roles", "status"), [({}, 404), ({"is_reviewer": True}, 403), ({"is_venue": True}, 403)]
)
def test_imports_are_for_the_programme_team(client, django_user_model, conference, roles, status):
    staff = django_user_model.objects.create_user("helper", is_staff=True)
    if roles:
        make_team(staff, conferences=[conference], **roles)
    client.force_login(staff)

    assert client.get(import_url(conference)).status_code == status


def test_import_list_links_each_upload(admin_client, conference):
    upload(admin_client, conference, HEADER + "t1,Tensors,Hall,2026-04-08,11:00,30,\n")

    response = admin_client.get(import_url(conference))

    assert "sessions.csv Ready to confirm 1" in page_text(response)


def large_csv(count: int) -> str:
    rows = [
        f"s{number},Talk {number},Room {number % 10},2026-04-08,{8 + number // 10 % 14:02d}:00,30,"
        for number in range(count)
    ]
    return HEADER + "\n".join(rows) + "\n"


def test_a_large_file_is_checked_by_a_task_while_the_page_polls(
    admin_client, conference, django_capture_on_commit_callbacks, monkeypatch
):
    monkeypatch.setattr(runs, "BACKGROUND_SESSIONS", 5)
    with django_capture_on_commit_callbacks(execute=True):
        location = upload(admin_client, conference, large_csv(12))["Location"]

    schedule_import = ScheduleImport.objects.get()
    assert (schedule_import.status, schedule_import.in_background) == ("checking", True)
    task = DBTaskResult.objects.get()
    assert task.task_path == "sessions.importers.tasks.run_schedule_import"
    poll = admin_client.get(location, headers={"HX-Request": "true"})
    assert "Checking 12 sessions" in page_text(poll)

    run_schedule_import.call(schedule_import.pk)  # what the worker does

    done = admin_client.get(location, headers={"HX-Request": "true"})
    assert done.status_code == 204
    assert done["HX-Refresh"] == "true"
    page = page_text(admin_client.get(location))
    assert ("Created (10)" in page, "Sessions created or changed (12)" in page) == (True, True)


@override_settings(TASKS=IMMEDIATE)
def test_a_large_file_is_imported_by_a_task_on_confirm(
    admin_client, conference, django_capture_on_commit_callbacks, monkeypatch
):
    monkeypatch.setattr(runs, "BACKGROUND_SESSIONS", 5)
    with django_capture_on_commit_callbacks(execute=True):
        location = upload(admin_client, conference, large_csv(12))["Location"]
    with django_capture_on_commit_callbacks(execute=True):
        admin_client.post(location)

    assert ScheduleImport.objects.get().status == "imported"
    assert Session.objects.count() == 12
    assert Session.objects.filter(starts_at=paris(8, 8)).count() == 10

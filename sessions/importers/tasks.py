"""Starting the admin import page's steps (runs.py): in the request for a small file, through
Django's tasks API (settings.TASKS) for a large one, so the page answers at once."""

from django.db import transaction
from django_tasks import task

from sessions.importers.runs import begin_check, claim_import, run_step
from sessions.models import ScheduleImport


@task()
def run_schedule_import(import_id: int) -> None:
    """Check or import a large file uploaded on the admin's import page."""
    run_step(import_id)


def start_check(schedule_import: ScheduleImport) -> None:
    """Count the file's sessions and check it, now or in a task; a file we cannot read is refused."""
    if begin_check(schedule_import):
        run_or_enqueue(schedule_import)


def start_import(schedule_import: ScheduleImport, user) -> bool:
    """Confirm a checked file: import it for real, now or in a task; False if it was not
    waiting for confirmation (``claim_import``)."""
    if not claim_import(schedule_import, user):
        return False
    run_or_enqueue(schedule_import)
    return True


def run_or_enqueue(schedule_import: ScheduleImport) -> None:
    if schedule_import.in_background:
        # Once the row is committed, or the worker might look for it before it exists.
        transaction.on_commit(lambda: run_schedule_import.enqueue(schedule_import.pk))
    else:
        run_step(schedule_import.pk)

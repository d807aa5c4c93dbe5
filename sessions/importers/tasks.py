"""Imports that run outside the request, through Django's tasks API (settings.TASKS)."""

from django_tasks import task

from sessions.importers.runs import run_step


@task()
def run_schedule_import(import_id: int) -> None:
    """Check or import a large file uploaded on the admin's import page."""
    run_step(import_id)

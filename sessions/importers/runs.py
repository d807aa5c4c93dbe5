"""The admin's import page, step by step: check a stored upload (a dry run), then import it.

A ScheduleImport holds the file between the two steps. Each step runs ``import_schedule`` with
the same rules as the command; a file of more than BACKGROUND_SESSIONS sessions runs in a task
so the page answers at once and shows where the step stands. Starting a step, now or in that
task, is sessions/importers/tasks.py, which imports this module.
"""

import io
import logging

from django.utils import timezone, translation
from django.utils.translation import gettext as _

from sessions.importers import ScheduleImportError, import_schedule, parse_schedule
from sessions.models import ScheduleImport

BACKGROUND_SESSIONS = 200

logger = logging.getLogger(__name__)


def begin_check(schedule_import: ScheduleImport) -> bool:
    """Count the file's sessions and mark it checking; False if we cannot read it (refused)."""
    try:
        with translation.override(schedule_import.language):
            records = parse_schedule(
                bytes(schedule_import.data), schedule_import.file_name, schedule_import.conference
            )
    except ScheduleImportError as error:
        finish(schedule_import, ScheduleImport.Status.REFUSED, problems=error.problems)
        return False
    schedule_import.session_count = len(records.events)
    schedule_import.in_background = schedule_import.session_count > BACKGROUND_SESSIONS
    schedule_import.status = ScheduleImport.Status.CHECKING
    schedule_import.step_started_at = timezone.now()
    schedule_import.save()
    return True


def claim_import(schedule_import: ScheduleImport, user) -> bool:
    """Mark a checked file importing, confirmed by ``user``.

    False if it was not waiting for confirmation: confirmed twice (a double click, two
    organizers at once), only the first claims it.
    """
    now = timezone.now()
    claimed = ScheduleImport.objects.filter(
        pk=schedule_import.pk, status=ScheduleImport.Status.CHECKED
    ).update(
        status=ScheduleImport.Status.IMPORTING,
        confirmed_by=user,
        confirmed_at=now,
        step_started_at=now,
    )
    if not claimed:
        return False
    schedule_import.refresh_from_db()
    return True


def run_step(import_id: int) -> None:
    """Run the step a ScheduleImport waits for, its check or its import, in its uploader's
    language: the problems and report it stores are read in it."""
    schedule_import = ScheduleImport.objects.select_related("conference").get(pk=import_id)
    if not schedule_import.is_running:
        return  # already done: a task delivered twice does no harm
    with translation.override(schedule_import.language):
        run_import(schedule_import)


def run_import(schedule_import: ScheduleImport) -> None:
    checking = schedule_import.status == ScheduleImport.Status.CHECKING
    upload = io.BytesIO(bytes(schedule_import.data))
    upload.name = schedule_import.file_name
    try:
        report = import_schedule(
            schedule_import.conference,
            upload,
            dry_run=checking,
            hold_conflicts=schedule_import.hold_conflicts,
        )
    except ScheduleImportError as error:
        status = ScheduleImport.Status.REFUSED if checking else ScheduleImport.Status.FAILED
        finish(schedule_import, status, problems=error.problems)
        return
    except Exception:  # a bug must not leave the page waiting for ever
        logger.exception("Schedule import %s stopped", schedule_import.pk)
        finish(
            schedule_import,
            ScheduleImport.Status.FAILED,
            problems=[_("An unexpected error stopped this step; nothing was written.")],
        )
        return
    status = ScheduleImport.Status.CHECKED if checking else ScheduleImport.Status.IMPORTED
    finish(schedule_import, status, report=report.as_json())


def finish(
    schedule_import: ScheduleImport,
    status: str,
    *,
    problems: list[str] | None = None,
    report: dict | None = None,
) -> None:
    schedule_import.status = status
    schedule_import.problems = problems or []
    if report is not None:
        schedule_import.report = report
    schedule_import.finished_at = timezone.now()
    schedule_import.save()

"""Background tasks lost with their worker, found and marked failed.

django-tasks-db's worker marks a task RUNNING when it takes it and records its outcome when it
ends. A worker killed in between (SIGKILL, out of memory, a reboot) records nothing, has no
heartbeat for anyone to miss, and no worker takes a RUNNING task again: the row stays RUNNING
for ever (django-tasks issue #46). ``manage.py fail_lost_tasks`` runs ``fail_lost_tasks`` once,
or every few minutes beside the workers.

Lost tasks are marked failed, not run again: a task that killed its worker (a file too large
for its memory) would kill the next one too, and a release's mails already claimed by the lost
run are not sent by a second one anyway (``manage.py mail_release`` queues the rest). The admin
lists them under Tasks, status Failed, with the reason as their traceback.
"""

import traceback
from datetime import timedelta

from django.utils import timezone
from django_tasks import TaskResultStatus
from django_tasks_db.models import DBTaskResult


class WorkerLostError(Exception):
    """The worker running the task stopped before the task ended."""


def fail_lost_tasks(lost_after: timedelta) -> list[DBTaskResult]:
    """Mark failed each task RUNNING for longer than ``lost_after``; the tasks marked.

    ``lost_after`` must exceed any task's run by far: a task still running after all records
    its own outcome over this one when it ends, but is shown failed until then.
    """
    now = timezone.now()
    lost = list(DBTaskResult.objects.running().filter(started_at__lt=now - lost_after))
    marked = []
    for result in lost:
        error = WorkerLostError(
            f"Running since {result.started_at:%Y-%m-%d %H:%M:%S %Z} on worker "
            f"{(result.worker_ids or ['?'])[-1]}, longer than {lost_after} (TASK_LOST_AFTER): "
            "its worker stopped before the task ended. It was not run again."
        )
        # Only if it is still RUNNING: a task that ended meanwhile keeps its own outcome.
        updated = DBTaskResult.objects.filter(pk=result.pk, status=TaskResultStatus.RUNNING).update(
            status=TaskResultStatus.FAILED,
            finished_at=now,
            return_value=None,
            exception_class_path=f"{WorkerLostError.__module__}.{WorkerLostError.__qualname__}",
            traceback="".join(traceback.format_exception(error)),
        )
        if updated:
            marked.append(result)
    return marked

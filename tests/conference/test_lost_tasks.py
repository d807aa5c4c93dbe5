import io
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone
from django_tasks import TaskResultStatus
from django_tasks_db.models import DBTaskResult

from conference.accounts.mail import send_verification_mail
from conference.site.lost_tasks import WorkerLostError, fail_lost_tasks

pytestmark = pytest.mark.django_db


def task_started(minutes_ago: float) -> DBTaskResult:
    """A task taken by a worker ``minutes_ago``, as django-tasks-db's worker claims one."""
    result = send_verification_mail.enqueue(1).db_result
    result.claim("worker-1")
    DBTaskResult.objects.filter(pk=result.pk).update(
        started_at=timezone.now() - timedelta(minutes=minutes_ago)
    )
    return result


def statuses() -> dict[str, str]:
    return dict(DBTaskResult.objects.values_list("id", "status"))


def test_a_task_running_longer_than_the_limit_is_marked_failed_with_the_reason(settings):
    settings.TASK_LOST_AFTER = timedelta(minutes=30)
    lost = task_started(minutes_ago=31)

    assert fail_lost_tasks(settings.TASK_LOST_AFTER) == [lost]

    lost.refresh_from_db()
    assert lost.status == TaskResultStatus.FAILED
    assert lost.finished_at is not None
    [error] = lost.task_result.errors
    assert error.exception_class is WorkerLostError
    assert "longer than 0:30:00 (TASK_LOST_AFTER): its worker stopped" in error.traceback
    assert "on worker worker-1" in error.traceback


def test_tasks_running_within_the_limit_waiting_or_finished_are_left_alone(settings):
    running = task_started(minutes_ago=29)
    waiting = send_verification_mail.enqueue(2).db_result
    finished = task_started(minutes_ago=60)
    finished.set_successful(True)

    assert fail_lost_tasks(timedelta(minutes=30)) == []
    assert statuses() == {
        running.id: TaskResultStatus.RUNNING,
        waiting.id: TaskResultStatus.READY,
        finished.id: TaskResultStatus.SUCCESSFUL,
    }


def test_a_lost_task_that_ends_after_all_keeps_its_own_outcome():
    slow = task_started(minutes_ago=45)
    fail_lost_tasks(timedelta(minutes=30))

    slow.set_successful(True)  # what its worker does if it was only slow

    slow.refresh_from_db()
    assert (slow.status, slow.traceback) == (TaskResultStatus.SUCCESSFUL, "")


def test_the_command_marks_lost_tasks_and_names_them(settings):
    settings.TASK_LOST_AFTER = timedelta(minutes=30)
    lost = task_started(minutes_ago=90)
    out = io.StringIO()

    call_command("fail_lost_tasks", stdout=out)

    assert statuses() == {lost.id: TaskResultStatus.FAILED}
    assert out.getvalue().startswith(
        f"Task conference.accounts.mail.send_verification_mail {lost.id}, "
    )
    assert out.getvalue().endswith(", marked failed: its worker stopped before it ended.\n")


@pytest.mark.django_db(transaction=True)  # the command closes its connection between checks
def test_the_command_keeps_checking_every_so_often_until_stopped(settings, monkeypatch):
    settings.TASK_LOST_AFTER = timedelta(minutes=30)
    sleeps = []

    def sleep(seconds):
        sleeps.append(seconds)
        if len(sleeps) == 1:
            task_started(minutes_ago=40)  # a worker killed meanwhile
        else:
            raise KeyboardInterrupt  # Ctrl-C

    monkeypatch.setattr("conference.site.management.commands.fail_lost_tasks.time.sleep", sleep)
    call_command("fail_lost_tasks", every=300, stdout=io.StringIO())

    assert sleeps == [300, 300]
    assert list(statuses().values()) == [TaskResultStatus.FAILED]


def test_the_admin_lists_a_lost_task_among_the_failed_with_its_reason(admin_client):
    lost = task_started(minutes_ago=90)
    fail_lost_tasks(timedelta(minutes=30))
    changelist = reverse("admin:django_tasks_database_dbtaskresult_changelist")

    failed = admin_client.get(changelist, {"status__exact": TaskResultStatus.FAILED})
    running = admin_client.get(changelist, {"status__exact": TaskResultStatus.RUNNING})
    detail = admin_client.get(
        reverse("admin:django_tasks_database_dbtaskresult_change", args=[lost.pk])
    )

    assert [result.pk for result in failed.context["cl"].result_list] == [lost.pk]
    assert list(running.context["cl"].result_list) == []
    assert "conference.site.lost_tasks.WorkerLostError" in detail.content.decode()
    assert "its worker stopped before the task ended" in detail.content.decode()

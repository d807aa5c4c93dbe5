"""The task worker waits out a locked database, and the supervisor starts again a worker that
exits (conference/site/workers.py)."""

import signal
import sys

import pytest
from django.db import OperationalError
from django_tasks_db.management.commands.db_worker import Worker

from conference.site.workers import (
    Backoff,
    PatientWorker,
    Supervisor,
    run_patiently,
    worker_commands,
)

LOCKED = OperationalError("database is locked")


@pytest.fixture(autouse=True)
def connections_left_alone(monkeypatch):
    """The worker drops its broken connections after a failure; these tests use none."""
    monkeypatch.setattr("conference.site.workers.close_old_connections", lambda: None)


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def test_backoff_doubles_up_to_the_longest_pause_and_resets():
    backoff = Backoff(first=1, longest=10)

    assert [backoff.pause() for _ in range(6)] == [1, 2, 4, 8, 10, 10]
    backoff.reset()
    assert backoff.pause() == 1


def test_a_locked_database_is_waited_out_with_growing_pauses():
    outcomes = iter([LOCKED, LOCKED, LOCKED, None])
    pauses = []

    def run():
        outcome = next(outcomes)
        if outcome:
            raise outcome

    run_patiently(run, backoff=Backoff(first=1, longest=60), sleep=pauses.append)

    assert pauses == [1, 2, 4]


def test_a_run_that_lasted_starts_its_pauses_again_from_the_first():
    clock = Clock()
    outcomes = iter([(0, LOCKED), (0, LOCKED), (600, LOCKED), (0, None)])
    pauses = []

    def run():
        lasted, outcome = next(outcomes)
        clock.now += lasted
        if outcome:
            raise outcome

    run_patiently(run, backoff=Backoff(first=1, longest=60), sleep=pauses.append, clock=clock)

    assert pauses == [1, 2, 1]


def test_other_database_errors_stop_the_worker():
    def run():
        raise OperationalError("no such table: django_tasks_database_dbtaskresult")

    with pytest.raises(OperationalError, match="no such table"):
        run_patiently(run, backoff=Backoff(), sleep=pytest.fail)


def test_the_worker_goes_on_taking_tasks_once_the_database_is_unlocked(monkeypatch):
    """db_worker's own Worker.run() raises "database is locked" when it cannot take the next
    task within the connection's timeout, and its process ends; ours pauses and runs again."""
    outcomes = iter([LOCKED, LOCKED, None])
    runs, pauses = [], []

    def run_of_db_worker(self):
        runs.append(self.worker_id)
        outcome = next(outcomes)
        if outcome:
            raise outcome

    monkeypatch.setattr(Worker, "run", run_of_db_worker)
    monkeypatch.setattr("conference.site.workers.time.sleep", pauses.append)
    worker = PatientWorker(
        queue_names=["default"],
        interval=1,
        batch=False,
        backend_name="default",
        startup_delay=False,
        max_tasks=None,
        worker_id="w1",
        excluded_queue_names=[],
    )

    worker.run()

    assert (runs, pauses) == (["w1"] * 3, [1, 2])


def exiting(code):
    return [sys.executable, "-c", f"import sys; sys.exit({code})"]


def test_the_supervisor_starts_again_a_worker_that_exits_after_growing_pauses():
    clock = Clock()
    supervisor = Supervisor({"default": exiting(3)}, clock=clock, poll_every=0)
    pauses = []

    def step():
        supervisor.check()
        process = supervisor.processes.get("default")
        if process is not None:
            process.wait()  # exits at once; the next check sees it gone
        elif supervisor.due_at:
            pauses.append(supervisor.due_at["default"] - clock.now)
            clock.now = supervisor.due_at["default"]

    while supervisor.starts["default"] < 4:
        step()
    step()

    assert supervisor.starts["default"] == 4
    assert pauses == [1, 2, 4, 8][: len(pauses)]
    assert len(pauses) >= 3


def test_the_supervisor_passes_sigterm_on_and_waits_for_its_workers():
    sleeper = [sys.executable, "-c", "import time; time.sleep(120)"]
    supervisor = Supervisor({"default": sleeper, "webhooks": sleeper}, poll_every=0.01)
    supervisor.check()
    processes = list(supervisor.processes.values())

    supervisor.stop(signal.SIGTERM)
    supervisor.run()

    assert [process.returncode for process in processes] == [-signal.SIGTERM] * 2


def test_run_task_workers_runs_a_worker_per_queue():
    assert worker_commands(["python", "manage.py"]) == {
        "default": ["python", "manage.py", "task_worker", "--no-reload", "--queue-name", "default"],
        "webhooks": [
            "python",
            "manage.py",
            "task_worker",
            "--no-reload",
            "--queue-name",
            "webhooks",
        ],
    }

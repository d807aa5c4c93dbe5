"""Task workers that outlive a locked database, and the supervisor that restarts them.

django-tasks-db's worker stops for good when taking the next task raises "database is locked":
on SQLite that happens when another process holds the write lock longer than the connection's
timeout (an import of thousands of sessions), and nothing started it again, so mails waited
until someone noticed. ``manage.py task_worker`` is its worker, waiting and trying again with a
growing pause (``Backoff``) while the database stays locked; ``manage.py run_task_workers``,
which `make run` and `make serve` start, runs one per queue and starts again any that exits.

A lock held past the worker's own retries while it records a finished task's outcome leaves
that task Running: ``fail_lost_tasks`` marks it failed later (conference/site/lost_tasks.py).
"""

import logging
import signal
import subprocess
import threading
import time
from collections.abc import Callable

from django.conf import settings
from django.db import OperationalError, close_old_connections
from django_tasks_db.management.commands.db_worker import Worker
from django_tasks_db.utils import is_locked_database_exception

logger = logging.getLogger(__name__)

# The first pause after a failure, and the longest; a run that lasted longer than the longest
# pause starts again from the first.
FIRST_PAUSE = 1.0
LONGEST_PAUSE = 60.0


class Backoff:
    """Pauses that double after each failure in a row, up to ``longest``."""

    def __init__(self, first: float = FIRST_PAUSE, longest: float = LONGEST_PAUSE):
        self.first, self.longest = first, longest
        self.next = first

    def pause(self) -> float:
        pause, self.next = self.next, min(self.next * 2, self.longest)
        return pause

    def reset(self) -> None:
        self.next = self.first


def run_patiently(
    run: Callable[[], None],
    *,
    backoff: Backoff,
    sleep: Callable[[float], None] | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> None:
    """Call ``run`` until it returns; while it raises "database is locked", pause and call it
    again. Any other error is raised."""
    sleep = sleep or time.sleep
    while True:
        started = clock()
        try:
            return run()
        except OperationalError as error:
            if not is_locked_database_exception(error):
                raise
            if clock() - started > backoff.longest:
                backoff.reset()
            pause = backoff.pause()
            logger.warning("The database is locked (%s); trying again in %.0f s.", error, pause)
            close_old_connections()
            sleep(pause)


class PatientWorker(Worker):
    """django-tasks-db's worker, waiting out a locked database instead of stopping."""

    def __init__(self, *, backoff: Backoff | None = None, **options):
        super().__init__(**options)
        self.backoff = backoff or Backoff()

    def run(self) -> None:
        run_patiently(self.run_until_stopped, backoff=self.backoff)

    def run_until_stopped(self) -> None:
        if self.running:  # not stopped by a signal meanwhile
            super().run()


def worker_commands(manage: list[str]) -> dict[str, list[str]]:
    """A task worker's command for each queue (settings.TASK_QUEUES), by queue."""
    return {
        queue: [*manage, "task_worker", "--no-reload", "--queue-name", queue]
        for queue in settings.TASK_QUEUES
    }


class Supervisor:
    """Runs each command as a process of its own, and starts again any that exits, after a
    pause that grows while it keeps exiting (``Backoff``, one per command).

    ``stop()`` (SIGTERM or SIGINT to ``run_task_workers``) passes the signal on to every
    process and waits for them: a worker finishes its task in hand first, and stops at once on
    a second signal, as when run alone.
    """

    def __init__(
        self,
        commands: dict[str, list[str]],
        *,
        spawn: Callable[[list[str]], subprocess.Popen] = subprocess.Popen,
        clock: Callable[[], float] = time.monotonic,
        poll_every: float = 0.5,
    ):
        self.commands = commands
        self.spawn = spawn
        self.clock = clock
        self.poll_every = poll_every
        self.backoffs = {name: Backoff() for name in commands}
        self.processes: dict[str, subprocess.Popen] = {}
        self.started_at: dict[str, float] = {}
        self.due_at: dict[str, float] = {}  # when an exited command starts again
        self.starts: dict[str, int] = dict.fromkeys(commands, 0)
        self.stopping = threading.Event()

    def start(self, name: str) -> None:
        self.processes[name] = self.spawn(self.commands[name])
        self.started_at[name] = self.clock()
        self.starts[name] += 1

    def check(self) -> None:
        """Start what is due, and schedule again what has exited."""
        now = self.clock()
        for name in self.commands:
            process = self.processes.get(name)
            if process is None:
                if self.due_at.get(name, now) <= now:
                    self.start(name)
                continue
            code = process.poll()
            if code is None:
                continue
            backoff = self.backoffs[name]
            if now - self.started_at[name] > backoff.longest:
                backoff.reset()
            pause = backoff.pause()
            logger.warning("%s exited with %s; starting it again in %.0f s.", name, code, pause)
            del self.processes[name]
            self.due_at[name] = now + pause

    def run(self, until: Callable[[], bool] = lambda: False) -> None:
        while not self.stopping.is_set() and not until():
            self.check()
            self.stopping.wait(self.poll_every)
        self.wait_for_all()

    def stop(self, signum: int = signal.SIGTERM, frame=None) -> None:
        self.stopping.set()
        for process in self.processes.values():
            if process.poll() is None:
                process.send_signal(signum)

    def wait_for_all(self) -> None:
        for process in self.processes.values():
            process.wait()

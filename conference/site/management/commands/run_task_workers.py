import signal
import sys

from django.conf import settings
from django.core.management import BaseCommand

from conference.site.workers import Supervisor, worker_commands


class Command(BaseCommand):
    help = (
        "Run a task worker (manage.py task_worker) for each task queue (settings.TASK_QUEUES) "
        "and start again any that exits; SIGTERM or Ctrl-C stops them all. make run and make "
        "serve start it beside the server (docs/deploy.md, The task worker)."
    )

    def handle(self, *args, **options):
        supervisor = Supervisor(
            worker_commands([sys.executable, str(settings.BASE_DIR / "manage.py")])
        )
        signal.signal(signal.SIGTERM, supervisor.stop)
        signal.signal(signal.SIGINT, supervisor.stop)
        supervisor.run()

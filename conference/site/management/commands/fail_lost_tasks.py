import time

from django.conf import settings
from django.core.management import BaseCommand
from django.db import close_old_connections

from conference.site.lost_tasks import fail_lost_tasks


class Command(BaseCommand):
    help = (
        "Mark failed the background tasks that have been running for longer than "
        "TASK_LOST_AFTER (DJANGO_TASK_LOST_AFTER_MINUTES): their worker was stopped before they "
        "ended, and no worker takes them again. Once, or with --every, for ever beside the "
        "workers (make run and make serve start it so)."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--every",
            type=int,
            metavar="SECONDS",
            help="Check again every SECONDS until stopped, instead of once.",
        )

    def handle(self, *args, every, **options):
        try:
            while True:
                for result in fail_lost_tasks(settings.TASK_LOST_AFTER):
                    self.stdout.write(
                        f"Task {result.task_path} {result.id}, running since "
                        f"{result.started_at:%Y-%m-%d %H:%M:%S %Z}, marked failed: its worker "
                        "stopped before it ended."
                    )
                if not every:
                    return
                close_old_connections()  # as a request would: none kept past CONN_MAX_AGE
                time.sleep(every)
        except KeyboardInterrupt:  # Ctrl-C in make run: nothing is half done
            return

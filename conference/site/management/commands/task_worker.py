from django.core.management.base import CommandError
from django_tasks_db.management.commands import db_worker

from conference.site.workers import PatientWorker


class Command(db_worker.Command):
    help = (
        "django-tasks-db's db_worker, which waits and tries again, with a growing pause, while "
        "the database is locked instead of stopping (conference/site/workers.py). Never reloads."
    )

    def handle(self, *, verbosity, queue_name, exclude_queues, **options):
        self.configure_logging(verbosity)
        queue_names = queue_name.split(",")
        excluded = exclude_queues.split(",") if exclude_queues else []
        if excluded and "*" not in queue_names:
            raise CommandError("--exclude-queues can only be used with --queue-name=*")
        worker = PatientWorker(
            queue_names=queue_names,
            interval=options["interval"],
            batch=options["batch"],
            backend_name=options["backend_name"],
            startup_delay=options["startup_delay"],
            max_tasks=options["max_tasks"],
            worker_id=options["worker_id"],
            excluded_queue_names=excluded,
        )
        worker.configure_signals()
        worker.run()

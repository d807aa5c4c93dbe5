from django.core.management import BaseCommand

from conference.webhooks.delivery import send_due_webhooks


class Command(BaseCommand):
    help = (
        "Try again the webhook deliveries whose next try is due. Needed only with a task "
        "backend that cannot run a task later (run_after); the database backend retries by "
        "itself. Run it from cron every minute or so."
    )

    def handle(self, *args, **options):
        count = send_due_webhooks()
        self.stdout.write(f"{count} webhook deliveries tried.")

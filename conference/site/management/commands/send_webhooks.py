from django.core.management import BaseCommand

from conference.webhooks.delivery import send_due_webhooks


class Command(BaseCommand):
    help = (
        "Send the webhook events a commit left in the outbox (its process died before sending "
        "them), once a minute old, and try again the deliveries whose next try is due (needed "
        "with a task backend that cannot run a task later; the database backend retries by "
        "itself). Run it from cron every minute or so."
    )

    def handle(self, *args, **options):
        count = send_due_webhooks()
        self.stdout.write(f"{count} webhook deliveries tried.")

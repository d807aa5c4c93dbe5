from django.core.management import BaseCommand, CommandError

from sessions.models import Release, ReleaseMail
from sessions.notifications import plan_release_mails


class Command(BaseCommand):
    help = (
        "Queue the mails of a schedule release that are not sent yet: after a mail server "
        "refused some, or a worker stopped in the middle of a batch. Nobody is mailed twice: "
        "mails already sent, or being sent, are left alone."
    )

    def add_arguments(self, parser):
        parser.add_argument("conference", metavar="SLUG", help="Slug of the conference.")
        parser.add_argument("version", help="Name of the release, e.g. v2.")

    def handle(self, *args, conference, version, **options):
        release = Release.objects.filter(conference__slug=conference, version=version).first()
        if release is None:
            raise CommandError(f"The conference “{conference}” has no release “{version}”.")
        plan_release_mails.enqueue(release.pk)
        statuses = release.mails.values_list("status", flat=True)
        queued = sum(status == ReleaseMail.Status.QUEUED for status in statuses)
        self.stdout.write(
            f"Queued the mails of {release}: the task worker sends the {queued} unsent so far "
            "and any recipient the release gained since."
        )

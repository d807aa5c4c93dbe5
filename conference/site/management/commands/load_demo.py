import secrets

from django.contrib.auth import get_user_model
from django.core.management import BaseCommand, call_command
from django.db import transaction
from django.urls import reverse

from conference.models import Conference
from sessions.releases import baseline_schedule

DEMO_SLUG = "pytorch-eu-2026"
DEMO_FIXTURE = "pytorch-eu-2026"
ORGANIZER_USERNAME = "organizer"


class Command(BaseCommand):
    help = (
        "Load the demo conference (PyTorch Conference Europe 2026) unless it is already there, and "
        "create an organizer account with a random password the first time. Safe to run repeatedly: "
        "a second run changes nothing, so edits made to the demo in the admin survive."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--port",
            type=int,
            default=8000,
            help="Port the site is served on (127.0.0.1), for the admin address printed.",
        )

    def handle(self, *args, port, **options):
        with transaction.atomic():
            self.load_conference()
            self.create_organizer(admin_url=f"http://127.0.0.1:{port}{reverse('admin:index')}")

    def load_conference(self):
        if Conference.objects.filter(slug=DEMO_SLUG).exists():
            self.stdout.write(f"Demo conference “{DEMO_SLUG}” is already loaded; left as it is.")
            return
        call_command("loaddata", DEMO_FIXTURE, verbosity=0)
        conference = Conference.objects.get(slug=DEMO_SLUG)
        # The fixture is published: its schedule is what the public first saw (loaddata skips
        # the receiver that keeps it), so the demo's next release lists real changes.
        baseline = baseline_schedule(conference)
        released = f", released as {baseline.version}" if baseline else ""
        self.stdout.write(
            self.style.SUCCESS(
                f"Loaded {conference} with {conference.sessions.count()} sessions{released}."
            )
        )

    def create_organizer(self, admin_url: str):
        users = get_user_model().objects
        if users.filter(is_staff=True).exists():
            return
        password = secrets.token_urlsafe(12)
        users.create_superuser(ORGANIZER_USERNAME, email="", password=password)
        self.stdout.write(
            self.style.WARNING(
                f"Created the organizer account. Log in at {admin_url} as “{ORGANIZER_USERNAME}” "
                f"with password {password}\nThis password is shown only once: note it now "
                f"(change it with `.venv/bin/python manage.py changepassword {ORGANIZER_USERNAME}`)."
            )
        )

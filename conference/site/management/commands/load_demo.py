import datetime
import secrets
import zoneinfo

from django.contrib.auth import get_user_model
from django.core.management import BaseCommand, call_command
from django.db import transaction
from django.urls import reverse

from conference.models import Conference, Room, Team, Track
from conference.site.demo_call import checked, load_paris_call
from sessions.models import Session, SessionSpeaker
from sessions.releases import baseline_schedule
from speakers.models import Speaker

DEMO_SLUG = "pytorch-eu-2026"
DEMO_FIXTURE = "pytorch-eu-2026"
ORGANIZER_USERNAME = "organizer"
# A second conference, unpublished, with a team of its own: the demo organizer's team covers
# only PyTorch Conference Europe 2026, so the admin, the API and the pages show the separation.
SECOND_SLUG = "demo-summit-2027"
SECOND_ORGANIZER_USERNAME = "summit-organizer"


class Command(BaseCommand):
    help = (
        "Load the demo conference (PyTorch Conference Europe 2026) unless it is already there, and "
        "create an organizer account with a random password the first time; the same for the "
        "demo's other conferences (Demo Summit 2027, PyTorch Day Paris 2027 with an open call "
        "for proposals) and their accounts. Safe to run repeatedly: a second run changes "
        "nothing, so edits made to the demo in the admin survive."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--port",
            type=int,
            default=8000,
            help="Port the site is served on (127.0.0.1), for the admin address printed.",
        )

    def handle(self, *args, port, **options):
        admin_url = f"http://127.0.0.1:{port}{reverse('admin:index')}"
        with transaction.atomic():
            self.load_conference()
            second = self.load_second_conference()
            if not get_user_model().objects.filter(is_staff=True).exists():
                demo = Conference.objects.get(slug=DEMO_SLUG)
                self.create_organizer(admin_url, ORGANIZER_USERNAME, demo)
                self.create_organizer(admin_url, SECOND_ORGANIZER_USERNAME, second)
            self.load_paris_call(port)

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

    def load_second_conference(self) -> Conference:
        """Demo Summit 2027: unpublished, two rooms, a track, three talks; made through the
        models' own rules (full_clean), once."""
        existing = Conference.objects.filter(slug=SECOND_SLUG).first()
        if existing is not None:
            return existing
        berlin = zoneinfo.ZoneInfo("Europe/Berlin")
        conference = checked(
            Conference(
                name="Demo Summit 2027",
                slug=SECOND_SLUG,
                starts_on=datetime.date(2027, 6, 9),
                ends_on=datetime.date(2027, 6, 9),
                time_zone="Europe/Berlin",
                city="Berlin",
                description="A second, unpublished conference of the demo, with a team of its own.",
            )
        )
        hall = checked(Room(conference=conference, name="Main Hall", slug="main-hall", position=1))
        lab = checked(Room(conference=conference, name="Lab", slug="lab", position=2))
        track = checked(Track(conference=conference, name="Platforms", slug="platforms"))
        talks = [
            ("Opening the Summit", hall, 9, 30, "Mira Okafor"),
            ("Serving Models at the Edge", hall, 10, 30, "Jonas Feld"),
            ("Hands-on: Profiling Training Jobs", lab, 10, 90, "Mira Okafor"),
        ]
        for title, room, hour, minutes, speaker_name in talks:
            speaker = Speaker.objects.filter(conference=conference, name=speaker_name).first()
            if speaker is None:
                speaker = checked(
                    Speaker(
                        conference=conference,
                        name=speaker_name,
                        slug=speaker_name.lower().replace(" ", "-"),
                        role="Engineer",
                    )
                )
            starts_at = datetime.datetime(2027, 6, 9, hour, tzinfo=berlin)
            session = checked(
                Session(
                    conference=conference,
                    title=title,
                    slug=title.lower().replace(":", "").replace(" ", "-"),
                    track=track,
                    room=room,
                    starts_at=starts_at,
                    ends_at=starts_at + datetime.timedelta(minutes=minutes),
                    status=Session.Status.PUBLISHED,
                )
            )
            SessionSpeaker.objects.create(session=session, speaker=speaker, position=0)
        team = Team.objects.create(name="Demo Summit 2027 organizers", is_organizer=True)
        team.conferences.set([conference])
        self.stdout.write(self.style.SUCCESS(f"Loaded {conference}, unpublished, and its team."))
        return conference

    def load_paris_call(self, port: int):
        loaded = load_paris_call()
        if loaded is None:
            return
        conference = loaded.conference
        self.stdout.write(
            self.style.SUCCESS(
                f"Loaded {conference}, unpublished, with its open call for proposals, "
                f"{conference.proposals.count()} proposals and their reviews."
            )
        )
        site = f"http://127.0.0.1:{port}"
        lines = [
            f"Created the accounts of {conference.name}'s call for proposals. Log in at "
            f"{site}{reverse('login')} (speakers) or {site}{reverse('admin:index')} (the others):"
        ]
        for username, password in loaded.passwords.items():
            kept = "its password left as it was" if password is None else f"password {password}"
            lines.append(f"  “{username}”, {kept}")
        lines.append(
            "These passwords are shown only once: note them now (change one with "
            "`.venv/bin/python manage.py changepassword USERNAME`)."
        )
        self.stdout.write(self.style.WARNING("\n".join(lines)))

    def create_organizer(self, admin_url: str, username: str, conference: Conference):
        """An account in the organizer team of ``conference`` alone (not a superuser: teams
        decide what it may do), with a random password printed once."""
        password = secrets.token_urlsafe(12)
        user = get_user_model().objects.create_user(
            username, email="", password=password, is_staff=True
        )
        team = Team.objects.filter(conferences=conference, is_organizer=True).first()
        if team is None:
            team = Team.objects.create(name=f"{conference.name} organizers", is_organizer=True)
            team.conferences.set([conference])
        team.members.add(user)
        self.stdout.write(
            self.style.WARNING(
                f"Created an organizer of {conference.name}. Log in at {admin_url} as "
                f"“{username}” with password {password}\nThis password is shown only once: note "
                f"it now (change it with `.venv/bin/python manage.py changepassword {username}`)."
            )
        )

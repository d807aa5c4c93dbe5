import time

from django.core.exceptions import ValidationError
from django.core.management import BaseCommand, CommandError
from django.db import transaction
from django.db.models import Count

from conference.models import Conference
from sessions.generators import MIN_SESSIONS, default_slug, generate_conference
from sessions.models import Attachment, Session, SessionSpeaker
from speakers.models import SpeakerLink


class Command(BaseCommand):
    help = (
        "Generate a synthetic, published conference of N sessions for load tests and benchmarks: "
        "rooms, tracks, speakers, breaks and attachments, valid under every rule of the admin. "
        "The same seed always gives the same conference."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--sessions",
            type=int,
            required=True,
            metavar="N",
            help=f"How many sessions, breaks included (at least {MIN_SESSIONS}).",
        )
        parser.add_argument("--seed", type=int, default=0, help="Random seed (default 0).")
        parser.add_argument("--slug", help="Slug of the new conference (default generated-N-SEED).")
        parser.add_argument(
            "--replace",
            action="store_true",
            help="Delete the conference with this slug first, if there is one.",
        )

    def handle(self, *args, sessions, seed, slug, replace, **options):
        slug = slug or default_slug(sessions, seed)
        existing = Conference.objects.filter(slug=slug)
        if existing.exists() and not replace:
            raise CommandError(
                f"A conference with the slug “{slug}” already exists. Choose another --slug, "
                "or pass --replace to delete it and generate it anew."
            )
        started = time.perf_counter()
        try:
            with transaction.atomic():
                existing.delete()
                conference = generate_conference(sessions, seed=seed, slug=slug)
        except ValueError as error:
            raise CommandError(str(error)) from None
        except ValidationError as error:
            raise CommandError(" ".join(error.messages)) from None
        elapsed = time.perf_counter() - started
        for line in summary(conference):
            self.stdout.write(line)
        self.stdout.write(
            self.style.SUCCESS(f"Generated {conference} in {elapsed:.1f} s: /{conference.slug}/")
        )


def summary(conference: Conference) -> list[str]:
    """What the conference holds, one line per kind of row."""
    sessions = Session.objects.filter(conference=conference)
    kinds = dict(sessions.values_list("kind").annotate(count=Count("pk")).order_by("kind"))
    by_kind = ", ".join(
        f"{kinds[kind]} {label.lower()}" for kind, label in Session.Kind.choices if kind in kinds
    )
    days = len(conference.days)
    return [
        f"{sum(kinds.values())} sessions over {days} days "
        f"({conference.starts_on:%d %b %Y}–{conference.ends_on:%d %b %Y}, {conference.time_zone}): "
        f"{by_kind}",
        f"{conference.rooms.count()} rooms, {conference.tracks.count()} tracks",
        f"{conference.speakers.count()} speakers with "
        f"{SpeakerLink.objects.filter(speaker__conference=conference).count()} links, "
        f"{SessionSpeaker.objects.filter(session__conference=conference).count()} "
        "speaker appearances",
        f"{Attachment.objects.filter(session__conference=conference).count()} attachments",
    ]

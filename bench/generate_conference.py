"""Generate a synthetic, published conference (bench/generator.py) from the command line.

    .venv/bin/python bench/generate_conference.py --sessions N [--seed S] [--slug SLUG] [--replace]

It uses the project's settings as manage.py does: the database of DATABASE_URL, and
DJANGO_DEBUG=1 or a DJANGO_SECRET_KEY. Tests run the Command with call_command(Command(), ...).
"""

import os
import sys
import time
from pathlib import Path

from django.core.exceptions import ValidationError
from django.core.management import BaseCommand, CommandError
from django.db import transaction

ROOT = Path(__file__).resolve().parent.parent


class Command(BaseCommand):
    help = (
        "Generate a synthetic, published conference of N sessions for load tests and benchmarks: "
        "rooms, tracks, speakers, breaks and attachments, valid under every rule of the admin. "
        "The same seed always gives the same conference."
    )

    def create_parser(self, prog_name, subcommand, **kwargs):
        parser = super().create_parser(prog_name, subcommand, **kwargs)
        parser.prog = "bench/generate_conference.py"
        return parser

    def add_arguments(self, parser):
        from bench.generator import MIN_SESSIONS  # models load only once Django is set up

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
        from bench.generator import default_slug, generate_conference, summary
        from conference.models import Conference

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


def main() -> None:
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "conference.site.settings")
    import django

    django.setup()
    Command().run_from_argv([sys.argv[0], "generate_conference", *sys.argv[1:]])


if __name__ == "__main__":
    main()

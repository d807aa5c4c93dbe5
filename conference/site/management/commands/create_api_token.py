from django.contrib.auth import get_user_model
from django.core.management import BaseCommand, CommandError

from conference.models import ApiToken, Conference


class Command(BaseCommand):
    help = (
        "Make a new API token for an account and print its key, once: the site keeps only its "
        "digest. Read only unless --write; every conference the account may see unless "
        "--conference (repeatable); never expiring unless --expires. The token does no more "
        "than its account may. The key alone goes to standard output, so "
        "TOKEN=$(manage.py create_api_token USERNAME) keeps it."
    )

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument("--write", action="store_true", help="Let the token write too.")
        parser.add_argument(
            "--conference",
            action="append",
            default=[],
            metavar="SLUG",
            dest="conferences",
            help="The only conference(s) the token reaches.",
        )
        parser.add_argument(
            "--expires", type=int, metavar="DAYS", help="Days until the token stops working."
        )
        parser.add_argument("--name", default="", help="What the token is for.")

    def handle(self, *args, username, write, conferences, expires, name, **options):
        user = get_user_model().objects.filter(username=username).first()
        if user is None:
            raise CommandError(f"No such account: {username}.")
        if expires is not None and expires < 1:
            raise CommandError("--expires takes a number of days of at least 1.")
        found = list(Conference.objects.filter(slug__in=conferences))
        missing = sorted(set(conferences) - {conference.slug for conference in found})
        if missing:
            raise CommandError(f"No such conference: {', '.join(missing)}.")
        token = ApiToken.objects.issue(
            user,
            scope=ApiToken.Scope.WRITE if write else ApiToken.Scope.READ,
            name=name,
            conferences=found,
            expires_in_days=expires,
        )
        self.stdout.write(token.key)
        self.stderr.write(
            f"Token {token.prefix}… of {user}: {token.scope}"
            + (f", {', '.join(sorted(conferences))} only" if conferences else "")
            + (f", until {token.expires_at:%Y-%m-%d %H:%M} UTC" if token.expires_at else "")
            + ". The key above is shown this once."
        )

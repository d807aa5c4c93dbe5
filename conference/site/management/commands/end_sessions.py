from django.contrib.auth import get_user_model
from django.core.management import BaseCommand, CommandError

from conference.accounts.logouts import end_sessions


class Command(BaseCommand):
    help = (
        "Log people out: end the sessions of the accounts named (--user, repeatable) or every "
        "session (--all), in the database and in Redis alike. Deleting rows from "
        "django_session does not log anyone out while Redis keeps a copy; clearsessions only "
        "removes expired sessions."
    )

    def add_arguments(self, parser):
        who = parser.add_mutually_exclusive_group(required=True)
        who.add_argument(
            "--user", action="append", metavar="USERNAME", help="An account to log out."
        )
        who.add_argument("--all", action="store_true", dest="everyone", help="Log everybody out.")

    def handle(self, *args, user, everyone, **options):
        user_ids = None
        if user:
            accounts = get_user_model().objects.filter(username__in=user)
            found = {account.username: str(account.pk) for account in accounts}
            missing = sorted(set(user) - set(found))
            if missing:
                raise CommandError(f"No such account: {', '.join(missing)}.")
            user_ids = set(found.values())
        ended = end_sessions(user_ids)
        self.stdout.write(f"Ended {ended} session{'s' if ended != 1 else ''}.")

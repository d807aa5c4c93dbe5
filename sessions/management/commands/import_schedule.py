from pathlib import Path

from django.core.management import BaseCommand, CommandError

from conference.models import Conference
from sessions.importers import ScheduleImportError, import_schedule


class Command(BaseCommand):
    help = (
        "Import a frab/c3voc schedule.xml or schedule.json, Sessionize's All Data JSON or a CSV "
        "table (docs/import.md) into an existing conference. Rooms, "
        "tracks, speakers and sessions are created or updated (matched by GUID), all or nothing; "
        "the conference's days and time zone rule what may be imported. On a re-import, fields "
        "of sessions and speakers edited here keep their values unless the file changed them "
        "since the last import."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "file", help="Path to schedule.xml, schedule.json, Sessionize JSON or a .csv table."
        )
        parser.add_argument(
            "--conference", required=True, metavar="SLUG", help="Slug of the conference."
        )
        parser.add_argument(
            "--dry-run",
            action="store_true",
            help=(
                "Check everything and list what would change, field by field and why, and "
                "which edits made here would be kept; then write nothing."
            ),
        )

        parser.add_argument(
            "--convert-time-zone",
            action="store_true",
            help=(
                "Import a file written for another time zone: each session keeps its moment "
                "and is shown in the conference's zone. Without it such a file is refused."
            ),
        )

        parser.add_argument(
            "--day-change-from-file",
            action="store_true",
            help=(
                "Take the file's day change (when sessions after midnight count as the day "
                "before) even though the conference has sessions already; a conference "
                "without sessions takes it anyway."
            ),
        )

        parser.add_argument(
            "--hold-conflicts",
            action="store_true",
            help=(
                "Import every valid record; a session that double-books a room or speaker or "
                "falls outside the conference's days is imported unscheduled (a draft in the "
                "planner's side list) with the reason, instead of refusing the whole file."
            ),
        )

    def handle(
        self,
        *args,
        file,
        conference,
        dry_run,
        convert_time_zone,
        day_change_from_file,
        hold_conflicts,
        verbosity,
        **options,
    ):
        try:
            target = Conference.objects.get(slug=conference)
        except Conference.DoesNotExist:
            raise CommandError(f"There is no conference with the slug “{conference}”.") from None
        path = Path(file)
        if not path.is_file():
            raise CommandError(f"No such file: {file}")
        try:
            report = import_schedule(
                target,
                path,
                dry_run=dry_run,
                convert_time_zone=convert_time_zone,
                adopt_day_change=day_change_from_file,
                hold_conflicts=hold_conflicts,
            )
        except ScheduleImportError as error:
            raise CommandError(f"{error}\nNothing was imported.") from None
        if dry_run or verbosity > 1:
            for change in report.changes:
                self.stdout.write(f"would {change}" if dry_run else change)
        else:
            # An organizer's edit replaced by the file's value is worth seeing unasked.
            for change in report.overrides:
                self.stdout.write(self.style.WARNING(change))
        for line in report.held:
            self.stdout.write(self.style.WARNING(f"would {line}" if dry_run else line))
        for line in report.summary():
            self.stdout.write(line)
        if dry_run:
            self.stdout.write(self.style.WARNING("Dry run: nothing was written."))
        else:
            self.stdout.write(self.style.SUCCESS(f"Imported {path.name} into {target}."))

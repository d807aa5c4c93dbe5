from django.db import migrations, models

# What each line of a report stored before this migration starts with (always English then).
SECTION_PREFIXES = {"created": "create ", "updated": "update ", "kept": "keep "}


def sort_changes_into_sections(apps, schema_editor):
    """Reports now list their lines by section, as the import page shows them: their words, in
    the uploader's language, can no longer say which."""
    ScheduleImport = apps.get_model("schedule", "ScheduleImport")
    for schedule_import in ScheduleImport.objects.exclude(report={}).only("report"):
        report = schedule_import.report
        changes = report.get("changes", [])
        report["sections"] = {
            section: [line for line in changes if line.startswith(prefix)]
            for section, prefix in SECTION_PREFIXES.items()
        }
        schedule_import.save(update_fields=["report"])


class Migration(migrations.Migration):
    dependencies = [
        ("schedule", "0023_translatable_names"),
    ]

    operations = [
        migrations.AddField(
            model_name="scheduleimport",
            name="language",
            field=models.CharField(default="en", max_length=10, verbose_name="language"),
        ),
        migrations.RunPython(sort_changes_into_sections, migrations.RunPython.noop),
    ]

from django.db import migrations


def end_all_tokens(apps, schema_editor):
    """Going back to keys in clear: there are none to go back to, so every token ends. A
    migration of its own, run before 0023 comes back: PostgreSQL alters no table with deletes
    of the same transaction still to check."""
    apps.get_model("conference", "ApiToken").objects.all().delete()


class Migration(migrations.Migration):
    dependencies = [
        ("conference", "0023_drop_clear_api_token_keys"),
    ]

    operations = [migrations.RunPython(migrations.RunPython.noop, end_all_tokens)]

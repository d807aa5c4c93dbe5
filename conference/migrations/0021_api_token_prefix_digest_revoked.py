from django.db import migrations, models


class Migration(migrations.Migration):
    """Room for hashed keys beside the clear ones (0022 fills it, 0023 drops the clear keys)."""

    dependencies = [
        ("conference", "0020_sessions_to_account_backend"),
    ]

    operations = [
        migrations.AddField(
            model_name="apitoken",
            name="prefix",
            field=models.CharField(
                db_index=True,
                default="",
                editable=False,
                help_text="The first characters of the key, to tell tokens apart.",
                max_length=8,
                verbose_name="prefix",
            ),
            preserve_default=False,
        ),
        migrations.AddField(
            model_name="apitoken",
            name="key_digest",
            field=models.CharField(
                default="", editable=False, max_length=64, verbose_name="key digest"
            ),
            preserve_default=False,
        ),
        migrations.AddField(
            model_name="apitoken",
            name="revoked_at",
            field=models.DateTimeField(
                blank=True, editable=False, null=True, verbose_name="revoked at"
            ),
        ),
    ]

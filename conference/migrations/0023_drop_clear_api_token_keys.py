from django.db import migrations, models


class Migration(migrations.Migration):
    """The keys in clear go: 0022 hashed them. Going back, 0024 first ends every token."""

    dependencies = [
        ("conference", "0022_hash_api_token_keys"),
    ]

    operations = [
        migrations.RemoveField(model_name="apitoken", name="key"),
        migrations.AlterField(
            model_name="apitoken",
            name="key_digest",
            field=models.CharField(
                editable=False, max_length=64, unique=True, verbose_name="key digest"
            ),
        ),
    ]

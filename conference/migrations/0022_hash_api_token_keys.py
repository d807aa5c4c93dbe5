"""Hash every API token's key in place, and make DRF's tokens ApiTokens with the same key.

Clients keep their keys: a key from before is found by its digest as a new one is. DRF's
tokens (``rest_framework.authtoken``, one per account, unscoped) become ApiTokens with their
owner's reach: write for staff, read for others; the owner's teams still bound what either does.
Their table is read with SQL, as the app is no longer installed, and emptied: no key stays in
clear. Without that table (a database made after the app left) there is nothing to adopt.
"""

import datetime
import hashlib

from django.conf import settings
from django.db import migrations
from django.utils.dateparse import parse_datetime

DRF_TOKENS = "authtoken_token"
ADOPTED_NAME = "Account token (from before scopes)"


def digest(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def aware(value) -> datetime.datetime:
    """A time read with SQL: SQLite may give a string or a naive datetime, in UTC."""
    if isinstance(value, str):
        value = parse_datetime(value)
    return value if value.tzinfo else value.replace(tzinfo=datetime.UTC)


def hash_keys(apps, schema_editor):
    ApiToken = apps.get_model("conference", "ApiToken")
    for token in ApiToken.objects.only("pk", "key"):
        ApiToken.objects.filter(pk=token.pk).update(
            prefix=token.key[:8], key_digest=digest(token.key)
        )


def adopt_drf_tokens(apps, schema_editor):
    connection = schema_editor.connection
    if DRF_TOKENS not in connection.introspection.table_names():
        return
    table = connection.ops.quote_name(DRF_TOKENS)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {connection.ops.quote_name('key')}, created, user_id FROM {table}")
        rows = cursor.fetchall()
    ApiToken = apps.get_model("conference", "ApiToken")
    for key, created, user_id in rows:
        if ApiToken.objects.filter(key_digest=digest(key)).exists():
            continue  # the same key twice: DRF's keys and ours never met, but be sure
        token = ApiToken.objects.create(
            user_id=user_id,
            key=key,  # still a column until 0023 drops it
            name=ADOPTED_NAME,
            # Write, as DRF's tokens were: an attendee's app saves their schedule with it, and
            # whatever else it writes is bounded by its owner's teams (TeamPermission).
            scope="write",
            prefix=key[:8],
            key_digest=digest(key),
        )
        ApiToken.objects.filter(pk=token.pk).update(created_at=aware(created))  # not auto_now_add's
    with connection.cursor() as cursor:
        cursor.execute(f"DELETE FROM {table}")


class Migration(migrations.Migration):
    dependencies = [
        ("conference", "0021_api_token_prefix_digest_revoked"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        # Backwards, the clear keys are gone: 0024 ends the tokens instead.
        migrations.RunPython(hash_keys, migrations.RunPython.noop),
        migrations.RunPython(adopt_drf_tokens, migrations.RunPython.noop),
    ]

"""Migrations that move data: API keys hashed in place, DRF's tokens adopted (conference/0022)."""

import datetime

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from rest_framework.test import APIClient

from conference.models import ApiToken

pytestmark = pytest.mark.django_db(transaction=True)

CLEAR_KEYS = [("conference", "0020_sessions_to_account_backend")]
HASHED_KEYS = [("conference", "0024_end_api_tokens_going_back")]
DRF_KEY = "9944b09199c62bcf9418ad846dd0e4bbdfc6ee4b"
ATTENDEE_DRF_KEY = "0123456789abcdef0123456789abcdef01234567"


@pytest.fixture(autouse=True)
def latest_schema_afterwards():
    """Each test moves the schema back in time; the tests after it need today's."""
    yield
    migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())


@pytest.fixture
def drf_token_table():
    """DRF's token table as an installation from before keeps it (the app is gone since)."""
    quote = connection.ops.quote_name
    with connection.cursor() as cursor:
        cursor.execute(
            f"CREATE TABLE authtoken_token ({quote('key')} varchar(40) PRIMARY KEY, "
            f"created {connection.data_types['DateTimeField']} NOT NULL, user_id integer NOT NULL)"
        )
    yield "authtoken_token"
    with connection.cursor() as cursor:
        cursor.execute("DROP TABLE authtoken_token")


def migrate(targets):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


def test_clear_keys_are_hashed_in_place_and_keep_working():
    apps = migrate(CLEAR_KEYS)
    User = apps.get_model("auth", "User")
    user = User.objects.create(username="organizer", is_staff=True)
    apps.get_model("conference", "ApiToken").objects.create(user=user, key=DRF_KEY, scope="read")

    migrate(HASHED_KEYS)
    migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())

    token = ApiToken.objects.get()
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {DRF_KEY}")
    assert token.prefix == DRF_KEY[:8]
    assert DRF_KEY not in str(ApiToken.objects.values().get())
    assert client.get("/api/v1/conferences/").status_code == 200


def test_drf_tokens_become_api_tokens_with_their_owners_reach(drf_token_table):
    apps = migrate(CLEAR_KEYS)
    User = apps.get_model("auth", "User")
    staff = User.objects.create(username="organizer", is_staff=True)
    attendee = User.objects.create(username="ada")
    created = datetime.datetime(2025, 1, 2, 3, 4, 5, tzinfo=datetime.UTC)
    with connection.cursor() as cursor:
        for key, user in ((DRF_KEY, staff), (ATTENDEE_DRF_KEY, attendee)):
            cursor.execute(
                f"INSERT INTO {drf_token_table} VALUES (%s, %s, %s)",
                [key, connection.ops.adapt_datetimefield_value(created), user.pk],
            )

    migrate(HASHED_KEYS)
    migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())

    adopted = ApiToken.objects.order_by("user__username")
    assert [(t.user.username, t.scope, t.prefix, t.created_at) for t in adopted] == [
        ("ada", "write", ATTENDEE_DRF_KEY[:8], created),
        ("organizer", "write", DRF_KEY[:8], created),
    ]
    assert [list(t.conferences.all()) for t in adopted] == [[], []]
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT COUNT(*) FROM {drf_token_table}")
        assert cursor.fetchone() == (0,)  # no key left in clear
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {DRF_KEY}")
    assert client.get("/api/v1/conferences/").status_code == 200


def test_going_back_to_clear_keys_ends_every_token():
    apps = migrate(CLEAR_KEYS)
    user = apps.get_model("auth", "User").objects.create(username="organizer")
    apps.get_model("conference", "ApiToken").objects.create(user=user, key=DRF_KEY)
    migrate(HASHED_KEYS)

    apps = migrate(CLEAR_KEYS)

    assert apps.get_model("conference", "ApiToken").objects.count() == 0

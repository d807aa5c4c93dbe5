from django.apps import AppConfig
from django.core.management import call_command
from django.db.models.signals import post_migrate
from django.utils.translation import gettext_lazy


def create_cache_tables(using, **kwargs):
    """The "limits" cache's table, when it lives in the database (settings.CACHES), belongs to the
    schema: every `migrate` (make run, make serve, a deploy, the test database) creates it."""
    call_command("createcachetable", database=using, verbosity=0)


class ConferenceConfig(AppConfig):
    name = "conference"
    # The admin's section and breadcrumb: “Setup › Conferences”, “Setup › API tokens” (not
    # “Conference › Conferences”): conferences with their rooms and tracks, teams, API access.
    verbose_name = gettext_lazy("Setup")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        # Registers the lookups and the permissions, connects the receivers.
        from conference import lookups, permissions, signals  # noqa: F401

        post_migrate.connect(create_cache_tables, sender=self)

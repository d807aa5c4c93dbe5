from django.apps import AppConfig


class ConferenceConfig(AppConfig):
    name = "conference"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from conference import signals  # noqa: F401 -- connects the receivers

from django.apps import AppConfig


class SpeakersConfig(AppConfig):
    name = "speakers"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from speakers import signals  # noqa: F401 -- connects the receivers

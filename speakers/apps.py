from django.apps import AppConfig
from django.utils.translation import gettext_lazy


class SpeakersConfig(AppConfig):
    name = "speakers"
    verbose_name = gettext_lazy("Speakers")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from speakers import signals  # noqa: F401 -- connects the receivers
        from speakers.api import webhooks  # noqa: F401 -- connects the webhooks' receivers

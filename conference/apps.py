import gc

from django.apps import AppConfig
from django.conf import settings


class ConferenceConfig(AppConfig):
    name = "conference"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from conference import lookups, signals  # noqa: F401 -- registers them, connects them

        if settings.GC_GEN0_THRESHOLD > 0:  # see settings.py
            gc.set_threshold(settings.GC_GEN0_THRESHOLD, *gc.get_threshold()[1:])

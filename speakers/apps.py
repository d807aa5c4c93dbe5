from django.apps import AppConfig


class SpeakersConfig(AppConfig):
    name = "speakers"
    default_auto_field = "django.db.models.BigAutoField"

from django.apps import AppConfig
from django.utils.translation import gettext_lazy


class SpeakersConfig(AppConfig):
    name = "speakers"
    # The admin's section and breadcrumb: “Speaker profiles › Speakers” (not “Speakers ›
    # Speakers”): their profiles, links, availability and invitations to edit them.
    verbose_name = gettext_lazy("Speaker profiles")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from speakers import signals  # noqa: F401 -- connects the receivers
        from speakers.api import webhooks  # noqa: F401 -- connects the webhooks' receivers

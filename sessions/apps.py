from django.apps import AppConfig
from django.utils.translation import gettext_lazy


class SessionsConfig(AppConfig):
    name = "sessions"
    # django.contrib.sessions already owns the label "sessions".
    label = "schedule"
    # The admin's section and breadcrumb: “Schedule › Sessions”, “Programme › Sessions” (the
    # app's name beside its models', so not “Sessions › Sessions”).
    verbose_name = gettext_lazy("Schedule")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from sessions import notifications, signals, sync  # noqa: F401 -- connects, registers
        from sessions.api import webhooks  # noqa: F401 -- connects the webhooks' receivers
        from sessions.views import personal  # noqa: F401 -- registers its holes

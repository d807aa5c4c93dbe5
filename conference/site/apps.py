from django.apps import AppConfig
from django.contrib.admin import apps as admin_apps


class SiteConfig(AppConfig):
    """The project shell as an app, for its management commands: it has no models."""

    name = "conference.site"
    label = "site"
    verbose_name = "Site"


class ConferenceAdminConfig(admin_apps.AdminConfig):
    """Django's admin with our site as ``admin.site`` (conference/site/admin.py)."""

    default = False  # named in INSTALLED_APPS; SiteConfig is this module's app
    default_site = "conference.site.admin.ConferenceAdminSite"

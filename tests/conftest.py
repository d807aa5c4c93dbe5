import pytest


@pytest.fixture(autouse=True)
def plain_static_files(settings):
    """Production settings use hashed static files, which need collectstatic; tests use plain names."""
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }

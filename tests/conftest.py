import pytest
from django.core.cache import cache


@pytest.fixture(autouse=True)
def plain_static_files(settings):
    """Production settings use hashed static files, which need collectstatic; tests use plain names."""
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }


@pytest.fixture(autouse=True)
def empty_cache():
    """Shared pages and login counts live in the cache; each test starts without them."""
    cache.clear()
    yield
    cache.clear()

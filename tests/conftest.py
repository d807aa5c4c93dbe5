import pytest
from django.conf import settings
from django.core.cache import cache
from django.test.utils import override_settings


@pytest.fixture(scope="session", autouse=True)
def session_settings(django_test_environment):
    """What every test runs with, set once for the session (on top of pytest-django's).

    Django's default hasher takes about 0.6 s per password here, by design; tests hash hundreds.
    Production settings use hashed static files, which need collectstatic; tests use plain names.
    """
    with override_settings(
        PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"],
        STORAGES={
            **settings.STORAGES,
            "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
        },
    ):
        yield


@pytest.fixture(autouse=True)
def empty_cache():
    """Shared pages and login counts live in the cache; each test starts without them."""
    cache.clear()
    yield
    cache.clear()

import pytest
from django.core.cache import cache
from django.test.utils import override_settings


@pytest.fixture(scope="session", autouse=True)
def fast_password_hasher():
    """Django's default hasher takes about 0.6 s per password here, by design; tests hash hundreds."""
    with override_settings(PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"]):
        yield


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

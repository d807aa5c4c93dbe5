import pytest
from django.db import transaction


@pytest.fixture(scope="module")
def module_db(django_db_setup, django_db_blocker):
    """One transaction around a module's tests, rolled back after its last one.

    Module-scoped fixtures that depend on this write their data once for all the module's tests.
    Each test still runs in a savepoint of its own (pytest-django's ``django_db``), so nothing a
    test writes outlives it. Only for modules without transactional tests: those need commits.
    """
    with django_db_blocker.unblock():
        atomic = transaction.atomic()
        atomic.__enter__()
    yield
    with django_db_blocker.unblock():
        transaction.set_rollback(True)
        atomic.__exit__(None, None, None)

import pytest

from conference.models import Conference
from tests.builders import make_conference

pytestmark = pytest.mark.django_db


def test_an_in_lookup_ignores_integers_no_column_can_hold():
    conference = make_conference()
    huge = 10**30
    assert list(Conference.objects.filter(pk__in=[huge, -huge, conference.pk])) == [conference]
    assert list(Conference.objects.filter(pk__in=[huge])) == []

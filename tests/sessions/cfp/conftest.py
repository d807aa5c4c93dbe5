"""People and a call shared by the call for proposals' admin tests."""

import pytest

from tests.builders import make_call, make_team


@pytest.fixture
def call(conference):
    """PyCon's call, open in January 2026, scores 0 to 3, scores hidden until one has scored."""
    return make_call(conference)


@pytest.fixture
def person(django_user_model):
    """An account made staff and put in a team of ``conferences`` with ``roles``."""

    def make(name, *conferences, **roles):
        user = django_user_model.objects.create_user(
            name, f"{name}@example.org", "pw", is_staff=True, first_name=name.title()
        )
        if roles:
            make_team(user, conferences=conferences, **roles)
        return user

    return make


@pytest.fixture
def reviewer(person, call):
    return person("rita", call.conference, is_reviewer=True)


@pytest.fixture
def speaker_user(django_user_model):
    return django_user_model.objects.create_user(
        "grace", "grace@example.org", "pw", first_name="Grace", last_name="Hopper"
    )

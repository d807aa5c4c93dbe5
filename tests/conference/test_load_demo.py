import io

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from conference.models import Conference
from sessions.models import Session, SessionSpeaker
from sessions.releases import preview_release
from speakers.models import Speaker

pytestmark = pytest.mark.django_db(transaction=True)


def load_demo(*args: str) -> str:
    out = io.StringIO()
    call_command("load_demo", *args, stdout=out)
    return out.getvalue()


def row_counts():
    return (
        Conference.objects.count(),
        Session.objects.count(),
        Speaker.objects.count(),
        SessionSpeaker.objects.count(),
        get_user_model().objects.count(),
    )


def test_load_demo_twice_duplicates_nothing():
    load_demo()
    first = row_counts()
    load_demo()
    assert row_counts() == first
    # PyTorch Conference Europe 2026, Demo Summit 2027, and PyTorch Day Paris 2027 whose one
    # session is its confirmed proposal's (tests/sessions/cfp/test_demo_call.py)
    assert first[:2] == (3, 29 + 3 + 1)


def test_load_demo_leaves_an_organizers_edits_alone():
    load_demo()
    Session.objects.filter(slug__startswith="live-migration").update(title="Edited by an organizer")
    load_demo()
    assert Session.objects.filter(title="Edited by an organizer").count() == 1


def test_load_demo_creates_the_organizer_once_with_a_random_password():
    first_output = load_demo()
    organizer = get_user_model().objects.get(username="organizer")
    password = first_output.split("with password ")[1].split()[0]
    assert organizer.is_staff
    assert organizer.check_password(password)
    assert len(password) >= 16
    assert "password" not in load_demo()


def test_load_demo_passwords_differ_between_sites():
    first = load_demo().split("with password ")[1].split()[0]
    get_user_model().objects.all().delete()
    second = load_demo().split("with password ")[1].split()[0]
    assert first != second


@pytest.mark.parametrize(
    ("args", "address"),
    [((), "http://127.0.0.1:8000/admin/"), (("--port", "8123"), "http://127.0.0.1:8123/admin/")],
)
def test_load_demo_gives_the_full_admin_address_with_the_port(args, address):
    assert f"Log in at {address} as “organizer” with password " in load_demo(*args)


def test_the_demo_ships_released_as_v1_so_its_next_release_lists_real_changes():
    assert "released as v1" in load_demo()
    conference = Conference.objects.get(slug="pytorch-eu-2026")
    [baseline] = conference.releases.all()
    assert baseline.version == "v1"
    assert len(baseline.snapshot) == conference.sessions.public().count()
    Session.objects.filter(slug__startswith="live-migration").update(title="Live migration, again")

    assert preview_release(conference).summary == "1 retitled"


def test_each_demo_organizer_reaches_their_own_conference_only():
    load_demo()
    demo, summit = (
        Conference.objects.get(slug=slug) for slug in ("pytorch-eu-2026", "demo-summit-2027")
    )
    users = get_user_model().objects
    organizer, summit_organizer = (
        users.get(username="organizer"),
        users.get(username="summit-organizer"),
    )

    assert organizer.is_superuser is False
    assert summit_organizer.is_superuser is False
    assert organizer.has_perm("schedule.change_session", demo)
    assert not organizer.has_perm("conference.view_conference", summit)
    assert summit_organizer.has_perm("schedule.change_session", summit)
    assert not summit.is_published
    assert list(Conference.objects.visible_to(organizer)) == [demo]

"""Which copy of a conference's shared pages a visitor gets comes from one rule,
conference.models.copy_for, beside ``visible_to``; the page layer asks nothing else."""

import pytest
from django.contrib.auth.models import AnonymousUser

from conference.models import PREVIEW_COPY, PUBLIC_COPY, Conference, copy_for
from conference.pages import views as page_views
from sessions.models import Session
from tests.builders import make_conference, make_session, make_team, paris

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("who", "copy"),
    [
        ("anonymous", PUBLIC_COPY),
        ("attendee", PUBLIC_COPY),
        ("staff of no team", PUBLIC_COPY),
        ("its team", PREVIEW_COPY),
        ("another conference's team", PUBLIC_COPY),
    ],
)
def test_those_who_may_preview_a_conference_get_its_preview_copy(django_user_model, who, copy):
    unpublished = make_conference(slug="unpublished", is_published=False)
    other = make_conference(slug="other", is_published=False)
    user = (
        AnonymousUser()
        if who == "anonymous"
        else django_user_model.objects.create_user(who, is_staff=who != "attendee")
    )
    if who.endswith("team"):
        make_team(user, conferences=[unpublished if who == "its team" else other], is_venue=True)
    assert copy_for(user, unpublished) == copy
    previews = unpublished in Conference.objects.visible_to(user)
    assert previews == (copy == PREVIEW_COPY)


@pytest.mark.parametrize("logged_in", [False, True], ids=["anonymous", "logged-in"])
def test_the_page_layer_asks_copy_for_which_copy_a_visitor_gets(
    client, django_user_model, monkeypatch, logged_in
):
    conference = make_conference(slug="pycon")
    make_session(conference, title="Public talk")
    make_session(
        conference, title="Draft talk", status=Session.Status.DRAFT, starts_at=paris(8, 14)
    )
    if logged_in:
        client.force_login(django_user_model.objects.create_user("attendee"))
    public = client.get("/pycon/schedule/")
    asked = []

    def previewing(user, page_conference):
        asked.append((user.is_authenticated, page_conference))
        return PREVIEW_COPY

    monkeypatch.setattr(page_views, "copy_for", previewing)
    preview = client.get("/pycon/schedule/")
    assert asked == [(logged_in, conference)]
    assert "Draft talk" not in public.content.decode()
    assert "Draft talk" in preview.content.decode()

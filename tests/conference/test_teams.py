"""Teams: who may do what, per conference (conference/permissions.py)."""

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from conference.models import PREVIEW_COPY, PUBLIC_COPY, ApiToken, Conference, copy_for
from conference.permissions import conferences_where
from sessions.models import Session
from tests.builders import (
    make_conference,
    make_room,
    make_session,
    make_speaker,
    make_team,
    paris,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def conference_a():
    return make_conference(name="Conference A", slug="a", is_published=False)


@pytest.fixture
def conference_b():
    return make_conference(name="Conference B", slug="b", is_published=False)


def member(django_user_model, name: str, *conferences, **roles):
    user = django_user_model.objects.create_user(name, f"{name}@example.org", "pw", is_staff=True)
    make_team(user, conferences=conferences, **roles)
    return user


@pytest.mark.parametrize(
    ("roles", "granted"),
    [
        (
            {"is_organizer": True},
            {
                "change_conference",
                "change_session",
                "add_release",
                "view_feedback",
                "change_room",
                "add_team",
            },
        ),
        (
            {"is_programme": True},
            {"change_session", "add_release", "view_feedback", "change_room"},
        ),
        ({"is_reviewer": True}, {"view_feedback"}),
        ({"is_venue": True}, {"change_room"}),
    ],
)
def test_each_role_grants_its_permissions_in_its_conference_only(
    django_user_model, conference_a, conference_b, roles, granted
):
    user = member(django_user_model, "someone", conference_b, **roles)
    asked = {
        "change_conference": "conference.change_conference",
        "change_session": "schedule.change_session",
        "add_release": "schedule.add_release",
        "view_feedback": "schedule.view_feedback",
        "change_room": "conference.change_room",
        "add_team": "conference.add_team",
    }

    in_b = {name for name, perm in asked.items() if user.has_perm(perm, conference_b)}
    in_a = {name for name, perm in asked.items() if user.has_perm(perm, conference_a)}

    assert (in_b, in_a) == (granted, set())


def test_global_model_permissions_grant_nothing(django_user_model, conference_a):
    from django.contrib.auth.models import Permission

    user = django_user_model.objects.create_user("clerk", is_staff=True)
    user.user_permissions.set(Permission.objects.filter(codename="change_session"))
    user = django_user_model.objects.get(pk=user.pk)

    assert not user.has_perm("schedule.change_session")
    assert not user.has_perm("schedule.change_session", conference_a)


def test_a_team_of_every_conference_reaches_those_to_come(django_user_model):
    user = member(django_user_model, "boss", all_conferences=True, is_organizer=True)
    later = make_conference(slug="later")

    assert user.has_perm("schedule.change_session", later)
    assert list(conferences_where(user, "schedule.change_session")) == [later]


def test_a_team_previews_its_unpublished_conference_and_not_another(
    django_user_model, conference_a, conference_b
):
    user = member(django_user_model, "b-team", conference_b, is_reviewer=True)

    assert list(Conference.objects.visible_to(user)) == [conference_b]
    assert (copy_for(user, conference_b), copy_for(user, conference_a)) == (
        PREVIEW_COPY,
        PUBLIC_COPY,
    )


def test_a_team_sees_its_drafts_and_only_the_public_sessions_of_others(
    django_user_model, conference_b
):
    published = make_conference(slug="published")
    public = make_session(published, room=make_room(published), starts_at=paris(7, 9))
    draft_elsewhere = make_session(
        published, room=make_room(published), starts_at=paris(7, 10), status="draft"
    )
    draft_in_b = make_session(
        conference_b, room=make_room(conference_b), starts_at=paris(7, 9), status="draft"
    )
    user = member(django_user_model, "b-team", conference_b, is_programme=True)

    visible = set(Session.objects.visible_to(user))

    assert visible == {public, draft_in_b}
    assert draft_elsewhere not in visible


def test_another_conferences_pages_are_a_404_for_a_team_member(
    client, django_user_model, conference_a, conference_b
):
    client.force_login(member(django_user_model, "b-team", conference_b, is_organizer=True))

    own = client.get(reverse("conference:conference-detail", args=[conference_b.slug]))
    other = client.get(reverse("conference:conference-detail", args=[conference_a.slug]))

    assert (own.status_code, other.status_code) == (200, 404)


def test_admin_lists_and_opens_only_the_teams_conferences(
    client, django_user_model, conference_a, conference_b
):
    room_a, room_b = make_room(conference_a), make_room(conference_b)
    session_a = make_session(conference_a, room=room_a, starts_at=paris(7, 9))
    session_b = make_session(conference_b, room=room_b, starts_at=paris(7, 9))
    client.force_login(member(django_user_model, "b-team", conference_b, is_programme=True))

    listed = client.get(reverse("admin:schedule_session_changelist"))
    own = client.get(reverse("admin:schedule_session_change", args=[session_b.pk]))
    other = client.get(reverse("admin:schedule_session_change", args=[session_a.pk]))
    planner_a = client.get(reverse("admin:schedule_session_planner", args=[conference_a.pk]))

    assert list(listed.context["cl"].result_list) == [session_b]
    assert (own.status_code, other.status_code, planner_a.status_code) == (200, 404, 404)
    room_choices = own.context["adminform"].form.fields["room"].queryset
    assert list(room_choices) == [room_b]


def test_a_team_without_the_role_may_read_but_not_change(client, django_user_model, conference_b):
    session = make_session(conference_b, room=make_room(conference_b), starts_at=paris(7, 9))
    client.force_login(member(django_user_model, "reviewer", conference_b, is_reviewer=True))

    page = client.get(reverse("admin:schedule_session_change", args=[session.pk]))
    planner = client.get(reverse("admin:schedule_session_planner", args=[conference_b.pk]))

    assert page.status_code == 200
    assert page.context["has_change_permission"] is False
    assert planner.status_code == 403  # its team knows the conference: refused, not hidden


def test_api_writes_need_the_role_in_that_conference(django_user_model, conference_a):
    published_b = make_conference(slug="open-b")
    api = APIClient()
    api.force_authenticate(member(django_user_model, "b-team", published_b, is_programme=True))
    body = {"name": "Hall", "slug": "hall"}

    in_b = api.post(f"/api/v1/conferences/{published_b.slug}/rooms/", body, format="json")
    in_a = api.post(f"/api/v1/conferences/{conference_a.slug}/rooms/", body, format="json")

    assert (in_b.status_code, in_a.status_code) == (201, 404)


def test_feedback_averages_follow_the_token_and_the_teams(django_user_model, conference_a):
    """Regression: the averages needed only is_staff, and ignored a token's conferences."""
    published_b = make_conference(slug="open-b")
    user = member(django_user_model, "reviewer", published_b, is_reviewer=True)
    nobody = django_user_model.objects.create_user("clerk", is_staff=True)
    token = ApiToken.objects.create(user=user, name="b only")
    token.conferences.set([published_b])
    api = APIClient()

    def averages(slug, **credentials):
        api.credentials(**credentials)
        return api.get(f"/api/v1/conferences/{slug}/feedback/").status_code

    api.force_authenticate(nobody)
    staff_without_team = averages(published_b.slug)
    api.force_authenticate(None)
    with_token = (
        averages(published_b.slug, HTTP_AUTHORIZATION=f"Token {token.key}"),
        averages(conference_a.slug, HTTP_AUTHORIZATION=f"Token {token.key}"),
    )

    assert staff_without_team == 403
    assert with_token == (200, 404)


def test_a_team_member_cannot_link_an_account_to_a_speaker_by_hand(
    client, django_user_model, conference_b
):
    """Only an accepted invitation links an account: else a programme member could make
    themselves the speaker and read the speaker's feedback."""
    speaker = make_speaker(conference_b, slug="ada")
    member_of_b = member(django_user_model, "b-team", conference_b, is_programme=True)
    client.force_login(member_of_b)
    url = reverse("admin:speakers_speaker_change", args=[speaker.pk])

    form = client.get(url).context["adminform"].form

    assert "user" not in form.fields


def test_autocompletes_offer_nothing_of_another_conference(
    client, django_user_model, conference_a, conference_b
):
    make_speaker(conference_a, name="Ada of A", slug="ada-a")
    make_speaker(conference_b, name="Ada of B", slug="ada-b")
    client.force_login(member(django_user_model, "b-team", conference_b, is_programme=True))

    answer = client.get(
        reverse("admin:autocomplete"),
        {
            "app_label": "schedule",
            "model_name": "sessionspeaker",
            "field_name": "speaker",
            "term": "Ada",
        },
    )

    assert [result["text"] for result in answer.json()["results"]] == ["Ada of B"]


def test_the_conference_page_offers_only_the_tools_the_role_opens(
    client, django_user_model, conference_b
):
    client.force_login(member(django_user_model, "venue", conference_b, is_venue=True))

    page = client.get(reverse("admin:conference_conference_change", args=[conference_b.pk]))

    assert page.status_code == 200
    assert (page.context["may_plan"], page.context["may_release"], page.context["may_import"]) == (
        False,
        False,
        False,
    )
    assert (
        reverse("admin:schedule_session_planner", args=[conference_b.pk])
        not in page.content.decode()
    )

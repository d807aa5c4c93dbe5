import datetime
import io

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from conference.models import ApiToken
from conference.models.api import digest_of_key
from sessions.models import SavedSession
from tests.api_fixtures import *  # noqa: F403 -- pytest fixtures, the autouse one included
from tests.builders import make_conference, make_session, make_team

pytestmark = pytest.mark.django_db


@pytest.fixture
def pycon():
    return make_conference(slug="pycon")


@pytest.fixture
def djangocon():
    return make_conference(slug="djangocon")


def token_client(user, scope="write", conferences=(), expires_at=None) -> APIClient:
    token = ApiToken.objects.create(user=user, scope=scope, expires_at=expires_at)
    token.conferences.set(conferences)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return client


def rooms_url(conference):
    return reverse("api:room-list", kwargs={"conference_slug": conference.slug})


def room_url(conference, slug):
    return reverse("api:room-detail", kwargs={"conference_slug": conference.slug, "slug": slug})


def test_write_token_writes(organizer, pycon):
    client = token_client(organizer, scope="write")
    response = client.post(rooms_url(pycon), {"slug": "hall", "name": "Hall"}, format="json")
    assert response.status_code == 201
    assert list(pycon.rooms.values_list("slug", flat=True)) == ["hall"]


def test_read_only_token_reads(organizer, pycon):
    response = token_client(organizer, scope="read").get(rooms_url(pycon))
    assert response.status_code == 200


@pytest.mark.parametrize("method", ["post", "put", "patch", "delete"])
def test_read_only_token_cannot_write(organizer, pycon, method):
    pycon.rooms.create(slug="hall", name="Hall")
    client = token_client(organizer, scope="read")
    url = rooms_url(pycon) if method == "post" else room_url(pycon, "hall")
    response = getattr(client, method)(url, {"slug": "hall", "name": "Renamed"}, format="json")
    assert response.status_code == 403
    assert response.json() == {"detail": "This token is read only: it cannot change anything."}
    assert list(pycon.rooms.values_list("name", flat=True)) == ["Hall"]


def test_read_only_token_cannot_save_a_session_to_my_schedule(attendee, pycon):
    session = make_session(pycon)
    response = token_client(attendee, scope="read").post(
        reverse("api:my-schedule"),
        {"conference": "pycon", "session": session.slug},
        format="json",
    )
    assert response.status_code == 403
    assert SavedSession.objects.count() == 0


def test_conference_limited_token_reaches_its_conference(organizer, pycon):
    response = token_client(organizer, conferences=[pycon]).get(rooms_url(pycon))
    assert response.status_code == 200


def test_conference_limited_token_finds_no_other_conference(organizer, pycon, djangocon):
    client = token_client(organizer, conferences=[pycon])
    assert client.get(rooms_url(djangocon)).status_code == 404
    response = client.post(rooms_url(djangocon), {"slug": "hall", "name": "Hall"}, format="json")
    assert response.status_code == 404
    detail = reverse("api:conference-detail", kwargs={"slug": "djangocon"})
    assert client.get(detail).status_code == 404
    listed = client.get(reverse("api:conference-list")).json()["results"]
    assert [conference["slug"] for conference in listed] == ["pycon"]
    assert djangocon.rooms.count() == 0


def test_conference_limited_token_reads_no_other_schedule_of_mine(attendee, pycon, djangocon):
    client = token_client(attendee, conferences=[pycon])
    response = client.get(reverse("api:my-schedule"), {"conference": "djangocon"})
    assert response.status_code == 404


def test_expired_token_is_a_401(organizer, pycon):
    expired = timezone.now() - datetime.timedelta(seconds=1)
    response = token_client(organizer, expires_at=expired).get(rooms_url(pycon))
    assert response.status_code == 401
    assert response.json() == {"detail": "Token has expired."}


def test_token_not_yet_expired_works(organizer, pycon):
    later = timezone.now() + datetime.timedelta(days=1)
    assert token_client(organizer, expires_at=later).get(rooms_url(pycon)).status_code == 200


def test_revoked_token_is_a_401(organizer, pycon):
    token = ApiToken.objects.create(user=organizer, scope="write")
    token.revoke()
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    response = client.get(rooms_url(pycon))
    assert response.status_code == 401
    assert response.json() == {"detail": "Token has been revoked."}


def test_only_a_digest_of_the_key_is_stored(organizer):
    token = ApiToken.objects.create(user=organizer)
    stored = ApiToken.objects.values().get()
    assert len(token.key) >= 43  # 32 random bytes, URL-safe base64
    assert token.key not in {str(value) for value in stored.values()}
    assert (stored["prefix"], stored["key_digest"]) == (token.key[:8], digest_of_key(token.key))
    assert ApiToken.objects.get().key is None


def test_token_endpoint_issues_a_limited_token(anonymous, organizer, pycon, djangocon):
    response = anonymous.post(
        reverse("api:auth-token"),
        {
            "username": "organizer",
            "password": "organizer-password",
            "name": "Screens",
            "conferences": ["pycon"],
            "expires_in_days": 30,
        },
        format="json",
    )
    assert response.status_code == 200
    token = ApiToken.objects.get()
    body = response.json()
    assert body.pop("expires_at") == token.expires_at.isoformat().replace("+00:00", "Z")
    assert token.key_digest == digest_of_key(body["token"])
    assert body == {
        "token": body["token"],
        "prefix": token.prefix,
        "name": "Screens",
        "scope": "read",
        "conferences": ["pycon"],
    }
    assert list(token.conferences.all()) == [pycon]
    assert (
        datetime.timedelta(days=29)
        < token.expires_at - timezone.now()
        <= datetime.timedelta(days=30)
    )


def test_token_endpoint_refuses_an_unknown_conference(anonymous, organizer, pycon):
    response = anonymous.post(
        reverse("api:auth-token"),
        {"username": "organizer", "password": "organizer-password", "conferences": ["nope"]},
        format="json",
    )
    assert response.status_code == 400
    assert response.json() == {"conferences": ["No conference “nope”."]}
    assert ApiToken.objects.count() == 0


def test_a_new_password_ends_limited_tokens_too(organizer):
    ApiToken.objects.create(user=organizer)
    organizer.set_password("another-password")
    organizer.save()
    assert ApiToken.objects.count() == 0


def test_tokens_with_scopes_are_managed_in_the_admin(admin_client, organizer, pycon):
    response = admin_client.post(
        reverse("admin:conference_apitoken_add"),
        {"user": organizer.pk, "name": "CI", "scope": "read", "conferences": [pycon.pk]},
    )
    assert response.status_code == 200
    token = ApiToken.objects.get()
    assert (token.user, token.scope, list(token.conferences.all())) == (organizer, "read", [pycon])
    assert token.key_digest == digest_of_key(response.context["key"])


@pytest.mark.parametrize("n", [1, 12])
def test_token_list_query_count_does_not_grow(
    admin_client, django_user_model, django_assert_max_num_queries, n
):
    for number in range(n):
        user = django_user_model.objects.create_user(f"user{number}")
        ApiToken.objects.create(user=user, name=f"Token {number}")
    with django_assert_max_num_queries(10):
        response = admin_client.get(reverse("admin:conference_apitoken_changelist"))
    assert len(response.context["cl"].result_list) == n


def test_token_endpoint_names_a_bad_slug_in_one_list_of_errors(anonymous, organizer):
    response = anonymous.post(
        reverse("api:auth-token"),
        {"username": "organizer", "password": "organizer-password", "conferences": ["ok", None]},
        format="json",
    )
    assert response.status_code == 400
    assert response.json() == {"conferences": ["Item 1: This field may not be null."]}


# Regression: a staff member with only "view API token" read the organizer's key on its admin
# page and wrote a session of an unpublished conference with it; one with "add API token" made a
# write token for the superuser. A token is its owner's alone, shown once, and never does more
# than its owner may.


@pytest.fixture
def unpublished_a():
    return make_conference(name="Conference A", slug="a", is_published=False)


@pytest.fixture
def unpublished_b():
    return make_conference(name="Conference B", slug="b", is_published=False)


@pytest.fixture
def superuser(django_user_model):
    return django_user_model.objects.create_superuser("root", "root@example.org", "pw")


def team_member(django_user_model, name, conference, **roles):
    user = django_user_model.objects.create_user(name, f"{name}@example.org", "pw", is_staff=True)
    make_team(user, conferences=[conference], **roles)
    return user


def test_admin_answers_404_for_another_persons_token(
    client, django_user_model, superuser, unpublished_a
):
    theirs = ApiToken.objects.create(user=superuser, name="Theirs", scope="write")
    client.force_login(team_member(django_user_model, "viewer", unpublished_a, is_reviewer=True))

    page = client.get(reverse("admin:conference_apitoken_change", args=[theirs.pk]))
    listed = client.get(reverse("admin:conference_apitoken_changelist"))

    assert page.status_code == 404
    assert list(listed.context["cl"].result_list) == []
    assert theirs.key not in page.content.decode() + listed.content.decode()


def test_admin_makes_a_members_token_theirs_whoever_it_names(
    client, django_user_model, superuser, unpublished_a
):
    user = team_member(django_user_model, "adder", unpublished_a, is_reviewer=True)
    client.force_login(user)

    response = client.post(
        reverse("admin:conference_apitoken_add"),
        {"user": superuser.pk, "name": "Root's", "scope": "write"},
    )

    assert response.status_code == 200  # the page showing the new key
    assert list(ApiToken.objects.values_list("user__username", flat=True)) == ["adder"]


def test_a_reviewers_write_token_cannot_write(django_user_model, unpublished_a):
    reviewer = team_member(django_user_model, "reviewer", unpublished_a, is_reviewer=True)
    client = token_client(reviewer, scope="write")

    response = client.post(
        reverse("api:session-list", kwargs={"conference_slug": "a"}),
        {"title": "Injected", "slug": "injected"},
        format="json",
    )

    assert response.status_code == 403
    assert unpublished_a.sessions.count() == 0


def test_a_programme_members_token_cannot_read_another_conferences_drafts(
    django_user_model, unpublished_a, unpublished_b
):
    draft = make_session(unpublished_a, status="draft")
    member_of_b = team_member(django_user_model, "b-programme", unpublished_b, is_programme=True)
    client = token_client(member_of_b, scope="write")

    listed = client.get(reverse("api:session-list", kwargs={"conference_slug": "a"}))
    detail = client.get(
        reverse("api:session-detail", kwargs={"conference_slug": "a", "slug": draft.slug})
    )
    written = client.patch(
        reverse("api:session-detail", kwargs={"conference_slug": "a", "slug": draft.slug}),
        {"title": "Changed"},
        format="json",
    )

    assert (listed.status_code, detail.status_code, written.status_code) == (404, 404, 404)


def test_admin_never_shows_a_key_after_its_creation(client, organizer):
    token = ApiToken.objects.create(user=organizer, name="Mine")
    client.force_login(organizer)

    page = client.get(reverse("admin:conference_apitoken_change", args=[token.pk]))
    listed = client.get(reverse("admin:conference_apitoken_changelist"))

    assert (page.status_code, listed.status_code) == (200, 200)
    assert token.key not in page.content.decode()
    assert token.key not in listed.content.decode()


def test_admin_shows_the_new_key_once_then_only_its_prefix(client, organizer):
    client.force_login(organizer)

    made = client.post(reverse("admin:conference_apitoken_add"), {"name": "CI", "scope": "read"})
    key = made.context["key"]
    token = ApiToken.objects.get()
    page = client.get(reverse("admin:conference_apitoken_change", args=[token.pk]))

    assert key in made.content.decode()
    assert key not in page.content.decode()
    assert list(page.context["adminform"].readonly_fields) == [
        "prefix",
        "created_at",
        "revoked_at",
    ]
    assert token.prefix in page.content.decode()


def test_admin_revoke_button_revokes_ones_own_token(client, organizer, pycon):
    token = ApiToken.objects.create(user=organizer, scope="write")
    client.force_login(organizer)

    response = client.post(reverse("admin:conference_apitoken_revoke", args=[token.pk]))
    token.refresh_from_db()
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")

    assert response.status_code == 302
    assert token.revoked_at is not None
    assert api.get(rooms_url(pycon)).status_code == 401


def test_admin_revoke_button_answers_404_for_another_persons_token(
    client, django_user_model, superuser, unpublished_a
):
    theirs = ApiToken.objects.create(user=superuser, scope="write")
    client.force_login(team_member(django_user_model, "other", unpublished_a, is_programme=True))

    response = client.post(reverse("admin:conference_apitoken_revoke", args=[theirs.pk]))

    theirs.refresh_from_db()
    assert (response.status_code, theirs.revoked_at) == (404, None)


def test_admin_revoke_action_revokes_only_ones_own_tokens(
    client, django_user_model, organizer, superuser
):
    mine = ApiToken.objects.create(user=organizer)
    theirs = ApiToken.objects.create(user=superuser)
    client.force_login(organizer)

    client.post(
        reverse("admin:conference_apitoken_changelist"),
        {"action": "revoke", "_selected_action": [mine.pk, theirs.pk]},
    )

    revoked = ApiToken.objects.filter(revoked_at__isnull=False)
    assert list(revoked.values_list("pk", flat=True)) == [mine.pk]


def test_create_api_token_prints_a_key_that_works_once(organizer, pycon, djangocon):
    out, err = io.StringIO(), io.StringIO()

    call_command(
        "create_api_token",
        "organizer",
        "--write",
        "--conference",
        "pycon",
        "--expires",
        "7",
        stdout=out,
        stderr=err,
    )

    key = out.getvalue().strip()
    token = ApiToken.objects.get()
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    assert (token.user, token.scope, list(token.conferences.all())) == (organizer, "write", [pycon])
    assert token.key_digest == digest_of_key(key)
    assert datetime.timedelta(days=6) < token.expires_at - timezone.now()
    assert key not in err.getvalue()
    hall = {"slug": "hall", "name": "Hall"}
    assert client.post(rooms_url(pycon), hall, format="json").status_code == 201
    assert client.get(rooms_url(djangocon)).status_code == 404


def test_create_api_token_makes_read_only_tokens_unless_told(attendee):
    call_command("create_api_token", "ada", stdout=io.StringIO(), stderr=io.StringIO())
    assert ApiToken.objects.get().scope == "read"


def test_create_api_token_refuses_an_unknown_conference(organizer):
    with pytest.raises(CommandError, match="No such conference: nope"):
        call_command("create_api_token", "organizer", "--conference", "nope")
    assert ApiToken.objects.count() == 0

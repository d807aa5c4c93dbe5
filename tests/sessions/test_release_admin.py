import datetime
import re

import pytest
from django.urls import reverse

from conference.models import AccountEmail
from sessions.models import Release
from sessions.releases import release_schedule
from tests.builders import make_conference, make_room, make_session, make_speaker, make_team, paris

pytestmark = pytest.mark.django_db


def release_url(conference):
    return reverse("admin:schedule_session_release", args=[conference.pk])


@pytest.fixture
def conference():
    """A conference named "PyCon Test", as the admin's messages read."""
    return make_conference(name="PyCon Test")


@pytest.fixture
def central(conference):
    return make_room(conference, name="Central Room", position=1)


@pytest.fixture
def junior(conference):
    return make_room(conference, name="Junior Stage", position=2)


def review(client, conference):
    response = client.get(release_url(conference))
    assert response.status_code == 200
    return response


def confirm(client, conference, review_response, **data):
    form = review_response.context["form"]
    posted = {
        "version": form["version"].value(),
        "comment": "",
        "shown": form["shown"].value(),
        **data,
    }
    return client.post(release_url(conference), posted)


def test_the_review_lists_every_change_against_the_previous_release(
    admin_client, conference, central, junior
):
    moved = make_session(conference, title="Graphs", room=central, starts_at=paris(8, 10, 35))
    make_session(conference, title="Trees", room=central, starts_at=paris(8, 9))
    release_schedule(conference, version="v1", comment="", user=None)
    moved.room, moved.starts_at, moved.ends_at = junior, paris(8, 14), paris(8, 14, 30)
    moved.save()
    make_session(conference, title="Heaps", room=junior, starts_at=paris(7, 9))

    response = review(admin_client, conference)

    assert [(change.kind, words) for change, words in response.context["changes"]] == [
        ("new", "new: Tue 09:00–09:30 CEST, Junior Stage"),
        ("moved", "moved from Wed 10:35 Central Room to Wed 14:00 Junior Stage (CEST)"),
    ]
    html = response.content.decode()
    assert "Compared with <strong>v1</strong>" in html
    # When, on the conference's clocks, as the admin shows its times.
    assert re.search(r"released\s+\w+ \d+ \w+ \d{4} \d\d:\d\d CES?T", html)
    assert '<strong class="release-summary">1 new, 1 moved</strong>' in html
    assert response.context["form"]["version"].value() == "v2"
    assert Release.objects.count() == 1


def test_confirming_stores_the_release_and_opens_it(admin_client, admin_user, conference):
    make_session(conference, title="Graphs")
    response = confirm(admin_client, conference, review(admin_client, conference), comment="Hello.")

    release = Release.objects.get()
    assert response.status_code == 302
    assert response["Location"] == reverse("admin:schedule_release_change", args=[release.pk])
    assert (release.version, release.comment, release.released_by) == ("v1", "Hello.", admin_user)
    page = admin_client.get(response["Location"]).content.decode()
    assert "Released v1 of PyCon Test: 1 new." in page
    assert "<li><strong>Graphs</strong>: new: Wed 10:00–10:30 CEST, the whole venue</li>" in page


def test_a_duplicate_version_name_is_a_form_error(admin_client, conference):
    make_session(conference, title="Graphs")
    release_schedule(conference, version="v1", comment="", user=None)
    make_session(conference, title="Trees", starts_at=paris(8, 11))

    response = confirm(admin_client, conference, review(admin_client, conference), version="v1")

    assert response.status_code == 200
    assert response.context["form"].errors == {
        "version": ["There is already a release “v1”: choose another name."]
    }
    assert Release.objects.count() == 1


def test_a_schedule_changed_during_the_review_is_shown_again_not_released(admin_client, conference):
    make_session(conference, title="Graphs")
    reviewed = review(admin_client, conference)
    make_session(conference, title="Trees", starts_at=paris(8, 11))

    response = confirm(admin_client, conference, reviewed)

    assert response.status_code == 200
    assert not Release.objects.exists()
    assert "changed while you were reviewing" in response.content.decode()
    assert [change.title for change, _ in response.context["changes"]] == ["Graphs", "Trees"]
    # The page now carries what it shows: confirming again releases it.
    assert confirm(admin_client, conference, response).status_code == 302
    assert [change.title for change in Release.objects.get().changes()] == ["Graphs", "Trees"]


def test_a_release_without_changes_needs_its_own_confirmation(admin_client, conference):
    make_session(conference, title="Graphs")
    release_schedule(conference, version="v1", comment="", user=None)

    reviewed = review(admin_client, conference)
    assert "Nothing changed in the public schedule since v1." in reviewed.content.decode()
    refused = confirm(admin_client, conference, reviewed)

    assert refused.context["form"].errors == {
        "release_unchanged": [
            "Nothing changed since the last release: tick this box to release anyway."
        ]
    }
    assert Release.objects.count() == 1
    accepted = confirm(admin_client, conference, reviewed, release_unchanged="on")
    assert accepted.status_code == 302
    assert Release.objects.first().version == "v2"


def test_an_unpublished_conference_is_refused_with_a_reason(admin_client):
    conference = make_conference(is_published=False)
    make_session(conference, title="Graphs")
    reviewed = review(admin_client, conference)
    assert "This conference is not published" in reviewed.content.decode()

    response = confirm(admin_client, conference, reviewed, release_unchanged="on")

    assert response.context["form"].non_field_errors() == [
        "This conference is not published: the public sees none of its schedule yet. "
        "Publish it first, then release."
    ]
    assert not Release.objects.exists()


@pytest.mark.parametrize(
    ("roles", "status"), [({}, 404), ({"is_reviewer": True}, 403), ({"is_venue": True}, 403)]
)
def test_those_who_may_not_release_are_refused(
    client, django_user_model, conference, roles, status
):
    staff = django_user_model.objects.create_user("helper", is_staff=True)
    if roles:
        make_team(staff, conferences=[conference], **roles)
    client.force_login(staff)

    assert client.get(release_url(conference)).status_code == status
    assert client.post(release_url(conference), {"version": "v1"}).status_code == status
    assert not Release.objects.exists()


def test_the_programme_team_may_release(client, django_user_model, conference):
    staff = django_user_model.objects.create_user("organizer", is_staff=True)
    make_team(staff, conferences=[conference], is_programme=True)
    make_session(conference, title="Graphs")
    client.force_login(staff)

    response = confirm(client, conference, review(client, conference))

    assert response.status_code == 302
    assert Release.objects.get().released_by == staff
    assert client.get(response["Location"]).status_code == 200
    assert client.get(reverse("admin:schedule_release_changelist")).status_code == 200


def test_anonymous_visitors_are_sent_to_the_admin_login(client, conference):
    response = client.get(release_url(conference))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("admin:login"))


def test_release_is_linked_from_the_session_list_the_conference_and_the_releases(
    admin_client, conference
):
    link = f'href="{release_url(conference)}"'
    for page in (
        reverse("admin:schedule_session_changelist"),
        reverse("admin:conference_conference_change", args=[conference.pk]),
        reverse("admin:schedule_release_changelist"),
    ):
        assert link in admin_client.get(page).content.decode(), page


def test_past_releases_are_read_only(admin_client, conference):
    make_session(conference, title="Graphs")
    release = release_schedule(conference, version="v1", comment="", user=None)

    assert admin_client.get(reverse("admin:schedule_release_add")).status_code == 403
    change_url = reverse("admin:schedule_release_change", args=[release.pk])
    admin_client.post(change_url, {"version": "v9", "comment": "Edited"})
    delete_url = reverse("admin:schedule_release_delete", args=[release.pk])
    assert admin_client.post(delete_url, {"post": "yes"}).status_code == 403
    release.refresh_from_db()
    assert (release.version, release.comment) == ("v1", "")


@pytest.mark.parametrize("count", [1, 8])
def test_release_list_query_count_does_not_grow(
    admin_client, django_assert_max_num_queries, conference, count
):
    speaker = make_speaker(conference)
    for number in range(count):
        make_session(conference, starts_at=paris(8, 9 + number), speakers=[speaker])
        release_schedule(conference, version=f"v{number + 1}", comment="", user=None)

    with django_assert_max_num_queries(12):
        response = admin_client.get(reverse("admin:schedule_release_changelist"))

    assert response.context["cl"].result_count == count


@pytest.mark.parametrize("count", [1, 12])
def test_release_review_query_count_does_not_grow(
    admin_client, django_assert_max_num_queries, conference, count
):
    for number in range(count):
        # A speaker each, half of them reachable: the list of who is mailed is one query.
        speaker = make_speaker(
            conference, name=f"Speaker {number}", email="s@x.example" if number % 2 else ""
        )
        starts_at = paris(8, 8) + datetime.timedelta(minutes=30 * number)
        make_session(conference, starts_at=starts_at, speakers=[speaker])

    with django_assert_max_num_queries(10):
        response = review(admin_client, conference)

    assert len(response.context["changes"]) == count
    reach = response.context["reach"]
    assert (len(reach.mailed), len(reach.unreachable)) == (count // 2, count - count // 2)


def test_the_review_of_an_empty_schedule_says_so(admin_client, conference):
    html = review(admin_client, conference).content.decode()

    assert "The public schedule is empty: publish sessions before releasing it." in html


def test_the_review_names_the_speakers_mailed_and_those_who_cannot_be_reached(
    admin_client, django_user_model, conference, central
):
    account = django_user_model.objects.create_user("bo", "bo@example.org", "x")
    AccountEmail.objects.create(user=account, verified_address="bo@example.org")
    speakers = [
        make_speaker(conference, name="Ann Lee", email="ann@speakers.example"),
        make_speaker(conference, name="Bo Chen", user=account),
        make_speaker(conference, name="Cy Diaz"),  # no address, no account
        make_speaker(conference, name="Di Eve", email="di@x.example", schedule_change_mails=False),
    ]
    make_session(conference, room=central, starts_at=paris(8, 10), speakers=speakers)

    response = review(admin_client, conference)

    reach = response.context["reach"]
    assert [(s.name, s.reach_address) for s in reach.mailed] == [
        ("Ann Lee", "ann@speakers.example"),
        ("Bo Chen", "bo@example.org"),
    ]
    assert [s.name for s in reach.unreachable] == ["Cy Diaz"]
    assert [s.name for s in reach.unsubscribed] == ["Di Eve"]
    html = response.content.decode()
    unreachable = re.search(r'<ul class="release-unreachable">(.*?)</ul>', html, re.S).group(1)
    assert "Cy Diaz" in unreachable
    assert "Ann Lee (ann@speakers.example)" in html

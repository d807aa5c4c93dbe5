import datetime

import pytest
from django.urls import reverse
from lxml import etree

from conference.models import Conference
from sessions.models import Session
from sessions.releases import release_schedule
from tests.builders import make_conference, make_room, make_session, make_speaker, paris

pytestmark = pytest.mark.django_db

ATOM = "{http://www.w3.org/2005/Atom}"


def changes_url(conference):
    return reverse("sessions:changes", kwargs={"conference_slug": conference.slug})


def feed_url(conference):
    return reverse("sessions:changes-feed", kwargs={"conference_slug": conference.slug})


def release(conference, version, comment=""):
    return release_schedule(conference, version=version, comment=comment, user=None)


@pytest.fixture
def conference():
    """A conference named "PyCon Test" ("pycon-test"), as the feed's title and author read."""
    return make_conference(name="PyCon Test", slug="pycon-test")


@pytest.fixture
def central(conference):
    return make_room(conference, name="Central Room", position=1)


@pytest.fixture
def junior(conference):
    return make_room(conference, name="Junior Stage", position=2)


@pytest.fixture
def two_releases(conference, central, junior):
    """v1 announces Graphs and Trees; v2 moves Graphs and cancels Trees."""
    graphs = make_session(conference, title="Graphs", room=central, starts_at=paris(8, 10, 35))
    trees = make_session(conference, title="Trees", room=central, starts_at=paris(8, 9))
    first = release(conference, "v1", "First schedule.")
    graphs.room, graphs.starts_at, graphs.ends_at = junior, paris(8, 14), paris(8, 14, 30)
    graphs.save()
    Session.objects.filter(pk=trees.pk).cancel()
    second = release(conference, "v2", "Graphs moves after lunch.")
    return first, second


def session_link(conference, slug):
    url = reverse(
        "sessions:session-detail", kwargs={"conference_slug": conference.slug, "slug": slug}
    )
    return f'<a href="{url}">'


def test_change_log_lists_releases_newest_first_with_comments_and_changes(
    client, conference, two_releases
):
    first, second = two_releases

    response = client.get(changes_url(conference))

    html = response.content.decode()
    assert [entry.version for entry, _ in response.context["change_log"]] == ["v2", "v1"]
    assert html.index(f'id="{second.anchor}"') < html.index(f'id="{first.anchor}"')
    assert '<p class="release-comment">Graphs moves after lunch.</p>' in html
    assert (
        f"{session_link(conference, 'graphs')}Graphs</a>: moved from Wed 10:35 Central Room "
        "to Wed 14:00 Junior Stage (CEST)</li>"
    ) in html
    assert (
        f"{session_link(conference, 'trees')}Trees</a>: cancelled (was Wed 09:00–09:30 CEST, "
        "Central Room)</li>"
    ) in html
    assert f"{session_link(conference, 'graphs')}Graphs</a>: new: Wed 10:35–11:05 CEST" in html


def test_change_log_shows_times_in_the_visitors_zone(client, conference, two_releases):
    html = client.get(changes_url(conference), {"tz": "America/New_York"}).content.decode()

    assert "Times in America/New_York." in html
    assert "moved from Wed 04:35 Central Room to Wed 08:00 Junior Stage (EDT)" in html


def test_a_session_no_longer_public_is_named_without_a_link(client, conference, central):
    talk = make_session(conference, title="Graphs", room=central)
    release(conference, "v1")
    Session.objects.filter(pk=talk.pk).unpublish()
    release(conference, "v2")

    html = client.get(changes_url(conference)).content.decode()

    assert '<li class="release-change release-change-removed">Graphs: removed' in html
    assert session_link(conference, "graphs") not in html


def test_change_log_before_any_session_is_public_says_so(client, conference):
    make_session(conference, status=Session.Status.DRAFT)
    html = client.get(changes_url(conference)).content.decode()

    assert "No session is on the public schedule yet." in html
    assert "The schedule is public" not in html


def test_change_log_of_a_public_schedule_never_released_says_it_is_public(client, conference):
    make_session(conference)
    html = client.get(changes_url(conference)).content.decode()

    assert (
        "The schedule is public and always current, but the organizers have not announced" in html
    )
    assert "No session is on the public schedule yet." not in html


def test_change_log_and_home_point_to_the_feed(client, conference):
    alternate = (
        '<link rel="alternate" type="application/atom+xml" title="PyCon Test: schedule changes" '
        f'href="{feed_url(conference)}">'
    )
    for url in (changes_url(conference), conference.get_absolute_url()):
        html = client.get(url).content.decode()
        assert alternate in html, url
        assert f'href="{feed_url(conference)}"' in html.split("<main", 1)[1], url
    home = client.get(conference.get_absolute_url()).content.decode()
    assert f'href="{changes_url(conference)}"' in home


def test_a_new_release_shows_at_once_on_the_cached_change_log(client, conference, central):
    make_session(conference, title="Graphs", room=central)
    release(conference, "v1")
    assert ">v1 <" in client.get(changes_url(conference)).content.decode()
    make_session(conference, title="Trees", room=central, starts_at=paris(8, 11))
    release(conference, "v2")

    html = client.get(changes_url(conference)).content.decode()

    assert ">v2 <" in html


def test_change_log_of_an_unpublished_conference_is_not_found(client):
    conference = make_conference(is_published=False)
    assert client.get(changes_url(conference)).status_code == 404
    assert client.get(feed_url(conference)).status_code == 404


@pytest.mark.parametrize("count", [1, 6])
def test_change_log_query_count_does_not_grow(
    client, django_assert_max_num_queries, conference, central, count
):
    speaker = make_speaker(conference)
    for number in range(count):
        make_session(
            conference,
            room=central,
            starts_at=paris(8, 8) + datetime.timedelta(minutes=30 * number),
            speakers=[speaker],
        )
        release(conference, f"v{number + 1}")

    with django_assert_max_num_queries(5):
        response = client.get(changes_url(conference))

    assert len(response.context["change_log"]) == count


def parsed_feed(client, conference, **query):
    response = client.get(feed_url(conference), query)
    assert response.status_code == 200
    assert response["Content-Type"] == "application/atom+xml; charset=utf-8"
    return etree.fromstring(response.content)


def test_feed_is_atom_with_one_entry_per_release_newest_first(client, conference, two_releases):
    _, second = two_releases

    feed = parsed_feed(client, conference)

    site = "https://schedule.example.org"
    assert feed.tag == f"{ATOM}feed"
    assert feed.findtext(f"{ATOM}title") == "PyCon Test: schedule changes"
    assert feed.find(f"{ATOM}link[@rel='alternate']").get("href") == site + changes_url(conference)
    assert feed.find(f"{ATOM}link[@rel='self']").get("href") == site + feed_url(conference)
    assert feed.findtext(f"{ATOM}id")
    assert feed.findtext(f"{ATOM}updated") == second.released_at.isoformat()
    entries = feed.findall(f"{ATOM}entry")
    assert [entry.findtext(f"{ATOM}title") for entry in entries] == [
        "v2: 1 moved, 1 cancelled",
        "v1: 2 new",
    ]
    newest = entries[0]
    assert newest.findtext(f"{ATOM}id") == site + second.get_absolute_url()
    assert newest.find(f"{ATOM}link").get("href") == site + second.get_absolute_url()
    assert newest.findtext(f"{ATOM}updated") == second.released_at.isoformat()
    assert newest.findtext(f"{ATOM}published") == second.released_at.isoformat()
    assert newest.findtext(f"{ATOM}author/{ATOM}name") == "PyCon Test"
    summary = newest.find(f"{ATOM}summary")
    assert summary.get("type") == "html"
    assert '<p class="release-comment">Graphs moves after lunch.</p>' in summary.text
    graphs_url = site + reverse(
        "sessions:session-detail", kwargs={"conference_slug": conference.slug, "slug": "graphs"}
    )
    assert (
        f'<a href="{graphs_url}">Graphs</a>: moved from Wed 10:35 Central Room to Wed 14:00 '
        "Junior Stage (CEST)"
    ) in summary.text


def test_feed_speaks_the_chosen_zone(client, conference, two_releases):
    feed = parsed_feed(client, conference, tz="Asia/Tokyo")

    summary = feed.find(f"{ATOM}entry/{ATOM}summary").text
    assert "moved from Wed 17:35 Central Room to Wed 21:00 Junior Stage (JST)" in summary


def test_feed_of_a_conference_never_released_is_empty_but_valid(client, conference):
    feed = parsed_feed(client, conference)

    assert feed.findall(f"{ATOM}entry") == []
    assert feed.findtext(f"{ATOM}title") == "PyCon Test: schedule changes"


def test_feed_of_a_conference_never_released_names_its_author_and_last_change(client, conference):
    last_change = datetime.datetime(2026, 3, 1, 9, 30, tzinfo=datetime.UTC)
    Conference.objects.filter(pk=conference.pk).update(changed_at=last_change)

    feeds = [parsed_feed(client, conference), parsed_feed(client, conference, tz="Asia/Tokyo")]

    for feed in feeds:
        assert feed.findtext(f"{ATOM}author/{ATOM}name") == "PyCon Test"
        assert feed.findtext(f"{ATOM}updated") == "2026-03-01T09:30:00+00:00"


def test_feed_is_updated_by_its_newest_release_and_names_its_author(
    client, conference, two_releases
):
    _, second = two_releases
    Conference.objects.filter(pk=conference.pk).update(
        changed_at=second.released_at - datetime.timedelta(days=1)
    )

    feed = parsed_feed(client, conference)

    assert feed.findtext(f"{ATOM}author/{ATOM}name") == "PyCon Test"
    assert feed.findtext(f"{ATOM}updated") == second.released_at.isoformat()


def test_feed_answers_a_conditional_request_with_304(client, conference, two_releases):
    first = client.get(feed_url(conference))

    again = client.get(feed_url(conference), headers={"If-None-Match": first["ETag"]})

    assert again.status_code == 304


@pytest.mark.parametrize("url", [changes_url, feed_url])
def test_a_repeated_visit_of_the_change_log_or_feed_is_served_from_the_cache(
    client, conference, two_releases, django_assert_num_queries, url
):
    first = client.get(url(conference))

    with django_assert_num_queries(1):  # the conference row, whose changed_at names the version
        again = client.get(url(conference))

    assert again.content == first.content

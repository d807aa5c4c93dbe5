import pytest
from django.urls import reverse

from sessions.models import Session
from speakers.models import SpeakerLink
from speakers.views.public import SpeakerListView
from tests.builders import make_conference, make_session, make_speaker, paris

pytestmark = pytest.mark.django_db


def speaker_list_url(conference):
    return reverse("speakers:speaker-list", kwargs={"conference_slug": conference.slug})


def names(response):
    return [speaker.name for speaker in response.context["speakers"]]


def test_speaker_list_is_alphabetical_ignoring_case(client, conference):
    for number, name in enumerate(["Zoe", "hyunkyun moon", "Ada"]):
        make_session(
            conference,
            starts_at=paris(8, 9 + number),
            speakers=[make_speaker(conference, name=name)],
        )
    assert names(client.get(speaker_list_url(conference))) == ["Ada", "hyunkyun moon", "Zoe"]


def test_speaker_list_leaves_out_speakers_of_drafts_only(client, conference):
    make_session(conference, speakers=[make_speaker(conference, name="Public")])
    make_session(
        conference,
        status=Session.Status.DRAFT,
        starts_at=paris(8, 14),
        speakers=[make_speaker(conference, name="Hidden")],
    )
    assert names(client.get(speaker_list_url(conference))) == ["Public"]


@pytest.mark.parametrize(
    ("query", "expected"), [("ada", ["Ada Lovelace"]), ("navy", ["Grace Hopper"])]
)
def test_speaker_list_search_matches_name_and_company(client, conference, query, expected):
    make_session(
        conference, speakers=[make_speaker(conference, name="Ada Lovelace", company="Engines")]
    )
    make_session(
        conference,
        starts_at=paris(8, 11),
        speakers=[make_speaker(conference, name="Grace Hopper", company="US Navy")],
    )
    assert names(client.get(speaker_list_url(conference), {"q": query})) == expected


def test_speaker_list_search_without_match_says_so(client, conference):
    html = client.get(speaker_list_url(conference), {"q": "<b>nobody</b>"}).content.decode()
    assert "No speaker matches “&lt;b&gt;nobody&lt;/b&gt;”." in html


def test_speaker_list_shows_each_speakers_sessions(client, conference):
    speaker = make_speaker(conference, name="Ada", role="Engineer", company="Engines")
    make_session(conference, title="First", speakers=[speaker])
    make_session(conference, title="Second", starts_at=paris(8, 14), speakers=[speaker])
    response = client.get(speaker_list_url(conference))
    html = response.content.decode()
    assert [s.title for s in response.context["speakers"][0].visible_sessions] == [
        "First",
        "Second",
    ]
    assert '<p class="speaker-role">Engineer</p>' in html
    assert '<p class="speaker-company">Engines</p>' in html


def test_speaker_page_shows_bio_links_and_sessions(client, conference):
    speaker = make_speaker(conference, name="Ada", bio="Wrote the *first* program.")
    SpeakerLink.objects.create(speaker=speaker, title="Website", url="https://ada.example.org")
    make_session(conference, title="Notes on the Engine", speakers=[speaker])
    html = client.get(speaker.get_absolute_url()).content.decode()
    assert "<h1>Ada</h1>" in html
    assert "<p>Wrote the <em>first</em> program.</p>" in html
    assert '<a href="https://ada.example.org" rel="noopener nofollow">Website</a>' in html
    assert "Notes on the Engine</a>" in html


def test_speaker_page_of_a_speaker_without_public_sessions_is_a_404(client, conference):
    speaker = make_speaker(conference)
    assert client.get(speaker.get_absolute_url()).status_code == 404


def test_speaker_of_another_conference_is_a_404_here(client, conference):
    other = make_speaker(make_conference(), name="Elsewhere")
    make_session(other.conference, speakers=[other])
    url = reverse(
        "speakers:speaker-detail", kwargs={"conference_slug": conference.slug, "slug": other.slug}
    )
    assert client.get(url).status_code == 404


@pytest.mark.parametrize("count", [1, 12])
def test_speaker_list_query_count_does_not_grow(
    client, django_assert_max_num_queries, conference, count
):
    for number in range(count):
        make_session(
            conference,
            starts_at=paris(8, 8, 0) + number * (paris(8, 8, 30) - paris(8, 8, 0)),
            speakers=[make_speaker(conference), make_speaker(conference)],
        )
    with django_assert_max_num_queries(6):
        response = client.get(speaker_list_url(conference))
    assert len(response.context["speakers"]) == 2 * count


@pytest.mark.parametrize("count", [1, 12])
def test_speaker_page_query_count_does_not_grow(
    client, django_assert_max_num_queries, conference, count
):
    speaker = make_speaker(conference)
    for number in range(count):
        make_session(
            conference,
            starts_at=paris(8, 8, 0) + number * (paris(8, 8, 30) - paris(8, 8, 0)),
            speakers=[speaker, make_speaker(conference)],
        )
    SpeakerLink.objects.create(speaker=speaker, title="Blog", url="https://blog.example/")
    # The conference, the speaker's sessions, their speakers (the page's among them), its links.
    with django_assert_max_num_queries(4):
        response = client.get(speaker.get_absolute_url())
    assert len(response.context["speaker"].visible_sessions) == count


def test_a_renamed_speaker_redirects_their_old_address_permanently(client):
    conference = make_conference(slug="pycon")
    speaker = make_speaker(conference, name="Ada", slug="ada")
    make_session(conference, speakers=[speaker])
    speaker.slug = "ada-lovelace"
    speaker.save()
    response = client.get("/pycon/speakers/ada/")
    assert response.status_code == 301
    assert response["Location"] == "/pycon/speakers/ada-lovelace/"


def test_speaker_search_submitted_empty_redirects_to_the_bare_list(client, conference):
    response = client.get(speaker_list_url(conference), {"q": ""})
    assert (response.status_code, response["Location"]) == (302, speaker_list_url(conference))


@pytest.fixture
def five_speakers(conference):
    for number, name in enumerate(["Eve", "Ada", "Dan", "Bob", "Cy"]):
        make_session(
            conference,
            title=f"Talk by {name}",
            starts_at=paris(8, 9 + number),
            speakers=[make_speaker(conference, name=name)],
        )


def test_a_long_speaker_list_comes_in_pages_linked_from_each(
    client, conference, five_speakers, monkeypatch
):
    monkeypatch.setattr(SpeakerListView, "paginate_by", 2)
    first = client.get(speaker_list_url(conference))
    assert names(first) == ["Ada", "Bob"]
    assert "5 speakers, 2 a page" in first.text
    assert '<a href="?page=3">Page 3</a>' in first.text
    last = client.get(speaker_list_url(conference), {"page": "3"})
    assert names(last) == ["Eve"]
    assert "Talk by Eve" in last.text


def test_a_short_speaker_list_has_no_page_links(client, conference, five_speakers):
    response = client.get(speaker_list_url(conference))
    assert names(response) == ["Ada", "Bob", "Cy", "Dan", "Eve"]
    assert "Pages of speakers" not in response.text


def test_search_counts_matches_on_every_page(client, conference, five_speakers, monkeypatch):
    monkeypatch.setattr(SpeakerListView, "paginate_by", 1)
    response = client.get(speaker_list_url(conference), {"q": "da", "page": "2"})
    assert names(response) == ["Dan"]
    assert "2 speakers match" in response.text


def test_a_page_past_the_last_is_a_404(client, conference, five_speakers):
    assert client.get(speaker_list_url(conference), {"page": "7"}).status_code == 404

import datetime
import io

import pytest
from django.core.management import CommandError, call_command
from django.db.models import Count, Exists, OuterRef
from django.urls import reverse

from bench.generate_conference import Command
from bench.generator import generate_conference
from conference.models import Conference
from sessions.models import Attachment, Session, SessionSpeaker
from speakers.models import Speaker, SpeakerLink

pytestmark = pytest.mark.django_db


def schedule_rows(conference):
    return list(
        Session.objects.filter(conference=conference)
        .order_by("starts_at", "room__position", "slug")
        .values_list("title", "slug", "kind", "starts_at", "ends_at", "room__slug", "track__slug")
    )


def run_command(*args) -> str:
    out = io.StringIO()
    call_command(Command(), *args, stdout=out)
    return out.getvalue()


@pytest.mark.parametrize(
    ("sessions", "rooms", "tracks", "speakers"), [(30, 2, 3, 24), (120, 5, 3, 96)]
)
def test_generate_conference_makes_the_sessions_rooms_tracks_and_speakers_asked_for(
    sessions, rooms, tracks, speakers
):
    conference = generate_conference(sessions)
    assert conference.sessions.count() == sessions
    assert conference.rooms.count() == rooms
    assert conference.tracks.count() == tracks
    assert conference.speakers.count() >= speakers


def test_generated_conference_is_published_in_an_iana_zone_from_a_fixed_date():
    conference = generate_conference(30, slug="synthetic")
    assert (conference.slug, conference.is_published, conference.time_zone) == (
        "synthetic",
        True,
        "Europe/Berlin",
    )
    assert conference.starts_on == datetime.date(2027, 5, 10)
    assert set(conference.sessions.values_list("status", flat=True)) == {"published"}


@pytest.mark.parametrize(("sessions", "days"), [(300, 2), (301, 3)])
def test_generated_conference_runs_two_days_up_to_300_sessions_and_three_above(sessions, days):
    conference = generate_conference(sessions)
    session_days = {
        session.local_starts_at.date()
        for session in Session.objects.filter(conference=conference).select_related("conference")
    }
    assert len(conference.days) == days
    assert session_days == set(conference.days)


def test_the_same_seed_gives_the_same_titles_times_and_slugs():
    first = generate_conference(60, seed=7, slug="a")
    second = generate_conference(60, seed=7, slug="b")
    assert schedule_rows(first) == schedule_rows(second)


def test_the_same_seed_gives_the_same_speakers_on_each_session():
    def speakers_by_session(conference):
        return list(
            SessionSpeaker.objects.filter(session__conference=conference)
            .order_by("session__slug", "position")
            .values_list("session__slug", "speaker__slug", "position")
        )

    first = generate_conference(60, seed=7, slug="a")
    second = generate_conference(60, seed=7, slug="b")
    assert speakers_by_session(first) == speakers_by_session(second)


def test_different_seeds_give_different_conferences():
    first = generate_conference(60, seed=1, slug="a")
    second = generate_conference(60, seed=2, slug="b")
    assert schedule_rows(first) != schedule_rows(second)


def test_every_generated_row_passes_full_clean():
    conference = generate_conference(60)
    sessions = Session.objects.filter(conference=conference).select_related(
        "conference", "room", "track"
    )
    rows = [
        *conference.rooms.all(),
        *conference.tracks.all(),
        *Speaker.objects.filter(conference=conference),
        *SpeakerLink.objects.filter(speaker__conference=conference),
        *sessions,
        *SessionSpeaker.objects.filter(session__conference=conference).select_related(
            "session__conference", "speaker"
        ),
        *Attachment.objects.filter(session__conference=conference),
    ]
    for row in rows:
        row.full_clean()
    assert len(sessions) == 60


def test_generated_conference_double_books_no_room():
    conference = generate_conference(300)
    same_room_at_once = Session.objects.filter(
        room=OuterRef("room"),
        starts_at__lt=OuterRef("ends_at"),
        ends_at__gt=OuterRef("starts_at"),
    ).exclude(pk=OuterRef("pk"))
    clashes = Session.objects.filter(conference=conference, room__isnull=False).filter(
        Exists(same_room_at_once)
    )
    assert list(clashes) == []


def test_generated_conference_double_books_no_speaker():
    conference = generate_conference(300)
    same_speaker_at_once = SessionSpeaker.objects.filter(
        speaker=OuterRef("speaker"),
        session__starts_at__lt=OuterRef("session__ends_at"),
        session__ends_at__gt=OuterRef("session__starts_at"),
    ).exclude(session=OuterRef("session"))
    clashes = SessionSpeaker.objects.filter(session__conference=conference).filter(
        Exists(same_speaker_at_once)
    )
    assert list(clashes) == []


def test_some_generated_speakers_give_two_sessions_and_every_one_gives_at_least_one():
    conference = generate_conference(120)
    counts = set(
        Speaker.objects.filter(conference=conference)
        .annotate(sessions_given=Count("sessions"))
        .values_list("sessions_given", flat=True)
    )
    assert min(counts) == 1
    assert 2 in counts


def test_generated_conference_has_every_kind_of_session():
    conference = generate_conference(120)
    kinds = set(conference.sessions.values_list("kind", flat=True))
    assert kinds == set(Session.Kind.values)


def test_generated_breaks_have_no_speakers_and_are_venue_wide_or_in_a_room():
    conference = generate_conference(30)
    breaks = Session.objects.filter(conference=conference, kind=Session.Kind.BREAK)
    assert breaks.count() == 6  # coffee, lunch and coffee on each of two days
    assert breaks.filter(room__isnull=True).count() == 4
    assert breaks.filter(room__isnull=False).count() == 2
    assert not SessionSpeaker.objects.filter(session__in=breaks).exists()


def test_generated_texts_have_realistic_lengths():
    conference = generate_conference(60)
    descriptions = Session.objects.filter(conference=conference).exclude(kind=Session.Kind.BREAK)
    description_lengths = {len(text) for text in descriptions.values_list("description", flat=True)}
    bio_lengths = {len(bio) for bio in conference.speakers.values_list("bio", flat=True)}
    assert 600 <= min(description_lengths) <= max(description_lengths) <= 1800
    assert 300 <= min(bio_lengths) <= max(bio_lengths) <= 900
    assert all("\n\n" in text for text in descriptions.values_list("description", flat=True))


def test_generated_conference_has_url_attachments():
    conference = generate_conference(120)
    attachments = Attachment.objects.filter(session__conference=conference)
    assert attachments.count() > 0
    assert not attachments.exclude(file="").exists()
    assert not attachments.filter(url="").exists()


def test_generating_marks_the_conference_changed():
    conference = generate_conference(30)
    assert conference.changed_at > conference.created_at


def test_generated_schedule_page_shows_every_session(client):
    conference = generate_conference(30)
    response = client.get(reverse("sessions:schedule", kwargs={"conference_slug": conference.slug}))
    assert response.status_code == 200
    assert len(response.context["sessions"]) == 30


def test_generate_conference_refuses_too_few_sessions():
    with pytest.raises(ValueError, match="at least 20 sessions"):
        generate_conference(5)


def test_generate_conference_command_prints_what_it_made():
    output = run_command("--sessions", "30", "--seed", "3", "--slug", "made-up")
    conference = Conference.objects.get(slug="made-up")
    assert conference.sessions.count() == 30
    assert output.splitlines()[0] == (
        "30 sessions over 2 days (10 May 2027–11 May 2027, Europe/Berlin): "
        + ", ".join(
            f"{count} {kind.label.lower()}"
            for kind in Session.Kind
            if (count := conference.sessions.filter(kind=kind).count())
        )
    )
    assert "2 rooms, 3 tracks" in output
    assert f"Generated {conference} in " in output
    assert output.rstrip().endswith("/made-up/")


def test_generate_conference_command_names_the_conference_by_size_and_seed():
    run_command("--sessions", "30", "--seed", "4")
    assert Conference.objects.filter(slug="generated-30-4").exists()


def test_generate_conference_command_refuses_an_existing_slug():
    generate_conference(30, slug="taken")
    with pytest.raises(CommandError) as error:
        run_command("--sessions", "30", "--slug", "taken")
    assert str(error.value) == (
        "A conference with the slug “taken” already exists. Choose another --slug, "
        "or pass --replace to delete it and generate it anew."
    )
    assert Conference.objects.get(slug="taken").sessions.count() == 30


def test_generate_conference_command_replaces_an_existing_conference():
    old = generate_conference(30, slug="again")
    run_command("--sessions", "40", "--slug", "again", "--replace")
    new = Conference.objects.get(slug="again")
    assert new.pk != old.pk
    assert new.sessions.count() == 40


def test_generate_conference_command_refuses_a_reserved_slug():
    with pytest.raises(CommandError, match="is used by the site itself"):
        run_command("--sessions", "30", "--slug", "admin")
    assert not Conference.objects.exists()

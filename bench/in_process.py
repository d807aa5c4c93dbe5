"""One size in-process: every page, export and the API with Django's test client (a child of run.py).

The child's database is fresh and the conference generated in it; settings are production's
(DEBUG off, the local-memory cache) with plain static names, so no collectstatic is needed.
Each page is measured uncached (``forget_pages()`` before every request) and from the cache;
see bench/README.md for every row.
"""

from __future__ import annotations

import datetime
import json
import os
import time
import tracemalloc
import warnings
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from bench.common import BROWSER, SEED, SLUG, log, summary_ms, timed

WARM_UPS = 2
REPETITIONS = 15
ATTENDEE = "bench-attendee"
SAVED_TALKS = 10
LOGGED_IN_SCHEDULE = f"schedule, logged in ({SAVED_TALKS} saved)"
PLAIN_STATIC = {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}
# Rows measured right after one session's title was edited (measure_after_edit).
AFTER_EDIT = ("schedule/", "schedule.ics", "schedule.xml", "schedule.json")


@dataclass
class Page:
    name: str
    url: str
    optional: bool = False  # a 404 means "not there yet": reported as n/a
    cookie: str = ""  # a Cookie header, as a browser sends it back
    headers: dict[str, str] = field(default_factory=dict)


def measure_size(size: int, output: Path) -> None:
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "conference.site.settings")
    # STATIC_ROOT is empty here: whitenoise says so once; pages use plain static names below.
    warnings.filterwarnings("ignore", message="No directory at", category=UserWarning)
    django.setup()
    from django.conf import settings
    from django.core.management import call_command
    from django.test.utils import override_settings

    from bench.generator import generate_conference

    result: dict[str, Any] = {"size": size}
    result["migrate_s"] = timed(lambda: call_command("migrate", verbosity=0))[0]
    seconds, conference = timed(lambda: generate_conference(size, seed=SEED, slug=SLUG))
    result.update(generate_s=seconds, rows=row_counts(conference), database=database_info())
    log(f"N={size}: migrated in {result['migrate_s']:.1f} s, generated in {seconds:.2f} s")
    # Production storage needs collectstatic's manifest; plain names need nothing.
    with override_settings(STORAGES={**settings.STORAGES, "staticfiles": PLAIN_STATIC}):
        cookie = result["attendee_cookie"] = attendee_cookie(conference)
        result["public_paths"] = [page.url for page in public_pages(conference)]
        if not os.environ.get("BENCH_GENERATE_ONLY"):
            pages = [*public_pages(conference), logged_in_schedule(conference, cookie)]
            result["pages"] = [measure_page(page) for page in pages]
            result["pages"] += measure_planner(conference)
            result["pages"] += measure_release(conference, size)
            result["pages"] += measure_after_edit(conference)
    output.write_text(json.dumps(result))


def attendee_cookie(conference) -> str:
    """The Cookie header of a logged-in attendee who saved ten talks.

    Their session is a row in the bench database, so gunicorn's workers find it too; the CSRF
    cookie is the one the schedule gave them, as a browser sends it back.
    """
    from django.contrib.auth import get_user_model
    from django.test import Client

    from sessions.models import SavedSession, Session

    user = get_user_model().objects.create_user(ATTENDEE, f"{ATTENDEE}@example.org", None)
    talks = conference.sessions.public().filter(kind=Session.Kind.TALK).order_by("starts_at")
    SavedSession.objects.bulk_create(
        SavedSession(user=user, session=talk) for talk in talks[:SAVED_TALKS]
    )
    client = Client()
    client.force_login(user)
    client.get(f"/{conference.slug}/schedule/")
    return "; ".join(f"{name}={morsel.value}" for name, morsel in client.cookies.items())


def row_counts(conference) -> dict[str, int]:
    from sessions.models import Attachment, SessionSpeaker

    return {
        "sessions": conference.sessions.count(),
        "speakers": conference.speakers.count(),
        "rooms": conference.rooms.count(),
        "tracks": conference.tracks.count(),
        "days": len(conference.days),
        "speaker_appearances": SessionSpeaker.objects.filter(
            session__conference=conference
        ).count(),
        "attachments": Attachment.objects.filter(session__conference=conference).count(),
    }


def database_info() -> str:
    from django.db import connection

    if connection.vendor == "sqlite":
        import sqlite3

        return f"SQLite {sqlite3.sqlite_version}"
    with connection.cursor() as cursor:
        cursor.execute("SHOW server_version")
        return f"PostgreSQL {cursor.fetchone()[0]}"


def public_pages(conference) -> list[Page]:
    """Every public page, export and the API list; a talk in mid-conference and its first speaker.

    Paths are spelled out rather than reversed, so they stay those that visitors use.
    """
    from sessions.models import Session
    from speakers.models import Speaker

    talks = Session.objects.filter(conference=conference, kind=Session.Kind.TALK)
    session = talks.order_by("starts_at", "slug")[talks.count() // 2]
    speaker = (
        Speaker.objects.filter(session_links__session=session)
        .order_by("session_links__position")
        .first()
    )
    base = f"/{conference.slug}/"
    return [
        Page("home", base),
        Page("schedule", f"{base}schedule/"),
        # The language is part of every page's version: French costs its own rendering.
        Page("schedule, in French", f"{base}schedule/", headers={"Accept-Language": "fr"}),
        Page("grid (first day)", f"{base}schedule/grid/"),
        Page("speakers", f"{base}speakers/"),
        Page("session", f"{base}sessions/{session.slug}/"),
        Page("speaker", f"{base}speakers/{speaker.slug}/"),
        Page("schedule.ics", f"{base}schedule.ics"),
        Page("schedule.xml", f"{base}schedule.xml"),
        Page("schedule.json", f"{base}schedule.json"),
        Page("API sessions", f"/api/v1/conferences/{conference.slug}/sessions/", optional=True),
    ]


def logged_in_schedule(conference, cookie: str) -> Page:
    """The schedule as the attendee's browser asks for it: their session and CSRF cookies, and
    the encodings browsers accept."""
    return Page(LOGGED_IN_SCHEDULE, f"/{conference.slug}/schedule/", cookie=cookie, headers=BROWSER)


def page_client(page: Page):
    """A test client that sends what ``page`` says a visitor sends."""
    from django.test import Client

    client = Client(raise_request_exception=False, headers=page.headers)
    if page.cookie:
        client.cookies.load(page.cookie)
    return client


def measure_page(page: Page) -> dict:
    row: dict[str, Any] = asdict(page)
    row.pop("cookie")
    for mode in ("uncached", "cached"):
        row[mode] = measure_mode(page, cached=mode == "cached")
        if row[mode].get("status") != 200:
            break
    summary = row["uncached"]
    if summary["status"] == 200:
        log(
            f"  {page.name:<18} uncached {summary['median_ms']:8.1f} ms "
            f"{summary['queries']:3d} queries | cached {row['cached']['median_ms']:8.1f} ms"
        )
    else:
        log(f"  {page.name:<18} {summary['status']}")
    return row


def measure_mode(page: Page, cached: bool) -> dict:
    """Uncached: the cache and the worker's copies emptied before every request, so nothing is
    reused. Cached: emptied once, then the first request fills them and the others are served."""
    from conference.pages.copies import forget_pages

    client = page_client(page)

    def send():
        if not cached:
            forget_pages()
        return client.get(page.url)

    if cached:
        forget_pages()
    return measure_requests(send, optional=page.optional)


def measure_requests(send, repeat: int = REPETITIONS, optional: bool = False) -> dict:
    """Time ``send()`` (a test-client request) as every page is timed: warm-ups, then medians."""

    def get() -> tuple[float, int, int]:
        started = time.perf_counter()
        response = send()
        body = b"".join(response.streaming_content) if response.streaming else response.content
        return time.perf_counter() - started, response.status_code, len(body)

    _, status, size = get()  # warms the cache (and is the first warm-up)
    if status != 200:
        return {"status": "n/a" if status == 404 and optional else f"HTTP {status}"}
    for _ in range(WARM_UPS - 1):
        get()
    times = [get()[0] for _ in range(repeat)]
    return {
        "status": 200,
        **summary_ms(times),
        "queries": count_queries(get),
        "peak_mib": peak_memory(get),
        "bytes": size,
        "repetitions": repeat,
    }


# The organizers' planner: logged in, never cached (the admin sends no-cache) ---------------


def measure_planner(conference) -> list[dict]:
    """The planner's busiest day, and one move as drag and drop posts it (htmx, accepted).

    The move alternates a talk between its slot and five minutes later, a slot checked free
    first, so every timed request is a saved move with all its checks (version, room and
    speakers, the conference's days) and the undo it keeps in the organizer's session.
    """
    from django.contrib.auth import get_user_model
    from django.test import Client
    from django.urls import reverse

    user = get_user_model().objects.create_superuser("bench-organizer", "", None)
    client = Client(raise_request_exception=False)
    client.force_login(user)
    day = busiest_day(conference)
    page_url = reverse("admin:schedule_session_planner", args=[conference.pk]) + f"?day={day}"
    rows = [planner_row("planner (busiest day)", page_url, lambda: client.get(page_url))]
    session, slots = movable_talk(conference)
    move_url = reverse("admin:schedule_session_planner_move", args=[conference.pk, session.pk])
    state = {"version": session.version, "next": 1}

    def move():
        starts_at = slots[state["next"]]
        data = {"version": state["version"], "action": "place", "room": session.room_id}
        response = client.post(
            move_url, {**data, "starts_at": starts_at.isoformat()}, headers={"HX-Request": "true"}
        )
        if response.headers.get("HX-Trigger") == "planner-moved":
            state["version"] += 1
            state["next"] = 1 - state["next"]
        else:
            raise RuntimeError(f"The bench's move was refused: {response.content[:300]!r}")
        return response

    rows.append(planner_row("planner move (POST)", move_url, move))
    return rows


# Releasing the schedule: the review the organizer confirms, with a fifth of the sessions moved --


def measure_release(conference, size: int) -> list[dict]:
    """The admin's release review after N/5 sessions moved since the previous release.

    The review computes the public schedule's snapshot, the diff against the previous release
    and every change in words, as confirming does before storing it. The sessions move a week
    later by one UPDATE: no move can clash with another session there, even under PostgreSQL's
    exclusion constraint, and the diff does not care where they went.
    """
    from django.contrib.auth import get_user_model
    from django.db.models import F
    from django.test import Client
    from django.urls import reverse

    from sessions.models import Session
    from sessions.releases import changes_between, public_snapshot, release_schedule

    user = get_user_model().objects.get_or_create(
        username="bench-organizer", defaults={"is_staff": True, "is_superuser": True}
    )[0]
    client = Client(raise_request_exception=False)
    client.force_login(user)
    before = release_schedule(conference, version="v1", comment="", user=user)
    public = conference.sessions.public().filter(status=Session.Status.PUBLISHED)
    moving = list(public.order_by("pk").values_list("pk", flat=True)[: size // 5])
    week = datetime.timedelta(days=7)
    Session.objects.filter(pk__in=moving).update(
        starts_at=F("starts_at") + week, ends_at=F("ends_at") + week
    )
    seconds, changes = timed(lambda: changes_between(before.snapshot, public_snapshot(conference)))
    if [change.kind for change in changes] != ["moved"] * len(moving):
        raise RuntimeError(f"The bench expected {len(moving)} moves, the diff has {len(changes)}.")
    log(f"  release diff alone: {len(changes)} moved in {seconds * 1000:.1f} ms")
    url = reverse("admin:schedule_session_release", args=[conference.pk])
    return [planner_row(f"release review ({len(moving)} moved)", url, lambda: client.get(url))]


# After one edit: the page made again for the new version, the exports from cached parts -------


class TitleEditor:
    """Gives a talk in mid-conference a new title by ``save()``, as the admin saves it; that
    moves the conference's content version. ``restore()`` puts the title back."""

    def __init__(self, conference):
        public = conference.sessions.public().order_by("starts_at", "pk")
        self.session = public[public.count() // 2]
        self.title, self.edits = self.session.title, 0

    def edit(self) -> None:
        self.session.refresh_from_db()
        self.edits += 1
        self.session.title = f"{self.title} (edit {self.edits})"
        self.session.save()

    def restore(self) -> None:
        self.session.refresh_from_db()
        self.session.title = self.title
        self.session.save()


def measure_after_edit(conference) -> list[dict]:
    """The schedule and each export requested right after one session's title was edited.

    Before each timed request the page is requested once (so it, and every session's part of
    an export, is cached, as after any earlier visit), then the title is edited. The edit moves
    the version: the schedule is made again, an export joined again from the cached parts of
    the other sessions and the edited one's. Only the request after the edit is timed, counted
    and traced.
    """
    from django.core.cache import cache
    from django.test import Client

    client = Client(raise_request_exception=False)
    editor = TitleEditor(conference)

    def get(url):
        response = client.get(url)
        body = b"".join(response.streaming_content) if response.streaming else response.content
        return response.status_code, len(body)

    def after_edit(url, measure):
        get(url)
        editor.edit()
        return measure(lambda: get(url))

    def timed_get(request):
        started = time.perf_counter()
        status, length = request()
        return time.perf_counter() - started, status, length

    rows = []
    for name in AFTER_EDIT:
        url = f"/{conference.slug}/{name}"
        cache.clear()
        for _ in range(WARM_UPS):
            after_edit(url, timed_get)
        samples = [after_edit(url, timed_get) for _ in range(REPETITIONS)]
        summary = {
            "status": samples[-1][1],
            **summary_ms([seconds for seconds, _, _ in samples]),
            "queries": after_edit(url, count_queries),
            "peak_mib": after_edit(url, peak_memory),
            "bytes": samples[-1][2],
            "repetitions": len(samples),
        }
        row_name = after_edit_row(name)
        log(f"  {row_name:<18} {summary['median_ms']:8.1f} ms {summary['queries']:3d} queries")
        rows.append(
            {
                "name": row_name,
                "url": url,
                "optional": False,
                "uncached": summary,
                "cached": {"status": "n/a"},
            }
        )
    editor.restore()
    return rows


def after_edit_row(name: str) -> str:
    return f"{name.rstrip('/')} after one edit"


def planner_row(name: str, url: str, send) -> dict:
    row = {"name": name, "url": url, "optional": False, "cached": {"status": "n/a"}}
    row["uncached"] = measure_requests(send)
    summary = row["uncached"]
    if summary["status"] == 200:
        log(f"  {name:<18} {summary['median_ms']:8.1f} ms {summary['queries']:3d} queries")
    else:
        log(f"  {name:<18} {summary['status']}")
    return row


def busiest_day(conference) -> datetime.date:
    from collections import Counter

    from django.utils import timezone

    starts = conference.sessions.placed().values_list("starts_at", flat=True)
    days = Counter(timezone.localtime(start, conference.tz).date() for start in starts)
    return max(sorted(days), key=days.__getitem__)


def movable_talk(conference):
    """A talk in mid-conference that may move five minutes later, and its two start times."""
    from sessions.forms import SessionMoveForm
    from sessions.models import Session

    talks = conference.sessions.filter(kind=Session.Kind.TALK).select_related("conference")
    rooms = list(conference.rooms.all())
    ordered = list(talks.order_by("starts_at", "slug"))
    for session in ordered[len(ordered) // 2 :]:
        later = session.starts_at + datetime.timedelta(minutes=5)
        data = {"version": session.version, "action": "place", "room": session.room_id}
        form = SessionMoveForm({**data, "starts_at": later}, session=session, rooms=rooms)
        if form.is_valid():
            session.refresh_from_db()
            return session, [session.starts_at, later]
    raise RuntimeError("No talk of the generated conference can move five minutes later.")


def count_queries(request) -> int:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as captured:
        request()
    return len(captured.captured_queries)


def peak_memory(request) -> float:
    tracemalloc.start()
    try:
        request()
        return tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()

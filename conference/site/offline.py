"""The installable web app: its manifest and the service worker that keeps visited pages for
when the venue's network fails (conference/site/service_worker.js; docs/attendees.md, "At the venue,
offline").

After a page of a conference loads, the worker also reads the conference's offline manifest
(``conference_offline_manifest``: its pages' addresses and version) and fetches the pages it
lacks or holds from an older version, so the whole conference opens offline.

The worker is served from the site's root, not from /static/, so that its scope covers every
page; it is given the static files' current URLs (hashed in production) and a version that
changes with each release, so a deploy replaces what browsers keep.
"""

import functools
import hashlib
import json
from pathlib import Path

from django.conf import settings
from django.http import Http404, HttpResponse, HttpResponsePermanentRedirect, JsonResponse
from django.shortcuts import render
from django.templatetags.static import static
from django.urls import reverse
from django.views.decorators.http import require_safe

from conference.models import PUBLIC_COPY, Conference
from conference.pages.versions import last_modified, not_modified, page_version
from conference.routing import reverse_slugs
from sessions.models import Session
from speakers.views.public import SpeakerListView

THEME_COLOUR = "#1b1f24"  # the header's ink (static/css/site.css --ink)
WORKER_SOURCE = Path(__file__).with_name("service_worker.js")

# What every page loads: kept when the worker installs, so the first page visited opens offline
# with its styles even though it was fetched before the worker ran.
PRECACHED_STATIC = [
    "css/site.css",
    "css/print.css",
    "js/site.js",
    "js/offline.js",
    "django_htmx/htmx-2.min.js",
    "icons/icon-192.png",
]


def login_doors() -> list[str]:
    """Every address whose POST logs someone in or out in this browser: the site's and the
    admin's. (The API's token login starts no browser session, so it is not one.)"""
    doors = ["login", "logout", "signup", "admin:login", "admin:logout"]
    return [reverse(door) for door in doors]


@functools.cache
def worker_script() -> str:
    source = WORKER_SOURCE.read_text()
    precache = [static(name) for name in PRECACHED_STATIC]
    config = {
        "precache": precache,
        "staticPrefix": settings.STATIC_URL,
        # Never kept: organizers' pages, the API, and the account pages (forms with CSRF tokens).
        "neverKept": ["/admin/", "/api/", "/accounts/"],
        # Posting to these changes who is logged in: the copies of the last visitor's pages go.
        "forgetPagesOn": login_doors(),
        # Shown offline for a page that was never kept; kept with the static files.
        "offlinePage": reverse("offline"),
        # A conference's own, for its pages: kept with the visitor's pages when a page of the
        # conference names it; SLUG stands for the first segment of the page's path.
        "conferenceOfflinePage": reverse("conference:offline", kwargs={"conference_slug": "SLUG"}),
    }
    fingerprint = json.dumps([settings.RELEASE, config, source])
    config["version"] = hashlib.sha256(fingerprint.encode()).hexdigest()[:12]
    return f"const CONFIG = {json.dumps(config, indent=2)};\n\n{source}"


@require_safe
def service_worker(request):
    response = HttpResponse(worker_script(), content_type="text/javascript; charset=utf-8")
    # Browsers check the worker for updates at each visit; no-cache makes that check reach us,
    # so a new release's worker (and version) is found at once.
    response.headers["Cache-Control"] = "no-cache"
    response.headers["Service-Worker-Allowed"] = "/"
    return response


@require_safe
def favicon(request):
    """The site's icon, for pages that name none (the admin's, the API's documentation)."""
    return HttpResponsePermanentRedirect(static("icons/icon-192.png"))


@require_safe
def web_manifest(request):
    icons = [
        {"src": static("icons/icon-192.png"), "sizes": "192x192", "type": "image/png"},
        {"src": static("icons/icon-512.png"), "sizes": "512x512", "type": "image/png"},
        {
            "src": static("icons/icon-maskable-512.png"),
            "sizes": "512x512",
            "type": "image/png",
            "purpose": "maskable",
        },
    ]
    manifest = {
        "name": "Conference schedule",
        "short_name": "Schedule",
        "description": "The schedule, the speakers and your own schedule, also offline.",
        "id": "/",
        "start_url": "/",
        "scope": "/",
        "display": "standalone",
        "theme_color": THEME_COLOUR,
        "background_color": "#ffffff",
        "icons": icons,
    }
    response = JsonResponse(manifest, content_type="application/manifest+json")
    response.headers["Cache-Control"] = "no-cache"
    return response


@require_safe
def offline_page(request):
    response = render(request, "conference/offline.html")
    response.headers["Cache-Control"] = "no-cache"
    return response


@require_safe
def conference_offline_page(request, conference_slug):
    """The offline page in the conference's frame, with the visitor's account links: the worker
    keeps it with the visitor's pages, never across a log-in or log-out."""
    conference = Conference.objects.visible_by_slug(request.user, conference_slug)
    if conference is None:
        raise Http404("No conference by that name.")
    context = {"conference": conference, "time_zone_picker": False}
    response = render(request, "conference/offline_conference.html", context)
    response.headers["Cache-Control"] = "no-cache"
    return response


def offline_pages(conference) -> list[str]:
    """Every page of the conference an attendee reads at the venue, as the worker asks for it:
    home, schedule, the change log, grid (each day), speakers, every session and every speaker,
    and the schedule filtered by each day, each track and each room. The public's: what a staff
    member sees beyond it they open.

    Filtered lists are kept as the server makes them, one page per day, track and room, rather
    than filtered in the page by JavaScript from the kept schedule: the filter's rules stay in
    one place (SessionFilter), the page offline is the page online to the byte (its headings,
    counts, day tabs and form included), and it holds however the list page changes. The cost
    is storage: each session is listed once more per day, track and room page, 6.2 MB at 1,000
    sessions, counted in the budget of tests/conference/test_offline.py. Other combinations (a day
    and a track, a search) are not kept: offline they show the conference's offline page."""
    slug = {"conference_slug": conference.slug}
    sessions = Session.objects.public().filter(conference=conference)
    days = [day.isoformat() for day in sessions.start_days(conference)]
    schedule = reverse("sessions:schedule", kwargs=slug)
    grid = reverse("sessions:schedule-grid", kwargs=slug)
    speaker_list = reverse("speakers:speaker-list", kwargs=slug)
    speakers = conference.speakers.giving(sessions)
    pages = [conference.get_absolute_url(), schedule, reverse("sessions:changes", kwargs=slug)]
    pages += [grid] + [f"{grid}?day={day}" for day in days]
    pages += [f"{schedule}?day={day}" for day in days]
    for parameter, rows in [("track", conference.tracks), ("room", conference.rooms)]:
        used = rows.filter(pk__in=sessions.values(parameter))
        pages += [f"{schedule}?{parameter}={row}" for row in used.values_list("slug", flat=True)]
    speaker_count = speakers.count()
    pages.append(speaker_list)
    per_page = SpeakerListView.paginate_by
    pages += [f"{speaker_list}?page={n}" for n in range(2, -(-speaker_count // per_page) + 1)]
    for name, rows in [
        ("sessions:session-detail", sessions.order_by("starts_at", "pk")),
        ("speakers:speaker-detail", speakers.order_by("name", "pk")),
    ]:
        pages += [
            reverse_slugs(name, conference_slug=conference.slug, slug=row)
            for row in rows.values_list("slug", flat=True)
        ]
    return pages


def present_pages(conference) -> list[str]:
    """Pages about the present (now and next): the worker fetches them again when its copy is a
    few minutes old, whatever the version, and their offline notice says when they were kept."""
    return [reverse("sessions:now", kwargs={"conference_slug": conference.slug})]


def offline_resources(conference) -> list[str]:
    """What those pages load besides the static files: kept with them, changed with them."""
    slug = {"conference_slug": conference.slug}
    return [
        reverse("conference:track-styles", kwargs=slug),
        reverse("sessions:schedule-grid-rows", kwargs=slug),
        reverse("conference:offline", kwargs=slug),
    ]


@require_safe
def conference_offline_manifest(request, conference_slug):
    """The conference's pages for the worker to keep, and their version: it moves with every
    change of the conference's content (and the release, and the display zone), so a worker
    holding an older one fetches them again. The same for every visitor (the public's pages)."""
    conference = Conference.objects.visible_by_slug(request.user, conference_slug)
    if conference is None:
        raise Http404("No conference by that name.")
    version = page_version(conference, request.path, PUBLIC_COPY)
    modified = last_modified(conference)
    unchanged = not_modified(request, version, modified)
    if unchanged is not None:
        return unchanged
    manifest = {
        "version": version.strip('"'),
        "pages": offline_pages(conference),
        "present": present_pages(conference),
        "resources": offline_resources(conference),
    }
    response = JsonResponse(manifest)
    response.headers["ETag"] = version
    response.headers["Cache-Control"] = "no-cache"
    return response

"""The floor's views (bench/floor.py): the reads a page of this design makes before it renders
anything, through the same code as the pages, answered with a fixed body. The site's own
addresses follow them unchanged."""

from django.http import HttpResponse
from django.urls import include, path

from conference.models import Conference
from sessions.personal import saved_session_ids

# Tiny on purpose: a floor measured with the page's bytes would only be lower.
BODY = b"floor"


def no_read(request, conference_slug):
    """Django's request handling and our middleware, and nothing else."""
    return HttpResponse(BODY)


def version_read(request, conference_slug):
    """What every cached page reads first: its conference, whose version keys the page
    (ConferenceMixin)."""
    Conference.objects.visible_by_slug(request.user, conference_slug)
    return HttpResponse(BODY)


def personal_reads(request, conference_slug):
    """What a logged-in visitor's page reads besides: their session and user (Django's auth,
    asked by the conference's ``visible_to``) and the sessions they saved (its Save buttons)."""
    conference = Conference.objects.visible_by_slug(request.user, conference_slug)
    saved_session_ids(request.user, conference)
    return HttpResponse(BODY)


urlpatterns = [
    path("bench-floor/<slug:conference_slug>/no-read/", no_read),
    path("bench-floor/<slug:conference_slug>/version/", version_read),
    path("bench-floor/<slug:conference_slug>/personal/", personal_reads),
    path("", include("conference.site.urls")),
]

# The site's error pages, as conference.site.urls names them.
from conference.site.urls import handler400, handler403, handler404, handler500  # noqa: E402, F401

import hashlib

from django.conf import settings
from django.core.cache import cache
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.template.loader import render_to_string
from django.utils import timezone
from django.utils.cache import get_conditional_response
from django.utils.http import http_date, quote_etag, url_has_allowed_host_and_scheme
from django.views.generic import DetailView, ListView

from conference.models import Conference
from conference.timezones import time_zone_options

ACCOUNT_SLOT = "<!--account-slot-->"


def safe_next(request, default: str) -> str:
    """The ?next= (or posted next) address if it stays on this site, else ``default``."""
    next_url = request.POST.get("next") or request.GET.get("next")
    if next_url and url_has_allowed_host_and_scheme(
        next_url, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return next_url
    return default


PAGE_CACHE_SECONDS = 24 * 60 * 60  # keys carry the content version, so age never makes them stale


class ConferenceMixin:
    """Scopes a view to the conference named in the URL and shows its times in the right zone.

    A ``shared`` page is the same for every visitor of its URL, zone and role once its personal
    slots (account links, save buttons) are left open. It is rendered once per content version
    and kept in the cache; each request then fills the slots for its visitor (``personalize``).
    ETag and Last-Modified come from the version, so an up-to-date anonymous visitor gets a 304
    without any rendering. ``same_for_every_user`` pages (exports) have no slots and are
    conditional for everyone.
    """

    shared = False
    same_for_every_user = False

    def dispatch(self, request, *args, **kwargs):
        conferences = (
            Conference.objects.all() if request.user.is_staff else Conference.objects.published()
        )
        self.conference = get_object_or_404(conferences, slug=kwargs["conference_slug"])
        if not request.chosen_time_zone:
            timezone.activate(self.conference.tz)
        if not (self.shared and request.method in ("GET", "HEAD")):
            return self.personalize_response(super().dispatch(request, *args, **kwargs))
        version = self.version_tag(request)
        conditional = self.same_for_every_user or not request.user.is_authenticated
        last_modified = int(self.conference.changed_at.timestamp())
        if conditional:
            not_modified = get_conditional_response(
                request, etag=version, last_modified=last_modified
            )
            if not_modified is not None:
                return not_modified
        if request.user.is_authenticated or self.same_for_every_user:
            response = self.personalize_response(
                self.shared_response(request, version, *args, **kwargs)
            )
        else:
            response = self.anonymous_response(request, version, *args, **kwargs)
        if conditional and response.status_code == 200:
            response.headers["ETag"] = version
            response.headers["Last-Modified"] = http_date(last_modified)
        return response

    def version_tag(self, request) -> str:
        """Changes with the release, the conference's content, the URL, the zone and role."""
        variant = "|".join(
            [
                settings.RELEASE,
                str(self.conference.pk),
                self.conference.changed_at.isoformat(),
                request.get_full_path(),
                timezone.get_current_timezone_name(),
                "staff" if request.user.is_staff else "public",
            ]
        )
        return quote_etag(hashlib.sha256(variant.encode()).hexdigest()[:32])

    def shared_response(self, request, version: str, *args, **kwargs) -> HttpResponse:
        """The shared rendering, from the cache when this version was rendered before."""
        key = f"shared-page:{version}"
        cached = cache.get(key)
        if cached is not None:
            content, headers = cached
            return HttpResponse(content, headers=headers)
        response = super().dispatch(request, *args, **kwargs)
        if hasattr(response, "render"):
            response.render()
        if response.status_code == 200:
            headers = {
                name: value
                for name, value in response.headers.items()
                if name in ("Content-Type", "Content-Disposition")
            }
            cache.set(key, (response.content, headers), PAGE_CACHE_SECONDS)
        return response

    def anonymous_response(self, request, version: str, *args, **kwargs) -> HttpResponse:
        """Anonymous visitors of one URL all get the same finished page: keep that too."""
        key = f"anonymous-page:{version}"
        cached = cache.get(key)
        if cached is not None:
            content, headers = cached
            return HttpResponse(content, headers=headers)
        response = self.personalize_response(
            self.shared_response(request, version, *args, **kwargs)
        )
        if response.status_code == 200 and not response.streaming:
            cache.set(
                key,
                (response.content, {"Content-Type": response["Content-Type"]}),
                PAGE_CACHE_SECONDS,
            )
        return response

    def personalize_response(self, response):
        if self.same_for_every_user or not response.get("Content-Type", "").startswith("text/html"):
            return response
        if hasattr(response, "render") and not response.is_rendered:
            response.render()
        response.content = self.personalize(response.content.decode()).encode()
        return response

    def personalize(self, html: str) -> str:
        """Fill the visitor's own parts into a shared page."""
        if ACCOUNT_SLOT not in html:
            return html
        return html.replace(
            ACCOUNT_SLOT, render_to_string("includes/account.html", request=self.request), 1
        )

    def get_context_data(self, **kwargs):
        return super().get_context_data(
            shared_page=self.shared, **self.conference_context(), **kwargs
        )

    def conference_context(self) -> dict:
        zone = timezone.get_current_timezone_name()
        return {
            "conference": self.conference,
            "display_zone": zone,
            "time_zone_options": time_zone_options(self.conference.time_zone, zone),
        }


class ConferenceListView(ListView):
    template_name = "conference/conference_list.html"

    def get_queryset(self):
        return Conference.objects.published()

    def get(self, request, *args, **kwargs):
        conferences = list(self.get_queryset()[:2])
        if len(conferences) == 1:
            return redirect(conferences[0])
        return super().get(request, *args, **kwargs)


class ConferenceDetailView(ConferenceMixin, DetailView):
    template_name = "conference/conference_detail.html"
    shared = True

    def get_object(self, queryset=None):
        return self.conference

    def get_context_data(self, **kwargs):
        return super().get_context_data(
            rooms=self.conference.rooms.all(),
            tracks=self.conference.tracks.all(),
            **kwargs,
        )


class TrackStylesView(ConferenceMixin, DetailView):
    """Track colours as a stylesheet, so pages need no inline styles (and CSP can forbid them)."""

    template_name = "conference/tracks.css"
    content_type = "text/css; charset=utf-8"
    shared = True
    same_for_every_user = True

    def get_object(self, queryset=None):
        return self.conference

    def get_context_data(self, **kwargs):
        return super().get_context_data(tracks=self.conference.tracks.all(), **kwargs)

"""The schedule's change log as an Atom feed (Django's syndication framework)."""

from django.conf import settings
from django.contrib.syndication.views import Feed
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.utils.feedgenerator import Atom1Feed
from django.utils.translation import gettext as _
from django.views import View

from conference.views.conferences import ConferencePageMixin
from sessions.models import Release
from sessions.releases import change_log, change_summary


class LastChangeAtom1Feed(Atom1Feed):
    """Atom whose feed-level ``updated`` is the ``last_change`` it is given. Django's takes the
    newest entry's date and, with no entry, the time of the request: a feed that changed at
    every read, as RFC 4287 forbids and feed readers fetch again."""

    def latest_post_date(self):
        return self.feed["last_change"]


class ChangeLogFeed(Feed):
    """One entry per release, its changes in words (times in the reader's chosen zone, else the
    conference's). Links are on the site's public address, never the request's host.

    Valid Atom in every state, no release yet included: the feed names an author (the
    conference, which entries inherit), and it was last updated by the newest release, or before
    any release by the conference's last change.
    """

    feed_type = LastChangeAtom1Feed

    def __init__(self, conference):
        super().__init__()
        self.conference = conference

    def get_object(self, request, *args, **kwargs):
        zone = timezone.get_current_timezone()
        self.entries = dict(change_log(self.conference, zone))
        return self.conference

    def feed_extra_kwargs(self, conference):
        released = [release.released_at for release in self.entries]
        return {"last_change": max(released, default=conference.changed_at)}

    def author_name(self, conference):
        return conference.name

    def title(self, conference):
        return _("%(name)s: schedule changes") % {"name": conference.name}

    def subtitle(self, conference):
        return _("Every release of the %(name)s schedule and what it changed.") % {
            "name": conference.name
        }

    def link(self, conference):
        return settings.SITE_URL + conference_changes_url(conference)

    def feed_url(self, conference):
        return settings.SITE_URL + conference_changes_url(conference, feed=True)

    def items(self, conference):
        return list(self.entries)

    def item_title(self, release: Release):
        return f"{release.version}: {change_summary(release.changes())}"

    def item_description(self, release: Release):
        return render_to_string(
            "sessions/includes/release_changes.html",
            {"release": release, "changes": self.entries[release], "site_url": settings.SITE_URL},
            using="jinja2",
        )

    def item_link(self, release: Release):
        return settings.SITE_URL + release.get_absolute_url()

    def item_pubdate(self, release: Release):
        return release.released_at

    def item_updateddate(self, release: Release):
        return release.released_at

    def item_author_name(self, release: Release):
        return self.conference.name


def conference_changes_url(conference, *, feed: bool = False) -> str:
    name = "sessions:changes-feed" if feed else "sessions:changes"
    return reverse(name, kwargs={"conference_slug": conference.slug})


class ChangeLogFeedView(ConferencePageMixin, View):
    """The feed as a shared page: cached per content version and zone, with ETags like exports."""

    same_for_every_user = True

    def get(self, request, conference_slug):
        return ChangeLogFeed(self.conference)(request)

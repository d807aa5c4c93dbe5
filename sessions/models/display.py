"""What pages, exports and messages show of a session (SessionDisplay, a mixin of Session):
its times in the conference's zone, its title as schedules print it, its labels, its Save
button; and its speakers, links and attachments as the loaders prefetched them."""

import datetime
from functools import cache

from django.utils import timezone
from django.utils.formats import date_format
from django.utils.translation import get_language, get_language_info, gettext, pgettext

from conference.i18n.timezones import TimeRange, time_range
from conference.models import Conference
from conference.routing import reverse_slugs
from sessions.models.choices import (
    AUDIENCE_LEVEL_NAMES,
    KIND_BADGES,
    KIND_LABELS,
    KIND_NAMES,
    AudienceLevel,
    Kind,
)
from sessions.models.material import Attachment, SessionLink
from speakers.models import Speaker


def local_time_range(
    conference: Conference, starts_at: datetime.datetime, ends_at: datetime.datetime
) -> str:
    """“Wednesday 8 April 2026 10:35–10:45 CEST”: how an organizer or attendee reads a slot."""
    day = date_format(timezone.localtime(starts_at, conference.tz), "l j F Y")
    return f"{day} {time_range(starts_at, ends_at, conference.tz)}"


@cache
def kind_prefix(kind: str, language: str | None) -> str:
    """“Keynote: ” in ``language`` (the active one), looked up once: a schedule prints a
    prefix per card."""
    name = str(KIND_NAMES.get(kind, KIND_LABELS.get(kind, kind)))
    # Translators: a session's title after its kind (“Keynote: The Future of PyTorch”).
    text = pgettext("a session's kind before its title", "%(kind)s: %(title)s")
    return text % {"kind": name, "title": ""}


class SessionDisplay:
    """Read-only properties for templates, exports and rule messages. The times need a placed
    session; the speakers, links and attachments are read for any session, prefetched or not."""

    @property
    def local_starts_at(self) -> datetime.datetime:
        return timezone.localtime(self.starts_at, self.conference.tz)

    @property
    def conference_day(self) -> datetime.date:
        """The conference day it belongs to: a session at 01:30 is the evening before's when
        days change at 04:00 (``Conference.day_of``)."""
        return self.conference.day_of(self.starts_at)

    @property
    def local_ends_at(self) -> datetime.datetime:
        return timezone.localtime(self.ends_at, self.conference.tz)

    @property
    def local_time_range(self) -> str:
        return local_time_range(self.conference, self.starts_at, self.ends_at)

    @property
    def local_times(self) -> TimeRange:
        """“10:35–10:45 CEST” in the conference's zone (see ``conference.i18n.timezones.time_range``)."""
        return time_range(self.starts_at, self.ends_at, self.conference.tz)

    @property
    def display_title(self) -> str:
        """The title as pages print it, after its kind in the reader's language: “Lightning
        Talk: …”, « Présentation éclair : … ». A kind its author wrote before it in English
        (“Panel: Future of APIs”, as Sched titles go) gives way to the reader's; the stored
        title is never changed. Exports print ``export_title``."""
        prefix = self.kind_prefix
        if not prefix or self.title.casefold().startswith(prefix.casefold()):
            return self.title
        return f"{prefix}{self.title_without_kind}"

    @property
    def export_title(self) -> str:
        """The title as calendar files print it, whoever downloads them: after its kind's
        English label (“Lightning Talk: …”), as schedules and importers write it."""
        if self.kind in (Kind.TALK, Kind.BREAK):
            return self.title
        prefix = f"{self.kind_label}: "
        if self.title.casefold().startswith(prefix.casefold()):  # “Panel: Future of APIs”
            return self.title
        return f"{prefix}{self.title}"

    @property
    def kind_prefix(self) -> str:
        """What goes before the title to say its kind, in the reader's language: “Keynote: ”,
        « Atelier : »; "" for talks and breaks, which have none. A grid block shows
        ``kind_badge`` in its place, and keeps this for screen readers."""
        if self.kind in (Kind.TALK, Kind.BREAK):
            return ""
        return kind_prefix(self.kind, get_language())

    @property
    def kind_badge(self) -> str:
        """The word a grid block shows for its kind in place of ``kind_prefix``
        (``title_without_kind`` follows it); "" for talks and breaks, which have no prefix."""
        if self.kind in (Kind.TALK, Kind.BREAK):
            return ""
        return str(KIND_BADGES.get(self.kind) or KIND_NAMES.get(self.kind, self.kind_label))

    @property
    def title_without_kind(self) -> str:
        """The title without a kind its author wrote before it (“Panel: Future of APIs”), in
        English as Sched writes it or in the reader's language."""
        if not self.kind_badge:
            return self.title
        for prefix in (f"{self.kind_label}: ", self.kind_prefix):
            if self.title.casefold().startswith(prefix.casefold()):
                return self.title[len(prefix) :]
        return self.title

    @property
    def kind_label(self) -> str:
        """“Lightning Talk”, as get_kind_display() says it, from a dict built once.

        Django's get_FOO_display() rebuilds the choices dict on every call, and a schedule
        prints a label per card.
        """
        return KIND_LABELS.get(self.kind, self.kind)

    @property
    def type_name(self) -> str:
        """What the session is called as a type: its own label (“Ceremony”), else its kind's."""
        return self.type_label or str(KIND_NAMES.get(self.kind, self.kind_label))

    @property
    def language_label(self) -> str:
        """“German” for de: the language's name in the active language, else the code as given."""
        try:
            return str(get_language_info(self.language.lower())["name_translated"])
        except KeyError:
            return self.language

    @property
    def audience_level_label(self) -> str:
        return str(AUDIENCE_LEVEL_NAMES.get(self.audience_level, self.audience_level))

    @property
    def card_id(self) -> str:
        """The HTML id of its card, or of its own page's article: where saving without
        JavaScript comes back to (SaveSessionView)."""
        return f"session-{self.slug}"

    @property
    def save_toggle(self) -> dict:
        """What its Save button (sessions/includes/save_toggle.html) needs: plain values, as the
        page cache keeps them for each card's button. ``label``, the words after “Save” that
        name the session for screen readers, is translated here rather than in the template:
        Jinja2's gettext wraps each call in three more, a twelfth of a 1,000-card schedule."""
        return {
            "url": reverse_slugs(
                "sessions:session-save", conference_slug=self.conference.slug, slug=self.slug
            ),
            "label": gettext("“%(title)s” to my schedule") % {"title": self.title},
            "session_id": self.pk,
            "card_id": self.card_id,
            "can_save": self.is_published,
        }

    @property
    def has_audience_level(self) -> bool:
        """Whether it names a level; “Any” goes without saying."""
        return self.audience_level != AudienceLevel.ANY

    @property
    def ordered_speakers(self) -> list[Speaker]:
        """Speakers in billing order; uses ``for_listing()``'s prefetch when present."""
        if hasattr(self, "prefetched_speakers"):
            speakers = self.prefetched_speakers
        else:
            speakers = list(
                Speaker.objects.filter(session_links__session=self).order_by(
                    "session_links__position", "session_links__pk"
                )
            )
        return speakers

    @property
    def has_attachments(self) -> bool:
        """Whether slides or material can be had: a file or a link, not a title announced alone.
        ``for_cards()`` answers it in its query."""
        if hasattr(self, "attachments_exist"):
            return self.attachments_exist
        return any(attachment.is_available for attachment in self.attachment_list)

    @property
    def link_list(self) -> list[SessionLink]:
        """Links in order; uses ``for_listing()``'s prefetch when present, and no query when
        ``page_and_parallels()`` found none."""
        if hasattr(self, "prefetched_links"):
            return self.prefetched_links
        if not getattr(self, "any_links", True):
            return []
        return list(self.links.order_by("position", "pk"))

    @property
    def attachment_list(self) -> list[Attachment]:
        """Attachments in order; uses ``for_listing()``'s prefetch when present, and no query
        when ``page_and_parallels()`` found none."""
        if hasattr(self, "prefetched_attachments"):
            return self.prefetched_attachments
        if not getattr(self, "any_attachments", True):
            return []
        return list(self.attachments.order_by("position", "pk"))

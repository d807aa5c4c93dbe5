"""Session cards as kept fragments: a schedule after an edit renders only the cards it changed.

A card (sessions/includes/session_card.html) is imported without the page's context, so what
it writes depends only on its arguments, the session it is given (its own fields, room, track,
speakers and whether slides are attached), the conference's fields, the active language and
zone. Each card is kept in the fragment store (conference/pages/fragments.py) under a digest of
exactly those: the session's, room's, track's and speakers' versions (every write moves them),
the speakers' order, the conference's fields but its ``changed_at``, and the options. The
page's copy (public or preview) is not part of it: a card cannot read who it is rendered for,
and a draft says so from its own status, which its version covers.

The card's personal parts (the Save button's state, the clash mark) stay holes: the fragment
keeps their data, and ``personal()`` fills or records them each time the card is shown.
"""

from collections.abc import Iterable, Iterator

from django.conf import settings
from django.template import engines
from django.utils import timezone, translation
from markupsafe import Markup

from conference.models import Conference
from conference.pages.fragments import FragmentKeys, HoledText, cached_fragments
from sessions.models import Session

CARD_TEMPLATE = "sessions/includes/session_card.html"


def card_macro():
    """The ``session_card`` macro, as a template imports it without context."""
    return engines["jinja2"].env.get_template(CARD_TEMPLATE).module.session_card


class SessionCards:
    """The cards of ``sessions`` (a page's list, loaded with ``for_cards()``), all drawn with
    the same ``options`` of the card macro (``zone``, ``show_day``, ``kind_badge``, ``saving``).
    ``of(session)`` is its card: from the cache when kept, else rendered once here (every card
    missing from the cache is rendered, and kept, when the page asks for the first)."""

    def __init__(self, sessions: Iterable[Session], **options):
        self.options = options
        self.sessions = {session.pk: session for session in sessions}
        self.found: dict[str, HoledText] | None = None
        limit = settings.CARD_FRAGMENT_MAX_CARDS
        if not self.sessions or (limit is not None and len(self.sessions) > limit):
            self.keys: dict[int, str] = {}  # too many to keep in each worker's memory
            return
        conference = next(iter(self.sessions.values())).conference
        keys = FragmentKeys("card", self.common(conference))
        self.keys = {pk: keys.key(card_shows(session)) for pk, session in self.sessions.items()}

    def common(self, conference: Conference) -> tuple:
        """What every card of the page shows alike: the conference, language, zone, options."""
        return (
            [
                getattr(conference, field.attname)
                for field in Conference._meta.concrete_fields
                if field.name != "changed_at"
            ],
            translation.get_language(),
            timezone.get_current_timezone_name(),
            sorted(self.options.items()),
        )

    def of(self, session: Session) -> Markup:
        key = self.keys.get(session.pk)
        if key is None:  # not kept (too many), or not among the page's sessions
            return card_macro()(session, **self.options)
        if self.found is None:
            self.found = cached_fragments(self.keys, self.render)
        return self.found[key].shown()

    def render(self, pks: list[int]) -> Iterator[dict[int, HoledText]]:
        macro, options = card_macro(), self.options
        renders = (lambda session=self.sessions[pk]: macro(session, **options) for pk in pks)
        yield dict(zip(pks, HoledText.rendered(renders), strict=True))


def card_shows(session: Session) -> tuple:
    """What a card shows of its session, by version: ``for_cards()`` loads all of it."""
    room, track = session.room, session.track
    return (
        session.pk,
        session.version,
        room and (room.pk, room.version),
        track and (track.pk, track.version),
        [(speaker.pk, speaker.version) for speaker in session.ordered_speakers],
        session.has_attachments,
    )

"""What the Save buttons of a page need to know about its visitor: the sessions they saved,
and which of those clash.

Pages of the sessions and speakers apps show session cards, each with a Save button
(``sessions/includes/save_toggle.html``) and a clash mark (``clash_mark.html``), personal parts
of an otherwise shared page.
"""

from collections.abc import Collection

from django.contrib.messages.storage.base import Message
from django.db.models import BooleanField, ExpressionWrapper

from conference.pages.holes import HoleKind, hole_kind
from conference.pages.views import visitor_messages
from sessions.models import Session, public_session
from sessions.timetable import mark_clashes


def card_messages(
    messages: list[Message], card_ids: Collection[str] | None = None
) -> tuple[list[Message], dict[str, str]]:
    """The page's messages, and apart from them those about one session card, by card id.

    Saving without JavaScript tags its “Saved.” with the card's id (SaveSessionView): the
    card's Save button shows it, where the visitor lands. ``card_ids``: the cards on the page
    when known; a message about a card not there (a session just removed from my schedule)
    stays with the page's messages.
    """
    by_card = {
        message.extra_tags: message.message
        for message in messages
        if message.extra_tags.startswith("session-")
        and (card_ids is None or message.extra_tags in card_ids)
    }
    return [message for message in messages if message.extra_tags not in by_card], by_card


def saved_session_ids(user, conference) -> tuple[frozenset[int], frozenset[int]]:
    """The sessions of ``conference`` that ``user`` saved, and those of them that overlap
    another they saved by the rule my schedule flags them with (``mark_clashes``; only sessions
    attendees may see count). One query, of their saved sessions only."""
    if not user.is_authenticated:
        return frozenset(), frozenset()
    saved = list(
        Session.objects.filter(conference=conference, saves__user=user)
        .annotate(shown=ExpressionWrapper(public_session(), output_field=BooleanField()))
        .only("starts_at", "ends_at", "status")
        .order_by("starts_at", "pk")
    )
    shown = [session for session in saved if session.shown]
    mark_clashes(shown)
    clashing = frozenset(session.pk for session in shown if session.clashes_with)
    return frozenset(session.pk for session in saved), clashing


class SaveTogglesMixin:
    """Gives the page's holes ``saved_session_ids``, the visitor's saved sessions,
    ``clashing_session_ids``, those of them that overlap another (one query for both), and
    ``card_messages``: what saving without JavaScript just did, shown in its card."""

    def personal_context(self, request) -> dict:
        saved, clashing = saved_session_ids(request.user, self.conference)
        messages, by_card = card_messages(visitor_messages(request))
        return {
            **super().personal_context(request),
            "saved_session_ids": saved,
            "clashing_session_ids": clashing,
            "messages": messages,
            "card_messages": by_card,
        }


@hole_kind
class SaveState(HoleKind):
    """A Save button's state: "saved" or "not saved". Most visitors saved none of a page's
    sessions; the buttons of those they did are rendered for them."""

    template_name = "sessions/includes/save_state.html"
    index_field = "session_id"
    usual = {"saved_session_ids": frozenset()}
    fixed_length = True
    states = ("saved", "not saved")
    examples = ({"session_id": 1, "can_save": True}, {"session_id": 1, "can_save": False})

    def state(self, data, visitor):
        saved = data["session_id"] in visitor.get("saved_session_ids", frozenset())
        return "saved" if saved else "not saved"

    def unusual(self, visitor):
        return visitor.get("saved_session_ids", ())


@hole_kind
class ClashMark(HoleKind):
    """Under a saved session's card, that it overlaps another the visitor saved: "clashes" or
    "no clash". Only the cards of sessions that clash are rendered for them."""

    template_name = "sessions/includes/clash_mark.html"
    index_field = "session_id"
    usual = {"clashing_session_ids": frozenset()}
    fixed_length = True
    states = ("clashes", "no clash")
    examples = ({"session_id": 1},)

    def state(self, data, visitor):
        clashing = data["session_id"] in visitor.get("clashing_session_ids", frozenset())
        return "clashes" if clashing else "no clash"

    def unusual(self, visitor):
        return visitor.get("clashing_session_ids", ())


@hole_kind
class SaveConfirmation(HoleKind):
    """What saving a session without JavaScript just did, beside its button: usually nothing."""

    template_name = "sessions/includes/save_confirmation.html"
    index_field = "card_id"
    usual = {"card_messages": {}}

    def state(self, data, visitor):
        return visitor.get("card_messages", {}).get(data["card_id"], "")

    def unusual(self, visitor):
        return visitor.get("card_messages", {})

"""What the Save buttons of a page need to know about its visitor: the sessions they saved,
and which of those clash.

Pages of the sessions and speakers apps show session cards, each with a Save button and a clash
mark, personal parts of an otherwise shared page (sessions/views/personal.py).
"""

from collections.abc import Collection

from django.contrib.messages.storage.base import Message
from django.db.models import BooleanField, ExpressionWrapper

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


def save_toggles(user, conference, messages: list[Message]) -> dict:
    """The context the Save buttons and clash marks of ``conference``'s cards read:
    ``saved_session_ids``, the visitor's saved sessions, ``clashing_session_ids``, those of them
    that overlap another (one query for both), and ``card_messages``: what saving without
    JavaScript just did, shown in its card, apart from the page's other ``messages``."""
    saved, clashing = saved_session_ids(user, conference)
    page_messages, by_card = card_messages(messages)
    return {
        "saved_session_ids": saved,
        "clashing_session_ids": clashing,
        "messages": page_messages,
        "card_messages": by_card,
    }

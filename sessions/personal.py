"""What the Save buttons of a page need to know about its visitor: the sessions they saved.

Pages of the sessions and speakers apps show session cards, each with a Save button
(``sessions/includes/save_toggle.html``), a personal part of an otherwise shared page.
"""

from collections.abc import Collection

from django.contrib.messages.storage.base import Message

from conference.page_cache import ReusedHoles, reused_holes, visitor_messages
from sessions.models import SavedSession


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


class SaveTogglesMixin:
    """Gives the page's holes ``saved_session_ids``, the visitor's saved sessions (one query),
    and ``card_messages``: what saving without JavaScript just did, shown in its card."""

    def personal_context(self) -> dict:
        saved = SavedSession.objects.session_ids_of(self.request.user)
        messages, by_card = card_messages(visitor_messages(self.request))
        return {
            **super().personal_context(),
            "saved_session_ids": saved,
            "messages": messages,
            "card_messages": by_card,
        }


@reused_holes
class SaveStates(ReusedHoles):
    """A Save button's state: saved or not. Most visitors saved none of a page's sessions; the
    buttons of those they did are rendered for them."""

    template_name = "sessions/includes/save_state.html"
    usual = {"saved_session_ids": frozenset()}
    index_fields = ("session_id",)

    def variant(self, context: dict):
        saved = context.get("saved_session_ids", frozenset())
        return lambda data: data["session_id"] in saved

    def unusual(self, context: dict):
        return (("session_id", pk) for pk in context.get("saved_session_ids", ()))


@reused_holes
class SaveConfirmations(ReusedHoles):
    """What saving a session without JavaScript just did, beside its button: usually nothing."""

    template_name = "sessions/includes/save_confirmation.html"
    usual = {"card_messages": {}}
    index_fields = ("card_id",)

    def variant(self, context: dict):
        confirmations = context.get("card_messages", {})
        return lambda data: confirmations.get(data["card_id"], "")

    def unusual(self, context: dict):
        return (("card_id", card_id) for card_id in context.get("card_messages", {}))

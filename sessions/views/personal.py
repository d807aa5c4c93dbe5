"""The personal parts of session cards, holes of an otherwise shared page: the state of the Save
button (``sessions/includes/save_toggle.html``), which shows the clash mark too, and what saving
just did. What they need to know of the visitor is sessions/personal.py."""

from conference.pages.holes import HoleKind, hole_kind
from conference.pages.views import visitor_messages
from sessions.personal import save_toggles


class SaveTogglesMixin:
    """Gives the page's holes what its Save buttons need of the visitor (``save_toggles``)."""

    def personal_context(self, request) -> dict:
        return {
            **super().personal_context(request),
            **save_toggles(request.user, self.conference, visitor_messages(request)),
        }


@hole_kind
class SaveState(HoleKind):
    """A Save button's state: "saved", "saved, clashes" (it overlaps another saved session, by
    my schedule's rule: the card shows its clash mark) or "not saved". Most visitors saved none
    of a page's sessions; the buttons of those they did are rendered for them."""

    template_name = "sessions/includes/save_state.html"
    index_field = "session_id"
    usual = {"saved_session_ids": frozenset(), "clashing_session_ids": frozenset()}
    fixed_length = True
    states = ("saved", "saved, clashes", "not saved")
    examples = ({"session_id": 1, "can_save": True}, {"session_id": 1, "can_save": False})

    def state(self, data, visitor):
        session_id = data["session_id"]
        if session_id not in visitor.get("saved_session_ids", frozenset()):
            return "not saved"
        clashes = session_id in visitor.get("clashing_session_ids", frozenset())
        return "saved, clashes" if clashes else "saved"

    def unusual(self, visitor):
        return visitor.get("saved_session_ids", ())


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

"""What the Save buttons of a page need to know about its visitor: the sessions they saved.

Pages of the sessions and speakers apps show session cards, each with a Save button
(``sessions/includes/save_toggle.html``), a personal part of an otherwise shared page.
"""

from sessions.models import SavedSession


class SaveTogglesMixin:
    """Gives the page's holes ``saved_session_ids``, the visitor's saved sessions (one query)."""

    def personal_context(self) -> dict:
        saved = SavedSession.objects.of(self.request.user, self.conference)
        return {
            **super().personal_context(),
            "saved_session_ids": set(saved.values_list("session_id", flat=True)),
        }

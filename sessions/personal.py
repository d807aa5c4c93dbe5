"""What the Save buttons of a page need to know about its visitor: the sessions they saved.

Pages of the sessions and speakers apps show session cards, each with a Save button
(``sessions/includes/save_toggle.html``), a personal part of an otherwise shared page.
"""

from django.utils.functional import SimpleLazyObject

from sessions.models import SavedSession


class SaveTogglesMixin:
    """Gives the page's holes ``saved_session_ids``: one query, made only if a button is shown."""

    def personal_context(self) -> dict:
        user, conference = self.request.user, self.conference
        saved_ids = SimpleLazyObject(
            lambda: set(
                SavedSession.objects.of(user, conference).values_list("session_id", flat=True)
            )
        )
        return {**super().personal_context(), "saved_session_ids": saved_ids}

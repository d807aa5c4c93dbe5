from contextlib import suppress

from django.contrib.auth.signals import user_logged_in
from django.core.exceptions import ValidationError
from django.dispatch import receiver

from sessions.models import SavedSession, Session


@receiver(user_logged_in)
def save_the_session_chosen_before_login(sender, request, user, **kwargs):
    """An anonymous visitor clicked “save”, then logged in or signed up: finish what they asked."""
    from sessions.my_schedule import PENDING_SAVE_KEY

    pk = request.session.pop(PENDING_SAVE_KEY, None) if request is not None else None
    session = (
        Session.objects.public().select_related("conference").filter(pk=pk).first() if pk else None
    )
    if session is not None:
        with suppress(ValidationError):  # unpublished meanwhile: nothing to save
            SavedSession.objects.add(user, session)

"""Receivers of the sessions app.

A write to a session, its speakers, links or attachments moves its conference's changed_at (rooms and
tracks: conference/signals.py); a save chosen before logging in is finished after it. A
conference published for the first time keeps its public schedule as its baseline release.
What webhooks are told of saved sessions and releases: sessions/api/webhooks.py.
"""

from contextlib import suppress

from django.contrib.auth.signals import user_logged_in
from django.core.exceptions import ValidationError
from django.db.models.signals import post_delete, post_save, pre_save
from django.dispatch import receiver

from conference.models import Conference
from sessions.models import (
    PENDING_SAVE_KEY,
    Attachment,
    Call,
    SavedSession,
    Session,
    SessionLink,
    SessionSpeaker,
)
from sessions.releases import baseline_schedule


@receiver([post_save, post_delete], sender=Session)
def session_changed(sender, instance, **kwargs):
    Conference.mark_changed(instance.conference_id)


@receiver(post_save, sender=Session)
def session_slug_changed(sender, instance, created, raw=False, **kwargs):
    if not raw:
        instance.remember_former_slug()


@receiver(pre_save, sender=Session)
def remember_whether_cancelling(sender, instance, raw=False, **kwargs):
    # Asked only of a session saved as cancelled, so other saves cost no query.
    instance._cancelling = (
        not raw
        and instance.status == Session.Status.CANCELLED
        and (
            instance.pk is None
            or not Session.objects.filter(pk=instance.pk, status=Session.Status.CANCELLED).exists()
        )
    )


@receiver([post_save, post_delete], sender=Call)
def call_changed(sender, instance, **kwargs):
    """The conference's page links to its call while it has one."""
    Conference.mark_changed(instance.conference_id)


@receiver([post_save, post_delete], sender=SessionSpeaker)
@receiver([post_save, post_delete], sender=Attachment)
@receiver([post_save, post_delete], sender=SessionLink)
def session_part_changed(sender, instance, **kwargs):
    Conference.objects.filter(sessions=instance.session_id).mark_changed()


@receiver(post_save, sender=Conference)
def conference_published(sender, instance, raw=False, **kwargs):
    # raw: loaddata; load_demo baselines its conference once the fixture is in.
    if not raw and instance.is_published:
        baseline_schedule(instance)


@receiver(user_logged_in)
def save_the_session_chosen_before_login(sender, request, user, **kwargs):
    """An anonymous visitor clicked “save”, then logged in or signed up: finish what they asked."""
    pk = request.session.pop(PENDING_SAVE_KEY, None) if request is not None else None
    session = (
        Session.objects.public().select_related("conference").filter(pk=pk).first() if pk else None
    )
    if session is not None:
        with suppress(ValidationError):  # unpublished meanwhile: nothing to save
            SavedSession.objects.add(user, session)

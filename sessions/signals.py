"""Receivers of the sessions app.

A write to a session, its speakers, links or attachments moves its conference's changed_at (rooms and
tracks: conference/signals.py); a save chosen before logging in is finished after it. A
conference published for the first time keeps its public schedule as its baseline release.
Saved sessions and released schedules are told to the conference's webhooks once committed.
"""

from contextlib import suppress

from django.contrib.auth.signals import user_logged_in
from django.core.exceptions import ValidationError
from django.db.models.signals import post_delete, post_save, pre_save
from django.dispatch import receiver
from django.urls import reverse

from conference.models import Conference
from conference.webhooks.delivery import Event, object_reference, record_event, send_event
from sessions.models import (
    Attachment,
    Release,
    SavedSession,
    Session,
    SessionLink,
    SessionSpeaker,
)
from sessions.releases import baseline_schedule, schedule_released


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


@receiver(post_save, sender=Session)
def tell_webhooks_of_session(sender, instance, raw=False, **kwargs):
    if raw:
        return
    cancelling = getattr(instance, "_cancelling", False)
    event = Event.SESSION_CANCELLED if cancelling else Event.SESSION_CHANGED
    record_event(
        event,
        instance.conference_id,
        f"session:{instance.pk}",
        lambda: object_reference("session", instance, session_api_path(instance)),
    )


def session_api_path(session: Session) -> str:
    return reverse(
        "api:session-detail",
        kwargs={"conference_slug": session.conference.slug, "slug": session.slug},
    )


@receiver(schedule_released)
def tell_webhooks_of_release(sender, release: Release, **kwargs):
    from sessions.api.serializers import ReleaseSerializer

    def data():
        context = {"conference": release.conference}
        return {
            "type": "release",
            "id": release.pk,
            **ReleaseSerializer(release, context=context).data,
        }

    # Sent once the release is committed: nothing to wait for.
    send_event(Event.RELEASE_PUBLISHED, release.conference_id, f"release:{release.pk}", data)


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
    from sessions.views.my_schedule import PENDING_SAVE_KEY

    pk = request.session.pop(PENDING_SAVE_KEY, None) if request is not None else None
    session = (
        Session.objects.public().select_related("conference").filter(pk=pk).first() if pk else None
    )
    if session is not None:
        with suppress(ValidationError):  # unpublished meanwhile: nothing to save
            SavedSession.objects.add(user, session)

"""What the conference's webhooks are told of sessions and releases: a saved session (changed or
cancelled) and a published release, in the API's own representation, once committed
(conference/webhooks/delivery.py records and sends them). Connected by SessionsConfig.ready()."""

from django.db.models.signals import post_save
from django.dispatch import receiver
from django.urls import reverse

from conference.webhooks.delivery import Event, object_reference, record_event, send_event
from sessions.api.serializers import ReleaseSerializer
from sessions.models import Release, Session
from sessions.releases import schedule_released


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
    def data():
        context = {"conference": release.conference}
        return {
            "type": "release",
            "id": release.pk,
            **ReleaseSerializer(release, context=context).data,
        }

    # Sent once the release is committed: nothing to wait for.
    send_event(Event.RELEASE_PUBLISHED, release.conference_id, f"release:{release.pk}", data)

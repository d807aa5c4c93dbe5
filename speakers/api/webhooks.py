"""What the conference's webhooks are told of speakers: a saved speaker, once committed
(conference/webhooks/delivery.py records and sends it). Connected by SpeakersConfig.ready()."""

from django.db.models.signals import post_save
from django.dispatch import receiver
from django.urls import reverse

from conference.webhooks.delivery import Event, object_reference, record_event
from speakers.models import Speaker


@receiver(post_save, sender=Speaker)
def tell_webhooks_of_speaker(sender, instance, raw=False, **kwargs):
    if raw:
        return

    def data():
        path = reverse(
            "api:speaker-detail",
            kwargs={"conference_slug": instance.conference.slug, "slug": instance.slug},
        )
        return object_reference("speaker", instance, path)

    record_event(Event.SPEAKER_CHANGED, instance.conference_id, f"speaker:{instance.pk}", data)

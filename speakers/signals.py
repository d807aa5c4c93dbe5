"""A write to a speaker, their links or availability moves the conference's changed_at (see
conference/signals.py); a saved speaker is told to the conference's webhooks once committed."""

from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver
from django.urls import reverse

from conference.models import Conference
from conference.webhooks.delivery import Event, object_reference, record_event
from speakers.models import Availability, Speaker, SpeakerLink


@receiver([post_save, post_delete], sender=Speaker)
def speaker_changed(sender, instance, **kwargs):
    Conference.mark_changed(instance.conference_id)


@receiver(post_save, sender=Speaker)
def speaker_slug_changed(sender, instance, created, raw=False, **kwargs):
    if not raw:
        instance.remember_former_slug()


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


@receiver([post_save, post_delete], sender=SpeakerLink)
def speaker_link_changed(sender, instance, **kwargs):
    Conference.objects.filter(speakers=instance.speaker_id).mark_changed()


@receiver([post_save, post_delete], sender=Availability)
def availability_changed(sender, instance, **kwargs):
    Conference.objects.filter(speakers=instance.speaker_id).mark_changed()

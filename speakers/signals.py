"""A write to a speaker, their links or availability moves the conference's changed_at (see
conference/signals.py). What webhooks are told of a saved speaker: speakers/api/webhooks.py."""

from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver

from conference.models import Conference
from speakers.models import Availability, Speaker, SpeakerLink


@receiver([post_save, post_delete], sender=Speaker)
def speaker_changed(sender, instance, **kwargs):
    Conference.mark_changed(instance.conference_id)


@receiver(post_save, sender=Speaker)
def speaker_slug_changed(sender, instance, created, raw=False, **kwargs):
    if not raw:
        instance.remember_former_slug()


@receiver([post_save, post_delete], sender=SpeakerLink)
def speaker_link_changed(sender, instance, **kwargs):
    Conference.objects.filter(speakers=instance.speaker_id).mark_changed()


@receiver([post_save, post_delete], sender=Availability)
def availability_changed(sender, instance, **kwargs):
    Conference.objects.filter(speakers=instance.speaker_id).mark_changed()

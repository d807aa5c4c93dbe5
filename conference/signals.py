"""What changes a conference's public content: any write to it moves Conference.changed_at.

Signals fire for the admin, its bulk actions and deletes, the API and the importer alike, so no
writer can forget. (QuerySet.update() sends no signals; code that uses it must call
Conference.mark_changed() itself.)
"""

from django.conf import settings
from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver
from django.utils import timezone
from rest_framework.authtoken.models import Token

from conference.models import Conference, Room, Track
from sessions.models import Attachment, Session, SessionSpeaker
from speakers.models import Speaker, SpeakerLink


@receiver([post_save, post_delete], sender=Room)
@receiver([post_save, post_delete], sender=Track)
@receiver([post_save, post_delete], sender=Session)
@receiver([post_save, post_delete], sender=Speaker)
def conference_part_changed(sender, instance, **kwargs):
    Conference.mark_changed(instance.conference_id)


@receiver([post_save, post_delete], sender=SessionSpeaker)
@receiver([post_save, post_delete], sender=Attachment)
def session_part_changed(sender, instance, **kwargs):
    Conference.objects.filter(sessions=instance.session_id).update(changed_at=timezone.now())


@receiver([post_save, post_delete], sender=SpeakerLink)
def speaker_part_changed(sender, instance, **kwargs):
    Conference.objects.filter(speakers=instance.speaker_id).update(changed_at=timezone.now())


@receiver(post_save, sender=settings.AUTH_USER_MODEL)
def revoke_api_tokens_on_password_change(sender, instance, created, **kwargs):
    """A new password ends every API token: whoever learnt the old one keeps nothing."""
    # set_password() keeps the raw password in _password until save() has finished.
    if not created and getattr(instance, "_password", None) is not None:
        Token.objects.filter(user=instance).delete()

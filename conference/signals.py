"""What changes a conference's public content: any write to it moves Conference.changed_at.

Signals fire for the admin, its bulk actions and deletes, the API and the importer alike, so no
writer can forget. Each app connects the receivers of its own models: rooms and tracks here,
sessions/signals.py and speakers/signals.py the rest. Bulk writes (``update()``,
``bulk_create()``, ``bulk_update()``) send no signals: the same models' QuerySets move
changed_at for them (``ChangesConferenceQuerySet`` in conference/content_version.py).
"""

from django.conf import settings
from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver

from conference.models import ApiToken, Conference, Room, Track


@receiver([post_save, post_delete], sender=Room)
@receiver([post_save, post_delete], sender=Track)
def conference_part_changed(sender, instance, **kwargs):
    Conference.mark_changed(instance.conference_id)


@receiver(post_save, sender=settings.AUTH_USER_MODEL)
def revoke_api_tokens_on_password_change(sender, instance, created, **kwargs):
    """A new password ends every API token: whoever learnt the old one keeps nothing."""
    # set_password() keeps the raw password in _password until save() has finished.
    if not created and getattr(instance, "_password", None) is not None:
        ApiToken.objects.filter(user=instance).delete()

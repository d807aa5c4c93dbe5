"""What kinds of session there are, their audience levels and statuses (``Session.Kind``,
``Session.AudienceLevel``, ``Session.Status``), and what each is called; and the order every
schedule lists sessions in (``SCHEDULE_ORDER``).

At module level, so that the session's queries (``queries.py``, ``loaders.py``) and its model
read the same choices and order without importing each other.
"""

from django.db import models
from django.utils.translation import gettext_lazy, pgettext_lazy

# How every schedule lists sessions: by start, parallel sessions in room order, then by title.
SCHEDULE_ORDER = ("starts_at", "room__position", "title")


class Kind(models.TextChoices):
    KEYNOTE = "keynote", "Keynote"
    TALK = "talk", "Talk"
    LIGHTNING_TALK = "lightning-talk", "Lightning Talk"
    PANEL = "panel", "Panel"
    WORKSHOP = "workshop", "Workshop"
    BREAK = "break", "Break"


class AudienceLevel(models.TextChoices):
    ANY = "any", "Any"
    BEGINNER = "beginner", "Beginner"
    INTERMEDIATE = "intermediate", "Intermediate"
    ADVANCED = "advanced", "Advanced"


class Status(models.TextChoices):
    DRAFT = "draft", gettext_lazy("Draft")
    PUBLISHED = "published", gettext_lazy("Published")
    CANCELLED = "cancelled", gettext_lazy("Cancelled")


KIND_LABELS = dict(Kind.choices)
# What pages call each kind and level, in the visitor's language (docs/i18n.md). The English
# labels above stay in exports, the API, the admin and titles (“Lightning Talk: …”), where
# importers and other programs read them.
KIND_NAMES = {
    Kind.KEYNOTE: pgettext_lazy("session kind", "Keynote"),
    Kind.TALK: pgettext_lazy("session kind", "Talk"),
    Kind.LIGHTNING_TALK: pgettext_lazy("session kind", "Lightning Talk"),
    Kind.PANEL: pgettext_lazy("session kind", "Panel"),
    Kind.WORKSHOP: pgettext_lazy("session kind", "Workshop"),
    Kind.BREAK: pgettext_lazy("session kind", "Break"),
}
AUDIENCE_LEVEL_NAMES = {
    AudienceLevel.ANY: pgettext_lazy("audience level", "Any"),
    AudienceLevel.BEGINNER: pgettext_lazy("audience level", "Beginner"),
    AudienceLevel.INTERMEDIATE: pgettext_lazy("audience level", "Intermediate"),
    AudienceLevel.ADVANCED: pgettext_lazy("audience level", "Advanced"),
}
# Badges shorter than their kind's name (Session.kind_badge); the others show the name.
KIND_BADGES = {Kind.LIGHTNING_TALK: pgettext_lazy("session kind", "Lightning")}
# How long a session of each kind takes when nobody said otherwise (Session.planned_length).
USUAL_MINUTES = {
    Kind.KEYNOTE: 45,
    Kind.TALK: 30,
    Kind.LIGHTNING_TALK: 10,
    Kind.PANEL: 45,
    Kind.WORKSHOP: 90,
    Kind.BREAK: 30,
}
AUDIENCE_LEVEL_LABELS = dict(AudienceLevel.choices)

import uuid

from django.conf import settings
from django.db import models
from django.urls import reverse

from conference.models import Conference, FormerSlug, KeepsFormerSlugs
from conference.routing import reverse_slugs
from conference.uploads import FileKindValidator, RandomName
from conference.versioning import Versioned, VersionedQuerySet


class SpeakerQuerySet(VersionedQuerySet):
    def get_by_natural_key(self, conference_slug, slug):
        return self.get(conference__slug=conference_slug, slug=slug)

    def giving(self, sessions):
        """Speakers of any of ``sessions`` (a Session queryset), each once.

        A subquery rather than a join with DISTINCT: on SQLite the join compared every speaker
        with every session (2.4 s of a 5 s page at 3,000 sessions).
        """
        return self.filter(pk__in=sessions.values("speakers"))

    def with_sessions(self, sessions) -> list["Speaker"]:
        """These speakers, each with ``visible_sessions``: theirs among ``sessions``, in its order.

        Two queries for any number of speakers. prefetch_related would narrow the sessions with
        ``speaker_id IN (every speaker)``, which SQLite answers by probing every session's links
        once per speaker: 170 ms of a 1,000-session speakers page, against 20 ms this way.
        """
        speakers = list(self)
        sessions_of = {speaker.pk: [] for speaker in speakers}
        for session in sessions.annotate(listed_speaker_id=models.F("session_speakers__speaker")):
            if session.listed_speaker_id in sessions_of:
                sessions_of[session.listed_speaker_id].append(session)
        for speaker in speakers:
            speaker.visible_sessions = sessions_of[speaker.pk]
        return speakers

    def search(self, text: str):
        """Speakers whose name, company or role contains ``text``."""
        return self.filter(
            models.Q(name__icontains=text)
            | models.Q(company__icontains=text)
            | models.Q(role__icontains=text)
        )


def new_guid() -> str:
    return str(uuid.uuid4())


class Speaker(KeepsFormerSlugs, Versioned):
    conference = models.ForeignKey(Conference, on_delete=models.CASCADE, related_name="speakers")
    # Published in exports and matched by importers; never changes.
    guid = models.CharField("GUID", max_length=64, default=new_guid, editable=False)
    name = models.CharField(max_length=200)
    slug = models.SlugField(max_length=200)
    role = models.CharField(
        "role or title",
        max_length=200,
        blank=True,
        help_text="For example “Senior Software Engineer”.",
    )
    company = models.CharField(max_length=200, blank=True)
    bio = models.TextField(blank=True, help_text="Markdown.")
    photo = models.ImageField(
        upload_to=RandomName("speakers", "photo"),
        blank=True,
        validators=[FileKindValidator("images", max_bytes=5 * 1024 * 1024)],
        help_text="PNG, JPEG or WebP; 5 MB at most.",
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="speaker_profiles",
        help_text="The speaker's own account on this site, if they have one.",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = SpeakerQuerySet.as_manager()

    class Meta:
        ordering = ["conference", "name"]
        constraints = [
            models.UniqueConstraint(
                fields=["conference", "slug"],
                name="speaker_slug_unique_per_conference",
                violation_error_message="This conference already has a speaker with this slug.",
            ),
            models.UniqueConstraint(
                fields=["conference", "guid"],
                name="speaker_guid_unique_per_conference",
                violation_error_message="This conference already has a speaker with this GUID.",
            ),
            models.UniqueConstraint(
                fields=["conference", "user"],
                name="speaker_user_once_per_conference",
                violation_error_message="This account is already linked to another speaker of this conference.",
            ),
        ]

    def __str__(self):
        return self.name

    def get_absolute_url(self):
        return reverse_slugs(
            "speakers:speaker-detail", conference_slug=self.conference.slug, slug=self.slug
        )

    def natural_key(self):
        return (self.conference.slug, self.slug)

    natural_key.dependencies = ["conference.conference"]

    def displayed_values(self) -> dict[str, str]:
        """Its fields and, as its change form edits them too, its links."""
        links = "; ".join(f"{link.title}: {link.url}" for link in self.links.all())
        return {**super().displayed_values(), "links": links}

    @property
    def photo_url(self) -> str:
        if not self.photo:
            return ""
        return reverse(
            "speakers:speaker-photo",
            kwargs={"conference_slug": self.conference.slug, "slug": self.slug},
        )

    @property
    def affiliation(self) -> str:
        """“Role, Company” as schedules print it under a name."""
        return ", ".join(part for part in (self.role, self.company) if part)


class FormerSpeakerSlug(FormerSlug):
    speaker = models.ForeignKey(Speaker, on_delete=models.CASCADE, related_name="former_slugs")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["speaker", "slug"], name="former_speaker_slug_once")
        ]


class SpeakerLink(models.Model):
    speaker = models.ForeignKey(Speaker, on_delete=models.CASCADE, related_name="links")
    title = models.CharField(
        max_length=100, help_text="For example “Website”, “GitHub”, “Mastodon”."
    )
    url = models.URLField("URL")
    position = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["speaker", "position", "pk"]

    def __str__(self):
        return f"{self.title}: {self.url}"

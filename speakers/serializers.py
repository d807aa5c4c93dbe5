from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from conference.serializers import (
    FullCleanMixin,
    StrictTypesMixin,
    UTCDateTimeField,
    absolute_url,
    conference_field,
)
from speakers.models import Speaker, SpeakerLink

NULLABLE_URI = {"type": "string", "format": "uri", "nullable": True}


class SpeakerSummarySerializer(serializers.ModelSerializer):
    """How a session names its speakers."""

    class Meta:
        model = Speaker
        fields = ["id", "slug", "name", "company"]
        read_only_fields = fields


class SpeakerLinkSerializer(serializers.ModelSerializer):
    class Meta:
        model = SpeakerLink
        fields = ["title", "url"]
        read_only_fields = fields


class SpeakerSerializer(FullCleanMixin, StrictTypesMixin, serializers.ModelSerializer):
    """A whole speaker. Photos and links are managed in the admin."""

    conference = conference_field()
    photo = serializers.SerializerMethodField(help_text="Absolute URL of the photo, if any.")
    links = SpeakerLinkSerializer(many=True, read_only=True)
    url = serializers.SerializerMethodField(help_text="The speaker's page on this site.")
    created_at = UTCDateTimeField(read_only=True)
    updated_at = UTCDateTimeField(read_only=True)

    class Meta:
        model = Speaker
        fields = [
            "id",
            "conference",
            "guid",
            "slug",
            "name",
            "role",
            "company",
            "bio",
            "photo",
            "links",
            "url",
            "created_at",
            "updated_at",
        ]
        read_only_fields = ["guid"]

    @extend_schema_field(NULLABLE_URI)
    def get_photo(self, speaker):
        return absolute_url(speaker.photo_url)

    def get_url(self, speaker) -> str:
        return absolute_url(speaker.get_absolute_url())

from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import transaction
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework.fields import empty
from rest_framework.settings import api_settings

from conference.api.serializers import (
    ConferenceDateTimeField,
    FullCleanMixin,
    StrictTypesMixin,
    UTCDateTimeField,
    conference_field,
)
from conference.routing import absolute_url
from speakers.models import (
    MAX_AVAILABILITY_WINDOWS,
    Availability,
    Speaker,
    SpeakerLink,
    refuse_overlapping_windows,
)

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
            "avatar_url",
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


def window_messages(detail) -> list[str]:
    """The errors of a list of windows as plain messages naming the window (“Window 2: …”).

    DRF nests them (by window, then by field), which the API's documented 400 body does not allow.
    """
    if isinstance(detail, list):  # about the list itself: null
        return [str(message) for message in detail]
    messages = []
    for key, problems in detail.items():
        if not isinstance(key, int):  # about the list itself: not a list, too long
            messages.extend(str(message) for message in problems)
            continue
        if not isinstance(problems, dict):  # about the window as a whole, e.g. null
            problems = {api_settings.NON_FIELD_ERRORS_KEY: problems}
        for name, field_messages in problems.items():
            where = f"Window {key + 1}"
            if name != api_settings.NON_FIELD_ERRORS_KEY:
                where += f", {name}"
            messages.extend(f"{where}: {message}" for message in field_messages)
    return messages


class AvailabilityListSerializer(serializers.ListSerializer):
    def run_validation(self, data=empty):
        try:
            return super().run_validation(data)
        except serializers.ValidationError as error:
            raise serializers.ValidationError(window_messages(error.detail)) from None


class AvailabilityWindowSerializer(serializers.ModelSerializer):
    starts_at = ConferenceDateTimeField(
        help_text="ISO 8601; without an offset it is read in the conference's time zone."
    )
    ends_at = ConferenceDateTimeField(
        help_text="ISO 8601; without an offset it is read in the conference's time zone."
    )

    class Meta:
        model = Availability
        fields = ["starts_at", "ends_at"]
        list_serializer_class = AvailabilityListSerializer

    def validate(self, attrs):
        # A PATCH leaves out what it does not change, and DRF passes that on to nested objects;
        # but each window replaces a stored one whole.
        missing = {
            name: [field.error_messages["required"]]
            for name, field in self.fields.items()
            if name not in attrs
        }
        if missing:
            raise serializers.ValidationError(missing)
        return attrs


class SpeakerWithAvailabilitySerializer(SpeakerSerializer):
    """A whole speaker and, for staff, the times they can give sessions."""

    availability = AvailabilityWindowSerializer(
        many=True,
        required=False,
        max_length=MAX_AVAILABILITY_WINDOWS,
        help_text=(
            "Staff only: absent for everyone else, and ignored in their writes. When the speaker "
            "can give sessions; none means at any time. The planner warns about a session "
            f"outside them. Replaces the current windows (at most {MAX_AVAILABILITY_WINDOWS}); "
            "leave it out to keep them."
        ),
    )

    class Meta(SpeakerSerializer.Meta):
        fields = [*SpeakerSerializer.Meta.fields, "availability"]

    def get_fields(self):
        fields = super().get_fields()
        if not self.shows_availability():
            del fields["availability"]
        return fields

    def shows_availability(self) -> bool:
        if getattr(self.context.get("view"), "swagger_fake_view", False):
            return True  # the schema documents the field
        request, conference = self.context.get("request"), self.context.get("conference")
        return request is not None and request.user.has_perm(
            "speakers.view_availability", conference
        )

    def validate(self, attrs):
        windows = attrs.pop("availability", None)
        attrs = super().validate(attrs)
        if windows is not None:
            speaker = self.instance or Speaker(conference=self.context["conference"])
            attrs["availability"] = self.checked_windows(speaker, windows)
        return attrs

    def checked_windows(self, speaker: Speaker, windows: list[dict]) -> list[Availability]:
        """The windows as rows of ``speaker``, each through the model's rules, or a 400 naming them."""
        rows, problems = [], []
        for number, window in enumerate(windows, start=1):
            row = Availability(speaker=speaker, **window)
            try:
                row.full_clean(exclude=["speaker"])
            except DjangoValidationError as error:
                problems.extend(f"Window {number}: {message}" for message in error.messages)
            rows.append(row)
        if not problems:
            try:
                refuse_overlapping_windows(rows, speaker.conference.tz)
            except DjangoValidationError as error:
                problems.extend(error.messages)
        if problems:
            raise serializers.ValidationError({"availability": problems})
        return rows

    def create(self, validated_data):
        windows = validated_data.pop("availability", None)
        with transaction.atomic():
            speaker = super().create(validated_data)
            if windows is not None:
                self.replace_availability(speaker, windows)
        return speaker

    def update(self, instance, validated_data):
        windows = validated_data.pop("availability", None)
        with transaction.atomic():
            speaker = super().update(instance, validated_data)
            if windows is not None:
                self.replace_availability(speaker, windows)
        return speaker

    def replace_availability(self, speaker: Speaker, windows: list[Availability]) -> None:
        speaker.availability.all().delete()
        for window in windows:
            window.speaker = speaker
        Availability.objects.bulk_create(windows)  # moves the conference's changed_at too

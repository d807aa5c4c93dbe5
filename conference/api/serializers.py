"""API serializers for conferences, rooms and tracks, and the pieces every API serializer shares."""

import copy
import datetime
import re

from django.urls import reverse
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework.relations import MANY_RELATION_KWARGS, ManyRelatedField

from conference.models import Conference, Room, Track
from conference.routing import absolute_url


class FullCleanMixin:
    """Runs the model's own rules (``full_clean()``), as the admin's ModelForm does."""

    def validate(self, attrs):
        attrs = super().validate(attrs)
        model = self.Meta.model
        instance = copy.copy(self.instance) if self.instance else model()
        for name, value in attrs.items():
            if not model._meta.get_field(name).many_to_many:
                setattr(instance, name, value)
        # Skip fields the serializer does not expose, as a ModelForm does.
        instance.full_clean(
            exclude=[f.name for f in model._meta.fields if f.name not in self.fields]
        )
        return attrs


def strict(field_class: type[serializers.Field], json_type: type) -> type[serializers.Field]:
    """``field_class`` refusing JSON values of another type, which DRF would convert (12 → "12")."""

    def to_internal_value(self, data):
        if not isinstance(data, json_type) or isinstance(data, bool):
            self.fail("invalid")
        return field_class.to_internal_value(self, data)

    return type(field_class.__name__, (field_class,), {"to_internal_value": to_internal_value})


class StrictTypesMixin:
    """Model fields become serializer fields that take only the JSON type the schema documents."""

    serializer_field_mapping = {
        model_field: strict(field, str)
        if issubclass(field, serializers.CharField)
        else strict(field, int)
        if issubclass(field, serializers.IntegerField)
        else field
        for model_field, field in serializers.ModelSerializer.serializer_field_mapping.items()
    }


class SlugListField(ManyRelatedField):
    """Several objects named by slugs, as a JSON array (DRF would also iterate an object's keys)."""

    def to_internal_value(self, data):
        if not isinstance(data, list):
            self.fail("not_a_list", input_type=type(data).__name__)
        return super().to_internal_value(data)


class SlugLookupField(serializers.SlugRelatedField):
    """An object named by its slug, which must be a JSON string."""

    default_error_messages = {"blank": "Give a slug, or null for none."}

    def __init__(self, **kwargs):
        super().__init__(slug_field="slug", **kwargs)

    def run_validation(self, data=serializers.empty):
        # DRF reads "" as null for a relation; the schema asks for a slug or null, so "" is
        # refused rather than quietly taken for "none".
        if data == "":
            self.fail("blank")
        return super().run_validation(data)

    @classmethod
    def many_init(cls, *args, **kwargs):
        shared = {key: value for key, value in kwargs.items() if key in MANY_RELATION_KWARGS}
        return SlugListField(child_relation=cls(*args, **kwargs), **shared)

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


class CurrentConferenceDefault:
    """The conference named in the URL: writes never take it from the body."""

    requires_context = True

    def __call__(self, serializer_field):
        return serializer_field.context["conference"]

    def __repr__(self):
        return f"{self.__class__.__name__}()"


def conference_field() -> serializers.HiddenField:
    return serializers.HiddenField(default=CurrentConferenceDefault())


class ConferenceSlugRelatedField(SlugLookupField):
    """A room, track or speaker given by its slug, looked up in the conference of the URL."""

    def __init__(self, **kwargs):
        kind = kwargs["queryset"].model._meta.verbose_name
        kwargs.setdefault(
            "error_messages",
            {"does_not_exist": f"This conference has no {kind} with the slug “{{value}}”."},
        )
        super().__init__(**kwargs)

    def get_queryset(self):
        return super().get_queryset().filter(conference=self.context["conference"])


# A date and a time (an offset or not); Python's ISO parser also reads a date alone as midnight.
DATE_AND_TIME = re.compile(r"\s*\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}")


class DateAndTimeMixin:
    """A date-time, as the schema says: a date alone (2026-04-07) is refused, not read as
    midnight."""

    def to_internal_value(self, value):
        if isinstance(value, str) and not DATE_AND_TIME.match(value):
            self.fail("invalid", format="YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z]")
        return super().to_internal_value(value)


class UTCDateTimeField(DateAndTimeMixin, serializers.DateTimeField):
    """ISO 8601 in UTC whatever zone is active (a visitor's ?tz= choice must not leak in here)."""

    def __init__(self, **kwargs):
        super().__init__(default_timezone=datetime.UTC, **kwargs)


class ConferenceDateTimeField(DateAndTimeMixin, serializers.DateTimeField):
    """ISO 8601; a time given without an offset is read in the conference's zone, as in the admin.

    Given back in UTC, as every time in the API.
    """

    utc = UTCDateTimeField()

    def default_timezone(self):
        return self.context["conference"].tz

    def enforce_timezone(self, value):
        try:
            return super().enforce_timezone(value)
        except OverflowError:  # DRF's check of 0001-01-01 00:00 in a zone east of UTC
            self.fail("overflow")

    def to_representation(self, value):
        return self.utc.to_representation(value)


class BlankAsNullMixin:
    """An optional URL or address left empty reads as null, not as an invalid empty URL."""

    def __init__(self, **kwargs):
        super().__init__(read_only=True, allow_null=True, **kwargs)

    def to_representation(self, value):
        return super().to_representation(value) if value else None


class OptionalURLField(BlankAsNullMixin, serializers.URLField):
    pass


class OptionalEmailField(BlankAsNullMixin, serializers.EmailField):
    pass


@extend_schema_field(
    {"type": "string", "pattern": "^([01][0-9]|2[0-3]):[0-5][0-9]$", "example": "04:00"}
)
class ClockTimeField(serializers.TimeField):
    """A time of day as clocks show it, "04:00": JSON Schema's "time" format demands an offset."""

    def __init__(self, **kwargs):
        super().__init__(format="%H:%M", **kwargs)


class ConferenceSerializer(serializers.ModelSerializer):
    time_zone = serializers.CharField(
        read_only=True, help_text="IANA zone of the venue, in which attendees read the times."
    )
    registration_url = OptionalURLField()
    help_url = OptionalURLField(help_text="Where attendees get help with the event.")
    contact_email = OptionalEmailField()
    logo_url = OptionalURLField()
    day_change = ClockTimeField(
        read_only=True,
        help_text="Sessions starting before this time of night count as the day before "
        "(frab's day_change).",
    )
    url = serializers.SerializerMethodField(help_text="The conference's page on this site.")
    rooms_url = serializers.SerializerMethodField()
    tracks_url = serializers.SerializerMethodField()
    sessions_url = serializers.SerializerMethodField()
    speakers_url = serializers.SerializerMethodField()
    created_at = UTCDateTimeField(read_only=True)
    updated_at = UTCDateTimeField(read_only=True)

    class Meta:
        model = Conference
        fields = [
            "id",
            "slug",
            "name",
            "starts_on",
            "ends_on",
            "day_change",
            "time_zone",
            "venue",
            "city",
            "description",
            "registration_url",
            "help_url",
            "contact_email",
            "colour",
            "logo_url",
            "is_published",
            "url",
            "rooms_url",
            "tracks_url",
            "sessions_url",
            "speakers_url",
            "created_at",
            "updated_at",
        ]
        read_only_fields = fields

    def get_url(self, conference) -> str:
        return absolute_url(conference.get_absolute_url())

    def nested_url(self, conference, name: str) -> str:
        return absolute_url(reverse(f"api:{name}", kwargs={"conference_slug": conference.slug}))

    def get_rooms_url(self, conference) -> str:
        return self.nested_url(conference, "room-list")

    def get_tracks_url(self, conference) -> str:
        return self.nested_url(conference, "track-list")

    def get_sessions_url(self, conference) -> str:
        return self.nested_url(conference, "session-list")

    def get_speakers_url(self, conference) -> str:
        return self.nested_url(conference, "speaker-list")


class RoomSerializer(FullCleanMixin, StrictTypesMixin, serializers.ModelSerializer):
    conference = conference_field()

    class Meta:
        model = Room
        fields = [
            "id",
            "conference",
            "slug",
            "name",
            "kind",
            "capacity",
            "position",
            "description",
            "guid",
        ]


class TrackSerializer(FullCleanMixin, StrictTypesMixin, serializers.ModelSerializer):
    conference = conference_field()

    class Meta:
        model = Track
        fields = ["id", "conference", "slug", "name", "colour", "description"]


class RoomSummarySerializer(serializers.ModelSerializer):
    class Meta:
        model = Room
        fields = ["slug", "name"]
        read_only_fields = fields


class TrackSummarySerializer(serializers.ModelSerializer):
    class Meta:
        model = Track
        fields = ["slug", "name", "colour"]
        read_only_fields = fields


class ErrorSerializer(serializers.Serializer):
    """The body of every error that is not about the request's fields."""

    detail = serializers.CharField(help_text="What went wrong, for a person to read.")


class PreconditionFailedSerializer(ErrorSerializer):
    """The body of a 412: the If-Match named a version that is no longer the stored one."""

    etag = serializers.CharField(
        allow_null=True,
        help_text="The object's current version as an ETag, valid in If-Match; null if it was "
        "deleted.",
    )


class ValidationErrorSerializer(serializers.Serializer):
    """Field name → messages; ``non_field_errors`` for rules across fields.

    Only documents 400 bodies; its schema comes from conference.api.schema.ValidationErrorSchema.
    """

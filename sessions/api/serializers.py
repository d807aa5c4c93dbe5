from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import transaction
from django.utils import translation
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from conference.api.serializers import (
    ConferenceDateTimeField,
    ConferenceSlugRelatedField,
    FullCleanMixin,
    OptionalURLField,
    RoomSummarySerializer,
    SlugLookupField,
    StrictTypesMixin,
    TrackSummarySerializer,
    UTCDateTimeField,
    conference_field,
    strict,
)
from conference.models import Conference, Room, Track
from conference.routing import absolute_url
from sessions.models import Attachment, Release, Removal, Session, SessionLink, SessionSpeaker
from sessions.releases import CHANGE_KIND_CHOICES, change_summary
from speakers.api.serializers import NULLABLE_URI, SpeakerSerializer, SpeakerSummarySerializer
from speakers.models import Speaker

# Full speaker objects show their links: one more query for any number of sessions.
SPEAKER_LINKS = "prefetched_speakers__links"


class AttachmentSerializer(serializers.ModelSerializer):
    url = serializers.SerializerMethodField(
        help_text="Absolute URL of the file or link; null while it is only announced."
    )

    class Meta:
        model = Attachment
        fields = ["title", "url", "kind"]
        read_only_fields = fields

    @extend_schema_field(NULLABLE_URI)
    def get_url(self, attachment):
        return absolute_url(attachment.href)


class SessionLinkSerializer(serializers.ModelSerializer):
    class Meta:
        model = SessionLink
        fields = ["title", "url", "kind"]
        read_only_fields = fields


class SessionSerializer(serializers.ModelSerializer):
    """A session as schedules list it; speakers are named, not described."""

    conference = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    starts_at = UTCDateTimeField(read_only=True)
    ends_at = UTCDateTimeField(read_only=True)
    time_zone = serializers.CharField(
        source="conference.time_zone",
        read_only=True,
        help_text="IANA zone of the conference, in which attendees read the times.",
    )
    room = RoomSummarySerializer(read_only=True, allow_null=True)
    track = TrackSummarySerializer(read_only=True, allow_null=True)
    speakers = SpeakerSummarySerializer(
        source="ordered_speakers", many=True, read_only=True, help_text="In billing order."
    )
    attachments = AttachmentSerializer(source="attachment_list", many=True, read_only=True)
    links = SessionLinkSerializer(source="link_list", many=True, read_only=True)
    feedback_url = OptionalURLField()
    logo_url = OptionalURLField()
    source_url = OptionalURLField()
    origin_url = OptionalURLField()
    url = serializers.SerializerMethodField(help_text="The session's page on this site.")
    created_at = UTCDateTimeField(read_only=True)
    updated_at = UTCDateTimeField(read_only=True)

    class Meta:
        model = Session
        fields = [
            "id",
            "guid",
            "conference",
            "slug",
            "title",
            "subtitle",
            "kind",
            "type_label",
            "status",
            "audience_level",
            "language",
            "abstract",
            "description",
            "do_not_record",
            "recording_license",
            "feedback_url",
            "logo_url",
            "source_url",
            "origin_url",
            "code",
            "starts_at",
            "ends_at",
            "time_zone",
            "room",
            "track",
            "speakers",
            "attachments",
            "links",
            "url",
            "created_at",
            "updated_at",
        ]
        read_only_fields = fields

    @extend_schema_field(OpenApiTypes.URI)
    def get_url(self, session):
        return absolute_url(session.get_absolute_url())


class SessionDetailSerializer(SessionSerializer):
    """A session with its speakers in full (role, bio, links)."""

    speakers = SpeakerSerializer(
        source="ordered_speakers", many=True, read_only=True, help_text="In billing order."
    )


class SessionWriteSerializer(FullCleanMixin, StrictTypesMixin, serializers.ModelSerializer):
    """What organizers send. Answers with the session as SessionDetailSerializer shows it."""

    conference = conference_field()
    starts_at = ConferenceDateTimeField(
        help_text="ISO 8601; without an offset it is read in the conference's time zone."
    )
    ends_at = ConferenceDateTimeField(
        help_text="ISO 8601; without an offset it is read in the conference's time zone."
    )
    room = ConferenceSlugRelatedField(
        queryset=Room.objects.all(),
        allow_null=True,
        required=False,
        help_text="Slug of a room of this conference; null for a venue-wide break.",
    )
    track = ConferenceSlugRelatedField(
        queryset=Track.objects.all(),
        allow_null=True,
        required=False,
        help_text="Slug of a track of this conference.",
    )
    speakers = ConferenceSlugRelatedField(
        queryset=Speaker.objects.all(),
        many=True,
        required=False,
        help_text=(
            "Slugs of speakers of this conference, in billing order. Replaces the current list; "
            "leave it out to keep it."
        ),
    )

    class Meta:
        model = Session
        fields = [
            "conference",
            "slug",
            "title",
            "subtitle",
            "kind",
            "type_label",
            "status",
            "audience_level",
            "language",
            "abstract",
            "description",
            "do_not_record",
            "recording_license",
            "feedback_url",
            "logo_url",
            "source_url",
            "origin_url",
            "code",
            "starts_at",
            "ends_at",
            "room",
            "track",
            "speakers",
        ]

    def create(self, validated_data):
        speakers = validated_data.pop("speakers", None)
        with transaction.atomic():
            session = super().create(validated_data)
            if speakers is not None:
                self.write_speakers(session, speakers)
        return session

    def update(self, instance, validated_data):
        speakers = validated_data.pop("speakers", None)
        with transaction.atomic():
            session = super().update(instance, validated_data)
            if speakers is not None:
                self.write_speakers(session, speakers)
        return session

    def write_speakers(self, session: Session, speakers: list[Speaker]) -> None:
        """Replace the speakers in billing order; every row passes SessionSpeaker's rules first.

        Rows are validated one by one after the previous ones are written, so a speaker listed
        twice meets the unique constraint; the caller's transaction undoes everything on error.
        """
        session.session_speakers.all().delete()
        problems = []
        for position, speaker in enumerate(speakers):
            link = SessionSpeaker(session=session, speaker=speaker, position=position)
            try:
                link.full_clean()
            except DjangoValidationError as error:
                problems.extend(error.messages)
            else:
                link.save()
        if problems:
            raise serializers.ValidationError({"speakers": problems})

    def to_representation(self, instance):
        session = (
            instance.conference.sessions.filter(pk=instance.pk)
            .for_listing()
            .prefetch_related(SPEAKER_LINKS)
            .get()
        )
        return SessionDetailSerializer(session, context=self.context).data


class SessionListQuerySerializer(serializers.Serializer):
    expand = serializers.ChoiceField(
        choices=["speakers"],
        required=False,
        help_text="`speakers` embeds full speaker objects (role, bio, links) instead of names.",
    )


class MyScheduleQuerySerializer(serializers.Serializer):
    conference = SlugLookupField(
        queryset=Conference.objects.published(),
        help_text="Slug of a published conference.",
    )


class SaveSessionSerializer(serializers.Serializer):
    """``{"conference": "<slug>", "session": "<slug>"}``: the session to put on my schedule."""

    conference = SlugLookupField(
        queryset=Conference.objects.published(),
        help_text="Slug of a published conference.",
    )
    session = strict(serializers.SlugField, str)(
        max_length=300, help_text="Slug of a published session of that conference."
    )

    def validate(self, attrs):
        sessions = Session.objects.visible_to(self.context["request"].user).filter(
            conference=attrs["conference"]
        )
        session = sessions.filter(slug=attrs["session"]).first()
        if session is None:
            raise serializers.ValidationError(
                {"session": f"This conference has no session with the slug “{attrs['session']}”."}
            )
        return {**attrs, "session": session}


class SessionStateSerializer(serializers.Serializer):
    """A session as a release recorded it: what the public saw of it then
    (``sessions.releases.public_snapshot``). Times are ISO 8601 in UTC."""

    id = serializers.IntegerField()
    guid = serializers.CharField()
    slug = serializers.CharField()
    title = serializers.CharField()
    kind = serializers.ChoiceField(choices=Session.Kind.choices)
    status = serializers.ChoiceField(choices=Session.Status.choices)
    starts_at = serializers.DateTimeField()
    ends_at = serializers.DateTimeField()
    room_id = serializers.IntegerField(allow_null=True, help_text="Null: the whole venue.")
    room_name = serializers.CharField(allow_blank=True)
    track_name = serializers.CharField(allow_blank=True)
    speaker_ids = serializers.ListField(
        child=serializers.IntegerField(), help_text="In billing order."
    )
    speaker_names = serializers.ListField(
        child=serializers.CharField(), help_text="In billing order."
    )


class SessionChangeSerializer(serializers.Serializer):
    """One change of one session that a release announced."""

    kind = serializers.ChoiceField(
        choices=CHANGE_KIND_CHOICES,
        help_text="`moved`: its time changed (its room may have too); `room`: only its room "
        "changed; `removed`: no longer public (deleted or back to draft).",
    )
    session_id = serializers.IntegerField()
    title = serializers.CharField(help_text="Its title now (or when it was removed).")
    slug = serializers.CharField()
    description = serializers.SerializerMethodField(
        help_text="The change in words, times in the conference's zone."
    )
    before = SessionStateSerializer(allow_null=True, help_text="Null for a new session.")
    after = SessionStateSerializer(allow_null=True, help_text="Null for a removed session.")

    def get_description(self, change) -> str:
        with translation.override("en"):  # the API speaks English whatever the client's language
            return change.describe(self.context["conference"].tz)


class ReleaseSerializer(serializers.ModelSerializer):
    released_at = UTCDateTimeField(read_only=True)
    summary = serializers.SerializerMethodField(help_text="“2 new, 1 moved”.")
    changes = SessionChangeSerializer(
        many=True,
        read_only=True,
        help_text="What changed since the previous release (for the first: every session, new), "
        "in schedule order.",
    )
    url = serializers.SerializerMethodField(help_text="Its entry on the public change log.")

    class Meta:
        model = Release
        fields = ["version", "comment", "released_at", "summary", "changes", "url"]
        read_only_fields = fields

    def get_summary(self, release) -> str:
        with translation.override("en"):  # the API speaks English whatever the client's language
            return change_summary(release.changes())

    @extend_schema_field(OpenApiTypes.URI)
    def get_url(self, release):
        return absolute_url(release.get_absolute_url())


class RemovalSerializer(serializers.ModelSerializer):
    """A session or speaker a syncing client should drop."""

    type = serializers.ChoiceField(source="kind", choices=Removal.Kind.choices, read_only=True)
    id = serializers.IntegerField(
        source="object_id", read_only=True, help_text="The `id` the session or speaker had."
    )
    reason = serializers.ChoiceField(
        choices=Removal.Reason.choices,
        read_only=True,
        help_text="`deleted`, or `hidden`: no longer public (a draft again, or the speaker of "
        "no public session), and may come back.",
    )
    removed_at = UTCDateTimeField(read_only=True)

    class Meta:
        model = Removal
        fields = ["type", "id", "reason", "removed_at"]
        read_only_fields = fields

"""What the proposals API reads and writes (sessions/cfp/api/views.py): proposals as reviewers and
organizers see them, as their speakers see and write them, reviews and decisions.

Serializers parse and show; the rules are the models' (``Proposal.clean``, ``writing_refusal``,
``move_to``, ``Review.clean``, ``CallQuestion.check_answer``), run by every write here.
"""

from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import transaction
from django.utils import timezone
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from conference.api.serializers import (
    ConferenceSlugRelatedField,
    StrictTypesMixin,
    TrackSummarySerializer,
    UTCDateTimeField,
    strict,
)
from conference.models import Track
from sessions.models import Proposal, ProposalAnswer, ProposalSpeaker, Review
from sessions.models.call import DecisionMailTemplate
from sessions.models.proposals import NOTES_MAX_LENGTH, REVIEWABLE

Decision = DecisionMailTemplate.Decision
MAX_DECIDED_AT_ONCE = 500


class AnswerSerializer(serializers.ModelSerializer):
    question = serializers.IntegerField(source="question_id", read_only=True)
    text = serializers.CharField(source="question.text", read_only=True, help_text="The question.")

    class Meta:
        model = ProposalAnswer
        fields = ["question", "text", "value"]
        read_only_fields = fields


class StateChangeSerializer(serializers.Serializer):
    from_state = serializers.ChoiceField(choices=Proposal.State.choices, read_only=True)
    to_state = serializers.ChoiceField(choices=Proposal.State.choices, read_only=True)
    changed_at = UTCDateTimeField(read_only=True)
    note = serializers.CharField(read_only=True)


class StaffStateChangeSerializer(StateChangeSerializer):
    changed_by = serializers.SerializerMethodField(
        help_text="Username of who took the step; null when the account is gone, or when the "
        "call hides speakers from you (the step may be a speaker's)."
    )

    @extend_schema_field({"type": "string", "nullable": True})
    def get_changed_by(self, change):
        if not self.context["shows_speakers"] or change.changed_by is None:
            return None
        return change.changed_by.get_username()


class ProposalSpeakerSerializer(serializers.ModelSerializer):
    class Meta:
        model = ProposalSpeaker
        fields = ["name", "bio"]
        read_only_fields = fields


class ProposalSerializer(serializers.ModelSerializer):
    """A proposal as reviewers and organizers list it."""

    conference = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    track = TrackSummarySerializer(read_only=True, allow_null=True)
    state = serializers.ChoiceField(choices=Proposal.State.choices, read_only=True)
    speakers = serializers.SerializerMethodField(
        help_text="The speakers' names and bios, in billing order; null when the call hides "
        "speakers from you (anonymised review)."
    )
    mean_score = serializers.SerializerMethodField(
        help_text="Mean of the reviews' scores; null before any review, and while the call "
        "hides the others' scores from you because you have not scored it yet."
    )
    review_count = serializers.IntegerField(read_only=True, help_text="Reviews written.")
    reviewed_by_me = serializers.SerializerMethodField(help_text="Whether you scored it.")
    submitted_at = UTCDateTimeField(read_only=True, allow_null=True)
    created_at = UTCDateTimeField(read_only=True)
    updated_at = UTCDateTimeField(read_only=True)

    class Meta:
        model = Proposal
        fields = [
            "code",
            "conference",
            "title",
            "abstract",
            "kind",
            "track",
            "audience_level",
            "language",
            "state",
            "speakers",
            "mean_score",
            "review_count",
            "reviewed_by_me",
            "submitted_at",
            "created_at",
            "updated_at",
        ]
        read_only_fields = fields

    def user(self):
        return self.context["request"].user

    @extend_schema_field(ProposalSpeakerSerializer(many=True, allow_null=True))
    def get_speakers(self, proposal):
        if not self.user().has_perm("schedule.see_proposal_speakers", proposal):
            return None
        return ProposalSpeakerSerializer(proposal.proposal_speakers.all(), many=True).data

    @extend_schema_field({"type": "number", "format": "double", "nullable": True})
    def get_mean_score(self, proposal):
        # ProposalQuerySet.with_scores_for() leaves out what this user may not see.
        return None if proposal.shown_score is None else round(proposal.shown_score, 2)

    def get_reviewed_by_me(self, proposal) -> bool:
        return bool(proposal.scored_by_user)


class ProposalDetailSerializer(ProposalSerializer):
    """A proposal in full: its texts, notes, answers and the steps it took."""

    answers = AnswerSerializer(many=True, read_only=True)
    history = serializers.SerializerMethodField(help_text="Its steps, oldest first.")

    class Meta(ProposalSerializer.Meta):
        fields = [
            *ProposalSerializer.Meta.fields,
            "description",
            "notes",
            "answers",
            "history",
        ]
        read_only_fields = fields

    @extend_schema_field(StaffStateChangeSerializer(many=True))
    def get_history(self, proposal):
        context = {
            **self.context,
            "shows_speakers": self.user().has_perm("schedule.see_proposal_speakers", proposal),
        }
        return StaffStateChangeSerializer(
            proposal.state_changes.all(), many=True, context=context
        ).data


class ReviewSerializer(serializers.ModelSerializer):
    """A review as reviewers and organizers read it (never shown to speakers)."""

    reviewer = serializers.SlugRelatedField(slug_field="username", read_only=True)
    created_at = UTCDateTimeField(read_only=True)
    updated_at = UTCDateTimeField(read_only=True)

    class Meta:
        model = Review
        fields = ["reviewer", "score", "comment", "created_at", "updated_at"]
        read_only_fields = fields


class ReviewWriteSerializer(StrictTypesMixin, serializers.ModelSerializer):
    """My score and comment on a proposal, checked by ``Review.clean()`` (the call's scale, a
    proposal sent to the organizers, never one's own)."""

    class Meta:
        model = Review
        fields = ["score", "comment"]

    def validate(self, attrs):
        instance = self.instance or Review(
            proposal=self.context["proposal"], reviewer=self.context["request"].user
        )
        for name, value in attrs.items():
            setattr(instance, name, value)
        try:
            instance.full_clean()
        except DjangoValidationError as error:
            raise serializers.ValidationError(serializers.as_serializer_error(error)) from error
        return attrs

    def create(self, validated_data):
        return Review.objects.create(
            proposal=self.context["proposal"],
            reviewer=self.context["request"].user,
            **validated_data,
        )


class DecisionSerializer(serializers.Serializer):
    state = serializers.ChoiceField(
        choices=Decision.choices, help_text="The decision: accepted, waitlisted or rejected."
    )
    note = strict(serializers.CharField, str)(
        max_length=500,
        required=False,
        allow_blank=True,
        default="",
        help_text="Kept with the step in the proposal's history.",
    )


@extend_schema_field(
    {
        "type": "array",
        "items": {"type": "string", "maxLength": 12},
        "minItems": 1,
        "maxItems": MAX_DECIDED_AT_ONCE,
    }
)
class CodeListField(serializers.Field):
    """Codes of proposals, as a JSON array of strings; its errors are one list of messages, as
    every 400 of the API is (DRF's ListField keys them by position)."""

    def to_internal_value(self, data):
        if not isinstance(data, list) or not all(isinstance(code, str) for code in data):
            raise serializers.ValidationError("Send a list of proposal codes (strings).")
        if not 1 <= len(data) <= MAX_DECIDED_AT_ONCE:
            raise serializers.ValidationError(
                f"Send from 1 to {MAX_DECIDED_AT_ONCE} proposal codes."
            )
        return data

    def to_representation(self, value):
        return value


class BulkDecisionSerializer(DecisionSerializer):
    proposals = CodeListField(
        help_text="Codes of proposals under review in this conference; each is decided on its own."
    )

    def validate_proposals(self, codes: list[str]) -> list[str]:
        sent = self.context["conference"].proposals.filter(state__in=REVIEWABLE)
        known = set(sent.filter(code__in=codes).values_list("code", flat=True))
        unknown = [code for code in codes if code not in known]
        if unknown:
            raise serializers.ValidationError(
                f"No proposal under review in this conference has the code “{unknown[0]}”."
            )
        return list(dict.fromkeys(codes))


class DecidedSerializer(serializers.Serializer):
    code = serializers.CharField()
    title = serializers.CharField()
    state = serializers.ChoiceField(choices=Proposal.State.choices)


class RefusedSerializer(DecidedSerializer):
    reason = serializers.CharField(help_text="Why it did not move, for a person to read.")


class DecisionReportSerializer(serializers.Serializer):
    state = serializers.ChoiceField(choices=Decision.choices)
    moved = DecidedSerializer(many=True, help_text="Proposals that took the step now.")
    unchanged = DecidedSerializer(
        many=True, help_text="Proposals that were in that state already: left as they are."
    )
    refused = RefusedSerializer(many=True, help_text="Proposals that could not take it, and why.")


# --- a speaker's own proposals ------------------------------------------------------------------


class AnswerWriteSerializer(serializers.Serializer):
    """Documents one answer of ``AnswerListField``."""

    question = serializers.IntegerField(help_text="Id of a question of the call.")
    value = serializers.CharField(
        allow_blank=True, help_text="The answer; for yes or no, `yes` or `no`."
    )


@extend_schema_field(AnswerWriteSerializer(many=True))
class AnswerListField(serializers.Field):
    """Answers as ``[{"question": <id>, "value": "<text>"}]``; its errors are one list of
    messages, each naming the question, as every 400 of the API is."""

    def to_internal_value(self, data):
        if not isinstance(data, list) or not all(
            isinstance(answer, dict)
            and {"question", "value"} <= answer.keys()
            and isinstance(answer["question"], int)
            and not isinstance(answer["question"], bool)
            and isinstance(answer["value"], str)
            for answer in data
        ):
            raise serializers.ValidationError(
                'Send a list of answers, each {"question": <id>, "value": "<text>"}.'
            )
        return data

    def to_representation(self, value):
        return value


class MyProposalSerializer(serializers.ModelSerializer):
    """A proposal as its speakers see it: everything but its reviews."""

    conference = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    track = TrackSummarySerializer(read_only=True, allow_null=True)
    state = serializers.ChoiceField(choices=Proposal.State.choices, read_only=True)
    speakers = ProposalSpeakerSerializer(source="proposal_speakers", many=True, read_only=True)
    answers = AnswerSerializer(many=True, read_only=True)
    history = StateChangeSerializer(
        source="state_changes", many=True, read_only=True, help_text="Its steps, oldest first."
    )
    editable_until = serializers.SerializerMethodField(
        help_text="The deadline of its kind: its texts can be changed until then while it is "
        "a draft or submitted."
    )
    submitted_at = UTCDateTimeField(read_only=True, allow_null=True)
    created_at = UTCDateTimeField(read_only=True)
    updated_at = UTCDateTimeField(read_only=True)

    class Meta:
        model = Proposal
        fields = [
            "code",
            "conference",
            "title",
            "abstract",
            "description",
            "kind",
            "track",
            "audience_level",
            "language",
            "notes",
            "state",
            "speakers",
            "answers",
            "history",
            "editable_until",
            "submitted_at",
            "created_at",
            "updated_at",
        ]
        read_only_fields = fields

    @extend_schema_field({"type": "string", "format": "date-time"})
    def get_editable_until(self, proposal):
        deadline = proposal.conference.call.deadline_for(proposal.kind)
        return UTCDateTimeField().to_representation(deadline)


class MyProposalWriteSerializer(StrictTypesMixin, serializers.ModelSerializer):
    """What a speaker writes: a new draft, or changes while the call takes them. Every rule is
    the model's: the kind and track the call offers, the drafts one account may keep, the
    deadline (``Proposal.writing_refusal``), the answers each question takes."""

    track = ConferenceSlugRelatedField(
        queryset=Track.objects.all(),
        allow_null=True,
        required=False,
        help_text="Slug of a track the call offers; null for none.",
    )
    notes = strict(serializers.CharField, str)(
        max_length=NOTES_MAX_LENGTH,
        required=False,
        allow_blank=True,
        help_text="For the organizers only: never published.",
    )
    answers = AnswerListField(
        required=False,
        help_text="Answers to the call's questions; those left out keep their answer.",
    )

    class Meta:
        model = Proposal
        fields = [
            "title",
            "abstract",
            "description",
            "kind",
            "track",
            "audience_level",
            "language",
            "notes",
            "answers",
        ]

    def validate(self, attrs):
        attrs = super().validate(attrs)
        request = self.context["request"]
        conference = self.context["conference"]
        if getattr(conference, "call", None) is None:
            raise serializers.ValidationError(
                {"non_field_errors": ["This conference has no call for proposals."]}
            )
        proposal = self.instance or Proposal(conference=conference, created_by=request.user)
        proposal.conference = conference
        for name, value in attrs.items():
            if name != "answers":
                setattr(proposal, name, value)
        refusal = proposal.writing_refusal(timezone.now())
        if refusal:
            raise serializers.ValidationError({"non_field_errors": [refusal]})
        try:
            proposal.full_clean(exclude=["created_by", "session", "state", "submitted_at"])
        except DjangoValidationError as error:
            raise serializers.ValidationError(serializers.as_serializer_error(error)) from error
        if "answers" in attrs:
            attrs["answers"] = self.checked_answers(conference, attrs["answers"])
        return attrs

    def checked_answers(self, conference, answers: list[dict]) -> list[tuple]:
        """Each answer with its question, as ``CallQuestion.check_answer`` keeps it."""
        questions = {question.pk: question for question in conference.call.questions.all()}
        checked, problems = [], []
        for answer in answers:
            question = questions.get(answer["question"])
            if question is None:
                problems.append(f"The call asks no question {answer['question']}.")
                continue
            try:
                checked.append((question, question.check_answer(answer["value"])))
            except DjangoValidationError as error:
                problems.extend(f"{question.text} {message}" for message in error.messages)
        if problems:
            raise serializers.ValidationError({"answers": problems})
        return checked

    def create(self, validated_data):
        answers = validated_data.pop("answers", [])
        user = self.context["request"].user
        with transaction.atomic():
            proposal = Proposal.objects.create(
                conference=self.context["conference"], created_by=user, **validated_data
            )
            ProposalSpeaker.objects.create(
                proposal=proposal,
                user=user,
                name=user.get_full_name() or user.get_username(),
                language=ProposalSpeaker.active_language(),
            )
            self.write_answers(proposal, answers)
        return proposal

    def update(self, instance, validated_data):
        answers = validated_data.pop("answers", [])
        with transaction.atomic():
            proposal = super().update(instance, validated_data)
            self.write_answers(proposal, answers)
        return proposal

    @staticmethod
    def write_answers(proposal, answers: list[tuple]) -> None:
        for question, value in answers:
            ProposalAnswer.objects.update_or_create(
                proposal=proposal, question=question, defaults={"value": value}
            )

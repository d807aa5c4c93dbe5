"""The proposals API's views: who reaches which proposals, and each door's answer (the
package's docstring says which doors there are)."""

from functools import cached_property

import django_filters
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import transaction
from django.db.models import F, Prefetch
from django.utils import timezone
from django_filters.rest_framework import DjangoFilterBackend
from rest_framework import exceptions, mixins, permissions, status, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

from conference.api.policies import TeamPermission, VersionedObjectMixin
from conference.api.tokens import TokenScopePermission
from conference.api.views import ConferenceScopedMixin
from conference.versioning import EditConflictError
from sessions.api.views import StrictOrderingFilter
from sessions.cfp import decisions
from sessions.cfp.api.schema import (
    document_decisions,
    document_my_proposals,
    document_proposals,
)
from sessions.cfp.api.serializers import (
    BulkDecisionSerializer,
    DecisionReportSerializer,
    DecisionSerializer,
    MyProposalSerializer,
    MyProposalWriteSerializer,
    ProposalDetailSerializer,
    ProposalSerializer,
    ReviewSerializer,
    ReviewWriteSerializer,
)
from sessions.cfp.steps import take_speaker_step
from sessions.models import Proposal, ProposalStateChange, Review
from sessions.models.choices import Kind
from sessions.models.proposals import REVIEWABLE

State = Proposal.State
STEPS_IN_ORDER = Prefetch(
    "state_changes", queryset=ProposalStateChange.objects.select_related("changed_by")
)


class ProposalFilter(django_filters.FilterSet):
    state = django_filters.ChoiceFilter(
        choices=[(state.value, state.label) for state in REVIEWABLE], label="State"
    )
    kind = django_filters.ChoiceFilter(choices=Kind.choices, label="Kind of session")
    track = django_filters.CharFilter(field_name="track__slug", label="Slug of a track")
    # "true" or "false", nothing else: a BooleanFilter would also take "null", "unknown"...
    not_reviewed_by_me = django_filters.ChoiceFilter(
        choices=[("true", "true"), ("false", "false")],
        method="filter_not_reviewed_by_me",
        label="Only those I have not scored (true)",
    )

    class Meta:
        model = Proposal
        fields = ["state", "kind", "track", "not_reviewed_by_me"]

    def filter_not_reviewed_by_me(self, queryset, name, value):
        return queryset.not_reviewed_by(self.request.user) if value == "true" else queryset


class ProposalOrdering(StrictOrderingFilter):
    """``?ordering=-score``: best first; proposals without a score you may see come last."""

    def filter_queryset(self, request, queryset, view):
        terms = self.get_ordering(request, queryset, view)
        if not terms:
            return queryset
        expressions = []
        for term in terms[:-1]:  # StrictOrderingFilter ends with "pk": newest first here
            name = term.removeprefix("-")
            field = F("shown_score" if name == "score" else name)
            descending = term.startswith("-")
            expressions.append(
                field.desc(nulls_last=True) if descending else field.asc(nulls_last=True)
            )
        return queryset.order_by(*expressions, F("pk").desc())

    def get_default_ordering(self, view):
        return None


class ProposalPermission(TeamPermission):
    """Reads need ``view_proposal``; a review ``review_proposal``; a decision
    ``decide_proposal`` (``ProposalViewSet.WRITES``)."""

    def required(self, request, view):
        if getattr(view, request.method.lower(), None) is None:
            return None  # no such door: DRF answers 405
        if request.method in permissions.SAFE_METHODS:
            return view.read_permission
        # By the method's action, not view.action: OPTIONS asks about each method in turn.
        return view.WRITES[view.action_map[request.method.lower()]]


class TeamConferenceMixin(ConferenceScopedMixin):
    """Conferences whose teams the person is on: for anyone else the proposals of a
    conference are as unknown as a conference that does not exist."""

    @cached_property
    def conference(self):
        conference = super().conference
        if not self.request.user.has_perm("conference.preview_conference", conference):
            raise exceptions.NotFound()
        return conference


@document_proposals
class ProposalViewSet(TeamConferenceMixin, viewsets.ReadOnlyModelViewSet):
    """Proposals sent to a conference, with their scores, for its reviewer, programme and
    organizer teams; drafts and withdrawn proposals are their speakers' alone."""

    queryset = Proposal.objects.all()
    lookup_field = "code"
    lookup_url_kwarg = "code"
    permission_classes = [TokenScopePermission, ProposalPermission]
    read_permission = "schedule.view_proposal"
    WRITES = {
        "my_review": "schedule.review_proposal",
        "decision": "schedule.decide_proposal",
    }
    filter_backends = [DjangoFilterBackend, ProposalOrdering]
    filterset_class = ProposalFilter
    ordering_fields = ["score", "submitted_at", "title"]

    def get_conference_queryset(self):
        proposals = (
            self.conference.proposals.filter(state__in=REVIEWABLE)
            .with_scores_for(self.request.user, self.conference)
            .select_related("conference__call", "track")
            .prefetch_related("proposal_speakers")
        )
        if self.action != "list":
            proposals = proposals.prefetch_related("answers__question", STEPS_IN_ORDER)
        return proposals.order_by("-submitted_at", "-pk")

    def get_serializer_class(self):
        if self.action == "list":
            return ProposalSerializer
        if self.action == "reviews":
            return ReviewSerializer
        if self.action == "my_review":
            return ReviewWriteSerializer
        if self.action == "decision":
            return DecisionSerializer
        return ProposalDetailSerializer

    @action(detail=True, methods=["get"])
    def reviews(self, request, *args, **kwargs):
        proposal = self.get_object()
        reviews = Review.objects.visible_to(request.user, proposal).select_related("reviewer")
        return Response(ReviewSerializer(reviews, many=True).data)

    @action(detail=True, methods=["put"])
    def my_review(self, request, *args, **kwargs):
        proposal = self.get_object()
        review = Review.objects.filter(proposal=proposal, reviewer=request.user).first()
        serializer = ReviewWriteSerializer(
            review,
            data=request.data,
            context={**self.get_serializer_context(), "proposal": proposal},
        )
        serializer.is_valid(raise_exception=True)
        with transaction.atomic():
            saved = serializer.save()
        return Response(
            ReviewSerializer(saved).data,
            status=status.HTTP_201_CREATED if review is None else status.HTTP_200_OK,
        )

    @action(detail=True, methods=["post"])
    def decision(self, request, *args, **kwargs):
        proposal = self.get_object()
        query = DecisionSerializer(data=request.data)
        query.is_valid(raise_exception=True)
        return decide([proposal], query.validated_data, request.user)


def decide(proposals, data: dict, user) -> Response:
    """Decide, and say what moved, what was left as it was and what was refused, and why."""
    state = data["state"]
    unchanged = [proposal for proposal in proposals if proposal.state == state]
    outcome = decisions.decide(proposals, state, by=user, note=data.get("note", ""))
    report = {
        "state": state,
        "moved": outcome.moved,
        "unchanged": unchanged,
        "refused": [
            {"code": p.code, "title": p.title, "state": p.state, "reason": reason}
            for p, reason in outcome.refused
        ],
    }
    return Response(DecisionReportSerializer(report).data)


@document_decisions
class BulkDecisionViewSet(TeamConferenceMixin, viewsets.GenericViewSet):
    """Many proposals decided at once, each in its own step: one refused leaves the others
    decided."""

    queryset = Proposal.objects.all()
    serializer_class = BulkDecisionSerializer
    permission_classes = [TokenScopePermission, ProposalPermission]
    read_permission = "schedule.view_proposal"
    WRITES = {"create": "schedule.decide_proposal"}

    def create(self, request, *args, **kwargs):
        query = self.get_serializer(data=request.data)
        query.is_valid(raise_exception=True)
        proposals = list(
            self.conference.proposals.filter(
                state__in=REVIEWABLE, code__in=query.validated_data["proposals"]
            )
            .select_related("conference__call", "session")
            .order_by("pk")
        )
        return decide(proposals, query.validated_data, request.user)


@document_my_proposals
class MyProposalViewSet(
    VersionedObjectMixin,
    ConferenceScopedMixin,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.CreateModelMixin,
    mixins.UpdateModelMixin,
    viewsets.GenericViewSet,
):
    """The signed-in account's own proposals to a conference: nobody else's, ever."""

    queryset = Proposal.objects.all()
    lookup_field = "code"
    lookup_url_kwarg = "code"
    permission_classes = [permissions.IsAuthenticated, TokenScopePermission]

    def get_conference_queryset(self):
        return (
            self.conference.proposals.of_speaker(self.request.user)
            .select_related("conference__call", "track", "session")
            .prefetch_related(
                "proposal_speakers",
                "answers__question",
                "state_changes",
                "conference__call__kinds",
                "conference__call__questions",
            )
            .order_by("-created_at", "-pk")
        )

    def get_serializer_class(self):
        if self.action in ("create", "update", "partial_update"):
            return MyProposalWriteSerializer
        return MyProposalSerializer

    def create(self, request, *args, **kwargs):
        serializer = self.get_serializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        with transaction.atomic():
            proposal = serializer.save()
        return Response(self.shown(proposal), status=status.HTTP_201_CREATED)

    def update(self, request, *args, **kwargs):
        proposal = self.get_object()
        serializer = self.get_serializer(
            proposal, data=request.data, partial=kwargs.get("partial", False)
        )
        serializer.is_valid(raise_exception=True)
        try:
            with transaction.atomic():
                serializer.save()
        except EditConflictError as conflict:
            raise self.refused(conflict) from conflict
        return Response(self.shown(proposal))

    @action(detail=True, methods=["post"])
    def submit(self, request, *args, **kwargs):
        return self.step(State.SUBMITTED)

    @action(detail=True, methods=["post"])
    def withdraw(self, request, *args, **kwargs):
        return self.step(State.WITHDRAWN)

    def step(self, state: str) -> Response:
        proposal = self.get_object()
        try:
            take_speaker_step(proposal, state, by=self.request.user, now=timezone.now())
        except EditConflictError as conflict:
            raise self.refused(conflict) from conflict
        except DjangoValidationError as refusal:
            if refusal.code == "throttled":
                raise exceptions.Throttled(detail=" ".join(refusal.messages)) from refusal
            raise exceptions.ValidationError({"state": refusal.messages}) from refusal
        return Response(self.shown(proposal))

    def shown(self, proposal) -> dict:
        """The proposal as it is now, as its speakers read it (what a GET would answer)."""
        self.loaded_object = self.get_queryset().get(pk=proposal.pk)
        return MyProposalSerializer(self.loaded_object, context=self.get_serializer_context()).data

"""The review list: the proposals sent to the organizers of the conferences a person reviews,
with their mean score, number of reviews and the person's own score; how far each reviewer has
got, above it; the decisions on the selected proposals (``decisions.py`` beside this) and the
CSV export (``export.py``). Each proposal's review page is ``review_page.py``."""

from django.contrib import admin
from django.contrib.admin.views.main import ChangeList
from django.db.models import Exists, F, OuterRef, Subquery
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from conference.admin.conference import ConferencePartListFilter, conference_id_from
from conference.admin.scoped import ConferenceScopedAdmin
from conference.models import Track
from conference.permissions import conferences_where
from sessions.cfp.admin.decisions import DecisionActionsMixin
from sessions.cfp.admin.export import export_urls
from sessions.cfp.admin.review_page import review_page
from sessions.cfp.reviewing import review_progress
from sessions.models import Call, CallKind, Proposal, ProposalSpeaker, Review
from sessions.models.proposals import REVIEWABLE, reads_scores

HIDDEN = "—"
State = Proposal.State


class TrackFilter(ConferencePartListFilter):
    """The tracks of the conferences listed (of the one chosen, if any): never another's."""

    def field_choices(self, field, request, model_admin):
        listed = [conference.pk for conference in access_of(request).listed]
        reachable = set(Track.objects.filter(conference__in=listed).values_list("pk", flat=True))
        return [
            (pk, label)
            for pk, label in super().field_choices(field, request, model_admin)
            if pk in reachable
        ]


class StateFilter(admin.SimpleListFilter):
    """The states a listed proposal can be in: drafts and withdrawn ones are never listed."""

    title = gettext_lazy("state")
    parameter_name = "state"

    def lookups(self, request, model_admin):
        return [(state, State(state).label) for state in REVIEWABLE]

    def queryset(self, request, queryset):
        if self.value() in REVIEWABLE:
            return queryset.filter(state=self.value())
        return queryset


class KindFilter(admin.SimpleListFilter):
    """The kinds a call can ask for (not breaks)."""

    title = gettext_lazy("kind")
    parameter_name = "kind"

    def lookups(self, request, model_admin):
        return CallKind._meta.get_field("kind").choices

    def queryset(self, request, queryset):
        if self.value() in dict(self.lookup_choices):
            return queryset.filter(kind=self.value())
        return queryset


class NotReviewedByMeFilter(admin.SimpleListFilter):
    title = gettext_lazy("my review")
    parameter_name = "reviewed"

    def lookups(self, request, model_admin):
        return [("no", _("Not yet reviewed by me")), ("yes", _("Reviewed by me"))]

    def queryset(self, request, queryset):
        if self.value() == "no":
            return queryset.not_reviewed_by(request.user)
        if self.value() == "yes":
            return queryset.filter(my_score__isnull=False)
        return queryset


def score_from(raw: str | None) -> float | None:
    """A score bound typed in the filter; None for anything that is not a plain number."""
    try:
        value = float((raw or "").strip().replace(",", "."))
    except ValueError:
        return None
    return value if -100 <= value <= 100 else None


class MeanScoreFilter(admin.ListFilter):
    """Proposals whose mean score lies between a lowest and a highest value, either optional."""

    title = gettext_lazy("mean score")
    template = "admin/schedule/proposal/score_filter.html"
    parameters = ("score_from", "score_to")

    def __init__(self, request, params, model, model_admin):
        super().__init__(request, params, model, model_admin)
        self.typed = {}
        for name in self.parameters:
            if name in params:
                values = params.pop(name)
                self.typed[name] = values[-1] if isinstance(values, list) else values
        self.bounds = {name: score_from(value) for name, value in self.typed.items()}

    def has_output(self):
        return True

    def expected_parameters(self):
        return list(self.parameters)

    def queryset(self, request, queryset):
        low, high = self.bounds.get("score_from"), self.bounds.get("score_to")
        if low is not None:
            queryset = queryset.filter(mean_score__gte=low)
        if high is not None:
            queryset = queryset.filter(mean_score__lte=high)
        return queryset

    def choices(self, changelist):
        # One “choice”: the form, which keeps the list's other parameters as hidden fields.
        kept = [
            (name, value)
            for name, values in changelist.params.items()
            if name not in self.parameters
            for value in (values if isinstance(values, list) else [values])
        ]
        yield {
            "kept": kept,
            "score_from": self.typed.get("score_from", ""),
            "score_to": self.typed.get("score_to", ""),
            "clear": changelist.get_query_string(remove=list(self.parameters)),
        }


class ReviewerAccess:
    """What the person may do in the conferences the list shows, read once per request."""

    def __init__(self, user):
        self.listed = list(conferences_where(user, "schedule.view_proposal").order_by("name"))
        self.deciding = {
            conference.pk
            for conference in self.listed
            if user.has_perm("schedule.decide_proposal", conference)
        }
        self.calls = list(Call.objects.filter(conference__in=[c.pk for c in self.listed]))

    @property
    def decides_everywhere(self) -> bool:
        return bool(self.listed) and len(self.deciding) == len(self.listed)


def access_of(request) -> ReviewerAccess:
    if not hasattr(request, "proposal_access"):
        request.proposal_access = ReviewerAccess(request.user)
    return request.proposal_access


@admin.register(Proposal)
class ProposalAdmin(DecisionActionsMixin, ConferenceScopedAdmin, admin.ModelAdmin):
    list_display = [
        "title",
        "kind",
        "track",
        "state",
        "mean_score_shown",
        "review_count_shown",
        "my_score_shown",
    ]
    list_display_links = ["title"]
    list_filter = [
        "conference",
        ("track", TrackFilter),
        KindFilter,
        StateFilter,
        NotReviewedByMeFilter,
        MeanScoreFilter,
    ]
    list_select_related = ["conference__call", "track"]
    search_fields = ["title", "code"]
    show_facets = admin.ShowFacets.NEVER
    list_per_page = 50
    change_list_template = "admin/schedule/proposal/change_list.html"

    class Media:
        css = {"all": ["css/admin.css", "css/review.css"]}

    def get_urls(self):
        return export_urls(self) + super().get_urls()

    # Speakers write proposals; organizers decide on them (actions, the review page) and
    # never edit or delete what speakers wrote.
    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    def get_queryset(self, request):
        my_score = Review.objects.filter(proposal=OuterRef("pk"), reviewer=request.user.pk)
        queryset = (
            super()
            .get_queryset(request)
            .reviewable()
            .with_scores()
            .annotate(
                my_score=Subquery(my_score.order_by().values("score")[:1]),
                is_mine=Exists(
                    ProposalSpeaker.objects.filter(proposal=OuterRef("pk"), user=request.user.pk)
                ),
            )
        )
        if self.shows_speakers(request):
            queryset = queryset.prefetch_related("proposal_speakers")
        return queryset

    def shows_speakers(self, request) -> bool:
        user = request.user
        return any(
            user.has_perm("schedule.see_proposal_speakers", call)
            for call in access_of(request).calls
        )

    def get_list_display(self, request):
        columns = list(self.list_display)
        if len(access_of(request).listed) > 1:
            columns.insert(1, "conference")
        if self.shows_speakers(request):
            columns.insert(columns.index("title") + 1, "speaker_names")
        return columns

    def get_sortable_by(self, request):
        # Sorting by mean score would tell a reviewer who may not see the scores yet their
        # order: it is for those who decide on every proposal listed.
        columns = self.get_list_display(request)
        if access_of(request).decides_everywhere:
            return columns
        return [column for column in columns if column != "mean_score_shown"]

    def get_ordering(self, request):
        if access_of(request).decides_everywhere:
            return [F("mean_score").desc(nulls_last=True), "submitted_at"]
        return ["submitted_at"]

    def changelist_view(self, request, extra_context=None):
        access = access_of(request)
        chosen = conference_id_from(request.GET.get("conference__id__exact"))
        shown = [c for c in access.listed if chosen is None or c.pk == chosen]
        progress = review_progress([conference.pk for conference in shown])
        extra_context = {
            "is_nav_sidebar_enabled": False,
            "title": _("Proposals to review"),
            "progress": [(conference, progress[conference.pk]) for conference in shown],
            "export_conferences": [c for c in shown if c.pk in access.deciding],
            **(extra_context or {}),
        }
        return super().changelist_view(request, extra_context)

    def change_view(self, request, object_id, form_url="", extra_context=None):
        return review_page(self, request, object_id)

    def get_changelist(self, request, **kwargs):
        return ReviewChangeList

    def prepare_rows(self, request, proposals) -> None:
        """What the person may read of each listed proposal: its speakers, its mean score."""
        user, deciding = request.user, access_of(request).deciding
        for proposal in proposals:
            proposal.shows_speakers = user.has_perm("schedule.see_proposal_speakers", proposal)
            proposal.shows_scores = reads_scores(
                speaks=proposal.is_mine,
                decides=proposal.conference_id in deciding,
                has_scored=proposal.my_score is not None,
                hidden_until_scored=proposal.conference.call.scores_hidden_until_reviewed,
            )

    @admin.display(description=gettext_lazy("speakers"))
    def speaker_names(self, proposal):
        if not proposal.shows_speakers:
            return HIDDEN
        return ", ".join(speaker.name for speaker in proposal.proposal_speakers.all())

    @admin.display(description=gettext_lazy("mean score"), ordering="mean_score")
    def mean_score_shown(self, proposal):
        if proposal.mean_score is None or not proposal.shows_scores:
            return HIDDEN
        return f"{proposal.mean_score:.2f}"

    @admin.display(description=gettext_lazy("reviews"), ordering="review_count")
    def review_count_shown(self, proposal):
        return proposal.review_count

    @admin.display(description=gettext_lazy("my score"), ordering="my_score")
    def my_score_shown(self, proposal):
        return HIDDEN if proposal.my_score is None else proposal.my_score


class ReviewChangeList(ChangeList):
    def get_results(self, request):
        super().get_results(request)
        self.model_admin.prepare_rows(request, self.result_list)

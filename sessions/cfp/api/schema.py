"""The OpenAPI documentation of the proposals API (sessions/cfp/api/views.py): summaries, parameters,
request and response shapes, examples."""

from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_view,
)

from conference.api.schema import (
    CHANGE,
    CONFERENCE_SLUG,
    ETAG,
    IF_MATCH,
    LIST_IN_CONFERENCE,
    READ_ONE,
    WRITE,
    errors,
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

PROPOSAL_CODE = OpenApiParameter(
    "code",
    {"type": "string", "pattern": "^[A-Z0-9]+$"},
    OpenApiParameter.PATH,
    description="Code of the proposal (in its links and mails).",
    examples=[OpenApiExample("A proposal's code", value="K7QX2M")],
)
TEAMS_ONLY = (
    "For the conference's reviewer, programme and organizer teams; a person on no team of the "
    "conference gets 404, a team without the role 403."
)
REPORT_EXAMPLE = OpenApiExample(
    "Two accepted, one refused",
    response_only=True,
    status_codes=[200],
    value={
        "state": "accepted",
        "moved": [
            {"code": "K7QX2M", "title": "Graphs", "state": "accepted"},
            {"code": "P3LN8D", "title": "Compilers", "state": "accepted"},
        ],
        "unchanged": [],
        "refused": [
            {
                "code": "W2RT5H",
                "title": "Agents",
                "state": "withdrawn",
                "reason": "A proposal that is withdrawn cannot become accepted.",
            }
        ],
    },
)
REVIEW_INVALID = {"score": ["Score from 0 to 3."]}
OWN_PROPOSAL = {"proposal": ["You speak in this proposal: you cannot review it."]}

document_proposals = extend_schema_view(
    list=extend_schema(
        summary="List the proposals sent to a conference",
        description=(
            f"{TEAMS_ONLY} Submitted and decided proposals (drafts and withdrawn ones are "
            "their speakers'), newest first, or by `ordering` (`-score`: best mean score first; "
            "those without a score you may see come last). Speakers are null when the call "
            "hides them from you; the mean score is null while the call hides the others' "
            "scores from you because you have not scored the proposal yet, and always on a "
            "proposal you speak in."
        ),
        tags=["proposals"],
        parameters=[CONFERENCE_SLUG],
        responses={
            200: ProposalSerializer(many=True),
            **errors(*LIST_IN_CONFERENCE, 403, invalid={"state": ["Select a valid choice."]}),
        },
    ),
    retrieve=extend_schema(
        summary="Get a proposal",
        description=f"{TEAMS_ONLY} With its description, notes, answers and steps.",
        tags=["proposals"],
        parameters=[CONFERENCE_SLUG, PROPOSAL_CODE],
        responses={200: ProposalDetailSerializer, **errors(*READ_ONE, 403)},
    ),
    reviews=extend_schema(
        summary="List a proposal's reviews",
        description=(
            f"{TEAMS_ONLY} Empty while the call hides the others' scores from you because you "
            "have not scored the proposal yet, and on a proposal you speak in."
        ),
        tags=["reviews"],
        parameters=[CONFERENCE_SLUG, PROPOSAL_CODE],
        responses={200: ReviewSerializer(many=True), **errors(*READ_ONE, 403)},
    ),
    my_review=extend_schema(
        summary="Score a proposal, or change my score",
        description=(
            "Reviewers, programme and organizers. 201 for a new review, 200 for a changed "
            "one. The score lies on the call's scale; a proposal you speak in, or one not "
            "sent to the organizers, is a 400 naming `proposal`."
        ),
        tags=["reviews"],
        parameters=[CONFERENCE_SLUG, PROPOSAL_CODE],
        request=ReviewWriteSerializer,
        examples=[
            OpenApiExample(
                "A score", request_only=True, value={"score": 2, "comment": "Clear and new."}
            )
        ],
        responses={
            201: OpenApiResponse(ReviewSerializer, description="Reviewed now."),
            200: OpenApiResponse(ReviewSerializer, description="Review changed."),
            **errors(*WRITE, invalid=OWN_PROPOSAL),
        },
    ),
    decision=extend_schema(
        summary="Decide on a proposal",
        description=(
            "Programme and organizers (a reviewer gets 403). Accept, wait-list or reject; "
            "decisions can be changed until the proposal's session is published. A step the "
            "proposal cannot take is listed in `refused` with the reason, not an error."
        ),
        tags=["decisions"],
        parameters=[CONFERENCE_SLUG, PROPOSAL_CODE],
        request=DecisionSerializer,
        examples=[REPORT_EXAMPLE],
        responses={
            200: DecisionReportSerializer,
            **errors(*WRITE, invalid={"state": ['"maybe" is not a valid choice.']}),
        },
    ),
)

document_decisions = extend_schema_view(
    create=extend_schema(
        summary="Decide on many proposals",
        description=(
            "Programme and organizers. Each proposal takes the step on its own: one refused "
            "leaves the others decided; those already in that state are left as they are. "
            "A code naming no proposal sent to the conference is a 400 and decides nothing."
        ),
        tags=["decisions"],
        parameters=[CONFERENCE_SLUG],
        request=BulkDecisionSerializer,
        examples=[
            OpenApiExample(
                "Accept two",
                request_only=True,
                value={"state": "accepted", "proposals": ["K7QX2M", "P3LN8D"]},
            ),
            REPORT_EXAMPLE,
        ],
        responses={
            200: DecisionReportSerializer,
            **errors(
                *WRITE,
                invalid={
                    "proposals": ["No proposal under review in this conference has the code “X”."]
                },
            ),
        },
    ),
)

CLOSED = {"non_field_errors": ["The call for proposals is closed."]}
SPEAKERS_ONLY = "The signed-in account's own proposals; any other is a 404."

document_my_proposals = extend_schema_view(
    list=extend_schema(
        summary="List my proposals to a conference",
        description=f"{SPEAKERS_ONLY} Newest first, drafts included.",
        tags=["my proposals"],
        parameters=[CONFERENCE_SLUG],
        responses={200: MyProposalSerializer(many=True), **errors(*LIST_IN_CONFERENCE)},
    ),
    retrieve=extend_schema(
        summary="Get one of my proposals",
        description=SPEAKERS_ONLY,
        tags=["my proposals"],
        parameters=[CONFERENCE_SLUG, PROPOSAL_CODE, ETAG],
        responses={200: MyProposalSerializer, **errors(*READ_ONE)},
    ),
    create=extend_schema(
        summary="Start a proposal (a draft)",
        description=(
            "A draft with me as its speaker, while the call is open for its kind; an account "
            "keeps a limited number of drafts per conference. Answers are checked against the "
            "call's questions; required ones are needed only to submit."
        ),
        tags=["my proposals"],
        parameters=[CONFERENCE_SLUG],
        request=MyProposalWriteSerializer,
        examples=[
            OpenApiExample(
                "A talk",
                request_only=True,
                value={
                    "title": "Graphs for everyone",
                    "abstract": "What graphs do for you.",
                    "kind": "talk",
                    "answers": [{"question": 1, "value": "yes"}],
                },
            )
        ],
        responses={201: MyProposalSerializer, **errors(*WRITE, invalid=CLOSED)},
    ),
    update=extend_schema(
        summary="Replace one of my proposals' texts",
        description="While it is a draft or submitted, until its kind's deadline.",
        tags=["my proposals"],
        parameters=[CONFERENCE_SLUG, PROPOSAL_CODE, IF_MATCH, ETAG],
        request=MyProposalWriteSerializer,
        responses={200: MyProposalSerializer, **errors(*CHANGE, invalid=CLOSED)},
    ),
    partial_update=extend_schema(
        summary="Change some of my proposal's texts",
        description="While it is a draft or submitted, until its kind's deadline.",
        tags=["my proposals"],
        parameters=[CONFERENCE_SLUG, PROPOSAL_CODE, IF_MATCH, ETAG],
        request=MyProposalWriteSerializer,
        responses={200: MyProposalSerializer, **errors(*CHANGE, invalid=CLOSED)},
    ),
    submit=extend_schema(
        summary="Submit my draft",
        description=(
            "Before its kind's deadline, with every required question answered; otherwise a "
            "400 naming `state` with the reason. With `If-Match`, only from that version."
        ),
        tags=["my proposals"],
        parameters=[CONFERENCE_SLUG, PROPOSAL_CODE, IF_MATCH, ETAG],
        request=None,
        responses={
            200: MyProposalSerializer,
            **errors(*CHANGE, invalid={"state": ["The call for proposals is closed."]}),
        },
    ),
    withdraw=extend_schema(
        summary="Withdraw my proposal",
        description="At any time before it is confirmed, deadline or not.",
        tags=["my proposals"],
        parameters=[CONFERENCE_SLUG, PROPOSAL_CODE, IF_MATCH, ETAG],
        request=None,
        responses={
            200: MyProposalSerializer,
            **errors(
                *CHANGE,
                invalid={"state": ["A proposal that is withdrawn cannot become withdrawn."]},
            ),
        },
    ),
)

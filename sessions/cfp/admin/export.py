"""The proposals of one conference as CSV, with their scores and answers, for those who decide
on them: mounted by ``ProposalAdmin.get_urls()`` at /admin/schedule/proposal/export/<id>/ and
linked from the review list. Every cell is safe to open in a spreadsheet (``csv_cell``)."""

import csv
import io

from django.db.models import F
from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from django.urls import path

from conference.admin.scoped import reachable
from conference.models import Conference
from sessions.admin.feedback import csv_cell
from sessions.models import Call, CallQuestion, Proposal

COLUMNS = ["code", "title", "kind", "track", "state", "speakers", "mean score", "reviews"]


def export_urls(model_admin) -> list:
    name = f"{model_admin.opts.app_label}_{model_admin.opts.model_name}_export"
    view = model_admin.admin_site.admin_view(export_view)
    return [path("export/<int:conference_id>/", view, name=name)]


def export_view(request, conference_id):
    conference = get_object_or_404(Conference, pk=conference_id)
    reachable(request, "schedule.decide_proposal", conference)
    call = get_object_or_404(Call, conference=conference)
    body = proposals_csv(
        conference,
        with_speakers=request.user.has_perm("schedule.see_proposal_speakers", call),
    )
    response = HttpResponse(body, content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="proposals-{conference.slug}.csv"'
    return response


def proposals_csv(conference: Conference, *, with_speakers: bool) -> str:
    """The proposals sent to ``conference``'s organizers, best mean score first; the speakers'
    names and addresses only ``with_speakers``; a column per question of the call."""
    questions = list(CallQuestion.objects.filter(call__conference=conference))
    proposals = (
        Proposal.objects.of_conference(conference)
        .reviewable()
        .with_scores()
        .select_related("track")
        .prefetch_related("proposal_speakers__user", "answers")
        .order_by(F("mean_score").desc(nulls_last=True), "title", "pk")
    )
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(csv_cell(text) for text in [*COLUMNS, *(q.text for q in questions)])
    for proposal in proposals:
        answers = {answer.question_id: answer.value for answer in proposal.answers.all()}
        speakers = (
            "; ".join(
                f"{speaker.name} <{speaker.user.email}>"
                for speaker in proposal.proposal_speakers.all()
            )
            if with_speakers
            else ""
        )
        mean = "" if proposal.mean_score is None else f"{proposal.mean_score:.2f}"
        row = [
            proposal.code,
            proposal.title,
            proposal.get_kind_display(),
            proposal.track.name if proposal.track else "",
            proposal.get_state_display(),
            speakers,
            mean,
            proposal.review_count,
            *(answers.get(question.pk, "") for question in questions),
        ]
        writer.writerow(csv_cell(value) for value in row)
    return out.getvalue()

"""The schedule planner: an admin page where organizers move sessions between rooms and times.

``SessionAdmin.get_urls()`` mounts these under /admin/schedule/session/planner/; each view is
wrapped by ``admin_site.admin_view`` (staff only) and asks for the change permission on sessions.
The layout is sessions/planner.py; every move is one ``SessionMoveForm`` (sessions/forms.py).
"""

import datetime
from dataclasses import dataclass, field

from django.contrib import messages
from django.core.exceptions import NON_FIELD_ERRORS, ValidationError
from django.db import transaction
from django.http import HttpResponse, JsonResponse, QueryDict
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils import timezone
from django.utils.decorators import method_decorator
from django.utils.http import quote_etag
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views import View
from django.views.decorators.cache import cache_control
from django.views.decorators.http import condition

from conference.admin.scoped import reachable
from conference.models import Conference
from conference.versioning import EditConflictError
from sessions.forms import SessionMoveForm
from sessions.models import Session
from sessions.planner import (
    MINUTE,
    MOST_ROWS,
    first_busy_day,
    forget_undo,
    last_change_text,
    placement_of,
    placement_text,
    planner_context,
    record_move,
    remember_undo,
    undo_of,
)
from sessions.warnings import session_warnings

SIDE_LIST_FILTERS = ("q", "track", "kind")


def planner_urls(model_admin) -> list:
    wrap = model_admin.admin_site.admin_view
    name = f"{model_admin.opts.app_label}_{model_admin.opts.model_name}_planner"
    return [
        path(
            "planner/rows.css",
            wrap(planner_rows_css, cacheable=True),
            name=f"{name}_rows",
        ),
        path(
            "planner/<int:conference_id>/",
            wrap(PlannerView.as_view(model_admin=model_admin)),
            name=name,
        ),
        path(
            "planner/<int:conference_id>/move/<int:session_id>/",
            wrap(PlannerMoveView.as_view(model_admin=model_admin)),
            name=f"{name}_move",
        ),
        path(
            "planner/<int:conference_id>/undo/",
            wrap(PlannerUndoView.as_view(model_admin=model_admin)),
            name=f"{name}_undo",
        ),
        path(
            "planner/<int:conference_id>/state/",
            wrap(PlannerStateView.as_view(model_admin=model_admin)),
            name=f"{name}_state",
        ),
    ]


class PlannerMixin:
    """The conference in the URL, for staff who may change sessions; the admin's page context."""

    model_admin = None

    def setup(self, request, *args, **kwargs):
        super().setup(request, *args, **kwargs)
        self.conference = get_object_or_404(Conference, pk=kwargs["conference_id"])

    def dispatch(self, request, *args, **kwargs):
        # Moving sessions of this conference; another conference's planner is a 404.
        reachable(request, "schedule.change_session", self.conference)
        return super().dispatch(request, *args, **kwargs)

    def planner_url(self, day: datetime.date | None = None) -> str:
        url = reverse("admin:schedule_session_planner", args=[self.conference.pk])
        return f"{url}?day={day.isoformat()}" if day else url

    def chosen_day(self) -> datetime.date | None:
        """The ?day= asked for, if it is one of the conference's days."""
        try:
            day = datetime.date.fromisoformat(self.request.GET.get("day", ""))
        except ValueError:
            return None
        return day if day in self.conference.days else None

    def admin_context(self, title: str) -> dict:
        return {
            **self.model_admin.admin_site.each_context(self.request),
            "opts": self.model_admin.opts,
            "title": title,
            # The planner needs the width; the admin's menu stays one click away (breadcrumbs).
            "is_nav_sidebar_enabled": False,
            "conference": self.conference,
        }


class PlannerView(PlannerMixin, View):
    """One day of the conference (?day=) and its unscheduled sessions (?q=, ?track=, ?kind=).

    An htmx request for the board or the side list gets just that part.
    """

    def get(self, request, *args, **kwargs):
        conference = self.conference
        day = self.chosen_day() or first_busy_day(conference)
        context = {
            **self.admin_context(_("Planner: %(conference)s") % {"conference": conference}),
            **planner_context(
                conference, day, side_list_query(request), move_url_prefix(conference)
            ),
            "planner_url": self.planner_url(),
            "day_url": self.planner_url(day),
            "filters": {name: request.GET.get(name, "") for name in SIDE_LIST_FILTERS},
            "undo": undo_of(request.session, conference),
            "board_etag": quote_etag(conference.changed_at.isoformat()),  # as board_version
        }
        template = {
            "planner-board": "admin/schedule/session/planner_board.html",
            "planner-unscheduled": "admin/schedule/session/planner_unscheduled.html",
        }.get(request.htmx.target if request.htmx else None, "admin/schedule/session/planner.html")
        return TemplateResponse(request, template, context)


def side_list_query(request) -> QueryDict:
    """The side list's filters from the query string; an empty field (“Any track”) filters nothing."""
    query = QueryDict(mutable=True)
    for name in SIDE_LIST_FILTERS:
        values = [value for value in request.GET.getlist(name) if value]
        if values:
            query.setlist(name, values)
    return query


def move_url_prefix(conference: Conference) -> str:
    """The move URL of a session without its pk, reversed once for every block of the board."""
    return reverse("admin:schedule_session_planner_move", args=[conference.pk, 0]).removesuffix(
        "0/"
    )


class PlannerMoveView(PlannerMixin, View):
    """GET: the plain “Move to…” form of one session. POST: one move, from any of its front ends.

    Without JavaScript the answer is a redirect to the planner with a message; an htmx request
    (drag and drop, the keyboard, Undo) gets the planner's status line, and an ``HX-Trigger``
    that refreshes the board when the move was saved.
    """

    def setup(self, request, *args, **kwargs):
        super().setup(request, *args, **kwargs)
        self.session = get_object_or_404(
            self.conference.sessions.select_related("conference", "room", "track"),
            pk=kwargs["session_id"],
        )

    def get(self, request, *args, **kwargs):
        form = SessionMoveForm(session=self.session, rooms=self.conference.rooms.all())
        return self.render_form(form)

    def render_form(self, form: SessionMoveForm) -> TemplateResponse:
        session = self.session
        context = {
            **self.admin_context(_("Move “%(session)s”") % {"session": session}),
            "session": session,
            "form": form,
            "placement": placement_text(session),
            "minutes": session.planned_length // MINUTE,
            "back_url": self.planner_url(self.chosen_day()),
        }
        response = TemplateResponse(
            self.request, "admin/schedule/session/planner_move.html", context
        )
        # The start field shows the time on the conference's clocks: widgets format at render.
        with timezone.override(self.conference.tz):
            return response.render()

    def post(self, request, *args, **kwargs):
        return answer_move(self, apply_move(request, self.session, request.POST))


@dataclass
class MoveOutcome:
    """What one move did: saved or refused, the sentence that says so, and what the planner
    warns about the session where it now is (sessions/warnings.py)."""

    session: Session | None  # None: nothing was tried (no move to undo)
    saved: bool
    message: str
    warnings: list[str] = field(default_factory=list)

    @property
    def warning_text(self) -> str:
        """“Warning: Ann Lee is not available then (available 14:00–18:00 CEST).”"""
        if not self.warnings:
            return ""
        return ngettext("Warning: %(warnings)s.", "Warnings: %(warnings)s.", len(self.warnings)) % {
            "warnings": "; ".join(self.warnings)
        }

    @property
    def full_text(self) -> str:
        """The message with its warnings, as a message without JavaScript shows it."""
        return f"{self.message} {self.warning_text}".strip()


def apply_move(request, session: Session, data, undoing: bool = False) -> MoveOutcome:
    """Run one move through SessionMoveForm; keep how to undo it when it is saved.

    A refused move ends the offer to undo an earlier one: Undo beside “Not moved” would put back
    a session the organizer is no longer looking at. Refused because someone saved the session
    since, it says who, what and when, in words (``last_change_text``).
    """
    before = placement_of(session)
    slot_before = (session.room_id, session.starts_at, session.ends_at, session.status)
    form = SessionMoveForm(data, session=session, rooms=session.conference.rooms.all())
    try:
        with transaction.atomic():
            if not form.is_valid():
                if form.has_error(NON_FIELD_ERRORS, "edit_conflict"):
                    return refused(request, session, conflict_text(session, request.user))
                return refused(request, session, named_once(session, form.reasons))
            if (session.room_id, session.starts_at, session.ends_at, session.status) == slot_before:
                # Put down where it was: nothing to save, and the last undo stays as it was.
                return MoveOutcome(
                    session,
                    True,
                    _("“%(session)s” stays in %(place)s.")
                    % {"session": session, "place": placement_text(session)},
                )
            form.save()
            record_move(request.user, session, slot_before)
            if undoing:
                forget_undo(request.session, session.conference)
            else:
                remember_undo(request.session, session, before)
            # Stored with the move, in its transaction: one commit, where the session
            # middleware would make a second, and each commit waits for the disk.
            request.session.save()
            request.session.modified = False
    except ValidationError as error:  # a save that landed between the check and the write
        if isinstance(error, EditConflictError):
            return refused(request, session, conflict_text(session, request.user))
        return refused(request, session, named_once(session, " ".join(error.messages)))
    where = placement_text(session)
    warnings = session_warnings(session)
    if undoing:
        message = _("Undone: “%(session)s” is back in %(place)s.")
    elif slot_before[3] == Session.Status.PUBLISHED and session.is_draft:
        message = _(
            "Unpublished “%(session)s” and moved it to %(place)s: the next release lists it "
            "as removed."
        )
    else:
        message = _("Moved “%(session)s” to %(place)s.")
    return MoveOutcome(session, True, message % {"session": session, "place": where}, warnings)


def refused(request, session: Session, reasons: str) -> MoveOutcome:
    forget_undo(request.session, session.conference)
    return MoveOutcome(session, False, _("Not moved: %(reasons)s") % {"reasons": reasons})


def conflict_text(session: Session, viewer) -> str:
    return (
        last_change_text(session, viewer)
        + " "
        + _("The board now shows it as it is: move it again if you still want to.")
    )


def named_once(session: Session, reasons: str) -> str:
    """“Title”: why, naming the session once: some reasons already name it."""
    name = _("“%(title)s”") % {"title": session}
    return reasons if name in reasons else f"{name}: {reasons}"


def answer_move(view: PlannerMixin, outcome: MoveOutcome) -> HttpResponse:
    request = view.request
    if request.htmx:
        context = {
            "outcome": outcome,
            "undo": undo_of(request.session, view.conference),
            "conference": view.conference,
        }
        response = TemplateResponse(request, "admin/schedule/session/planner_status.html", context)
        # Saved or refused, the board is drawn again: a refusal often means it was out of date.
        response["HX-Trigger"] = "planner-moved"
        return response
    level = messages.SUCCESS if outcome.saved else messages.ERROR
    messages.add_message(
        request, messages.WARNING if outcome.warnings else level, outcome.full_text
    )
    session = outcome.session
    if outcome.saved and not session.is_unscheduled:
        day = session.conference.day_of(session.starts_at)
    else:
        day = view.chosen_day()
    return redirect(view.planner_url(day))


class PlannerUndoView(PlannerMixin, View):
    """Puts the session of the last move back where it was, through the same form and checks."""

    def post(self, request, *args, **kwargs):
        undo = undo_of(request.session, self.conference)
        if undo is None:  # undone in another window, or a refused move ended it there
            return self.nothing_to_undo(_("There is no move to undo."))
        session = self.conference.sessions.select_related("conference", "room").filter(
            pk=undo["session"]
        )
        session = session.first()
        if session is None:
            forget_undo(request.session, self.conference)
            return self.nothing_to_undo(
                _("“%(title)s” was deleted meanwhile: nothing to undo.") % {"title": undo["title"]}
            )
        outcome = apply_move(request, session, undo, undoing=True)
        return answer_move(self, outcome)

    def nothing_to_undo(self, text: str) -> HttpResponse:
        request = self.request
        if request.htmx:  # the status line says it, where a redirect would put a page in it
            return answer_move(self, MoveOutcome(None, False, text))
        messages.info(request, text)
        return redirect(self.planner_url(self.chosen_day()))


def board_version(request, conference_id: int, **kwargs) -> str | None:
    """What a planner's board was drawn from: the conference's ``changed_at``, which every
    write to its sessions, rooms, tracks and speakers moves. None for no such conference."""
    changed_at = (
        Conference.objects.filter(pk=conference_id).values_list("changed_at", flat=True).first()
    )
    return None if changed_at is None else changed_at.isoformat()


class PlannerStateView(PlannerMixin, View):
    """What an open planner polls: 304 while its board (``data-etag``) is current, else 200 and
    the new ETag, on which it draws the board again (static/js/planner.js)."""

    @method_decorator(condition(etag_func=board_version))
    def get(self, request, *args, **kwargs):
        return JsonResponse({"changed": True})


@cache_control(max_age=24 * 60 * 60, private=True)
def planner_rows_css(request):
    """Rows and spans as classes (.r12, .s5): the planner places blocks without inline styles."""
    return TemplateResponse(
        request,
        "admin/schedule/session/planner_rows.css",
        {"rows": range(1, MOST_ROWS + 1)},
        content_type="text/css; charset=utf-8",
    )

"""“My schedule”: saving sessions, the personal page, and its private calendar feed."""

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.mixins import LoginRequiredMixin
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import ValidationError
from django.http import Http404, HttpResponse, HttpResponseBadRequest
from django.shortcuts import get_object_or_404, redirect
from django.template.loader import render_to_string
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views import View
from django.views.generic import TemplateView

from conference.pages.views import visitor_messages
from conference.views.conferences import ConferenceMixin, ConferencePageMixin, safe_next
from conference.views.preview_time import FollowsTheClockMixin, now_for
from sessions.exports.ical import build_calendar
from sessions.models import PENDING_SAVE_KEY, CalendarFeed, SavedSession, Session
from sessions.personal import card_messages, saved_session_ids
from sessions.timetable import group_by_day_and_slot, happening_now_and_next, mark_clashes


class PublicSessionMixin(ConferenceMixin):
    def get_session(self, slug: str) -> Session:
        sessions = Session.objects.public().filter(conference=self.conference)
        return get_object_or_404(sessions.select_related("conference", "room"), slug=slug)


class SaveSessionView(PublicSessionMixin, View):
    """POST action=save|remove. Works as a plain form; with htmx it swaps the button in place.

    An anonymous visitor's Save is a link here (GET): it notes the session, which is saved as
    soon as they log in or sign up, and sends them to do that. A GET changes nothing else.
    """

    def get(self, request, conference_slug, slug):
        session = self.get_session(slug)
        back = safe_next(request, session.get_absolute_url())
        if request.user.is_authenticated:
            return redirect(back)
        request.session[PENDING_SAVE_KEY] = session.pk
        return redirect_to_login(back)

    def post(self, request, conference_slug, slug):
        session = self.get_session(slug)
        action = request.POST.get("action")
        if action not in {"save", "remove"}:
            return HttpResponseBadRequest("Say action=save or action=remove.")
        back = safe_next(request, session.get_absolute_url())
        if not request.user.is_authenticated:
            if action == "save":
                request.session[PENDING_SAVE_KEY] = session.pk
            return redirect_to_login(back)
        # What clashed before, to tell which cards' clash marks this save makes or ends.
        clashing_before = (
            saved_session_ids(request.user, self.conference)[1] if request.htmx else None
        )
        if action == "remove":
            SavedSession.objects.remove(request.user, session)
        else:
            try:
                SavedSession.objects.add(request.user, session)
            except ValidationError as error:
                if request.htmx:  # plain text: static/js/offline.js shows it beside the button
                    return HttpResponseBadRequest(
                        " ".join(error.messages), content_type="text/plain; charset=utf-8"
                    )
                messages.error(request, " ".join(error.messages))
                return redirect(back)
        if request.htmx:
            return self.swapped_toggle(session, clashing_before)
        # Back to the card, which shows this beside its button (sessions/views/personal.py).
        done = (
            _("Saved to your schedule.") if action == "save" else _("Removed from your schedule.")
        )
        messages.success(request, done, extra_tags=session.card_id)
        return redirect(back if "#" in back else f"{back}#{session.card_id}")

    def swapped_toggle(self, session: Session, clashing_before: frozenset[int]) -> HttpResponse:
        """The session's new Save button, which htmx swaps in place (keeping the focus, by its
        id), and out of band the Save buttons of the other sessions whose clash this save made
        or ended (a button's state shows its card's clash mark): saving the second talk of a
        slot marks both at once, removing it clears both."""
        saved, clashing = saved_session_ids(self.request.user, self.conference)
        changed = (clashing_before ^ clashing) - {session.pk}
        others = self.conference.sessions.filter(pk__in=changed).order_by("pk") if changed else []
        toggle = render_to_string(
            "sessions/includes/save_toggle_alone.html",
            {
                "toggle": session.save_toggle,
                "saved_session_ids": saved,
                "clashing_session_ids": clashing,
                "clash_toggles": [other.save_toggle for other in others],
            },
            self.request,
        )
        # The page's Save form sent it: the answer replaces the toggle of this session.
        return HttpResponse(
            toggle,
            headers={"HX-Retarget": f"#toggle-{session.pk}", "HX-Reswap": "outerHTML settle:0ms"},
        )


class MyScheduleView(LoginRequiredMixin, FollowsTheClockMixin, ConferencePageMixin, TemplateView):
    """The visitor's own page: never shared, so its Save buttons render in place. Its “happening
    now” follows the organizers' preview time, as now and next does."""

    template_name = "sessions/my_schedule.html"
    extra_context = {"nav": "my-schedule"}
    shared = False

    def get_context_data(self, **kwargs):
        user = self.request.user
        # One query for saves and sessions, so a save removed meanwhile cannot split them.
        sessions = []
        for saved in SavedSession.objects.of(user, self.conference).for_my_schedule():
            saved.session.saved_entry = saved
            sessions.append(saved.session)
        mark_clashes(sessions)
        now = now_for(self.request, self.conference)
        running, up_next = (
            happening_now_and_next(sessions, now)
            if self.conference.opens_at <= now < self.conference.closes_at
            else ([], [])
        )
        feed = CalendarFeed.objects.filter(user=user, conference=self.conference).first()
        page_messages, by_card = card_messages(
            visitor_messages(self.request), card_ids={session.card_id for session in sessions}
        )
        return super().get_context_data(
            messages=page_messages,
            card_messages=by_card,
            days=group_by_day_and_slot(sessions),
            sessions=sessions,
            saved_session_ids={session.pk for session in sessions},
            clash_count=sum(1 for session in sessions if session.clashes_with),
            happening_now=running,
            up_next=up_next,
            feed=feed,
            **kwargs,
        )


class KeepSessionView(LoginRequiredMixin, PublicSessionMixin, View):
    """Resolve a clash: keep this session, remove the saved ones that overlap it."""

    def post(self, request, conference_slug):
        session = self.get_session(request.POST.get("session", ""))
        removed = SavedSession.objects.keep_only(request.user, session)
        messages.success(
            request,
            ngettext(
                "Kept “%(session)s”; removed %(count)d clashing session.",
                "Kept “%(session)s”; removed %(count)d clashing sessions.",
                removed,
            )
            % {"session": session, "count": removed},
        )
        return redirect("sessions:my-schedule", conference_slug=self.conference.slug)


class AcknowledgeMoveView(LoginRequiredMixin, PublicSessionMixin, View):
    def post(self, request, conference_slug):
        session = self.get_session(request.POST.get("session", ""))
        saved = get_object_or_404(
            SavedSession.objects.select_related("session"), user=request.user, session=session
        )
        saved.acknowledge_move()
        return redirect("sessions:my-schedule", conference_slug=self.conference.slug)


class CalendarLinkView(LoginRequiredMixin, ConferenceMixin, View):
    """Create the private calendar link, or replace it: the old URL stops working at once."""

    def post(self, request, conference_slug):
        CalendarFeed.issue(request.user, self.conference)
        messages.success(
            request, _("Your private calendar link is ready. Any older link no longer works.")
        )
        return redirect("sessions:my-schedule", conference_slug=self.conference.slug)


def my_schedule_feed(request, conference_slug, token):
    """The calendar apps' view of a user's schedule: no login, the secret token is the key."""
    feed = CalendarFeed.objects.for_token(token)
    if feed is None or feed.conference.slug != conference_slug or not feed.conference.is_published:
        raise Http404("No such calendar.")
    sessions = (
        feed.conference.sessions.public()
        .filter(saves__user=feed.user)
        .for_listing()
        .in_schedule_order()
    )
    body = build_calendar(
        feed.conference,
        sessions,
        base_url=settings.SITE_URL,
        name=f"{feed.conference.name}: my schedule",
    )
    response = HttpResponse(body, content_type="text/calendar; charset=utf-8")
    response["Content-Disposition"] = f'inline; filename="{feed.conference.slug}-my-schedule.ics"'
    response["Cache-Control"] = "private, no-store"
    return response

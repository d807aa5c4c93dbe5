"""A speaker's own pages: slides and links for their sessions, and when they can give them.

Only the account linked to a speaker of the conference (``Speaker.user``) gets in, and only to
that speaker's sessions; everyone else logged in gets “not found”, as for a page that does not
exist. The pages are personal, never shared or cached (``shared = False``), and read and take
times in the conference's zone, as the admin does.
"""

from django.contrib import messages
from django.db import transaction
from django.db.models import prefetch_related_objects
from django.shortcuts import get_object_or_404, redirect
from django.utils.translation import gettext as _
from django.views import View
from django.views.generic import FormView

from sessions.forms import SpeakerAttachmentForm
from sessions.models import Attachment, Session
from speakers.forms import AvailabilityFormSet
from speakers.models import Speaker, availability_prefetch
from speakers.views.self_service import OwnSpeakerMixin


class OwnSessionsMixin(OwnSpeakerMixin):
    """The visitor's speaker in the conference (``self.speaker``, speakers/views/self_service.py) and
    their sessions."""

    def own_sessions(self):
        """The speaker's sessions, drafts included: slides can come before the schedule."""
        return Session.objects.filter(conference=self.conference, speakers=self.speaker)


class SessionMaterialsView(OwnSessionsMixin, FormView):
    """The session's slides and links; the speaker adds a file or a link and removes theirs."""

    template_name = "speakers/session_materials.html"
    form_class = SpeakerAttachmentForm

    def dispatch(self, request, *args, **kwargs):
        self.session = None
        return super().dispatch(request, *args, **kwargs)

    def get_session(self) -> Session:
        if self.session is None:
            sessions = self.own_sessions().select_related("conference", "room")
            self.session = get_object_or_404(sessions, slug=self.kwargs["slug"])
        return self.session

    def get_form_kwargs(self):
        return {
            **super().get_form_kwargs(),
            "session": self.get_session(),
            "added_by": self.request.user,
        }

    def form_valid(self, form):
        attachment = form.save()
        messages.success(self.request, _("Added “%(title)s”.") % {"title": attachment.title})
        return redirect(self.request.path)

    def get_context_data(self, **kwargs):
        session = self.get_session()
        removable = set(
            Attachment.objects.removable_by_speakers_of(session).values_list("pk", flat=True)
        )
        names = dict(session.speakers.filter(user__isnull=False).values_list("user", "name"))
        materials = [
            (
                attachment,
                added_by_text(attachment, self.request.user, names),
                attachment.pk in removable,
            )
            for attachment in session.attachments.select_related("session__conference")
        ]
        return super().get_context_data(session=session, materials=materials, **kwargs)


def added_by_text(attachment: Attachment, user, speaker_names: dict[int, str]) -> str:
    """Who added it, as the speaker reads it: you, a co-speaker by name, the organizers (or an
    import), or a speaker no longer on the session."""
    if attachment.added_by_id is None:
        return _("added by the organizers")
    if attachment.added_by_id == user.pk:
        return _("added by you")
    if attachment.added_by_id in speaker_names:
        return _("added by %(name)s") % {"name": speaker_names[attachment.added_by_id]}
    return _("added by a former speaker")


class RemoveMaterialView(OwnSessionsMixin, View):
    """POST: remove an attachment the speaker or a co-speaker added; never the organizers'."""

    def post(self, request, conference_slug, slug, pk):
        session = get_object_or_404(self.own_sessions(), slug=slug)
        attachment = get_object_or_404(Attachment.objects.removable_by_speakers_of(session), pk=pk)
        attachment.delete()
        messages.success(request, _("Removed “%(title)s”.") % {"title": attachment.title})
        return redirect(
            "speaker-pages:session-materials", conference_slug=conference_slug, slug=slug
        )


class AvailabilityView(OwnSessionsMixin, FormView):
    """The speaker's availability windows, added, changed and removed at once: all or nothing."""

    template_name = "speakers/availability.html"

    def get_form(self, form_class=None):
        return AvailabilityFormSet(
            **self.get_form_kwargs(),
            instance=self.speaker,
            conference=self.conference,
        )

    def form_valid(self, form):
        with transaction.atomic():
            form.save()
            # Syncing API clients learn the speaker changed; the version stays, as for a touch.
            Speaker.objects.filter(pk=self.speaker.pk).touch()
        messages.success(self.request, _("Your availability is saved."))
        return redirect(self.request.path)

    def get_context_data(self, **kwargs):
        # The windows once, for every session's check below.
        prefetch_related_objects([self.speaker], availability_prefetch())
        sessions = list(
            self.own_sessions()
            .placed()
            .scheduled()
            .select_related("conference", "room")
            .order_by("starts_at", "pk")
        )
        for session in sessions:
            session.outside_availability = not self.speaker.is_available(
                session.starts_at, session.ends_at
            )
        return super().get_context_data(sessions=sessions, **kwargs)

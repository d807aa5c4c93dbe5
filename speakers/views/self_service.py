"""A speaker's own pages: accepting an invitation, “My talks” and their profile.

None is shared or cached (``never_cache`` in speakers/urls.py): each shows one account's speaker.
They open for conferences not yet published too, since speakers prepare their profile before the
schedule goes public; any other conference, or one where the account is no speaker, is a 404.
"""

from django.contrib import messages
from django.contrib.admin.models import CHANGE, LogEntry
from django.contrib.auth.mixins import LoginRequiredMixin
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Count, F
from django.http import Http404
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.text import get_text_list
from django.utils.translation import gettext as _
from django.views import View
from django.views.generic import TemplateView

from conference.i18n.languages import activate_conference_language
from conference.models import Conference
from sessions.models import Release, Session, ordered_speakers_prefetch
from sessions.models.feedback import speaker_has_feedback_to_show
from sessions.releases import prefetch_changes
from speakers.forms import SpeakerLinkFormSet, SpeakerProfileForm
from speakers.invitations import (
    InvitationError,
    accept_invitation,
    read_invitation,
    wrong_address,
)
from speakers.models import Speaker


class SpeakerConferenceMixin:
    """The conference named in the URL, published or not, with times in its own zone."""

    def setup(self, request, *args, **kwargs):
        super().setup(request, *args, **kwargs)
        self.conference = Conference.objects.filter(slug=kwargs["conference_slug"]).first()
        if self.conference is None:
            raise Http404("No conference by that name.")
        timezone.activate(self.conference.tz)
        activate_conference_language(request, self.conference.language)

    def page_context(self, **kwargs) -> dict:
        return {
            "conference": self.conference,
            "display_zone": self.conference.time_zone,
            "time_zone_picker": False,  # times are the conference's own
            **kwargs,
        }


class OwnSpeakerMixin(LoginRequiredMixin, SpeakerConferenceMixin):
    """Pages of the logged-in account's speaker in this conference; 404 for anyone else."""

    def dispatch(self, request, *args, **kwargs):
        if request.user.is_authenticated:
            self.speaker = (
                Speaker.objects.filter(conference=self.conference, user=request.user)
                .select_related("conference")
                .first()
            )
            if self.speaker is None:
                raise Http404("You are not a speaker of this conference.")
        return super().dispatch(request, *args, **kwargs)

    def get_context_data(self, **kwargs):
        feedback = speaker_has_feedback_to_show(self.speaker, timezone.now())
        return super().get_context_data(
            **self.page_context(speaker=self.speaker, feedback_tab=feedback, **kwargs)
        )


class InvitationView(SpeakerConferenceMixin, View):
    """An invitation's link. A GET only shows it (mail scanners fetch every link); the visitor
    logs in or signs up, coming back here, and accepts with a button (a POST)."""

    template_name = "speakers/invitation.html"

    def get(self, request, conference_slug, token):
        try:
            invitation = read_invitation(token, conference_slug)
        except InvitationError as error:
            return self.refused(error)
        # Said before the button, not after it: an account that may not accept is told why.
        refused = wrong_address(invitation, request.user) if request.user.is_authenticated else None
        if refused is not None:
            return self.show(invitation, " ".join(refused.messages), 403, may_accept=False)
        return self.show(invitation)

    def post(self, request, conference_slug, token):
        if not request.user.is_authenticated:
            return redirect_to_login(request.path)
        try:
            invitation = read_invitation(token, conference_slug)
        except InvitationError as error:
            return self.refused(error)
        try:
            accepted = accept_invitation(invitation, request.user)
        except ValidationError as error:
            wrong = getattr(error, "code", None) == "wrong_address"
            status = 403 if wrong else 409
            return self.show(invitation, " ".join(error.messages), status, may_accept=not wrong)
        messages.success(
            request,
            _(
                "Your account is now linked to %(speaker)s: edit your profile below, "
                "and find your sessions under “My talks”."
            )
            % {"speaker": accepted.speaker},
        )
        return redirect("speakers:profile", conference_slug=self.conference.slug)

    def show(self, invitation, error="", status=200, *, may_accept=True):
        context = self.page_context(
            invitation=invitation, speaker=invitation.speaker, error=error, may_accept=may_accept
        )
        return render(self.request, self.template_name, context, status=status)

    def refused(self, error: InvitationError):
        # A link that opens no invitation tells nothing of a conference the visitor may not
        # see: it is a 404, as for a conference that does not exist. Published ones say why.
        if not Conference.objects.visible_to(self.request.user).filter(pk=self.conference.pk):
            raise Http404("No conference by that name.")
        context = self.page_context(title=error.title, message=error.message)
        return render(
            self.request, "speakers/invitation_invalid.html", context, status=error.status
        )


def changes_for(speaker: Speaker, releases: list[Release], zone) -> list[tuple[Release, list]]:
    """Each release with the changes it announced to ``speaker``'s sessions, in words; releases
    that changed none of them are left out."""
    found = []
    for release in prefetch_changes(releases):
        words = [
            (change, change.describe(zone))
            for change in release.changes()
            if any(
                speaker.pk in entry["speaker_ids"]
                for entry in (change.before, change.after)
                if entry
            )
        ]
        if words:
            found.append((release, words))
    return found


class MyTalksView(OwnSpeakerMixin, TemplateView):
    template_name = "speakers/my_talks.html"
    extra_context = {"nav": "my-talks"}

    def get_context_data(self, **kwargs):
        speaker = self.speaker
        sessions = (
            Session.objects.filter(conference=self.conference)
            .announced()
            .with_speaker(speaker)
            .annotate(save_count=Count("saves"))
            .select_related("conference", "room", "track")
            .prefetch_related(ordered_speakers_prefetch())
            .in_schedule_order()
        )
        releases = self.conference.releases.all()
        if speaker.talks_seen_at is not None:
            releases = releases.filter(released_at__gt=speaker.talks_seen_at)
        changes = changes_for(speaker, list(releases), self.conference.tz)
        # Looked at now. Not save(): that would move the version (refusing an organizer's open
        # edit) and the conference's changed_at (every cached page made again).
        Speaker.objects.filter(pk=speaker.pk).update(
            talks_seen_at=timezone.now(), version=F("version")
        )
        return super().get_context_data(
            sessions=list(sessions), releases=changes, seen_at=speaker.talks_seen_at, **kwargs
        )


class ProfileView(OwnSpeakerMixin, TemplateView):
    """The speaker's own profile. A save goes live at once (speakers/signals.py marks the
    conference changed) and is recorded in the admin's history of the speaker."""

    template_name = "speakers/profile.html"
    extra_context = {"nav": "my-talks"}

    def get(self, request, *args, **kwargs):
        form = SpeakerProfileForm(instance=self.speaker)
        formset = SpeakerLinkFormSet(instance=self.speaker)
        return self.render_to_response(self.get_context_data(form=form, formset=formset))

    def post(self, request, *args, **kwargs):
        form = SpeakerProfileForm(request.POST, request.FILES, instance=self.speaker)
        formset = SpeakerLinkFormSet(request.POST, instance=self.speaker)
        if self.speaker.profile_locked:
            context = self.get_context_data(form=form, formset=formset)
            return self.render_to_response(context, status=403)
        # Both validated, so every error shows at once; nothing is written unless all is valid.
        if not all([form.is_valid(), formset.is_valid()]):
            return self.render_to_response(self.get_context_data(form=form, formset=formset))
        with transaction.atomic():
            form.save()
            formset.save()
            self.log_change(form, formset)
        messages.success(request, _("Saved. Your public speaker page shows it now."))
        return redirect("speakers:profile", conference_slug=self.conference.slug)

    def log_change(self, form, formset) -> None:
        changed = form.changed_labels() + (["links"] if formset.has_changed() else [])
        if not changed:
            return
        LogEntry.objects.log_actions(
            user_id=self.request.user.pk,
            queryset=[self.speaker],
            action_flag=CHANGE,
            change_message=(
                f"Changed {get_text_list(changed, 'and')} (by the speaker, on their profile page)."
            ),
            single_object=True,
        )

    def get_context_data(self, **kwargs):
        locked = self.speaker.profile_locked
        if locked:
            for each_form in [kwargs["form"], *kwargs["formset"]]:
                for field in each_form.fields.values():
                    field.disabled = True
        return super().get_context_data(locked=locked, **kwargs)

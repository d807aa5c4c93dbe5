"""What a speaker writes in a proposal, parsed: the proposal's texts, the call's questions and
how they are presented in it. The rules are the models' (``Proposal.clean``,
``CallQuestion.check_answer``, ``ProposalSpeaker``'s fields): the form runs them and shows what
they say next to the field it is about."""

from django import forms
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext, gettext_lazy

from conference.versioning import EditConflictError
from sessions.models import AUDIENCE_LEVEL_NAMES, Proposal, ProposalAnswer, ProposalSpeaker
from sessions.models.call import ANSWER_MAX_LENGTH, CallQuestion
from speakers.models import Speaker

YES_NO = [("yes", gettext_lazy("Yes")), ("no", gettext_lazy("No"))]
EDITED_ELSEWHERE = gettext_lazy(
    "This proposal was changed elsewhere (in another tab, or by a co-speaker) since you opened "
    "it. Nothing was saved: reload the page to see the new version, then make your change again."
)


class VersionField(forms.IntegerField):
    widget = forms.HiddenInput

    def __init__(self, **kwargs):
        super().__init__(min_value=0, max_value=2**31 - 1, **kwargs)


class ProposalForm(forms.ModelForm):
    """A proposal of ``user`` to ``call``: a new one, or one they speak in (``instance``)."""

    speaker_name = forms.CharField(
        label=gettext_lazy("Your name"),
        max_length=ProposalSpeaker._meta.get_field("name").max_length,
        help_text=gettext_lazy("As the programme would show it."),
    )
    speaker_bio = forms.CharField(
        label=gettext_lazy("Your biography"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 5}),
        help_text=gettext_lazy("A few lines about you, for this proposal. Markdown."),
    )
    version = VersionField(required=False)

    class Meta:
        model = Proposal
        fields = [
            "title",
            "kind",
            "track",
            "audience_level",
            "language",
            "abstract",
            "description",
            "notes",
        ]
        widgets = {
            "abstract": forms.Textarea(attrs={"rows": 4}),
            "description": forms.Textarea(attrs={"rows": 10}),
            "notes": forms.Textarea(attrs={"rows": 4}),
        }

    def __init__(self, *args, call, user, now, **kwargs):
        super().__init__(*args, **kwargs)
        self.call = call
        self.user = user
        self.now = now
        self.instance.conference = call.conference
        if self.instance._state.adding:
            self.instance.created_by = user
        self.fields["kind"].choices = call.kind_choices()
        self.fields["audience_level"].choices = list(AUDIENCE_LEVEL_NAMES.items())
        tracks = list(call.tracks.all())
        if tracks:
            self.fields["track"].queryset = call.tracks.all()
            self.fields["track"].empty_label = gettext("No preference")
        else:
            del self.fields["track"]
        self.own_speaker = self.speaker_row()
        self.initial.setdefault("speaker_name", self.own_speaker.name)
        self.initial.setdefault("speaker_bio", self.own_speaker.bio)
        if not self.instance._state.adding:
            self.initial.setdefault("version", self.instance.version)
        self.questions = list(call.questions.all())
        answers = {answer.question_id: answer.value for answer in self.instance_answers()}
        for question in self.questions:
            name = question_field_name(question)
            self.fields[name] = question_field(question)
            self.initial.setdefault(name, answers.get(question.pk, ""))

    def instance_answers(self):
        if self.instance._state.adding:
            return []
        return self.instance.answers.all()

    def speaker_row(self) -> ProposalSpeaker:
        """The user's own ``ProposalSpeaker`` of this proposal, or a new one presented as they
        presented themselves last: in their latest proposal, else as a conference's speaker."""
        if not self.instance._state.adding:
            for speaker in self.instance.proposal_speakers.all():
                if speaker.user_id == self.user.pk:
                    return speaker
        row = ProposalSpeaker(
            user=self.user,
            name=self.user.get_full_name() or "",
            language=ProposalSpeaker.active_language(),
        )
        earlier = (
            ProposalSpeaker.objects.filter(user=self.user).order_by("-joined_at", "-pk").first()
        )
        profile = Speaker.objects.filter(user=self.user).order_by("-pk").first()
        source = earlier or profile
        if source is not None:
            row.name, row.bio = source.name, source.bio
        if not row.name:
            row.name = self.user.get_username()
        return row

    def question_fields(self):
        return [self[question_field_name(question)] for question in self.questions]

    def proposal_fields(self):
        return [self[name] for name in self.Meta.fields if name in self.fields]

    def speaker_fields(self):
        return [self["speaker_name"], self["speaker_bio"]]

    def clean(self):
        cleaned_data = super().clean()
        self.kept_answers = {}
        for question in self.questions:
            name = question_field_name(question)
            if name not in cleaned_data:
                continue  # the field's own parsing refused it already
            try:
                self.kept_answers[question] = question.check_answer(cleaned_data[name])
            except ValidationError as error:
                if error.code != "required":
                    self.add_error(name, error)
                # A required question may wait: submitting checks it (Proposal.step_refusal).
        speaker = self.own_speaker
        speaker.name = cleaned_data.get("speaker_name", speaker.name)
        speaker.bio = cleaned_data.get("speaker_bio", speaker.bio)
        try:
            speaker.full_clean(exclude=["proposal", "user", "position"], validate_unique=False)
        except ValidationError as error:
            for field, messages in error.message_dict.items():
                self.add_error({"name": "speaker_name", "bio": "speaker_bio"}.get(field), messages)
        if not self.instance._state.adding:
            self.check_version(cleaned_data.get("version"))
        return cleaned_data

    def check_version(self, seen: int | None) -> None:
        """The proposal must still be the version the speaker saw (a form without one is as
        stale as can be)."""
        try:
            if seen is None:
                raise EditConflictError(self.instance, 0, self.instance.stored_version())
            self.instance.check_version(seen)
        except EditConflictError:
            raise ValidationError(EDITED_ELSEWHERE, code="edit_conflict") from None

    def _post_clean(self):
        super()._post_clean()
        # The proposal as it would be saved, its kind included: each kind has its deadline.
        if not self.errors:
            refusal = self.instance.writing_refusal(self.now)
            if refusal:
                self.add_error("kind" if self.call.is_open(self.now) else None, refusal)

    def save(self, commit=True):
        """The proposal, its speaker row and its answers, all or nothing; ValidationError when
        someone saved the proposal since the form was shown."""
        with transaction.atomic():
            try:
                proposal = super().save()
            except EditConflictError:
                raise ValidationError(EDITED_ELSEWHERE, code="edit_conflict") from None
            speaker = self.own_speaker
            if speaker.pk is None:
                speaker.proposal = proposal
                speaker.position = 0
            speaker.save()
            stored = {answer.question_id: answer for answer in self.instance_answers()}
            for question, value in self.kept_answers.items():
                answer = stored.get(question.pk) or ProposalAnswer(
                    proposal=proposal, question=question
                )
                if answer.value != value or answer.pk is None:
                    answer.value = value
                    answer.save()
        return proposal


def question_field_name(question: CallQuestion) -> str:
    return f"question_{question.pk}"


def question_field(question: CallQuestion) -> forms.Field:
    """The field a question is answered in. Never required in the form itself: a draft may
    leave it empty; the label says it must be answered before submitting."""
    common = {"label": question.text, "help_text": question.help_text, "required": False}
    types = CallQuestion.AnswerType
    if question.answer_type == types.YES_NO:
        field = forms.ChoiceField(choices=YES_NO, widget=forms.RadioSelect, **common)
    elif question.answer_type == types.CHOICE:
        choices = [(choice, choice) for choice in question.choice_list()]
        if len(choices) <= 5:
            field = forms.ChoiceField(choices=choices, widget=forms.RadioSelect, **common)
        else:
            field = forms.ChoiceField(choices=[("", "—"), *choices], **common)
    else:
        field = forms.CharField(
            max_length=ANSWER_MAX_LENGTH, widget=forms.Textarea(attrs={"rows": 3}), **common
        )
    field.answer_required = question.required
    return field


class ConfirmStepForm(forms.Form):
    """A step confirmed on its own page (withdrawing, deleting a draft), based on the version
    of the proposal the speaker saw."""

    version = VersionField()

    def __init__(self, *args, proposal: Proposal, **kwargs):
        super().__init__(*args, **kwargs)
        self.proposal = proposal
        self.initial.setdefault("version", proposal.version)

    def clean_version(self):
        seen = self.cleaned_data["version"]
        try:
            self.proposal.check_version(seen)
        except EditConflictError:
            raise ValidationError(EDITED_ELSEWHERE, code="edit_conflict") from None
        return seen

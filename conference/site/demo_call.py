"""The demo's conference with an open call for proposals: PyTorch Day Paris 2027, unpublished,
with its call, its people and proposals in every state (README's tour; `manage.py load_demo`).

Made in code rather than in a fixture, for two reasons: the call's dates are relative to the
day the demo is loaded (it opened 30 days before and closes 30 days after, so it is open
whenever a newcomer runs `make run`), and each proposal's history is taken step by step through
the models' own methods (``Proposal.move_to``, ``decisions.decide``, ``decisions.confirm``), so
that it is checked and recorded (who, when) as any. The texts are in ``demo_call_texts``.
Loaded once, with its conference: when the conference exists, nothing here runs.
"""

import datetime
import secrets
import zoneinfo
from dataclasses import dataclass, field

from django.contrib.auth import get_user_model
from django.utils import timezone

from conference.models import AccountEmail, Conference, Room, Team, Track
from conference.site import demo_call_texts as texts
from conference.teams import join_team
from sessions.cfp import decisions
from sessions.models import (
    Call,
    CallKind,
    CallQuestion,
    DecisionMailTemplate,
    Proposal,
    ProposalAnswer,
    ProposalSpeaker,
    Review,
)

PARIS_SLUG = "pytorch-day-paris-2027"
PARIS = zoneinfo.ZoneInfo("Europe/Paris")
CALL_OPENED_DAYS_AGO = 30
CALL_CLOSES_IN_DAYS = 30
WORKSHOPS_CLOSE_IN_DAYS = 15  # the workshop's own, earlier deadline
# When each step of the demo's proposals was taken, in days before the demo was loaded (a
# proposal is written ``written_days_ago`` and submitted a day later).
REVIEWED_DAYS_AGO = 8
WITHDRAWN_DAYS_AGO = 6
DECIDED_DAYS_AGO = 5
ANSWERED_DAYS_AGO = 3

State = Proposal.State


@dataclass
class Loaded:
    conference: Conference
    # The demo accounts that log in, with the password each was given (None: the account
    # existed already and keeps its own).
    passwords: dict[str, str | None] = field(default_factory=dict)


def load_paris_call(now: datetime.datetime | None = None) -> Loaded | None:
    """PyTorch Day Paris 2027 and its call, people and proposals, unless the conference exists
    (None then). Call inside a transaction: a refused step leaves nothing half-made."""
    if Conference.objects.filter(slug=PARIS_SLUG).exists():
        return None
    now = now or timezone.now()
    conference = make_conference()
    tracks = {track.slug: track for track in make_tracks(conference)}
    call = make_call(conference, [tracks["training"], tracks["inference"]], now)
    loaded = Loaded(conference)
    people = {}
    for person in (
        texts.ORGANIZER,
        *texts.REVIEWERS,
        texts.SPEAKER,
        texts.CO_SPEAKER,
        *texts.OTHER_SPEAKERS,
    ):
        people[person.username], password = demo_account(person)
        if person.logs_in:
            loaded.passwords[person.username] = password
    make_team(f"{conference.name} organizers", conference, [people[texts.ORGANIZER.username]])
    reviewers = [people[reviewer.username] for reviewer in texts.REVIEWERS]
    make_team(f"{conference.name} reviewers", conference, reviewers, role="reviewer")
    story = Story(call, tracks, people, people[texts.ORGANIZER.username], now)
    for demo_proposal in texts.PROPOSALS:
        story.tell(demo_proposal)
    return loaded


def make_conference() -> Conference:
    conference = checked(
        Conference(
            name="PyTorch Day Paris 2027",
            slug=PARIS_SLUG,
            starts_on=datetime.date(2027, 6, 10),
            ends_on=datetime.date(2027, 6, 10),
            time_zone="Europe/Paris",
            city="Paris",
            description=(
                "A one-day PyTorch conference whose call for proposals is open: the demo's "
                "conference to follow a proposal from its draft to the planner."
            ),
            is_published=False,
        )
    )
    rooms = [
        ("Amphithéâtre", "amphitheatre", Room.Kind.LECTURE_HALL, 350),
        ("Salle Turing", "salle-turing", Room.Kind.LECTURE_HALL, 90),
        ("Atelier", "atelier", Room.Kind.WORKSHOP, 40),
    ]
    for position, (name, slug, kind, capacity) in enumerate(rooms, start=1):
        checked(
            Room(
                conference=conference,
                name=name,
                slug=slug,
                kind=kind,
                capacity=capacity,
                position=position,
            )
        )
    return conference


def make_tracks(conference: Conference) -> list[Track]:
    tracks = [
        ("Training at scale", "training", "#c2410c"),
        ("Inference and deployment", "inference", "#1d4ed8"),
        ("Community", "community", "#15803d"),  # invited talks: not offered in the call
    ]
    return [
        checked(Track(conference=conference, name=name, slug=slug, colour=colour))
        for name, slug, colour in tracks
    ]


def make_call(conference: Conference, tracks: list[Track], now: datetime.datetime) -> Call:
    today = timezone.localdate(now, timezone=PARIS)

    def at(days: int, hour: int, minute: int = 0) -> datetime.datetime:
        day = today + datetime.timedelta(days=days)
        return datetime.datetime.combine(day, datetime.time(hour, minute), tzinfo=PARIS)

    call = checked(
        Call(
            conference=conference,
            opens_at=at(-CALL_OPENED_DAYS_AGO, 9),
            closes_at=at(CALL_CLOSES_IN_DAYS, 23, 59),
            text=texts.CALL_TEXT,
            score_min=0,
            score_max=3,
            anonymised_review=True,
            scores_hidden_until_reviewed=True,
        )
    )
    call.tracks.set(tracks)
    for kind, minutes, closes_at in (
        ("talk", 30, None),
        ("lightning-talk", 10, None),
        ("workshop", 90, at(WORKSHOPS_CLOSE_IN_DAYS, 23, 59)),
    ):
        checked(CallKind(call=call, kind=kind, minutes=minutes, closes_at=closes_at))
    for position, question in enumerate(texts.QUESTIONS.values()):
        checked(CallQuestion(call=call, position=position, **question))
    checked(
        DecisionMailTemplate(
            call=call,
            decision=DecisionMailTemplate.Decision.ACCEPTED,
            language="en",
            subject=texts.ACCEPTED_MAIL_SUBJECT,
            body=texts.ACCEPTED_MAIL_BODY,
        )
    )
    return call


def demo_account(person: texts.Person):
    """``person``'s account and the password it was given; an account of that username made
    earlier is kept as it is (password None)."""
    users = get_user_model().objects
    existing = users.filter(username=person.username).first()
    if existing is not None:
        return existing, None
    password = secrets.token_urlsafe(12) if person.logs_in else None
    user = users.create_user(
        person.username,
        email=person.email,
        password=password,
        first_name=person.first_name,
        last_name=person.last_name,
    )
    if person.logs_in:
        # As if they had followed the link of the confirmation mail: invitations to co-speak
        # and decision mails reach confirmed addresses only.
        AccountEmail.objects.for_user(user).mark_verified(person.email)
    return user, password


def make_team(name: str, conference: Conference, members, role: str = "organizer") -> Team:
    team = checked(Team(name=name, **{f"is_{role}": True}))
    team.conferences.set([conference])
    for member in members:
        join_team(team, member)
    return team


@dataclass
class Story:
    """Takes each demo proposal from its draft through its steps, as its speakers, reviewers and
    organizer would have, on the days before ``now``."""

    call: Call
    tracks: dict[str, Track]
    people: dict
    organizer: object
    now: datetime.datetime

    def ago(self, days: int, hours: int = 0) -> datetime.datetime:
        return self.now - datetime.timedelta(days=days, hours=hours)

    def tell(self, demo: texts.DemoProposal) -> Proposal:
        speakers = [self.people[username] for username in demo.speakers]
        proposal = self.write(demo, speakers)
        for state in demo.path:
            self.step(proposal, demo, state, speakers[0])
        # The rows' own dates, as if written then (the steps are dated by ``move_to``).
        written = self.ago(demo.written_days_ago)
        Proposal.objects.filter(pk=proposal.pk).update(created_at=written)
        return proposal

    def write(self, demo: texts.DemoProposal, speakers) -> Proposal:
        proposal = checked(
            Proposal(
                conference=self.call.conference,
                title=demo.title,
                kind=demo.kind,
                track=self.tracks[demo.track],
                audience_level=demo.audience_level,
                language="en",
                abstract=demo.abstract,
                description=demo.description,
                notes=demo.notes,
                created_by=speakers[0],
            )
        )
        for position, user in enumerate(speakers):
            checked(
                ProposalSpeaker(
                    proposal=proposal,
                    user=user,
                    name=user.get_full_name(),
                    bio=bio_of(user.username),
                    position=position,
                )
            )
        questions = {question.text: question for question in self.call.questions.all()}
        for key, value in demo.answers.items():
            question = questions[texts.QUESTIONS[key]["text"]]
            checked(
                ProposalAnswer(
                    proposal=proposal, question=question, value=question.check_answer(value)
                )
            )
        return proposal

    def step(self, proposal: Proposal, demo: texts.DemoProposal, state: str, speaker) -> None:
        if state == State.SUBMITTED:
            submitted = self.ago(demo.written_days_ago - 1)
            proposal.move_to(state, by=speaker, now=submitted, by_speaker=True)
            self.review(proposal, demo)
        elif state == State.WITHDRAWN:
            proposal.move_to(state, by=speaker, now=self.ago(WITHDRAWN_DAYS_AGO), by_speaker=True)
        elif state == State.CONFIRMED:
            decisions.confirm(proposal, by=speaker, now=self.ago(ANSWERED_DAYS_AGO))
        elif state == State.DECLINED:
            decisions.decline(proposal, by=speaker, now=self.ago(ANSWERED_DAYS_AGO))
        else:
            outcome = decisions.decide(
                [proposal], state, by=self.organizer, now=self.ago(DECIDED_DAYS_AGO)
            )
            if outcome.refused:
                raise RuntimeError(f"The demo's “{proposal}” could not become {state}.")

    def review(self, proposal: Proposal, demo: texts.DemoProposal) -> None:
        for hours, (username, (score, comment)) in enumerate(demo.reviews.items()):
            review = checked(
                Review(
                    proposal=proposal, reviewer=self.people[username], score=score, comment=comment
                )
            )
            reviewed = self.ago(REVIEWED_DAYS_AGO, hours=hours)
            Review.objects.filter(pk=review.pk).update(created_at=reviewed, updated_at=reviewed)


def bio_of(username: str) -> str:
    people = (texts.SPEAKER, texts.CO_SPEAKER, *texts.OTHER_SPEAKERS)
    return next(person.bio for person in people if person.username == username)


def checked(obj):
    """``obj`` saved once its model's rules pass (``full_clean``), as every writer does."""
    obj.full_clean()
    obj.save()
    return obj

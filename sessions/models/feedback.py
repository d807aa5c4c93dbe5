"""Attendee feedback on sessions: a rating of 1 to 5 and an optional comment, once per session.

Attendees give it from the moment a session starts until ``Conference.feedback_closes_at``, and
edit it in that window; breaks, cancelled and unpublished sessions take none. Organizers hide a
comment (``hidden``): its rating still counts, its words are shown to nobody but organizers.
Speakers read their sessions' ratings and comments without their authors' names.
"""

import datetime
from collections.abc import Iterable
from dataclasses import dataclass, field

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxLengthValidator, MaxValueValidator, MinValueValidator
from django.db import IntegrityError, models, transaction
from django.db.models import Count, Q, Sum
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.functional import lazy
from django.utils.translation import gettext, gettext_lazy
from django.utils.translation import gettext_lazy as _

from conference.accounts.limits import Limit

COMMENT_MAX_LENGTH = 2000


def rating_label(value: int) -> str:
    return gettext("%(rating)s of 5") % {"rating": value}


# Labelled in the visitor's language when shown, not in the one active at import.
RATINGS = [(value, lazy(rating_label, str)(value)) for value in range(1, 6)]

# Saves per account and hour: enough to rate every session of a long day twice over, too few to
# flood organizers and speakers with scripted comments.
FEEDBACK_SAVES_PER_ACCOUNT = Limit("feedback-account", 30, datetime.timedelta(hours=1))


def feedback_refusal(session, now: datetime.datetime) -> str:
    """Why ``session`` takes no feedback at ``now``; empty when it does."""
    conference = session.conference
    if session.is_break:
        return gettext("Breaks take no feedback.")
    if session.is_cancelled:
        return gettext("This session was cancelled: it takes no feedback.")
    if not session.is_published or not conference.is_published or session.starts_at is None:
        return gettext("This session is not published.")
    if now < session.starts_at:
        return gettext("Feedback opens when the session starts.")
    if now >= conference.feedback_closes_at:
        day = date_format(conference.feedback_last_day, "j F Y")
        return gettext("Feedback on this conference closed after %(day)s.") % {"day": day}
    return ""


# The fields an attendee writes (with the session and account they belong to).
WORDS = ("session_id", "user_id", "rating", "comment")


class FeedbackQuerySet(models.QuerySet):
    def of_conference(self, conference):
        return self.filter(session__conference=conference)

    def shown(self):
        """Feedback whose comment may be shown beyond organizers: not hidden."""
        return self.filter(hidden=False)

    def for_admin(self):
        return self.select_related("session__conference", "session__track")

    def for_export(self):
        return self.for_admin().order_by(
            "session__conference__slug", "session__starts_at", "session__pk", "pk"
        )

    def totals_by_session(self):
        """Per session, its count and sum of ratings: one grouped query (``summarize``)."""
        return (
            self.order_by()
            .values(
                "session_id",
                "session__slug",
                "session__title",
                "session__starts_at",
                "session__conference_id",
                "session__conference__name",
                "session__track__slug",
                "session__track__name",
            )
            .annotate(count=Count("pk"), total=Sum("rating"))
            .order_by("session__conference__name", "session__starts_at", "session_id")
        )


class Feedback(models.Model):
    """An attendee's rating of a session, with an optional comment: one per session, editable."""

    session = models.ForeignKey(
        "schedule.Session",
        on_delete=models.CASCADE,
        related_name="feedback",
        verbose_name=gettext_lazy("session"),
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="session_feedback",
        verbose_name=gettext_lazy("user"),
    )
    rating = models.PositiveSmallIntegerField(
        choices=RATINGS,
        validators=[MinValueValidator(1), MaxValueValidator(5)],
        verbose_name=gettext_lazy("rating"),
    )
    comment = models.TextField(
        blank=True,
        max_length=COMMENT_MAX_LENGTH,
        # A TextField's max_length binds only its form field; this binds every writer.
        validators=[MaxLengthValidator(COMMENT_MAX_LENGTH)],
        help_text=_("Plain text, for the organizers and the speakers (who do not see your name)."),
        verbose_name=gettext_lazy("comment"),
    )
    hidden = models.BooleanField(
        default=False,
        help_text=gettext_lazy(
            "Hidden comments are shown to nobody but organizers; the rating still counts."
        ),
        verbose_name=gettext_lazy("hidden"),
    )
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=gettext_lazy("created at"))
    updated_at = models.DateTimeField(auto_now=True, verbose_name=gettext_lazy("updated at"))

    objects = FeedbackQuerySet.as_manager()
    # The moment the window is judged at, when not now: the preview time of an organizer trying
    # the form (``now_for``, conference/views/preview_time.py), set by the view. Not a column.
    given_at: datetime.datetime | None = None

    class Meta:
        verbose_name = gettext_lazy("feedback")
        verbose_name_plural = gettext_lazy("feedback")
        ordering = ["-updated_at", "pk"]
        constraints = [
            models.CheckConstraint(
                condition=Q(rating__gte=1, rating__lte=5),
                name="feedback_rating_one_to_five",
                violation_error_message=_("A rating is 1 to 5."),
            ),
            models.UniqueConstraint(
                fields=["session", "user"],
                name="feedback_once_per_session_and_user",
                violation_error_message=_("You already gave feedback on this session; edit it."),
            ),
        ]

    def __str__(self):
        return gettext("%(rating)s/5 on %(session)s") % {
            "rating": self.rating,
            "session": self.session,
        }

    @classmethod
    def from_db(cls, db, field_names, values):
        instance = super().from_db(db, field_names, values)
        # From __dict__: reading a deferred field here would load it, through from_db again.
        instance._loaded_words = tuple(instance.__dict__.get(name) for name in WORDS)
        return instance

    def words(self) -> tuple:
        """What the attendee wrote, and where."""
        return tuple(getattr(self, name) for name in WORDS)

    def clean(self):
        # The window is the attendee's: an organizer hiding a comment later changes no words.
        if self.session_id is None or getattr(self, "_loaded_words", None) == self.words():
            return
        refusal = feedback_refusal(self.session, self.given_at or timezone.now())
        if refusal:
            raise ValidationError(refusal, code="feedback_closed")


def save_feedback(feedback: Feedback) -> Feedback:
    """Saves an attendee's new or edited feedback, after ``full_clean()``, counting it against
    their hourly limit; a ValidationError says why not, and nothing is saved."""
    if not FEEDBACK_SAVES_PER_ACCOUNT.allows(f"user:{feedback.user_id}"):
        minutes = FEEDBACK_SAVES_PER_ACCOUNT.minutes_left()
        raise ValidationError(
            gettext(
                "You saved feedback many times in the last hour. Try again in %(minutes)s minutes."
            )
            % {"minutes": minutes},
            code="rate_limited",
        )
    feedback.full_clean()
    try:
        with transaction.atomic():
            feedback.save()
    except IntegrityError:
        # Two tabs sent a first rating at once: the one that got in first is edited instead.
        existing = Feedback.objects.get(session=feedback.session_id, user=feedback.user_id)
        existing.rating, existing.comment = feedback.rating, feedback.comment
        existing.save(update_fields=["rating", "comment", "updated_at"])
        return existing
    return feedback


@dataclass
class Tally:
    """A count of ratings and their sum; ``average`` to two decimals, None without ratings."""

    count: int = 0
    total: int = 0

    @property
    def average(self) -> float | None:
        return round(self.total / self.count, 2) if self.count else None

    def add(self, count: int, total: int) -> None:
        self.count += count
        self.total += total


@dataclass
class TrackTally(Tally):
    slug: str = ""
    name: str = ""


@dataclass
class SessionTally(Tally):
    session_id: int = 0
    slug: str = ""
    title: str = ""
    track: str = ""
    track_slug: str = ""
    starts_at: datetime.datetime | None = None


@dataclass
class ConferenceSummary:
    """Averages and counts per session, per track and for the whole conference."""

    conference_id: int
    name: str
    sessions: list[SessionTally] = field(default_factory=list)
    tracks: dict[str, TrackTally] = field(default_factory=dict)  # by name
    overall: Tally = field(default_factory=Tally)


NO_TRACK = "(no track)"


def summarize(rows: Iterable[dict]) -> list[ConferenceSummary]:
    """Per conference, from ``totals_by_session()``: the tracks' and conference's averages are
    weighted by their sessions' counts, summed here rather than asked of the database again."""
    summaries: dict[int, ConferenceSummary] = {}
    for row in rows:
        conference_id = row["session__conference_id"]
        summary = summaries.get(conference_id)
        if summary is None:
            summary = summaries[conference_id] = ConferenceSummary(
                conference_id, row["session__conference__name"]
            )
        track = row["session__track__name"] or NO_TRACK
        track_slug = row["session__track__slug"] or ""
        summary.sessions.append(
            SessionTally(
                count=row["count"],
                total=row["total"],
                session_id=row["session_id"],
                slug=row["session__slug"],
                title=row["session__title"],
                track=track,
                track_slug=track_slug,
                starts_at=row["session__starts_at"],
            )
        )
        tally = summary.tracks.setdefault(track, TrackTally(slug=track_slug, name=track))
        tally.add(row["count"], row["total"])
        summary.overall.add(row["count"], row["total"])
    for summary in summaries.values():
        summary.tracks = dict(sorted(summary.tracks.items()))
    return list(summaries.values())


def speaker_has_feedback_to_show(speaker, now: datetime.datetime) -> bool:
    """Whether the speaker's feedback page has anything for them: a session of theirs takes
    feedback at ``now`` (``feedback_refusal``), or some was given. Before their first session
    starts, or once feedback closed on sessions nobody rated, it has nothing."""
    sessions = list(
        speaker.conference.sessions.public()
        .filter(status="published", speakers=speaker)  # Session.Status: models imports us
        .select_related("conference")
    )
    if any(not feedback_refusal(session, now) for session in sessions):
        return True
    return Feedback.objects.filter(session__in=sessions).exists()


def sessions_with_feedback_for_speaker(user, conference) -> list:
    """The published sessions of ``conference`` that ``user`` speaks at, in schedule order, each
    with ``tally`` (all its ratings) and ``comments`` (those not hidden: rating and words only,
    never who wrote them)."""
    feedback = Feedback.objects.order_by("-rating", "comment", "pk").only(
        "session_id", "rating", "comment", "hidden"
    )
    sessions = list(
        conference.sessions.public()
        .filter(status="published", speakers__user=user)  # Session.Status: models imports us
        .distinct()
        .prefetch_related(models.Prefetch("feedback", queryset=feedback, to_attr="feedback_list"))
        .in_schedule_order()
    )
    for session in sessions:
        session.tally = Tally()
        for item in session.feedback_list:
            session.tally.add(1, item.rating)
        session.comments = [
            item for item in session.feedback_list if item.comment and not item.hidden
        ]
    return sessions

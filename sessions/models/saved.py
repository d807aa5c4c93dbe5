"""What attendees keep of the schedule: their saved sessions and their calendar feeds."""

import hmac
import secrets

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import IntegrityError, models, transaction
from django.urls import reverse
from django.utils.translation import gettext, gettext_lazy

from conference.models import Conference, Room
from sessions.models.choices import SCHEDULE_ORDER
from sessions.models.loaders import attachments_prefetch, links_prefetch, ordered_speakers_prefetch
from sessions.models.session import Session

# Where the session store keeps an anonymous visitor's “save” while they log in or sign up
# (sessions/views/my_schedule.py puts it, sessions/signals.py finishes it).
PENDING_SAVE_KEY = "pending_saved_session"


class SavedSessionQuerySet(models.QuerySet):
    def of(self, user, conference: Conference):
        """``user``'s saved sessions in ``conference``; none for an anonymous visitor."""
        if not user.is_authenticated:
            return self.none()
        return self.filter(user=user, session__conference=conference)

    def for_my_schedule(self):
        """Saves of sessions attendees may still see, loaded with all a session card shows."""
        return (
            self.filter(session__in=Session.objects.public())
            .select_related("seen_room", "session__conference", "session__room", "session__track")
            .prefetch_related(
                ordered_speakers_prefetch("session__"),
                attachments_prefetch("session__"),
                links_prefetch("session__"),
            )
            .in_schedule_order()
        )

    def in_schedule_order(self):
        """Saves in their sessions' SCHEDULE_ORDER; the pk settles ties."""
        return self.order_by(*(f"session__{name}" for name in SCHEDULE_ORDER), "pk")

    def add(self, user, session: Session) -> bool:
        """Put ``session`` on ``user``'s schedule; True if this call put it there. Saving twice,
        even at once, keeps one row, and never fails on it."""
        if session.status != Session.Status.PUBLISHED or not session.conference.is_published:
            raise ValidationError(
                {"session": gettext("Only published sessions can be saved.")}, code="not_published"
            )
        if self.filter(user=user, session=session).exists():
            return False
        try:
            with transaction.atomic():
                self.create(
                    user=user,
                    session=session,
                    seen_starts_at=session.starts_at,
                    seen_room=session.room,
                )
        except IntegrityError:
            # A parallel Save got in first (the unique constraint). Its row may already be gone
            # to a parallel Remove: the presses then ran Save, Save, Remove, and the session is
            # not saved. Either way this Save is done; get_or_create would look the row up again
            # and raise. Only a session deleted meanwhile (its foreign key) is an error here.
            if not Session.objects.filter(pk=session.pk).exists():
                raise
            return False
        return True

    def keep_only(self, user, session: Session) -> int:
        """Resolve a clash by keeping ``session``: drop ``user``'s other saves that overlap it."""
        overlapping = Session.objects.filter(conference=session.conference_id).overlapping(
            session.starts_at, session.ends_at
        )
        clashing = self.filter(user=user, session__in=overlapping).exclude(session=session)
        deleted, _ = clashing.delete()
        return deleted

    def remove(self, user, session: Session) -> bool:
        """Take ``session`` off ``user``'s schedule; True if it was there."""
        deleted, _ = self.filter(user=user, session=session).delete()
        return deleted > 0


class SavedSession(models.Model):
    """A session an attendee put on “my schedule”."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="saved_sessions",
        verbose_name=gettext_lazy("user"),
    )
    session = models.ForeignKey(
        Session,
        on_delete=models.CASCADE,
        related_name="saves",
        verbose_name=gettext_lazy("session"),
    )
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=gettext_lazy("created at"))
    # Where and when the session was when the attendee last looked, so a move can be pointed out.
    seen_starts_at = models.DateTimeField(
        null=True, blank=True, verbose_name=gettext_lazy("seen starts at")
    )
    seen_room = models.ForeignKey(
        Room,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=gettext_lazy("seen room"),
    )

    objects = SavedSessionQuerySet.as_manager()

    class Meta:
        verbose_name = gettext_lazy("saved session")
        verbose_name_plural = gettext_lazy("saved sessions")
        ordering = ["session__starts_at", "pk"]
        constraints = [
            # Double clicks, two tabs or two requests at once still leave one row.
            models.UniqueConstraint(
                fields=["user", "session"],
                name="saved_session_once_per_user",
                violation_error_message=gettext_lazy("This session is already on your schedule."),
            ),
        ]

    def __str__(self):
        return gettext("%(user)s saved %(session)s") % {"user": self.user, "session": self.session}

    @property
    def was_moved(self) -> bool:
        """The session changed time or room since the attendee saved or last acknowledged it."""
        session = self.session
        return (self.seen_starts_at is not None and self.seen_starts_at != session.starts_at) or (
            self.seen_room_id != session.room_id
        )

    def acknowledge_move(self) -> None:
        self.seen_starts_at, self.seen_room = self.session.starts_at, self.session.room
        self.save(update_fields=["seen_starts_at", "seen_room"])


class CalendarFeedQuerySet(models.QuerySet):
    def for_token(self, token: str) -> "CalendarFeed | None":
        """The feed a secret URL token opens, compared in constant time; None if it opens nothing.

        A deactivated account's feeds open nothing: they stop with the account.
        """
        selector, _, verifier = token.partition(".")
        if not selector or not verifier or len(token) > 200:
            return None
        feeds = self.select_related("user", "conference").filter(user__is_active=True)
        feed = feeds.filter(selector=selector).first()
        if feed is None or not hmac.compare_digest(feed.verifier.encode(), verifier.encode()):
            return None
        return feed


class CalendarFeed(models.Model):
    """A private iCalendar subscription to one user's schedule of one conference.

    The URL token is ``selector.verifier``: the selector finds the row by an index, the verifier
    is then compared in constant time, so response timing does not leak how much of a guess was
    right. Both are kept (the owner sees the URL again on their schedule page). Regenerating
    replaces both, which kills the old URL at once.
    """

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="calendar_feeds",
        verbose_name=gettext_lazy("user"),
    )
    conference = models.ForeignKey(
        Conference,
        on_delete=models.CASCADE,
        related_name="calendar_feeds",
        verbose_name=gettext_lazy("conference"),
    )
    selector = models.CharField(max_length=32, unique=True, verbose_name=gettext_lazy("selector"))
    verifier = models.CharField(max_length=64, verbose_name=gettext_lazy("verifier"))
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=gettext_lazy("created at"))

    objects = CalendarFeedQuerySet.as_manager()

    class Meta:
        verbose_name = gettext_lazy("calendar feed")
        verbose_name_plural = gettext_lazy("calendar feeds")
        constraints = [
            models.UniqueConstraint(
                fields=["user", "conference"], name="calendar_feed_once_per_user_and_conference"
            ),
        ]

    def __str__(self):
        return gettext("Calendar feed of %(user)s for %(conference)s") % {
            "user": self.user,
            "conference": self.conference,
        }

    def get_absolute_url(self):
        return reverse(
            "sessions:my-schedule-feed",
            kwargs={"conference_slug": self.conference.slug, "token": self.token},
        )

    @property
    def token(self) -> str:
        return f"{self.selector}.{self.verifier}"

    @property
    def address(self) -> str:
        """The full address to give a calendar app, on the site's public address."""
        return settings.SITE_URL + self.get_absolute_url()

    @property
    def subscribe_address(self) -> str:
        """The same address as webcal://, which opens the visitor's calendar app to subscribe."""
        return "webcal://" + self.address.split("://", 1)[1]

    @classmethod
    def issue(cls, user, conference: Conference) -> "CalendarFeed":
        """Create or replace ``user``'s feed for ``conference`` with a new secret token."""
        feed, _ = cls.objects.update_or_create(
            user=user,
            conference=conference,
            defaults={"selector": secrets.token_urlsafe(12), "verifier": secrets.token_urlsafe(32)},
        )
        return feed

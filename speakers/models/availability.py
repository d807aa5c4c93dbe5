"""When a speaker can give sessions (Availability), and the rule every writer of their windows
applies: no two overlap."""

import datetime
import itertools

from django.core.exceptions import ValidationError
from django.db import models
from django.utils import timezone
from django.utils.dates import WEEKDAYS_ABBR
from django.utils.formats import date_format
from django.utils.translation import gettext, gettext_lazy

from conference.i18n.timezones import time_range
from speakers.models.speaker import Speaker, SpeakerPartQuerySet

# Plenty for any speaker: a cap on the work one form or request can ask for (each window is
# validated).
MAX_AVAILABILITY_WINDOWS = 100


class Availability(models.Model):
    """A time the speaker can give sessions. A speaker without any is available at any time.

    The planner warns about a session outside its speakers' availability (sessions/warnings.py);
    it never refuses one: organizers may have agreed otherwise with the speaker.
    """

    speaker = models.ForeignKey(
        Speaker,
        on_delete=models.CASCADE,
        related_name="availability",
        verbose_name=gettext_lazy("speaker"),
    )
    starts_at = models.DateTimeField(gettext_lazy("from"))
    ends_at = models.DateTimeField(gettext_lazy("until"))

    objects = SpeakerPartQuerySet.as_manager()

    class Meta:
        ordering = ["starts_at", "ends_at", "pk"]
        verbose_name = gettext_lazy("availability window")
        verbose_name_plural = gettext_lazy("availability windows")
        constraints = [
            models.CheckConstraint(
                condition=models.Q(ends_at__gt=models.F("starts_at")),
                name="availability_ends_after_it_starts",
                violation_error_message=gettext_lazy(
                    "An availability window must end after it starts."
                ),
            ),
        ]

    def __str__(self):
        return f"{self.speaker}: {self.local_times}"

    def clean(self):
        if self.starts_at is None or self.ends_at is None:
            return  # the missing field reports itself
        if self.ends_at <= self.starts_at:
            raise ValidationError(
                {"ends_at": gettext("An availability window must end after it starts.")}
            )
        # A row of a speaker being added holds the unsaved speaker; a tampered admin row neither.
        has_speaker = self.speaker_id is not None or Availability.speaker.is_cached(self)
        if not has_speaker or self.speaker.conference_id is None:
            return
        conference = self.speaker.conference
        if self.starts_at < conference.opens_at or self.ends_at > conference.closes_at:
            first, last = (
                date_format(day, "l j F Y") for day in (conference.starts_on, conference.ends_on)
            )
            raise ValidationError(
                {
                    "starts_at": gettext(
                        "%(conference)s runs from %(first)s to %(last)s (%(zone)s); an "
                        "availability window must lie within those days."
                    )
                    % {
                        "conference": conference,
                        "first": first,
                        "last": last,
                        "zone": conference.time_zone,
                    }
                }
            )

    @property
    def local_times(self) -> str:
        """“Wed 10:00–12:00 CEST”, in the conference's zone."""
        zone = self.speaker.conference.tz
        # What date_format(…, "D") gives, without its parsing of the format: the planner lists many.
        day = WEEKDAYS_ABBR[timezone.localtime(self.starts_at, zone).weekday()]
        return f"{day} {time_range(self.starts_at, self.ends_at, zone)}"


def availability_prefetch() -> models.Prefetch:
    """The speakers' availability windows in order, with one query for any number of speakers.

    A plain list (``Speaker.availability_windows``), not a prefetched manager: Django builds a
    queryset per speaker for the latter, once per speaker the planner checks.
    """
    return models.Prefetch(
        "availability", queryset=Availability.objects.all(), to_attr="prefetched_availability"
    )


def overlapping_windows(windows) -> tuple[Availability, Availability] | None:
    """Two of a speaker's ``windows`` that share more than an instant, the earlier first; None
    when none do. Windows that only touch (10–12 and 12–14) do not overlap.

    Sorted by start, any overlap shows between neighbours: a window overlapping a later one also
    overlaps the next after it.
    """
    ordered = sorted(windows, key=lambda window: (window.starts_at, window.ends_at))
    for earlier, later in itertools.pairwise(ordered):
        if later.starts_at < earlier.ends_at:
            return earlier, later
    return None


def refuse_overlapping_windows(windows, zone: datetime.tzinfo) -> None:
    """The rule every writer of a speaker's windows (their page, the admin, the API) applies to
    the whole set it saves: a ValidationError naming two that overlap, on ``zone``'s clocks."""
    overlap = overlapping_windows(windows)
    if overlap is None:
        return
    earlier, later = (
        f"{date_format(timezone.localtime(window.starts_at, zone), 'l j F')}, "
        f"{time_range(window.starts_at, window.ends_at, zone)}"
        for window in overlap
    )
    raise ValidationError(
        gettext(
            "Two windows overlap: %(earlier)s and %(later)s. Join them into one window, "
            "or change one so they no longer overlap."
        )
        % {"earlier": earlier, "later": later},
        code="overlapping_windows",
    )

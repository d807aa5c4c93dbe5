"""What the planner points out about a schedule without refusing it.

Rules that make a schedule impossible (a room or speaker booked twice) are refused by
``Session.clean()``. These make it worse for people, and organizers may have reasons to keep
them: a speaker outside the availability they gave, two sessions of one track at once, more
attendees saving a session than its room seats, a speaker with no time to change rooms.
"""

import datetime
from collections import defaultdict
from collections.abc import Iterable, Mapping
from itertools import pairwise

from django.db.models import Count, QuerySet
from django.utils import timezone
from django.utils.translation import gettext, ngettext

from conference.i18n.timezones import local_clock
from conference.models import Conference
from sessions.models import Session, ordered_speakers_prefetch
from speakers.models import Speaker, availability_prefetch


def schedule_warnings(
    conference: Conference, sessions: QuerySet[Session] | Iterable[Session]
) -> dict[int, list[str]]:
    """Warnings about ``sessions`` of ``conference``, as messages by session pk.

    Only sessions with warnings are keys; each one's messages come by kind (availability,
    changing rooms, track, seats). Sessions are compared with each other only, so give all those
    of the day (any queryset or list of the conference's sessions). Cancelled and unscheduled
    ones give and get no warnings. Six queries for any number of sessions; times in the
    conference's zone.
    """
    placed = list(sessions_for_warnings(conference, sessions))
    zone = conference.tz
    warnings: defaultdict[int, list[str]] = defaultdict(list)
    for session in placed:
        for speaker in session.ordered_speakers:
            if not speaker.is_available(session.starts_at, session.ends_at):
                windows = ", ".join(window.local_times for window in speaker.availability_windows)
                warnings[session.pk].append(
                    gettext("%(speaker)s is not available then (available %(windows)s)")
                    % {"speaker": speaker.name, "windows": windows}
                )
    warn_about_room_changes(placed, zone, warnings)
    warn_about_parallel_tracks(placed, warnings)
    for session in placed:
        room = session.room
        if room is not None and room.capacity is not None and session.save_count > room.capacity:
            warnings[session.pk].append(
                ngettext(
                    "%(saved)s saved, %(room)s seats %(capacity)s",
                    "%(saved)s saved, %(room)s seats %(capacity)s",
                    session.save_count,
                )
                % {"saved": session.save_count, "room": room.name, "capacity": room.capacity}
            )
    return dict(warnings)


def session_warnings(session: Session) -> list[str]:
    """The warnings about ``session`` where it is now, among the sessions of its day: what the
    planner says after a move, beside what the move did. Six queries."""
    if session.is_unscheduled or session.is_cancelled:
        return []
    conference = session.conference
    day = conference.sessions.placed().on_day(conference, conference.day_of(session.starts_at))
    return schedule_warnings(conference, day).get(session.pk, [])


def warning_list(
    warnings: Mapping[int, list[str]], sessions: Iterable[Session]
) -> list[tuple[Session, str]]:
    """Every warning with its session, in the order of ``sessions``: the list atop the planner."""
    return [(session, message) for session in sessions for message in warnings.get(session.pk, ())]


def sessions_for_warnings(conference: Conference, sessions) -> QuerySet[Session]:
    """The placed, not cancelled ones among ``sessions``, by start, with all the checks read."""
    if isinstance(sessions, QuerySet):
        chosen = sessions.values("pk")
    else:
        chosen = [session.pk for session in sessions]
    speakers = Speaker.objects.only("conference_id", "name").prefetch_related(
        availability_prefetch()
    )
    return (
        conference.sessions.filter(pk__in=chosen)
        .placed()
        .scheduled()
        # Only what the checks read: the saves are counted by a GROUP BY over these columns.
        .only("conference_id", "title", "starts_at", "ends_at", "room", "track")
        .annotate(save_count=Count("saves"))
        # Prefetched, not joined: the sessions share one object per room and track.
        .prefetch_related("room", "track", ordered_speakers_prefetch(speakers=speakers))
        .order_by("starts_at", "ends_at", "pk")
    )


def warn_about_room_changes(
    placed: list[Session], zone: datetime.tzinfo, warnings: defaultdict[int, list[str]]
) -> None:
    """A speaker whose session starts in another room the moment their previous one ends."""
    appearances: defaultdict[int, list[tuple[Session, Speaker]]] = defaultdict(list)
    for session in placed:  # by start, so each speaker's list is too
        for speaker in session.ordered_speakers:
            appearances[speaker.pk].append((session, speaker))
    for own in appearances.values():
        for (before, _), (after, speaker) in pairwise(own):
            if (
                before.ends_at == after.starts_at
                and before.room is not None
                and after.room is not None
                and before.room_id != after.room_id
            ):
                ends = local_clock(timezone.localtime(before.ends_at, zone))
                warnings[after.pk].append(
                    gettext(
                        "%(speaker)s goes straight from “%(before)s” in %(before_room)s "
                        "(ends %(ends)s) to this in %(room)s"
                    )
                    % {
                        "speaker": speaker.name,
                        "before": before.title,
                        "before_room": before.room.name,
                        "ends": ends,
                        "room": after.room.name,
                    }
                )


def warn_about_parallel_tracks(
    placed: list[Session], warnings: defaultdict[int, list[str]]
) -> None:
    """Sessions of one track at the same time: attendees following the track miss one.

    One sweep by start per track, keeping only the sessions still running: linear in the
    sessions plus the pairs found, not quadratic in the day.
    """
    by_track: defaultdict[int, list[Session]] = defaultdict(list)
    for session in placed:
        if session.track_id is not None:
            by_track[session.track_id].append(session)
    for track_sessions in by_track.values():
        running: list[Session] = []
        for session in track_sessions:
            running = [other for other in running if other.ends_at > session.starts_at]
            for other in running:
                track = session.track.name
                text = gettext("Runs in parallel with “%(session)s”, also in the %(track)s track")
                warnings[session.pk].append(text % {"session": other.title, "track": track})
                warnings[other.pk].append(text % {"session": session.title, "track": track})
            running.append(session)

"""Small builders with sensible defaults: every test states only what it is about."""

import datetime
import itertools
import re
import zoneinfo

from django.utils.text import slugify

from conference.models import Conference, Room, Team, Track
from sessions.models import Call, CallKind, Proposal, ProposalSpeaker, Session, SessionSpeaker
from speakers.models import Speaker

PARIS = zoneinfo.ZoneInfo("Europe/Paris")
_counter = itertools.count(1)


def paris(
    day: int, hour: int, minute: int = 0, month: int = 4, year: int = 2026
) -> datetime.datetime:
    return datetime.datetime(year, month, day, hour, minute, tzinfo=PARIS)


def make_conference(**fields) -> Conference:
    number = next(_counter)
    defaults = {
        "name": f"Conference {number}",
        "slug": f"conference-{number}",
        "starts_on": datetime.date(2026, 4, 7),
        "ends_on": datetime.date(2026, 4, 8),
        "time_zone": "Europe/Paris",
        "city": "Paris",
        "is_published": True,
    }
    return Conference.objects.create(**{**defaults, **fields})


def make_room(conference: Conference | None = None, **fields) -> Room:
    conference = conference or make_conference()
    name = fields.pop("name", f"Room {next(_counter)}")
    return Room.objects.create(
        conference=conference,
        name=name,
        slug=fields.pop("slug", slugify(name)),
        **fields,
    )


def make_track(conference: Conference | None = None, **fields) -> Track:
    conference = conference or make_conference()
    name = fields.pop("name", f"Track {next(_counter)}")
    return Track.objects.create(
        conference=conference,
        name=name,
        slug=fields.pop("slug", slugify(name)),
        **fields,
    )


def make_speaker(conference: Conference | None = None, **fields) -> Speaker:
    conference = conference or make_conference()
    name = fields.pop("name", f"Speaker {next(_counter)}")
    defaults = {
        "role": "Engineer",
        "company": "Example Labs",
        "bio": f"{name} builds things.",
    }
    return Speaker.objects.create(
        conference=conference,
        name=name,
        slug=fields.pop("slug", slugify(name)),
        **{**defaults, **fields},
    )


def make_session(
    conference: Conference | None = None,
    *,
    speakers: tuple[Speaker, ...] | list[Speaker] = (),
    **fields,
) -> Session:
    """A published talk, 10:00–10:30 Paris time on 8 April 2026, unless told otherwise."""
    if conference is None:
        conference = (
            next(
                (
                    value.conference
                    for value in (fields.get("room"), fields.get("track"))
                    if value is not None
                ),
                None,
            )
            or make_conference()
        )
    title = fields.pop("title", f"Session {next(_counter)}")
    starts_at = fields.pop("starts_at", paris(8, 10))
    defaults = {
        "slug": slugify(title),
        "ends_at": starts_at and starts_at + datetime.timedelta(minutes=30),
        "status": Session.Status.PUBLISHED,
        "kind": Session.Kind.TALK,
    }
    session = Session.objects.create(
        conference=conference,
        title=title,
        starts_at=starts_at,
        **{**defaults, **fields},
    )
    for position, speaker in enumerate(speakers):
        SessionSpeaker.objects.create(session=session, speaker=speaker, position=position)
    if speakers:  # linking them marked both changed for syncing clients (sessions/sync.py)
        for instance in (session, *speakers):
            instance.refresh_from_db(fields=["updated_at"])
    return session


def make_unscheduled_session(conference: Conference | None = None, **fields) -> Session:
    """An accepted talk without a time or room yet: a draft, as it must be."""
    fields = {"starts_at": None, "ends_at": None, "status": Session.Status.DRAFT, **fields}
    return make_session(conference, **fields)


# A Save button's state: value="remove" when saved (sessions/includes/save_state.html).
SAVED = 'class="save-button" value="remove"'
# Its accessible name in a browser: the label the stylesheet shows, then the session's title.
SAVED_BUTTON = re.compile("^Saved “")
SAVE_BUTTON = re.compile("^Save “")
SAVE_LABELS = (
    '<span class="saved-label"><span aria-hidden="true">★</span> Saved</span>'
    '<span class="save-label"><span aria-hidden="true">☆</span> Save</span>'
)


def shows_save_button(html: str, title: str, *, saved: bool) -> bool:
    """Whether ``html`` has a Save button for ``title`` reading: its state (which spaces pad, see
    sessions/includes/save_state.html), its two labels, of which the stylesheet shows the one
    the state names, and its hidden words."""
    state = r'value="remove"( data-clash)?' if saved else r'value="save"'
    hidden = f'<span class="visually-hidden"> “{title}” to my schedule</span>'
    pattern = state + " *>" + re.escape(SAVE_LABELS + hidden)
    return re.search(pattern, html) is not None


def make_team(*members, conferences=(), **fields) -> Team:
    """A team of ``members`` covering ``conferences`` (or every one, ``all_conferences=True``),
    with the roles given as ``is_organizer=True`` and so on."""
    team = Team.objects.create(name=fields.pop("name", f"Team {next(_counter)}"), **fields)
    team.conferences.set(conferences)
    team.members.set(members)
    return team


def make_call(conference: Conference | None = None, kinds=None, **fields) -> Call:
    """A call of ``conference``, open from 1 to 31 January 2026 (Paris), for talks of 30 and
    lightning talks of 10 minutes unless ``kinds`` ({kind: minutes}) says otherwise."""
    conference = conference or make_conference()
    defaults = {"opens_at": paris(1, 0, month=1), "closes_at": paris(31, 23, 59, month=1)}
    call = Call.objects.create(conference=conference, **{**defaults, **fields})
    for kind, minutes in (kinds or {"talk": 30, "lightning-talk": 10}).items():
        CallKind.objects.create(call=call, kind=kind, minutes=minutes)
    return call


def make_proposal(conference: Conference, user, *co_speakers, **fields) -> Proposal:
    """A talk proposed to ``conference`` (which has a call) by ``user``, with ``co_speakers``
    (accounts) after them; a draft unless ``state`` says otherwise."""
    defaults = {"title": f"Proposal {next(_counter)}", "kind": "talk", "abstract": "An idea."}
    proposal = Proposal.objects.create(
        conference=conference, created_by=user, **{**defaults, **fields}
    )
    for position, account in enumerate([user, *co_speakers]):
        ProposalSpeaker.objects.create(
            proposal=proposal,
            user=account,
            name=account.get_full_name() or account.username,
            position=position,
        )
    return proposal

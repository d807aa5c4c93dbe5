"""Who may do what: one table of permissions, each granted by roles a person's teams hold in the
object's conference (conference/models/teams.py), registered once with ``rules`` and asked
everywhere through ``user.has_perm(perm, obj)``: the admin, the API, the planner, imports,
releases and the pages (docs/organizers.md, "Teams").

A superuser may do everything (Django answers before asking us). ``is_staff`` only lets a person
open the admin; Django's global model permissions grant nothing (``AccountBackend``).
Asked without an object (``has_perm(perm)``), a permission answers whether the person holds it
in some conference: whether a list, a menu entry or an "add" button is for them at all.
"""

from collections.abc import Iterable

import rules
from django.contrib.auth.backends import ModelBackend

from conference.models import Conference
from conference.models.teams import Role, reach_of

ORGANIZER, PROGRAMME, REVIEWER, VENUE = Role.ORGANIZER, Role.PROGRAMME, Role.REVIEWER, Role.VENUE
ANY_ROLE = frozenset(Role.values)
PLANS = frozenset({ORGANIZER, PROGRAMME})  # sessions, speakers, planner, imports, releases
REVIEWS = frozenset({ORGANIZER, PROGRAMME, REVIEWER})  # reads feedback (and proposals)
ROOMS = frozenset({ORGANIZER, PROGRAMME, VENUE})  # rooms: the venue team keeps them
ORGANIZES = frozenset({ORGANIZER})


def conference_id_of(obj) -> int | None:
    """The conference ``obj`` belongs to: itself, or through its conference, session, speaker,
    webhook endpoint, proposal or call for proposals."""
    if isinstance(obj, Conference):
        return obj.pk
    if hasattr(obj, "conference_id"):
        return obj.conference_id
    for parent in ("session", "speaker", "endpoint", "proposal", "call"):
        if hasattr(obj, f"{parent}_id"):
            return getattr(obj, parent).conference_id
    raise TypeError(f"{type(obj).__name__} belongs to no conference.")


def holds(roles: Iterable[str]):
    """A predicate: the person holds one of ``roles`` in the object's conference (in some
    conference, asked without an object)."""
    wanted = frozenset(roles)

    def check(user, obj=None) -> bool:
        reach = reach_of(user)
        if obj is None:
            return bool(reach.roles_anywhere() & wanted)
        return bool(reach.roles_in(conference_id_of(obj)) & wanted)

    return rules.predicate(check, name=f"holds({', '.join(sorted(wanted))})")


@rules.predicate
def organizes_every_conference(user) -> bool:
    """A new conference is for organizers of a team that covers every conference."""
    return ORGANIZER in reach_of(user).everywhere


@rules.predicate
def organizes_the_team(user, team=None) -> bool:
    """A team is managed by organizers of every conference it covers (of all of them, for a
    team of every conference); a new one by any organizer."""
    reach = reach_of(user)
    if team is None or team.pk is None:
        return ORGANIZER in reach.roles_anywhere()
    if isinstance(team, Conference):  # asked of a conference: may they manage its teams?
        return ORGANIZER in reach.roles_in(team.pk)
    if team.all_conferences:
        return ORGANIZER in reach.everywhere
    covered = list(team.conferences.values_list("pk", flat=True))
    return bool(covered) and all(ORGANIZER in reach.roles_in(pk) for pk in covered)


@rules.predicate
def owns_the_token(user, token=None) -> bool:
    """API tokens are personal: a person sees, changes and revokes their own."""
    return token is None or token.user_id == user.pk


@rules.predicate
def writes_the_review(user, review=None) -> bool:
    return review is None or review.pk is None or review.reviewer_id == user.pk


@rules.predicate
def review_shows_speakers(user, obj=None) -> bool:
    """The call of ``obj`` (a proposal or its call) does not hide speakers from reviewers."""
    if obj is None:
        return False
    call = obj if hasattr(obj, "anonymised_review") else obj.conference.call
    return not call.anonymised_review


@rules.predicate
def in_some_team(user) -> bool:
    """A member of a team of some conference. Asked of a token too, which belongs to no
    conference: its owner's teams bound what it does, not where it is listed."""
    return bool(reach_of(user).roles_anywhere())


# Each permission and the roles that grant it in an object's conference. Models absent here
# (accounts, saved sessions, Django's users and groups, failed logins) are for superusers only.
PERMISSION_ROLES: dict[str, frozenset[str]] = {}


def grant(
    roles: frozenset[str], app_label: str, *models: str, actions=("view", "add", "change", "delete")
):
    for model in models:
        for action in actions:
            PERMISSION_ROLES[f"{app_label}.{action}_{model}"] = roles


grant(ANY_ROLE, "conference", "conference", "room", "track", actions=("view",))
grant(ORGANIZES, "conference", "conference", actions=("change", "delete"))
grant(ROOMS, "conference", "room", actions=("add", "change", "delete"))
grant(PLANS, "conference", "track", actions=("add", "change", "delete"))
grant(ORGANIZES, "conference", "webhookendpoint", "webhookdelivery")
grant(
    ANY_ROLE,
    "speakers",
    "speaker",
    "speakerlink",
    "availability",
    "speakerinvitation",
    actions=("view",),
)
grant(
    PLANS,
    "speakers",
    "speaker",
    "speakerlink",
    "availability",
    "speakerinvitation",
    actions=("add", "change", "delete"),
)
# Speakers' proposals of new session texts: read by reviewers, decided by those who plan.
grant(REVIEWS, "speakers", "sessionchangeproposal", actions=("view",))
grant(PLANS, "speakers", "sessionchangeproposal", actions=("change",))
grant(
    ANY_ROLE,
    "schedule",
    "session",
    "sessionlink",
    "attachment",
    "sessionspeaker",
    "release",
    actions=("view",),
)
grant(
    PLANS,
    "schedule",
    "session",
    "sessionlink",
    "attachment",
    "sessionspeaker",
    "scheduleimport",
    actions=("add", "change", "delete"),
)
grant(PLANS, "schedule", "scheduleimport", actions=("view",))
grant(PLANS, "schedule", "release", actions=("add",))
grant(REVIEWS, "schedule", "feedback", actions=("view",))
grant(PLANS, "schedule", "feedback", actions=("change",))
# The call for proposals: set by those who plan, read by every team of the conference.
grant(ANY_ROLE, "schedule", "call", "callkind", "callquestion", actions=("view",))
grant(
    PLANS,
    "schedule",
    "call",
    "callkind",
    "callquestion",
    "decisionmailtemplate",
    actions=("add", "change", "delete"),
)
grant(PLANS, "schedule", "decisionmailtemplate", "cospeakerinvitation", actions=("view",))
# Proposals are read and scored by reviewers; decided by those who plan.
grant(
    REVIEWS,
    "schedule",
    "proposal",
    "proposalspeaker",
    "proposalanswer",
    "proposalstatechange",
    "review",
    actions=("view",),
)
grant(PLANS, "schedule", "proposal", actions=("change",))
PERMISSION_ROLES["schedule.review_proposal"] = REVIEWS
PERMISSION_ROLES["schedule.decide_proposal"] = PLANS
# Previewing a conference's unpublished pages and drafts: any member of a team covering it.
PERMISSION_ROLES["conference.preview_conference"] = ANY_ROLE
# The now-and-next screens and door signs for a preview time: the venue team and organizers.
PERMISSION_ROLES["conference.run_venue"] = frozenset({ORGANIZER, VENUE})

for permission, roles in PERMISSION_ROLES.items():
    rules.add_perm(permission, holds(roles))
rules.add_perm("conference.add_conference", organizes_every_conference)
for action in ("view", "add", "change", "delete"):
    rules.add_perm(f"conference.{action}_team", organizes_the_team)
    rules.add_perm(f"conference.{action}_apitoken", in_some_team & owns_the_token)
# Opening an app's page of the admin: a member of some team.
# A review is its reviewer's own: written, changed and deleted by them alone.
for action in ("add", "change", "delete"):
    rules.add_perm(f"schedule.{action}_review", holds(REVIEWS) & writes_the_review)
# Speakers' names and bios in proposals: hidden from reviewers when the call anonymises the
# review, never from those who plan (they decide and mail them).
rules.add_perm(
    "schedule.see_proposal_speakers",
    holds(PLANS) | (holds(REVIEWS) & review_shows_speakers),
)
for app_label in ("conference", "speakers", "schedule"):
    rules.add_perm(app_label, holds(ANY_ROLE))


def conferences_where(user, permission: str):
    """The conferences in which ``user`` holds ``permission``: what admin lists, choices and
    API reads of conference-held objects are limited to."""
    conferences = Conference.objects.all()
    if user.is_active and user.is_superuser:
        return conferences
    roles = PERMISSION_ROLES.get(permission)
    if roles is None:
        return conferences.none()
    reach = reach_of(user)
    if not reach.roles_anywhere() & roles:
        return conferences.none()
    return conferences.filter(reach.conferences_with(roles))


class AccountBackend(ModelBackend):
    """Django's accounts and passwords, without its global model permissions: those would let
    a person change every conference at once. Who may do what is decided per conference, by
    teams (the rules above, through rules' ObjectPermissionBackend)."""

    def get_user_permissions(self, user_obj, obj=None):
        return set()

    def get_group_permissions(self, user_obj, obj=None):
        return set()

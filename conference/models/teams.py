"""Teams: who may do what, per conference (conference/permissions.py asks them; docs/organizers.md).

A team has members, the conferences it covers (or every conference of the site) and roles. Every
question of access in the admin, the API, the planner and the pages is a permission of
conference/permissions.py, answered from the teams of the person asking.
"""

import hashlib
from dataclasses import dataclass, field

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext, gettext_lazy


class Role(models.TextChoices):
    ORGANIZER = "organizer", gettext_lazy("Organizer")
    PROGRAMME = "programme", gettext_lazy("Programme")
    REVIEWER = "reviewer", gettext_lazy("Reviewer")
    VENUE = "venue", gettext_lazy("Venue")


class TeamQuerySet(models.QuerySet):
    def covering(self, conference_id: int):
        """Teams whose conferences include ``conference_id``."""
        return self.filter(Q(all_conferences=True) | Q(conferences=conference_id)).distinct()


class Team(models.Model):
    name = models.CharField(gettext_lazy("name"), max_length=200)
    conferences = models.ManyToManyField(
        "conference.Conference",
        blank=True,
        related_name="teams",
        verbose_name=gettext_lazy("conferences"),
    )
    all_conferences = models.BooleanField(
        gettext_lazy("every conference"),
        default=False,
        help_text=gettext_lazy("Covers every conference of the site, those to come included."),
    )
    members = models.ManyToManyField(
        settings.AUTH_USER_MODEL,
        blank=True,
        related_name="teams",
        verbose_name=gettext_lazy("members"),
    )
    is_organizer = models.BooleanField(
        gettext_lazy("organizer"),
        default=False,
        help_text=gettext_lazy("Everything in its conferences, teams and webhooks included."),
    )
    is_programme = models.BooleanField(
        gettext_lazy("programme"),
        default=False,
        help_text=gettext_lazy("Sessions, speakers, the planner, imports and releases."),
    )
    is_reviewer = models.BooleanField(
        gettext_lazy("reviewer"),
        default=False,
        help_text=gettext_lazy("Reads proposals and feedback."),
    )
    is_venue = models.BooleanField(
        gettext_lazy("venue"),
        default=False,
        help_text=gettext_lazy("Rooms, now-and-next screens and door signs; reads the rest."),
    )

    objects = TeamQuerySet.as_manager()

    class Meta:
        ordering = ["name", "pk"]
        verbose_name = gettext_lazy("team")
        verbose_name_plural = gettext_lazy("teams")

    def __str__(self):
        return self.name

    @property
    def roles(self) -> frozenset[str]:
        return frozenset(role for role in Role.values if getattr(self, f"is_{role}"))

    def clean(self):
        if not self.roles:
            raise ValidationError(gettext("Give the team at least one role."))


@dataclass(frozen=True)
class Reach:
    """What a person's teams give them: roles in every conference, and per conference id."""

    everywhere: frozenset[str] = frozenset()
    by_conference: dict[int, frozenset[str]] = field(default_factory=dict)

    def roles_in(self, conference_id: int | None) -> frozenset[str]:
        return self.everywhere | self.by_conference.get(conference_id, frozenset())

    def roles_anywhere(self) -> frozenset[str]:
        return self.everywhere.union(*self.by_conference.values())

    def conferences_with(self, roles: frozenset[str]) -> Q:
        """The conferences where one of ``roles`` is held, as a condition on Conference."""
        if self.everywhere & roles:
            return Q()
        return Q(pk__in=[pk for pk, held in self.by_conference.items() if held & roles])


NO_REACH = Reach()


def reach_of(user) -> Reach:
    """``user``'s roles, read once per user object (one query): a request's user is loaded anew
    for each request, so a change of teams shows on the next one. Members of teams are staff
    (joining a team makes one staff, ``join_team``): an attendee's pages ask nothing more."""
    if not (user and user.is_authenticated and user.is_active and user.is_staff):
        return NO_REACH
    cached = getattr(user, "_team_reach", None)
    if cached is not None:
        return cached
    everywhere: set[str] = set()
    by_conference: dict[int, set[str]] = {}
    rows = Team.objects.filter(members=user).values_list(
        "all_conferences", "conferences", *(f"is_{role}" for role in Role.values)
    )
    for all_conferences, conference_id, *flags in rows:
        roles = {role for role, held in zip(Role.values, flags, strict=True) if held}
        if all_conferences:
            everywhere |= roles
        elif conference_id is not None:
            by_conference.setdefault(conference_id, set()).update(roles)
    reach = Reach(
        frozenset(everywhere), {pk: frozenset(roles) for pk, roles in by_conference.items()}
    )
    user._team_reach = reach
    return reach


@dataclass(frozen=True)
class Preview:
    """What ``user`` may preview (unpublished conferences, draft sessions): every conference, or
    those of ``conference_ids``. Any role in a conference's team lets its members preview it."""

    everything: bool
    conference_ids: frozenset[int]

    def covers(self, conference_id: int) -> bool:
        return self.everything or conference_id in self.conference_ids

    @property
    def anything(self) -> bool:
        return self.everything or bool(self.conference_ids)


def preview_of(user) -> Preview:
    # The page layer renders a shared part for a stand-in visitor who previews exactly the
    # page's conference, or nothing (conference/pages/nobody.py).
    stand_in = getattr(user, "page_preview", None)
    if stand_in is not None:
        return stand_in
    if user.is_active and user.is_superuser:
        return Preview(True, frozenset())
    reach = reach_of(user)
    return Preview(bool(reach.everywhere), frozenset(reach.by_conference))


def hash_invitation_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class TeamInvitationQuerySet(models.QuerySet):
    def open(self):
        return self.filter(accepted_at__isnull=True, expires_at__gt=timezone.now())


class TeamInvitation(models.Model):
    """An invitation to join a team, mailed to an address; accepted only by an account whose
    confirmed address is that one (conference/teams.py)."""

    team = models.ForeignKey(
        Team,
        on_delete=models.CASCADE,
        related_name="invitations",
        verbose_name=gettext_lazy("team"),
    )
    email = models.EmailField(gettext_lazy("address"))
    # Only the token's digest is kept: the link in the mail is the one way to accept.
    token_digest = models.CharField(max_length=64, unique=True, editable=False)
    invited_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    accepted_at = models.DateTimeField(null=True, blank=True)
    accepted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    objects = TeamInvitationQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-pk"]
        verbose_name = gettext_lazy("team invitation")
        verbose_name_plural = gettext_lazy("team invitations")

    def __str__(self):
        return f"{self.email} → {self.team}"

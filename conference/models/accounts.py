"""What an account's owner proved and chose about mail from the site (conference/accounts/views.py
has the pages). Registered with the app through conference/models/conference.py, which imports it."""

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import models
from django.db.models import F, Q
from django.utils import timezone
from django.utils.translation import gettext, gettext_lazy


class AccountEmailQuerySet(models.QuerySet):
    def for_user(self, user) -> "AccountEmail":
        """``user``'s row, made on first use: accounts older than this table have none."""
        account_email, _ = self.get_or_create(user=user)
        return account_email


def confirmed_address(prefix: str = "") -> Q:
    """Accounts whose address is one their owner proved is theirs (the one verified is still the
    account's): the only addresses the site mails, password resets included.

    ``prefix`` reaches the user through a relation, e.g. ``"user__"`` from a saved session.
    """
    return ~Q(**{f"{prefix}email": ""}) & Q(
        **{f"{prefix}account_email__verified_address": F(f"{prefix}email")}
    )


def has_confirmed_address(user, address: str) -> bool:
    """Whether ``address`` is ``user``'s address and its owner confirmed it: what accepting an
    invitation mailed to ``address`` asks of an account (letter case aside, as mail programs do)."""
    address = (address or "").strip()
    if not (address and user.is_authenticated):
        return False
    users = get_user_model().objects
    return users.filter(confirmed_address(), pk=user.pk, email__iexact=address).exists()


def mailable_accounts(prefix: str = "") -> Q:
    """Accounts the site may mail schedule changes to: active, with a confirmed address and the
    mails not turned off."""
    return (
        Q(**{f"{prefix}is_active": True})
        & confirmed_address(prefix)
        & Q(**{f"{prefix}account_email__schedule_changes": True})
    )


class AccountEmail(models.Model):
    """What an account's owner proved and chose about mail from the site.

    The address verified is kept rather than a yes/no, so that changing the account's address,
    wherever it is changed (account settings, the admin), leaves it unverified by itself.
    """

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        primary_key=True,
        related_name="account_email",
        verbose_name=gettext_lazy("user"),
    )
    verified_address = models.EmailField(blank=True, verbose_name=gettext_lazy("verified address"))
    verified_at = models.DateTimeField(
        null=True, blank=True, verbose_name=gettext_lazy("verified at")
    )
    schedule_changes = models.BooleanField(
        gettext_lazy("email me schedule changes"),
        default=True,
        help_text=gettext_lazy(
            "When a new release of a conference's schedule moves, cancels or changes the "
            "room of a session you saved."
        ),
    )

    objects = AccountEmailQuerySet.as_manager()

    def __str__(self):
        return gettext("Email settings of %(user)s") % {"user": self.user}

    @property
    def is_verified(self) -> bool:
        return bool(self.user.email) and self.verified_address == self.user.email

    def mark_verified(self, address: str) -> bool:
        """Record that the owner proved ``address``; False if it is no longer the account's."""
        if not address or address != self.user.email:
            return False
        self.verified_address, self.verified_at = address, timezone.now()
        self.save(update_fields=["verified_address", "verified_at"])
        return True

"""Mail from the site: signed links (verify an address, unsubscribe) and mails from templates.

Every link a mail carries is signed with the secret key (django.core.signing) and lets its
reader do one thing only: prove the address, or stop the mails. None logs in or reveals more.
"""

from collections.abc import Mapping

from django.apps import apps
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core import signing
from django.core.mail import EmailMultiAlternatives
from django.db import transaction
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext as _
from django_tasks import task

from conference.accounts.limits import (
    VERIFICATION_MAILS_PER_ACCOUNT,
    VERIFICATION_MAILS_PER_ADDRESS,
    Limit,
)
from conference.models import AccountEmail

VERIFY_SALT = "conference.accounts.mail.verify-email"
UNSUBSCRIBE_SALT = "conference.accounts.mail.unsubscribe"
# A verification link works for three days; an unsubscribe link for as long as the key stays.
VERIFY_MAX_AGE = 3 * 24 * 60 * 60


def absolute(path: str) -> str:
    """A path of this site on its public address (DJANGO_SITE_URL), as mails need."""
    return settings.SITE_URL + path


# --- Unsubscribing -----------------------------------------------------------------------------


def turn_off_account(pk: int) -> bool:
    user = get_user_model().objects.filter(pk=pk).first()
    if user is None:
        return False
    account_email = AccountEmail.objects.for_user(user)
    account_email.schedule_changes = False
    account_email.save(update_fields=["schedule_changes"])
    return True


def turn_off_speaker(pk: int) -> bool:
    speakers = apps.get_model("speakers", "Speaker").objects.filter(pk=pk)
    return speakers.update(schedule_change_mails=False) > 0


# Who an unsubscribe link can name: an account (attendees), or a speaker without one.
OPT_OUTS = {"account": turn_off_account, "speaker": turn_off_speaker}


def unsubscribe_url(kind: str, pk: int) -> str:
    """The signed address that stops schedule-change mails for an account or a speaker."""
    token = signing.dumps([kind, pk], salt=UNSUBSCRIBE_SALT)
    return absolute(reverse("unsubscribe", kwargs={"token": token}))


def read_unsubscribe_token(token: str) -> tuple[str, int] | None:
    """What a link's token names; None when it was not signed here or was altered."""
    try:
        kind, pk = signing.loads(token, salt=UNSUBSCRIBE_SALT)
    except (signing.BadSignature, ValueError, TypeError):
        return None
    if kind not in OPT_OUTS or not isinstance(pk, int) or isinstance(pk, bool):
        return None
    return kind, pk


def unsubscribe(token: str) -> bool:
    """Stop the mails a token names; False if the token is invalid or names nobody now."""
    named = read_unsubscribe_token(token)
    return named is not None and OPT_OUTS[named[0]](named[1])


# --- Verifying an address ----------------------------------------------------------------------


def verification_url(user, address: str | None = None) -> str:
    """A link proving that whoever reads mail at ``address`` (by default the account's) owns it.

    It names the address as well as the account, so a link mailed before a change of address
    cannot verify the new one.
    """
    address = user.email if address is None else address
    token = signing.dumps({"user": user.pk, "email": address}, salt=VERIFY_SALT)
    return absolute(reverse("verify-email", kwargs={"token": token}))


def verify_email(token: str) -> AccountEmail | None:
    """Mark the address a link names verified; None for an altered, expired or outdated link."""
    try:
        data = signing.loads(token, salt=VERIFY_SALT, max_age=VERIFY_MAX_AGE)
        pk, address = data["user"], data["email"]
    except (signing.BadSignature, ValueError, TypeError, KeyError):
        return None
    if not isinstance(pk, int) or isinstance(pk, bool) or not isinstance(address, str):
        return None
    user = get_user_model().objects.filter(pk=pk, is_active=True).first()
    if user is None:
        return None
    account_email = AccountEmail.objects.for_user(user)
    return account_email if account_email.mark_verified(address) else None


def queue_verification_mail(user) -> Limit | None:
    """Queue a verification link to the account's address as it is now, once committed.

    Unless too many were asked for that account or that address this hour: then nothing is
    queued and the limit that refused is returned, to say how long to wait.
    """
    address = user.email
    for limit, key in [
        (VERIFICATION_MAILS_PER_ACCOUNT, str(user.pk)),
        (VERIFICATION_MAILS_PER_ADDRESS, address.strip().lower()),
    ]:
        if not limit.allows(key):
            return limit
    # In the language the visitor reads the site in now: the task runs without their request.
    language = translation.get_language()
    transaction.on_commit(lambda: send_verification_mail.enqueue(user.pk, address, language))
    return None


@task()
def send_verification_mail(
    user_id: int, address: str | None = None, language: str = settings.LANGUAGE_CODE
) -> bool:
    """Mail ``address``, the account's when the mail was queued, its verification link (in the
    background). The mail never follows a later change of address: if the account has moved on,
    nothing is sent, since that link could confirm nothing. (``address`` None: a mail queued
    before the address was passed along, sent to the account's address as then.)"""
    user = get_user_model().objects.filter(pk=user_id, is_active=True).first()
    if user is None:
        return False
    address = user.email if address is None else address
    if not address or address != user.email:
        return False
    context = {
        "user": user,
        "verify_url": verification_url(user, address),
        "site_url": settings.SITE_URL,
    }
    with translation.override(language):
        message = templated_mail(
            to=address,
            subject=_("Confirm your email address"),
            template="registration/verify_email",
            context=context,
        )
    message.send()
    return True


# --- Mails from templates ----------------------------------------------------------------------


def templated_mail(
    *,
    to: str,
    subject: str,
    template: str,
    context: Mapping,
    unsubscribe: str = "",
    connection=None,
) -> EmailMultiAlternatives:
    """A mail with a plain-text part (``template``.txt) and an HTML one (``template``.html).

    With an ``unsubscribe`` address it carries List-Unsubscribe and, for mail programs' own
    one-click button, List-Unsubscribe-Post (RFC 8058: they POST to that address).
    """
    context = {**context, "unsubscribe_url": unsubscribe}
    headers = {}
    if unsubscribe:
        headers["List-Unsubscribe"] = f"<{unsubscribe}>"
        headers["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
    message = EmailMultiAlternatives(
        # One line: a line break in a name (a conference's, from an import) would make Django
        # refuse the header, and the mail would never go.
        subject=" ".join(subject.split()),
        body=render_to_string(f"{template}.txt", context),
        to=[to],
        headers=headers,
        connection=connection,
    )
    message.attach_alternative(render_to_string(f"{template}.html", context), "text/html")
    return message

"""What outside clients hold: webhook endpoints and their deliveries, API tokens with scopes.

conference/models/conference.py imports these, so the conference app owns them (models.py stays short);
they name Conference by its label, as this module is imported by the one defining it.

The logic lives elsewhere: recording and sending in conference/webhooks/delivery.py, the SSRF
guard in conference/webhooks/addresses.py, tokens' authentication and permission in
conference/api/tokens.py.
"""

import base64
import binascii
import datetime
import hashlib
import secrets

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models, transaction
from django.utils import timezone
from django.utils.translation import gettext, gettext_lazy

from conference.webhooks.addresses import validate_public_url

# Standard Webhooks' prefix of a secret: the rest is the base64 of the signing key.
SECRET_PREFIX = "whsec_"


def new_webhook_secret() -> str:
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(32)).decode()


class WebhookEndpoint(models.Model):
    """An address organizers registered to be told of changes to one conference."""

    class Event(models.TextChoices):
        RELEASE_PUBLISHED = "release.published", gettext_lazy("Release published")
        SESSION_CHANGED = "session.changed", gettext_lazy("Session changed")
        SESSION_CANCELLED = "session.cancelled", gettext_lazy("Session cancelled")
        SPEAKER_CHANGED = "speaker.changed", gettext_lazy("Speaker changed")

    conference = models.ForeignKey(
        "conference.Conference",
        on_delete=models.CASCADE,
        related_name="webhook_endpoints",
        verbose_name=gettext_lazy("conference"),
    )
    url = models.URLField(
        gettext_lazy("URL"),
        max_length=500,
        help_text=gettext_lazy(
            "Receives a POST with a JSON body for each event. It must not resolve to a "
            "private, loopback or link-local address."
        ),
    )
    # A list of Event values; JSONField rather than a table: a handful per endpoint, read whole.
    events = models.JSONField(default=list, blank=True, verbose_name=gettext_lazy("events"))
    secret = models.CharField(
        max_length=100,
        default=new_webhook_secret,
        help_text=gettext_lazy(
            "Signs every delivery (webhook-signature, as Standard Webhooks sign); give the "
            "receiver its whsec_ form."
        ),
        verbose_name=gettext_lazy("secret"),
    )
    is_active = models.BooleanField(gettext_lazy("active"), default=True)
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=gettext_lazy("created at"))

    class Meta:
        verbose_name_plural = gettext_lazy("webhook endpoints")
        ordering = ["conference", "url", "pk"]
        verbose_name = gettext_lazy("webhook endpoint")

    def __str__(self):
        return self.url

    def clean(self):
        super().clean()
        unknown = (
            set(self.events) - set(self.Event.values) if isinstance(self.events, list) else {0}
        )
        if unknown:
            raise ValidationError({"events": gettext("Choose events from the list.")})
        if self.url:
            validate_public_url(self.url, field="url")
        if self.secret.startswith(SECRET_PREFIX):
            try:
                key = base64.b64decode(self.secret.removeprefix(SECRET_PREFIX), validate=True)
            except binascii.Error:
                key = b""
            if not key:
                raise ValidationError(
                    {"secret": gettext("After “whsec_”, a secret is its key in base64.")}
                )

    @property
    def signing_key(self) -> bytes:
        """The HMAC key of the signatures. A whsec_ secret is the base64 of its key (Standard
        Webhooks); any other, such as the hex secrets made before those, is its own UTF-8 bytes,
        so that receivers holding it keep verifying."""
        if self.secret.startswith(SECRET_PREFIX):
            return base64.b64decode(self.secret.removeprefix(SECRET_PREFIX))
        return self.secret.encode()

    @property
    def receiver_secret(self) -> str:
        """The secret as Standard Webhooks' libraries take it: whsec_ and the key in base64."""
        return SECRET_PREFIX + base64.b64encode(self.signing_key).decode()


class WebhookDeliveryQuerySet(models.QuerySet):
    def past_the_log(self):
        """Deliveries done with (delivered or failed) longer ago than the delivery log keeps
        (settings.WEBHOOK_DELIVERY_LOG): one row per event and endpoint would grow for ever."""
        cutoff = timezone.now() - settings.WEBHOOK_DELIVERY_LOG
        return self.exclude(status=WebhookDelivery.Status.PENDING).filter(created_at__lt=cutoff)


class WebhookDelivery(models.Model):
    """One event for one endpoint: its body, and how its tries went."""

    class Status(models.TextChoices):
        PENDING = "pending", gettext_lazy("Pending")
        DELIVERED = "delivered", gettext_lazy("Delivered")
        FAILED = "failed", gettext_lazy("Failed")  # gave up after the last try

    endpoint = models.ForeignKey(
        WebhookEndpoint,
        on_delete=models.CASCADE,
        related_name="deliveries",
        verbose_name=gettext_lazy("endpoint"),
    )
    event = models.CharField(
        max_length=50, choices=WebhookEndpoint.Event.choices, verbose_name=gettext_lazy("event")
    )
    # The exact JSON sent: every try signs and sends the same bytes.
    body = models.TextField(verbose_name=gettext_lazy("body"))
    status = models.CharField(
        max_length=20,
        choices=Status.choices,
        default=Status.PENDING,
        verbose_name=gettext_lazy("status"),
    )
    attempts = models.PositiveSmallIntegerField(default=0, verbose_name=gettext_lazy("attempts"))
    response_code = models.PositiveSmallIntegerField(
        null=True, blank=True, verbose_name=gettext_lazy("response code")
    )
    last_error = models.TextField(blank=True, verbose_name=gettext_lazy("last error"))
    created_at = models.DateTimeField(default=timezone.now, verbose_name=gettext_lazy("created at"))
    last_try_at = models.DateTimeField(
        null=True, blank=True, verbose_name=gettext_lazy("last try at")
    )
    next_try_at = models.DateTimeField(
        null=True, blank=True, verbose_name=gettext_lazy("next try at")
    )

    objects = WebhookDeliveryQuerySet.as_manager()

    class Meta:
        verbose_name = gettext_lazy("webhook delivery")
        ordering = ["-created_at", "-pk"]
        verbose_name_plural = gettext_lazy("webhook deliveries")
        indexes = [models.Index(fields=["status", "next_try_at"], name="webhook_delivery_due")]

    def __str__(self):
        return gettext("%(event)s to %(endpoint)s") % {
            "event": self.event,
            "endpoint": self.endpoint,
        }


class WebhookEvent(models.Model):
    """An event waiting to become deliveries: a row of the webhooks' outbox.

    Written in the transaction that causes it, so that a rollback takes it away; deleted once
    turned into deliveries, by its transaction's on_commit callback or, should that never have
    run, by the sweep of ``send_due_webhooks`` (conference/webhooks/delivery.py). Not in the admin: a row
    lives from a write to its commit.
    """

    # The recording thread's batch, then the claim of whoever turns it into deliveries.
    batch = models.UUIDField()
    event = models.CharField(max_length=50, choices=WebhookEndpoint.Event.choices)
    conference = models.ForeignKey(
        "conference.Conference", on_delete=models.CASCADE, related_name="+"
    )
    key = models.CharField(max_length=100)  # the object: "session:42"
    # The event's object as JSON text, in the order it was written (jsonb would reorder it).
    data = models.TextField()
    occurred_at = models.DateTimeField()
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            # Recorded again in its batch, an event is updated in place: one per commit.
            models.UniqueConstraint(
                fields=["batch", "event", "key"], name="webhook_event_once_per_batch"
            )
        ]

    def __str__(self):
        return f"{self.event} {self.key}"


# Keys are 32 random bytes (256 bits; those from before are DRF's 20): nobody guesses one, so a
# fast digest is enough to keep them unreadable in the database, as GitHub stores its tokens. A
# slow password hasher would buy nothing against guessing and cost every API request.
KEY_BYTES = 32
PREFIX_LENGTH = 8


def digest_of_key(key: str) -> str:
    """What the database keeps of a key: its SHA-256, in hex."""
    return hashlib.sha256(key.encode()).hexdigest()


class ApiTokenQuerySet(models.QuerySet):
    def unexpired(self):
        return self.filter(
            models.Q(expires_at__isnull=True) | models.Q(expires_at__gt=timezone.now())
        )

    def issue(
        self,
        user,
        *,
        scope: str,
        name: str = "",
        conferences=(),
        expires_in_days: int | None = None,
    ) -> "ApiToken":
        """A new token of ``user``; its ``key`` is on the returned instance only, to show once."""
        token = self.model(user=user, name=name, scope=scope)
        token.expires_in(expires_in_days)
        with transaction.atomic():
            token.save()
            token.conferences.set(conferences)
        return token

    def with_key(self, key: str):
        """The token whose key this is (at most one): found by its digest, never by the key."""
        return self.filter(key_digest=digest_of_key(key))


class ApiToken(models.Model):
    """An API token with limits: read only or write, some conferences only, an expiry; it
    acts as its owner, never beyond their teams (conference/api/policies.py).

    Only the key's digest is stored, and its first characters (``prefix``) to tell tokens
    apart: the key itself is shown once, by whatever made the token (``key`` is set on that
    instance alone), and never again.
    """

    class Scope(models.TextChoices):
        READ = "read", gettext_lazy("Read only")
        WRITE = "write", gettext_lazy("Read and write")

    prefix = models.CharField(
        max_length=PREFIX_LENGTH,
        db_index=True,
        editable=False,
        help_text=gettext_lazy("The first characters of the key, to tell tokens apart."),
        verbose_name=gettext_lazy("prefix"),
    )
    key_digest = models.CharField(
        max_length=64, unique=True, editable=False, verbose_name=gettext_lazy("key digest")
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="api_tokens",
        verbose_name=gettext_lazy("user"),
    )
    name = models.CharField(
        max_length=100,
        blank=True,
        help_text=gettext_lazy("What it is for."),
        verbose_name=gettext_lazy("name"),
    )
    scope = models.CharField(
        max_length=10, choices=Scope.choices, default=Scope.READ, verbose_name=gettext_lazy("scope")
    )
    conferences = models.ManyToManyField(
        "conference.Conference",
        blank=True,
        related_name="+",
        help_text=gettext_lazy(
            "Only these conferences; none selected: every conference the user may see."
        ),
        verbose_name=gettext_lazy("conferences"),
    )
    expires_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text=gettext_lazy("Empty: never."),
        verbose_name=gettext_lazy("expires at"),
    )
    revoked_at = models.DateTimeField(
        null=True, blank=True, editable=False, verbose_name=gettext_lazy("revoked at")
    )
    created_at = models.DateTimeField(auto_now_add=True, verbose_name=gettext_lazy("created at"))

    objects = ApiTokenQuerySet.as_manager()

    # The key in clear: only on the instance that made it, to be shown once.
    key: str | None = None

    class Meta:
        verbose_name_plural = gettext_lazy("API tokens")
        ordering = ["-created_at", "-pk"]
        verbose_name = gettext_lazy("API token")

    def __str__(self):
        return self.name or gettext("Token of %(user)s") % {"user": self.user}

    def save(self, *args, **kwargs):
        if not self.key_digest:
            self.set_key(secrets.token_urlsafe(KEY_BYTES))
        super().save(*args, **kwargs)

    def set_key(self, key: str) -> None:
        self.key = key
        self.prefix = key[:PREFIX_LENGTH]
        self.key_digest = digest_of_key(key)

    def revoke(self) -> None:
        if self.revoked_at is None:
            self.revoked_at = timezone.now()
            self.save(update_fields=["revoked_at"])

    @property
    def is_expired(self) -> bool:
        return self.expires_at is not None and self.expires_at <= timezone.now()

    @property
    def is_revoked(self) -> bool:
        return self.revoked_at is not None

    @property
    def can_write(self) -> bool:
        return self.scope == self.Scope.WRITE

    def expires_in(self, days: int | None) -> None:
        self.expires_at = None if days is None else timezone.now() + datetime.timedelta(days=days)

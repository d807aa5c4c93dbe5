"""Webhooks: telling organizers' own systems when a release is published or a session or
speaker changes (docs/webhooks.md).

Writers record events (``record_event``) from their receivers; nothing leaves before the
transaction commits, and a transaction that rolls back sends nothing. Within one transaction an
object's event is recorded once however often it is saved (an import saving a session several
times), so each commit sends at most one event per changed object. Once committed, each event
becomes one ``WebhookDelivery`` per active endpoint of the conference that wants it, sent by the
task worker. A failed try is tried again later with exponential backoff (``RETRY_DELAYS``):
by ``run_after`` when the task backend can defer, otherwise by ``manage.py send_webhooks``.

Receivers' addresses are refused when private, loopback or link-local, when saved and at
every try (the SSRF guard, conference/webhooks/addresses.py).
"""

import datetime
import hashlib
import hmac
import json
import logging
import urllib.error
from collections.abc import Callable
from typing import Any

from django.db import transaction
from django.utils import timezone
from django_tasks import task

from conference.models import WebhookDelivery, WebhookEndpoint
from conference.webhooks.addresses import check_public_url, opener

logger = logging.getLogger(__name__)

Event = WebhookEndpoint.Event

# Waits before the 2nd, 3rd, … try: 1, 5, 25 minutes, about 2 and 10 hours. Then it has failed.
RETRY_DELAYS = [datetime.timedelta(minutes=5**n) for n in range(5)]
MAX_ATTEMPTS = len(RETRY_DELAYS) + 1
# A receiver should answer at once and work later; a slow one must not hold a task worker.
TIMEOUT_SECONDS = 5
# How long a try in progress keeps others from starting the same one.
CLAIMED_FOR = datetime.timedelta(seconds=TIMEOUT_SECONDS * 12)
# What of a failing answer is kept in the delivery log.
ERROR_EXCERPT = 500


# --- Signing -------------------------------------------------------------------------------


def sign(secret: str, timestamp: str, body: str) -> str:
    """The X-Confsched-Signature value: HMAC-SHA256 of "<timestamp>.<body>" with the secret."""
    message = f"{timestamp}.{body}".encode()
    return "sha256=" + hmac.new(secret.encode(), message, hashlib.sha256).hexdigest()


# --- Recording events ----------------------------------------------------------------------


class PendingEvents:
    """The events of one transaction, sent once it commits (its on_commit callback).

    One per transaction rather than one callback per event: an import saving a thousand
    sessions looks the endpoints up once. The price: an event recorded inside a savepoint
    that rolls back while its transaction commits is still sent (the object was saved, then
    not); a receiver reading the object finds it as it is. Nothing is lost or sent twice.
    """

    def __init__(self):
        self.events: dict[tuple[str, str], tuple[int, dict[str, Any], str]] = {}
        self.sent = False
        self.callbacks: list = []  # the connection's list of callbacks it was put in

    def __call__(self):
        self.sent = True
        queue_deliveries(list(self.events.items()))


def record_event(
    event: str, conference_id: int, key: str, data: Callable[[], dict[str, Any]] | dict
) -> None:
    """Send ``event`` about the object ``key`` ("session:42") once the transaction commits.

    ``data`` (or the function making it, called once per commit) is the event's ``object``.
    Recorded again in the same transaction, the event is sent once, with the last data.
    """
    connection = transaction.get_connection()
    if not connection.in_atomic_block:
        send_event(event, conference_id, key, data)
        return
    pending = getattr(connection, "webhook_events", None)
    if pending is None or pending.sent or not still_registered(connection, pending):
        pending = connection.webhook_events = PendingEvents()
        transaction.on_commit(pending)
        pending.callbacks = connection.run_on_commit
    pending.events[(event, key)] = (conference_id, data, occurred_now())


def still_registered(connection, pending: PendingEvents) -> bool:
    """Whether ``pending`` will still run at the commit: a rollback drops its callback.

    Django replaces its list of callbacks when it drops some (a rollback, a savepoint rolled
    back) and only appends to it otherwise: the same list means nothing was dropped, and a
    save in an import of thousands costs no search through the list.
    """
    if connection.run_on_commit is pending.callbacks:
        return True
    if any(func is pending for _, func, _ in connection.run_on_commit):
        pending.callbacks = connection.run_on_commit
        return True
    return False


def send_event(
    event: str, conference_id: int, key: str, data: Callable[[], dict[str, Any]] | dict
) -> None:
    """Send ``event`` now: for what is already committed (``schedule_released``)."""
    queue_deliveries([((event, key), (conference_id, data, occurred_now()))])


def occurred_now() -> str:
    return timezone.now().isoformat().replace("+00:00", "Z")


def queue_deliveries(events: list) -> None:
    """One delivery per event and endpoint that wants it, each sent by its own task."""
    conference_ids = {conference_id for _, (conference_id, _, _) in events}
    endpoints = list(
        WebhookEndpoint.objects.filter(conference__in=conference_ids, is_active=True)
        .select_related("conference")
        .order_by("pk")
    )
    if not endpoints:
        return
    deliveries = []
    for (event, _), (conference_id, data, occurred_at) in events:
        wanting = [e for e in endpoints if e.conference_id == conference_id and event in e.events]
        if not wanting:
            continue
        body = json.dumps(
            {
                "event": event,
                "conference": wanting[0].conference.slug,
                "occurred_at": occurred_at,
                "object": data() if callable(data) else data,
            },
            separators=(",", ":"),
            ensure_ascii=False,
        )
        deliveries += [WebhookDelivery(endpoint=e, event=event, body=body) for e in wanting]
    with transaction.atomic():  # the deliveries and their tasks' rows in one commit
        WebhookDelivery.objects.bulk_create(deliveries)
        for delivery in deliveries:
            send_webhook.enqueue(delivery.pk)


# --- Sending -------------------------------------------------------------------------------


def post(delivery: WebhookDelivery) -> int:
    """Send one try of ``delivery``; its status code. Raises OSError or ValueError on failure."""
    endpoint = delivery.endpoint
    check_public_url(endpoint.url)
    timestamp = str(int(timezone.now().timestamp()))
    request = urllib.request.Request(
        endpoint.url,
        data=delivery.body.encode(),
        method="POST",
        headers={
            "Content-Type": "application/json",
            "User-Agent": "confsched-webhooks",
            "X-Confsched-Event": delivery.event,
            "X-Confsched-Timestamp": timestamp,
            "X-Confsched-Signature": sign(endpoint.secret, timestamp, delivery.body),
            "X-Confsched-Delivery": str(delivery.pk),
        },
    )
    with opener.open(request, timeout=TIMEOUT_SECONDS) as response:
        return response.status


def try_delivery(delivery: WebhookDelivery) -> None:
    """One try: a 2xx answer delivers it; anything else is logged and tried again later."""
    now = timezone.now()
    delivery.attempts += 1
    delivery.last_try_at = now
    try:
        delivery.response_code = post(delivery)
        error = "" if 200 <= delivery.response_code < 300 else f"HTTP {delivery.response_code}"
    except urllib.error.HTTPError as answer:  # 3xx (not followed), 4xx, 5xx
        delivery.response_code = answer.code
        error = f"HTTP {answer.code}: {answer.read(ERROR_EXCERPT).decode(errors='replace')}"
    except (OSError, ValueError) as failure:
        delivery.response_code = None
        error = str(getattr(failure, "reason", failure)) or type(failure).__name__
    delivery.last_error = error[:ERROR_EXCERPT]
    if not error:
        delivery.status, delivery.next_try_at = WebhookDelivery.Status.DELIVERED, None
    elif delivery.attempts >= MAX_ATTEMPTS:
        delivery.status, delivery.next_try_at = WebhookDelivery.Status.FAILED, None
    else:
        delivery.next_try_at = now + RETRY_DELAYS[delivery.attempts - 1]
    delivery.save()
    if delivery.status != WebhookDelivery.Status.PENDING:
        WebhookDelivery.objects.past_the_log().delete()
    if delivery.next_try_at is not None and send_webhook.get_backend().supports_defer:
        retry_at = delivery.next_try_at
        transaction.on_commit(lambda: send_webhook.using(run_after=retry_at).enqueue(delivery.pk))


@task()
def send_webhook(delivery_id: int) -> str:
    """Try a pending delivery whose time has come; its status after the try."""
    with transaction.atomic():
        # Claimed under a lock, so that a retry task and `send_webhooks` never send one try
        # twice; sent after the commit, so that no transaction stays open while the receiver
        # takes its time.
        delivery = (
            WebhookDelivery.objects.select_for_update()
            .select_related("endpoint")
            .filter(pk=delivery_id)
            .first()
        )
        if delivery is None or delivery.status != WebhookDelivery.Status.PENDING:
            return delivery.status if delivery else "deleted"
        if delivery.next_try_at is not None and delivery.next_try_at > timezone.now():
            return "not yet"
        if not delivery.endpoint.is_active:
            return "endpoint inactive"
        # Should this worker die while sending, `send_webhooks` tries again after this.
        delivery.next_try_at = timezone.now() + CLAIMED_FOR
        delivery.save(update_fields=["next_try_at"])
    try_delivery(delivery)
    return delivery.status


def send_due_webhooks() -> int:
    """Try every pending delivery whose next try is due (for backends that cannot defer)."""
    due = WebhookDelivery.objects.filter(
        status=WebhookDelivery.Status.PENDING,
        next_try_at__lte=timezone.now(),
        endpoint__is_active=True,
    ).order_by("next_try_at", "pk")
    count = 0
    for delivery_id in due.values_list("pk", flat=True):
        send_webhook.call(delivery_id)
        count += 1
    return count


def object_reference(kind: str, instance, api_path: str) -> dict[str, Any]:
    """What an event says of a session or speaker: enough to fetch it from the API."""
    from conference.api.serializers import absolute_url

    return {"type": kind, "id": instance.pk, "slug": instance.slug, "url": absolute_url(api_path)}

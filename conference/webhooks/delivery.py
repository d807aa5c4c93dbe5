"""Webhooks: telling organizers' own systems when a release is published or a session or
speaker changes (docs/webhooks.md).

Writers record events (``record_event``) from their receivers, as rows of an outbox
(``WebhookEvent``) written in their own transaction: a transaction that rolls back takes its
rows with it and sends nothing. Within one transaction an object's event is one row however
often it is saved (an import saving a session several times), so each commit sends at most one
event per changed object. Once committed, the transaction's on_commit callback turns its rows
into one ``WebhookDelivery`` per active endpoint of the conference that wants it, sent by the
task worker, and deletes them. Rows a callback never took (the process died between the commit
and the callback, or the callback failed) are swept by ``send_due_webhooks`` once a minute old.
A failed try is tried again later with exponential backoff (``RETRY_DELAYS``): by ``run_after``
when the task backend can defer, otherwise by ``manage.py send_webhooks``.

Deliveries are signed as Standard Webhooks sign (``webhook-id``, ``webhook-timestamp``,
``webhook-signature``). Receivers' addresses are refused when private, loopback or link-local,
when saved and at every try (the SSRF guard, conference/webhooks/addresses.py).
"""

import base64
import datetime
import hashlib
import hmac
import json
import logging
import urllib.error
import uuid
from collections.abc import Callable
from typing import Any

from asgiref.local import Local
from django.db import transaction
from django.utils import timezone
from django_tasks import task

from conference.models import WebhookDelivery, WebhookEndpoint, WebhookEvent
from conference.routing import absolute_url
from conference.webhooks.addresses import check_public_url, deadline, opener

logger = logging.getLogger(__name__)

Event = WebhookEndpoint.Event

# Waits before the 2nd, 3rd, … try: 1, 5, 25 minutes, about 2 and 10 hours. Then it has failed.
RETRY_DELAYS = [datetime.timedelta(minutes=5**n) for n in range(5)]
MAX_ATTEMPTS = len(RETRY_DELAYS) + 1
# A receiver should answer at once and work later; a slow one must not hold a task worker. A
# deadline for the whole try, from connecting to the last byte read: a timeout per read would let
# a receiver trickling a byte at a time hold the worker as long as it likes.
DEADLINE_SECONDS = 5
# How long a try in progress keeps others from starting the same one.
CLAIMED_FOR = datetime.timedelta(seconds=DEADLINE_SECONDS * 12)
# Deliveries have a queue of their own, with a worker of its own (`make run`, `make serve`,
# docs/deploy.md): however many receivers are slow, mails never wait behind them.
QUEUE = "webhooks"
# What of a failing answer is kept in the delivery log.
ERROR_EXCERPT = 500
# An outbox row committed this long ago was left by a callback that never ran: the sweep sends
# it. A transaction longer than this may see its rows swept as it commits: a claim makes only
# one of the two send them.
LEFT_OVER_AFTER = datetime.timedelta(minutes=1)


# --- Signing -------------------------------------------------------------------------------


def sign(key: bytes, message_id: str, timestamp: str, body: bytes) -> str:
    """The webhook-signature value (Standard Webhooks): "v1," and the base64 HMAC-SHA256 of
    "<id>.<timestamp>.<body>"."""
    signed = f"{message_id}.{timestamp}.".encode() + body
    return "v1," + base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()


def deprecated_signature(secret: str, timestamp: str, body: bytes) -> str:
    """The X-Confsched-Signature value, sent for one more release beside webhook-signature:
    HMAC-SHA256 of "<timestamp>.<body>", keyed with the secret's text."""
    signed = timestamp.encode() + b"." + body
    return "sha256=" + hmac.new(secret.encode(), signed, hashlib.sha256).hexdigest()


# --- Recording events: the outbox ----------------------------------------------------------


class Batch:
    """The outbox rows a thread records until a commit sends them, and their callback.

    Each recording registers this batch as an on_commit callback, in the savepoint that wrote
    its row: a savepoint rolled back takes its rows and its callbacks alike, so every row that
    commits has a callback of its batch with it. The first to run takes the whole batch (one
    look-up of the endpoints for an import of a thousand sessions); the others find it taken.
    A batch whose transaction rolled back, or whose callbacks Django never ran, still holds its
    token and is filled by the thread's next transaction, whose callback takes it all.
    """

    def __init__(self):
        self.token = uuid.uuid4()
        self.taken = False

    def send(self) -> None:
        if self.taken:
            return
        self.taken = True  # the thread's next event starts a new batch, even if this fails
        send_batch(self.token)


# The current batch of each thread (and async context), as Django keeps each its connection.
recording = Local()


def current_batch() -> Batch:
    batch = getattr(recording, "batch", None)
    if batch is None or batch.taken:
        batch = recording.batch = Batch()
    return batch


def record_event(
    event: str, conference_id: int, key: str, data: Callable[[], dict[str, Any]] | dict
) -> None:
    """Send ``event`` about the object ``key`` ("session:42") once the transaction commits.

    ``data`` (or the function making it) is the event's ``object``. Recorded again in the same
    transaction, the event is sent once, with the last data. Outside a transaction, sent now.
    """
    if not transaction.get_connection().in_atomic_block:
        send_event(event, conference_id, key, data)
        return
    batch = current_batch()
    now = timezone.now()
    row = WebhookEvent(
        batch=batch.token,
        event=event,
        conference_id=conference_id,
        key=key,
        data=json.dumps(data() if callable(data) else data, ensure_ascii=False),
        occurred_at=now,
        created_at=now,
    )
    WebhookEvent.objects.bulk_create(
        [row],
        update_conflicts=True,
        unique_fields=["batch", "event", "key"],
        update_fields=["data", "occurred_at"],
    )
    # Robust: should sending fail, the write stands, its rows left to the sweep.
    transaction.on_commit(batch.send, robust=True)


def send_event(
    event: str, conference_id: int, key: str, data: Callable[[], dict[str, Any]] | dict
) -> None:
    """Send ``event`` now: for what is already committed (``schedule_released``)."""
    queue_deliveries([(event, conference_id, data, timezone.now())])


def send_batch(token: uuid.UUID) -> int:
    """Turn the outbox rows of one batch into deliveries and delete them; how many events.

    The rows are claimed first (moved to a new token), so that a commit's callback and the
    sweep, taking the same batch at once, never both send it.
    """
    claim = uuid.uuid4()
    with transaction.atomic():
        if not WebhookEvent.objects.filter(batch=token).update(batch=claim):
            return 0
        rows = WebhookEvent.objects.filter(batch=claim).order_by("pk")
        events = [(r.event, r.conference_id, json.loads(r.data), r.occurred_at) for r in rows]
        queue_deliveries(events)
        rows.delete()
    return len(events)


def send_left_over_events() -> int:
    """Send the batches of outbox rows whose commit's callback never took them; how many
    events. Each batch as its callback would have: one event per object and commit."""
    cutoff = timezone.now() - LEFT_OVER_AFTER
    tokens = set(WebhookEvent.objects.filter(created_at__lt=cutoff).values_list("batch", flat=True))
    return sum(send_batch(token) for token in tokens)


def queue_deliveries(events: list[tuple[str, int, Any, datetime.datetime]]) -> None:
    """One delivery per event (its name, conference id, object or the function making it, and
    when it occurred) and endpoint that wants it, each sent by its own task."""
    conference_ids = {conference_id for _, conference_id, _, _ in events}
    endpoints = list(
        WebhookEndpoint.objects.filter(conference__in=conference_ids, is_active=True)
        .select_related("conference")
        .order_by("pk")
    )
    if not endpoints:
        return
    deliveries = []
    for event, conference_id, data, occurred_at in events:
        wanting = [e for e in endpoints if e.conference_id == conference_id and event in e.events]
        if not wanting:
            continue
        body = json.dumps(
            {
                "event": event,
                "conference": wanting[0].conference.slug,
                "occurred_at": occurred_at.isoformat().replace("+00:00", "Z"),
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
    """Send one try of ``delivery``, over within DEADLINE_SECONDS; its status code.

    Raises OSError (a TimeoutError past the deadline) or ValueError on failure; an answer that
    is not 2xx as HTTPError, with the start of its body read within the deadline (``excerpt``).
    """
    endpoint = delivery.endpoint
    check_public_url(endpoint.url)
    message_id = str(delivery.pk)  # the same on every try, so a receiver can ignore repeats
    timestamp = str(int(timezone.now().timestamp()))
    body = delivery.body.encode()
    request = urllib.request.Request(
        endpoint.url,
        data=body,
        method="POST",
        headers={
            "Content-Type": "application/json",
            "User-Agent": "confsched-webhooks",
            "webhook-id": message_id,
            "webhook-timestamp": timestamp,
            "webhook-signature": sign(endpoint.signing_key, message_id, timestamp, body),
            "X-Confsched-Event": delivery.event,
            # Deprecated, sent for one more release (docs/webhooks.md).
            "X-Confsched-Timestamp": timestamp,
            "X-Confsched-Signature": deprecated_signature(endpoint.secret, timestamp, body),
            "X-Confsched-Delivery": message_id,
        },
    )
    with deadline(DEADLINE_SECONDS):
        try:
            with opener.open(request, timeout=DEADLINE_SECONDS) as response:
                return response.status
        except urllib.error.HTTPError as answer:
            try:
                answer.excerpt = answer.read(ERROR_EXCERPT).decode(errors="replace")
            except OSError:
                answer.excerpt = ""
            raise


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
        error = f"HTTP {answer.code}: {getattr(answer, 'excerpt', '')}"
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


@task(queue_name=QUEUE)
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
    """Send the outbox's left-overs, then try every pending delivery whose next try is due
    (for backends that cannot defer); how many deliveries were tried."""
    send_left_over_events()
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
    return {"type": kind, "id": instance.pk, "slug": instance.slug, "url": absolute_url(api_path)}

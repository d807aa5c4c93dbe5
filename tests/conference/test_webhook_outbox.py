"""The webhooks' outbox: events are rows of the transaction causing them (conference/webhooks/delivery.py)."""

import datetime
import json
import uuid
from collections import Counter

import pytest
from django.db import DEFAULT_DB_ALIAS, connections, transaction
from django.utils import timezone

from conference.models.api import WebhookDelivery, WebhookEndpoint, WebhookEvent
from conference.webhooks import delivery as webhooks
from conference.webhooks.delivery import send_due_webhooks
from tests.builders import make_conference, make_session, make_speaker

pytestmark = pytest.mark.django_db

Event = WebhookEndpoint.Event


def make_endpoint(conference, number=0):
    return WebhookEndpoint.objects.create(
        conference=conference, url=f"https://hooks.example.org/{number}", events=Event.values
    )


def fail_after(make, conference):
    """``make(conference)`` in a transaction (or savepoint) that then rolls back."""
    with transaction.atomic():
        make(conference)
        assert WebhookEvent.objects.filter(conference=conference).exists()
        raise RuntimeError


def sent() -> Counter:
    """The deliveries made: how many per endpoint, event and object."""
    return Counter(
        (delivery.endpoint_id, delivery.event, json.loads(delivery.body)["object"]["id"])
        for delivery in WebhookDelivery.objects.all()
    )


@pytest.mark.django_db(transaction=True)
def test_a_rolled_back_transaction_leaves_no_delivery_and_no_outbox_row(dummy_tasks):
    conference = make_conference()
    make_endpoint(conference)

    with pytest.raises(RuntimeError):
        fail_after(make_speaker, conference)

    assert WebhookEvent.objects.count() == 0
    assert WebhookDelivery.objects.count() == 0
    assert dummy_tasks.results == []


@pytest.mark.django_db(transaction=True)
def test_a_commit_gives_one_delivery_per_endpoint_and_event(dummy_tasks):
    conference = make_conference()
    session = make_session(conference)
    first, second = make_endpoint(conference, 1), make_endpoint(conference, 2)

    with transaction.atomic():
        for title in ("First", "Second"):
            session.title = title
            session.save()
        speaker = make_speaker(conference)

    assert sent() == {
        (first.pk, "session.changed", session.pk): 1,
        (second.pk, "session.changed", session.pk): 1,
        (first.pk, "speaker.changed", speaker.pk): 1,
        (second.pk, "speaker.changed", speaker.pk): 1,
    }
    assert WebhookEvent.objects.count() == 0
    assert len(dummy_tasks.results) == 4


@pytest.mark.django_db(transaction=True)
def test_outside_a_transaction_an_event_is_sent_at_once(dummy_tasks):
    conference = make_conference()
    endpoint = make_endpoint(conference)

    speaker = make_speaker(conference)

    assert sent() == {(endpoint.pk, "speaker.changed", speaker.pk): 1}
    assert WebhookEvent.objects.count() == 0


def test_recording_events_sets_no_attribute_on_the_connection(
    dummy_tasks, django_capture_on_commit_callbacks
):
    conference = make_conference()
    make_endpoint(conference)
    wrapper = connections[DEFAULT_DB_ALIAS]
    attributes = set(vars(wrapper))

    with django_capture_on_commit_callbacks(execute=True), transaction.atomic():
        make_session(conference)
        make_speaker(conference)

    assert set(vars(wrapper)) - attributes == set()
    assert WebhookDelivery.objects.count() == 2


def test_an_event_recorded_in_a_savepoint_rolled_back_is_not_sent(
    dummy_tasks, django_capture_on_commit_callbacks
):
    conference = make_conference()
    endpoint = make_endpoint(conference)

    with django_capture_on_commit_callbacks(execute=True), transaction.atomic():
        speaker = make_speaker(conference)
        with pytest.raises(RuntimeError):
            fail_after(make_session, conference)

    assert sent() == {(endpoint.pk, "speaker.changed", speaker.pk): 1}
    assert WebhookEvent.objects.count() == 0


def test_an_event_after_a_savepoint_rolled_back_is_still_sent(
    dummy_tasks, django_capture_on_commit_callbacks
):
    """The savepoint took the transaction's first row and its callback: the next row brings
    its own."""
    conference = make_conference()
    endpoint = make_endpoint(conference)

    with django_capture_on_commit_callbacks(execute=True), transaction.atomic():
        with pytest.raises(RuntimeError):
            fail_after(make_session, conference)
        speaker = make_speaker(conference)

    assert sent() == {(endpoint.pk, "speaker.changed", speaker.pk): 1}
    assert WebhookEvent.objects.count() == 0


def left_over(conference, key, age_minutes, batch, event=Event.SPEAKER_CHANGED):
    """An outbox row whose commit's callback never ran (its process died in between)."""
    created_at = timezone.now() - datetime.timedelta(minutes=age_minutes)
    number = int(key.split(":")[1])
    return WebhookEvent.objects.create(
        batch=batch, event=event, conference=conference, key=key,
        data=json.dumps({"type": "speaker", "id": number}), occurred_at=created_at,
        created_at=created_at,
    )  # fmt: skip


def test_the_sweep_sends_outbox_rows_left_over_for_a_minute_and_deletes_them(dummy_tasks):
    conference = make_conference()
    endpoint = make_endpoint(conference)
    crashed, running = uuid.uuid4(), uuid.uuid4()
    left_over(conference, "speaker:1", age_minutes=2, batch=crashed)
    left_over(conference, "speaker:2", age_minutes=0, batch=crashed)  # of the same commit
    young = left_over(conference, "speaker:3", age_minutes=0, batch=running)

    assert send_due_webhooks() == 0  # no delivery was due: the new ones go by their tasks

    assert sent() == {
        (endpoint.pk, "speaker.changed", 1): 1,
        (endpoint.pk, "speaker.changed", 2): 1,
    }
    assert list(WebhookEvent.objects.all()) == [young]


def test_a_batch_the_sweep_sent_is_not_sent_again_by_its_callback(
    dummy_tasks, clock, django_capture_on_commit_callbacks
):
    """A transaction longer than a minute: the sweep may take its rows as it commits."""
    start = datetime.datetime(2026, 4, 1, 12, 0, tzinfo=datetime.UTC)
    clock(start)
    conference = make_conference()
    endpoint = make_endpoint(conference)
    with django_capture_on_commit_callbacks() as callbacks:
        speaker = make_speaker(conference)
    clock(start + datetime.timedelta(minutes=2))

    send_due_webhooks()
    assert WebhookDelivery.objects.count() == 1
    for callback in callbacks:
        callback()

    assert sent() == {(endpoint.pk, "speaker.changed", speaker.pk): 1}
    assert WebhookEvent.objects.count() == 0


@pytest.mark.django_db(transaction=True)
def test_a_failing_callback_leaves_the_write_and_its_rows_to_the_sweep(
    dummy_tasks, clock, monkeypatch, caplog
):
    start = datetime.datetime(2026, 4, 1, 12, 0, tzinfo=datetime.UTC)
    clock(start)
    conference = make_conference()
    endpoint = make_endpoint(conference)
    queue_deliveries = webhooks.queue_deliveries

    def fail(events):
        raise ConnectionError("the task queue is away")

    monkeypatch.setattr(webhooks, "queue_deliveries", fail)
    with transaction.atomic():
        speaker = make_speaker(conference)

    assert "Batch.send" in caplog.text
    assert WebhookEvent.objects.count() == 1
    monkeypatch.setattr(webhooks, "queue_deliveries", queue_deliveries)
    clock(start + datetime.timedelta(minutes=2))
    send_due_webhooks()
    assert sent() == {(endpoint.pk, "speaker.changed", speaker.pk): 1}
    assert WebhookEvent.objects.count() == 0

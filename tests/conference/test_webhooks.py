import base64
import datetime
import hashlib
import hmac
import io
import json
import threading
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
import standardwebhooks
from django.core.exceptions import ValidationError
from django.db import transaction
from django.urls import reverse

from conference.models import WebhookDelivery, WebhookEndpoint, new_webhook_secret
from conference.webhooks.delivery import send_due_webhooks, send_webhook
from sessions.exports.frab_schedule import build_frab_data
from sessions.importers import import_schedule
from sessions.models import Session
from sessions.releases import release_schedule
from tests.builders import make_conference, make_room, make_session, make_speaker, paris

pytestmark = pytest.mark.django_db

Event = WebhookEndpoint.Event


class Receiver:
    """A webhook receiver on 127.0.0.1 that keeps what it was sent and answers ``status``."""

    def __init__(self):
        self.requests: list[tuple[dict, bytes]] = []
        self.status = 200
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                receiver.requests.append((dict(self.headers), body))
                self.send_response(receiver.status)
                self.end_headers()
                self.wfile.write(b"receiver says no" if receiver.status >= 300 else b"")

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}/hook"
        # shutdown() waits for the server's next poll: the default half second, after every test.
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
        )

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc_info):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def receiver(settings):
    settings.WEBHOOKS_ALLOW_PRIVATE_ADDRESSES = True
    with Receiver() as receiver:
        yield receiver


def make_endpoint(conference, url, events=tuple(Event.values), **fields):
    return WebhookEndpoint.objects.create(
        conference=conference, url=url, events=list(events), secret="s3cret", **fields
    )


def verify(secret: str, headers: dict, body: bytes) -> bool:
    """What a receiver does (docs/webhooks.md)."""
    signed = headers["X-Confsched-Timestamp"].encode() + b"." + body
    expected = "sha256=" + hmac.new(secret.encode(), signed, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, headers["X-Confsched-Signature"])


def test_a_release_is_delivered_signed_to_the_receiver(
    receiver, immediate_tasks, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        conference = make_conference(slug="pycon")
        make_session(conference, room=make_room(conference))
    make_endpoint(conference, receiver.url, events=[Event.RELEASE_PUBLISHED])

    with django_capture_on_commit_callbacks(execute=True):
        release_schedule(conference, version="v2", comment="More talks", user=None)

    [(headers, body)] = receiver.requests
    assert headers["X-Confsched-Event"] == "release.published"
    assert verify("s3cret", headers, body)
    assert not verify("other", headers, body)
    payload = json.loads(body)
    assert payload["event"] == "release.published"
    assert payload["conference"] == "pycon"
    assert payload["object"]["version"] == "v2"
    assert payload["object"]["comment"] == "More talks"
    [delivery] = WebhookDelivery.objects.all()
    assert (delivery.status, delivery.response_code, delivery.attempts) == ("delivered", 200, 1)


@pytest.fixture
def deliver(receiver, immediate_tasks, django_capture_on_commit_callbacks):
    """Saves a speaker of ``endpoint``'s conference; what the receiver got: the headers,
    lower-cased, and the body."""

    def deliver_a_speaker_change(endpoint) -> tuple[dict, bytes]:
        with django_capture_on_commit_callbacks(execute=True):
            make_speaker(endpoint.conference)
        [(headers, body)] = receiver.requests
        return {name.lower(): value for name, value in headers.items()}, body

    return deliver_a_speaker_change


@pytest.fixture
def speaker_endpoint(receiver):
    """An endpoint on the receiver, told of speakers, with the secret the admin makes."""
    return WebhookEndpoint.objects.create(
        conference=make_conference(), url=receiver.url, events=[Event.SPEAKER_CHANGED]
    )


def test_a_delivery_verifies_with_the_standard_webhooks_library(speaker_endpoint, deliver):
    headers, body = deliver(speaker_endpoint)

    payload = standardwebhooks.Webhook(speaker_endpoint.secret).verify(body, headers)

    [delivery] = WebhookDelivery.objects.all()
    assert payload["event"] == "speaker.changed"
    assert headers["webhook-id"] == headers["x-confsched-delivery"] == str(delivery.pk)
    assert headers["webhook-timestamp"] == headers["x-confsched-timestamp"]
    assert headers["webhook-signature"].startswith("v1,")


def test_a_delivery_signed_with_another_secret_does_not_verify(speaker_endpoint, deliver):
    headers, body = deliver(speaker_endpoint)

    with pytest.raises(standardwebhooks.WebhookVerificationError):
        standardwebhooks.Webhook(new_webhook_secret()).verify(body, headers)


def test_a_secret_made_before_standard_webhooks_signs_with_its_own_bytes(speaker_endpoint, deliver):
    speaker_endpoint.secret = "0123abcd" * 8  # hex, as endpoints' secrets were made before
    speaker_endpoint.save()

    headers, body = deliver(speaker_endpoint)

    assert speaker_endpoint.receiver_secret == "whsec_" + base64.b64encode(b"0123abcd" * 8).decode()
    standardwebhooks.Webhook(speaker_endpoint.receiver_secret).verify(body, headers)
    standardwebhooks.Webhook(b"0123abcd" * 8).verify(body, headers)
    deprecated = {
        "X-Confsched-Timestamp": headers["x-confsched-timestamp"],
        "X-Confsched-Signature": headers["x-confsched-signature"],
    }
    assert verify("0123abcd" * 8, deprecated, body)  # the deprecated header, as before


def test_a_whsec_secret_must_be_base64(monkeypatch):
    monkeypatch.setattr(
        "conference.webhooks.addresses.resolve", lambda host, port: ["93.184.215.14"]
    )
    endpoint = WebhookEndpoint(
        conference=make_conference(),
        url="https://hooks.example.org/x",
        events=["session.changed"],
        secret="whsec_not base64!",
    )
    with pytest.raises(ValidationError) as error:
        endpoint.full_clean()
    assert error.value.message_dict == {
        "secret": ["After “whsec_”, a secret is its key in base64."]
    }


def test_a_failed_delivery_is_tried_again_later_with_backoff(
    receiver, dummy_tasks, clock, django_capture_on_commit_callbacks
):
    receiver.status = 500
    start = datetime.datetime(2026, 4, 1, 12, 0, tzinfo=datetime.UTC)
    clock(start)
    conference = make_conference()
    make_endpoint(conference, receiver.url, events=[Event.SPEAKER_CHANGED])
    with django_capture_on_commit_callbacks(execute=True):
        make_speaker(conference)
    [delivery] = WebhookDelivery.objects.all()

    with django_capture_on_commit_callbacks(execute=True):
        assert send_webhook.call(delivery.pk) == "pending"

    delivery.refresh_from_db()
    assert delivery.attempts == 1
    assert delivery.response_code == 500
    assert delivery.last_error == "HTTP 500: receiver says no"
    assert delivery.next_try_at == start + datetime.timedelta(minutes=1)
    retry = dummy_tasks.results[-1]
    assert (retry.task.name, retry.args) == ("send_webhook", [delivery.pk])
    assert retry.task.run_after == start + datetime.timedelta(minutes=1)
    assert send_webhook.call(delivery.pk) == "not yet"

    clock(start + datetime.timedelta(minutes=1))
    receiver.status = 204
    assert send_due_webhooks() == 1

    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts, delivery.next_try_at) == ("delivered", 2, None)
    assert len(receiver.requests) == 2


def test_the_delivery_log_forgets_finished_deliveries_after_a_month(receiver, dummy_tasks, clock):
    now = datetime.datetime(2026, 4, 1, 12, 0, tzinfo=datetime.UTC)
    endpoint = make_endpoint(make_conference(), receiver.url, events=[Event.SPEAKER_CHANGED])
    log = {}
    for name, status, days_ago in [
        ("delivered long ago", "delivered", 31),
        ("failed long ago", "failed", 31),
        ("still pending", "pending", 31),
        ("delivered this month", "delivered", 29),
        ("new", "pending", 0),
    ]:
        created_at = now - datetime.timedelta(days=days_ago)
        log[name] = WebhookDelivery.objects.create(
            endpoint=endpoint, event="speaker.changed", body="{}", status=status,
            created_at=created_at, next_try_at=created_at if status == "pending" else None,
        )  # fmt: skip
    clock(now)

    assert send_webhook.call(log["new"].pk) == "delivered"

    kept = set(WebhookDelivery.objects.values_list("pk", flat=True))
    assert kept == {log[name].pk for name in ("still pending", "delivered this month", "new")}


def test_backoff_grows_and_gives_up_after_the_last_try(receiver, dummy_tasks, clock):
    receiver.status = 503
    now = datetime.datetime(2026, 4, 1, 12, 0, tzinfo=datetime.UTC)
    endpoint = make_endpoint(make_conference(), receiver.url)
    delivery = WebhookDelivery.objects.create(endpoint=endpoint, event="speaker.changed", body="{}")
    waits = []
    for _ in range(6):
        clock(now)
        send_webhook.call(delivery.pk)
        delivery.refresh_from_db()
        if delivery.next_try_at:
            waits.append(delivery.next_try_at - now)
            now = delivery.next_try_at
    assert waits == [datetime.timedelta(minutes=m) for m in (1, 5, 25, 125, 625)]
    assert (delivery.status, delivery.attempts) == ("failed", 6)


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1/hook",
        "http://localhost:8000/hook",
        "http://10.1.2.3/hook",
        "http://192.168.0.10/hook",
        "http://169.254.169.254/latest/meta-data/",
        "http://[::1]/hook",
        "http://[fe80::1]/hook",
        "http://[::ffff:127.0.0.1]/hook",
        "http://0.0.0.0/hook",
        "http://100.64.0.1/hook",
        "http://224.0.0.1/hook",
        "http://240.0.0.1/hook",
        "ftp://example.org/hook",
    ],
)
def test_an_endpoint_on_a_private_address_is_refused_when_saved(url):
    endpoint = WebhookEndpoint(conference=make_conference(), url=url, events=["session.changed"])
    with pytest.raises(ValidationError) as error:
        endpoint.full_clean()
    assert list(error.value.message_dict) == ["url"]


def test_an_endpoint_refuses_events_it_does_not_know(monkeypatch):
    monkeypatch.setattr(
        "conference.webhooks.addresses.resolve", lambda host, port: ["93.184.215.14"]
    )
    endpoint = WebhookEndpoint(
        conference=make_conference(), url="https://hooks.example.org/", events=["session.eaten"]
    )
    with pytest.raises(ValidationError) as error:
        endpoint.full_clean()
    assert error.value.message_dict == {"events": ["Choose events from the list."]}


def test_an_endpoint_on_a_public_address_is_accepted(monkeypatch):
    monkeypatch.setattr(
        "conference.webhooks.addresses.resolve", lambda host, port: ["93.184.215.14"]
    )
    endpoint = WebhookEndpoint(
        conference=make_conference(), url="https://hooks.example.org/x", events=["session.changed"]
    )
    endpoint.full_clean()
    assert endpoint.secret.startswith("whsec_")
    assert len(endpoint.signing_key) == 32


def test_a_private_address_is_refused_again_when_delivering(receiver, dummy_tasks, settings):
    endpoint = make_endpoint(make_conference(), receiver.url)
    delivery = WebhookDelivery.objects.create(endpoint=endpoint, event="speaker.changed", body="{}")
    settings.WEBHOOKS_ALLOW_PRIVATE_ADDRESSES = False  # as if its name now resolved to 127.0.0.1

    send_webhook.call(delivery.pk)

    delivery.refresh_from_db()
    assert receiver.requests == []
    assert delivery.response_code is None
    assert "loopback" in delivery.last_error
    assert delivery.attempts == 1


def test_a_name_that_resolves_elsewhere_once_checked_is_not_connected_to(
    receiver, dummy_tasks, settings, monkeypatch
):
    answers = iter([["93.184.215.14"], ["127.0.0.1"]])  # the check, then the connection
    monkeypatch.setattr("conference.webhooks.addresses.resolve", lambda host, port: next(answers))
    url = receiver.url.replace("127.0.0.1", "rebinding.example.org")
    delivery = WebhookDelivery.objects.create(
        endpoint=make_endpoint(make_conference(), url), event="speaker.changed", body="{}"
    )
    settings.WEBHOOKS_ALLOW_PRIVATE_ADDRESSES = False

    send_webhook.call(delivery.pk)

    delivery.refresh_from_db()
    assert receiver.requests == []
    assert delivery.last_error == (
        "“rebinding.example.org” resolves to 127.0.0.1: a private, loopback, link-local or "
        "reserved address cannot receive webhooks."
    )


def test_nothing_is_sent_when_the_transaction_rolls_back(
    receiver, immediate_tasks, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        conference = make_conference()
        session = make_session(conference)
    make_endpoint(conference, receiver.url)

    def rename_then_fail():
        with transaction.atomic():
            session.title = "Renamed"
            session.save()
            raise RuntimeError

    with django_capture_on_commit_callbacks(execute=True) as callbacks, pytest.raises(RuntimeError):
        rename_then_fail()

    assert callbacks == []
    assert WebhookDelivery.objects.count() == 0
    assert receiver.requests == []


def test_an_object_saved_twice_in_one_commit_is_one_event(
    receiver, immediate_tasks, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        conference = make_conference()
        session = make_session(conference)
    make_endpoint(conference, receiver.url, events=[Event.SESSION_CHANGED])

    with django_capture_on_commit_callbacks(execute=True), transaction.atomic():
        for title in ("First", "Second"):
            session.title = title
            session.save()

    [(_, body)] = receiver.requests
    payload = json.loads(body)
    assert payload["object"] == {
        "type": "session",
        "id": session.pk,
        "slug": session.slug,
        "url": f"https://schedule.example.org/api/v1/conferences/{conference.slug}/sessions/{session.slug}/",
    }


def test_cancelling_a_session_is_its_own_event(
    receiver, immediate_tasks, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        conference = make_conference()
        session = make_session(conference)
    make_endpoint(conference, receiver.url)

    with django_capture_on_commit_callbacks(execute=True):
        Session.objects.filter(pk=session.pk).cancel()
    with django_capture_on_commit_callbacks(execute=True):
        session.refresh_from_db()
        session.title = "Still cancelled"
        session.save()

    assert [headers["X-Confsched-Event"] for headers, _ in receiver.requests] == [
        "session.cancelled",
        "session.changed",
    ]


def test_an_import_sends_one_event_per_changed_session_and_speaker(
    dummy_tasks, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        source = make_conference(slug="source")
        room = make_room(source, name="Hall")
        for hour in (10, 11, 12):
            make_session(
                source, room=room, starts_at=paris(8, hour), speakers=[make_speaker(source)]
            )
        target = make_conference(slug="target")
    make_endpoint(target, "https://hooks.example.org/")
    data = build_frab_data(source, list(source.sessions.public().for_listing()), base_url="")
    schedule = io.BytesIO(json.dumps(data).encode())

    with django_capture_on_commit_callbacks(execute=True):
        import_schedule(target, schedule)

    sent = Counter(
        (delivery.event, json.loads(delivery.body)["object"]["id"])
        for delivery in WebhookDelivery.objects.all()
    )
    assert sorted(sent.values()) == [1] * 6
    assert sorted(sent) == sorted(
        [("session.changed", pk) for pk in target.sessions.values_list("pk", flat=True)]
        + [("speaker.changed", pk) for pk in target.speakers.values_list("pk", flat=True)]
    )
    assert len(dummy_tasks.results) == 6


def test_inactive_endpoints_and_other_events_get_nothing(
    receiver, immediate_tasks, django_capture_on_commit_callbacks
):
    conference = make_conference()
    make_endpoint(conference, receiver.url, events=[Event.RELEASE_PUBLISHED])
    make_endpoint(conference, receiver.url, is_active=False)
    make_endpoint(make_conference(), receiver.url)

    with django_capture_on_commit_callbacks(execute=True):
        make_session(conference)

    assert WebhookDelivery.objects.count() == 0


def test_the_admin_refuses_an_endpoint_on_a_private_address(admin_client):
    conference = make_conference()
    response = admin_client.post(
        reverse("admin:conference_webhookendpoint_add"),
        {
            "conference": conference.pk,
            "url": "http://169.254.169.254/latest/",
            "events": ["session.changed"],
            "secret": "s3cret",
            "is_active": "on",
        },
    )
    assert response.status_code == 200
    assert list(response.context["adminform"].form.errors) == ["url"]
    assert WebhookEndpoint.objects.count() == 0


def test_the_admin_offers_a_generated_secret(admin_client):
    response = admin_client.get(reverse("admin:conference_webhookendpoint_add"))
    secret = response.context["adminform"].form["secret"].value()
    assert secret.startswith("whsec_")
    assert len(base64.b64decode(secret.removeprefix("whsec_"))) == 32


@pytest.mark.parametrize("n", [1, 12])
def test_delivery_log_query_count_does_not_grow(admin_client, django_assert_max_num_queries, n):
    endpoint = make_endpoint(make_conference(), "https://hooks.example.org/")
    WebhookDelivery.objects.bulk_create(
        WebhookDelivery(endpoint=endpoint, event="session.changed", body="{}") for _ in range(n)
    )
    with django_assert_max_num_queries(12):
        response = admin_client.get(reverse("admin:conference_webhookdelivery_changelist"))
    assert len(response.context["cl"].result_list) == n


@pytest.mark.parametrize("n", [1, 12])
def test_endpoint_list_query_count_does_not_grow(admin_client, django_assert_max_num_queries, n):
    conference = make_conference()
    for number in range(n):
        make_endpoint(conference, f"https://hooks.example.org/{number}")
    with django_assert_max_num_queries(12):
        response = admin_client.get(reverse("admin:conference_webhookendpoint_changelist"))
    assert len(response.context["cl"].result_list) == n

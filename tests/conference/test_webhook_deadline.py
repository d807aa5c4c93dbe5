"""A slow receiver cannot hold the task worker: each try has a deadline for the whole request,
and deliveries run on a queue of their own, never in front of mails."""

import socket
import threading
import time
import urllib.request

import pytest

from conference.accounts.mail import send_verification_mail
from conference.models import WebhookDelivery, WebhookEndpoint
from conference.webhooks import addresses, delivery
from conference.webhooks.addresses import DeadlineExceededError, DeadlineSSLSocket
from conference.webhooks.delivery import post, send_webhook
from sessions.importers.tasks import run_schedule_import
from sessions.notifications import plan_release_mails, send_release_mails
from speakers.invitations import send_invitation_mail
from tests.builders import make_conference

pytestmark = pytest.mark.django_db

# Long enough that a per-read timeout would keep waiting far past the deadline under test.
TRICKLE_FOR_SECONDS = 30


class TricklingReceiver:
    """Reads the request, then answers one byte of a never-ending header every 50 ms."""

    def __init__(self):
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}/hook"
        self.stop = threading.Event()
        self.bytes_sent = 0
        self.thread = threading.Thread(target=self.serve, daemon=True)

    def serve(self):
        connection, _ = self.listener.accept()
        with connection:
            connection.recv(65536)
            answer = b"HTTP/1.1 200 OK\r\nX-Slow: " + b"a" * 10_000
            ends = time.monotonic() + TRICKLE_FOR_SECONDS
            for byte in answer:
                # Paces the receiver; the test never waits on it: stop ends it at once.
                if self.stop.wait(0.05) or time.monotonic() > ends:
                    break
                try:
                    connection.sendall(bytes([byte]))
                except OSError:  # the sender hung up: what the deadline is for
                    break
                self.bytes_sent += 1

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc_info):
        self.stop.set()
        self.thread.join()
        self.listener.close()


@pytest.fixture
def trickling(settings):
    settings.WEBHOOKS_ALLOW_PRIVATE_ADDRESSES = True
    with TricklingReceiver() as receiver:
        yield receiver


def slow_delivery(url):
    endpoint = WebhookEndpoint.objects.create(
        conference=make_conference(), url=url, events=["speaker.changed"], secret="s3cret"
    )
    return WebhookDelivery.objects.create(endpoint=endpoint, event="speaker.changed", body="{}")


def test_a_receiver_trickling_bytes_is_given_up_at_the_deadline(trickling, monkeypatch):
    monkeypatch.setattr(delivery, "DEADLINE_SECONDS", 0.5)
    started = time.monotonic()

    with pytest.raises(DeadlineExceededError):
        post(slow_delivery(trickling.url))

    # The receiver was still sending: no single read waited long, the deadline ended it.
    assert trickling.bytes_sent >= 3
    assert time.monotonic() - started < TRICKLE_FOR_SECONDS / 3


def test_a_delivery_given_up_at_the_deadline_is_tried_again_later(
    trickling, dummy_tasks, monkeypatch
):
    monkeypatch.setattr(delivery, "DEADLINE_SECONDS", 0.5)
    slow = slow_delivery(trickling.url)

    assert send_webhook.call(slow.pk) == "pending"

    slow.refresh_from_db()
    assert (slow.attempts, slow.response_code) == (1, None)
    assert slow.last_error == "The receiver did not answer within the deadline."
    assert slow.next_try_at is not None


def test_a_wait_outside_a_deadline_keeps_its_own_timeout():
    assert addresses.time_left(3.0) == 3.0
    with addresses.deadline(60):
        assert 59 < addresses.time_left(None) <= 60
        assert addresses.time_left(3.0) == 3.0


def test_https_deliveries_keep_the_deadline_too():
    [handler] = [h for h in addresses.opener.handlers if isinstance(h, urllib.request.HTTPSHandler)]
    assert handler._context.sslsocket_class is DeadlineSSLSocket


def test_webhook_deliveries_never_share_a_queue_with_mails_or_imports():
    others = {
        task.queue_name
        for task in (
            send_verification_mail,
            plan_release_mails,
            send_release_mails,
            send_invitation_mail,
            run_schedule_import,
        )
    }
    assert send_webhook.queue_name == "webhooks"
    assert others == {"default"}

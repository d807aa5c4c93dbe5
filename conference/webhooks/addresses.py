"""Outgoing requests to addresses organizers typed: the guard that keeps them off the server's
own network (webhooks, conference/webhooks/delivery.py).

An address is only a name: it could point at the server's own network (a metadata service, an
admin port). Addresses that resolve to anything but public unicast addresses are refused when an
endpoint is saved (``validate_public_url``) and again on the very address each connection is
made to (``opener``), since DNS answers may change in between.
``WEBHOOKS_ALLOW_PRIVATE_ADDRESSES`` allows them, for tests and closed networks.

A request made within ``deadline()`` is over by then, however its receiver paces its bytes: a
socket timeout alone is per wait, so a receiver sending a byte every few seconds never trips it.
Each wait on the connection's socket (connecting, the TLS handshake, every send and read) may
take only what is left of the deadline.
"""

import contextvars
import http.client
import ipaddress
import socket
import ssl
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import urlsplit

from django.conf import settings
from django.core.exceptions import ValidationError
from django.utils.translation import gettext


def is_public_address(address: str) -> bool:
    ip = ipaddress.ip_address(address.split("%", 1)[0])  # no IPv6 zone index
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped:
        ip = ip.ipv4_mapped
    return ip.is_global and not (ip.is_multicast or ip.is_reserved)


def resolve(host: str, port: int) -> list[str]:
    return [info[4][0] for info in socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)]


class RefusedAddressError(OSError):
    """A receiver's host resolved to an address webhooks may not reach."""


def public_addresses(host: str, port: int) -> list[str]:
    """The addresses ``host`` resolves to, if all are public; else RefusedAddressError."""
    try:
        addresses = resolve(host, port)
    except (OSError, UnicodeError) as error:
        raise RefusedAddressError(
            gettext("“%(host)s” does not resolve: %(error)s.") % {"host": host, "error": error}
        ) from error
    refused = sorted({address for address in addresses if not is_public_address(address)})
    if refused or not addresses:
        if not refused:
            raise RefusedAddressError(gettext("“%(host)s” resolves to nothing.") % {"host": host})
        raise RefusedAddressError(
            gettext(
                "“%(host)s” resolves to %(addresses)s: a private, loopback, link-local or "
                "reserved address cannot receive webhooks."
            )
            % {"host": host, "addresses": ", ".join(refused)}
        )
    return addresses


def check_public_url(url: str) -> None:
    """Raise ValueError unless ``url`` is http(s) and every address its host resolves to is a
    public one (or the setting allows private ones)."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(
            gettext("Only http and https addresses with a host name can receive webhooks.")
        )
    if settings.WEBHOOKS_ALLOW_PRIVATE_ADDRESSES:
        return
    try:
        public_addresses(parts.hostname, parts.port or (443 if parts.scheme == "https" else 80))
    except RefusedAddressError as error:
        raise ValueError(str(error)) from error


# When the request in progress in this context must be over, in time.monotonic() seconds.
_deadline: contextvars.ContextVar[float | None] = contextvars.ContextVar(
    "webhook_deadline", default=None
)


DEADLINE_PASSED = "The receiver did not answer within the deadline."


class DeadlineExceededError(TimeoutError):
    """The receiver took longer than the whole request may take."""


@contextmanager
def deadline(seconds: float) -> Iterator[None]:
    """Requests made inside end within ``seconds`` in all, or raise DeadlineExceededError."""
    token = _deadline.set(time.monotonic() + seconds)
    try:
        yield
    finally:
        _deadline.reset(token)


def time_left(timeout: float | None = None) -> float | None:
    """What a wait may take: ``timeout``, or less when the deadline comes first."""
    end = _deadline.get()
    if end is None:
        return timeout
    left = end - time.monotonic()
    if left <= 0:
        raise DeadlineExceededError(DEADLINE_PASSED)
    return left if timeout is None else min(timeout, left)


class DeadlineWaits:
    """Each wait on the socket may take only what is left of the deadline."""

    def _within_deadline(self, method, *args, **kwargs):
        left = time_left()
        if left is None:
            return method(*args, **kwargs)
        self.settimeout(left)
        try:
            return method(*args, **kwargs)
        except TimeoutError as error:
            if isinstance(error, DeadlineExceededError) or time.monotonic() < _deadline.get():
                raise
            raise DeadlineExceededError(DEADLINE_PASSED) from error

    def recv(self, *args, **kwargs):
        return self._within_deadline(super().recv, *args, **kwargs)

    def recv_into(self, *args, **kwargs):
        return self._within_deadline(super().recv_into, *args, **kwargs)

    def send(self, *args, **kwargs):
        return self._within_deadline(super().send, *args, **kwargs)

    def sendall(self, *args, **kwargs):
        # sendall's timeout bounds the whole call, not each chunk (Python 3.5+).
        return self._within_deadline(super().sendall, *args, **kwargs)


class DeadlineSocket(DeadlineWaits, socket.socket):
    pass


class DeadlineSSLSocket(DeadlineWaits, ssl.SSLSocket):
    def do_handshake(self, *args, **kwargs):
        return self._within_deadline(super().do_handshake, *args, **kwargs)


def connect(address, timeout, source_address, **kwargs) -> DeadlineSocket:
    plain = socket.create_connection(address, time_left(timeout), source_address, **kwargs)
    sock = DeadlineSocket(plain.family, plain.type, plain.proto, fileno=plain.detach())
    sock.settimeout(timeout)
    return sock


def create_guarded_connection(address, timeout=None, source_address=None, **kwargs):
    """socket.create_connection() to an address of the host that was checked just now, so a
    name that resolves elsewhere between the check and the connection (DNS rebinding) cannot
    slip through."""
    host, port = address
    if settings.WEBHOOKS_ALLOW_PRIVATE_ADDRESSES:
        return connect(address, timeout, source_address, **kwargs)
    error = None
    for ip in public_addresses(host, port):
        try:
            return connect((ip, port), timeout, source_address, **kwargs)
        except OSError as failure:
            error = failure
    raise error


def validate_public_url(url: str, field: str | None = None) -> None:
    """check_public_url() as a model or form validation error."""
    try:
        check_public_url(url)
    except ValueError as error:
        raise ValidationError({field: str(error)} if field else str(error)) from error


class NoRedirects(urllib.request.HTTPRedirectHandler):
    """A redirect is an answer, not an instruction: following it would skip the address check."""

    def redirect_request(self, *args, **kwargs):
        return None


class GuardedHTTPConnection(http.client.HTTPConnection):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._create_connection = create_guarded_connection


class GuardedHTTPSConnection(http.client.HTTPSConnection):
    # TLS still checks the certificate against the host name: only the socket is ours.
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._create_connection = create_guarded_connection


class GuardedHTTPHandler(urllib.request.HTTPHandler):
    def http_open(self, req):
        return self.do_open(GuardedHTTPConnection, req)


class GuardedHTTPSHandler(urllib.request.HTTPSHandler):
    def https_open(self, req):
        return self.do_open(GuardedHTTPSConnection, req, context=self._context)


def tls_context() -> ssl.SSLContext:
    """Python's default checks (certificate, host name), on sockets that keep the deadline."""
    context = ssl.create_default_context()
    context.set_alpn_protocols(["http/1.1"])
    context.sslsocket_class = DeadlineSSLSocket
    return context


# No proxy from the environment: a proxy would connect wherever the name resolves for it.
opener = urllib.request.build_opener(
    urllib.request.ProxyHandler({}),
    GuardedHTTPHandler,
    GuardedHTTPSHandler(context=tls_context()),
    NoRedirects,
)

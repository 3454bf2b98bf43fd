"""The forwarder's pooled keep-alive client (services/eventlog/kafka/forward.py): a forwarded
append goes out on a kept connection, never on one the owner closed, and a failure before an
answer raises what the forwarding loop (log.py `append`) catches to find the owner again."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import ClassVar

import pytest

from services.eventlog.kafka import forward
from services.eventlog.kafka.forward import ForwardClient, ForwardError


class _Owner(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive
    connections: ClassVar[set[int]] = set()
    close_after = False

    def do_POST(self) -> None:
        type(self).connections.add(id(self.connection))
        body = self.rfile.read(int(self.headers["content-length"]))
        answer = b'{"echo": ' + body + b"}"
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(answer)))
        if type(self).close_after:
            self.send_header("connection", "close")
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def owner() -> Iterator[tuple[str, ThreadingHTTPServer]]:
    _Owner.connections = set()
    _Owner.close_after = False
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Owner)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", server
    finally:
        server.shutdown()
        server.server_close()


def test_consecutive_forwards_share_one_kept_connection(
    owner: tuple[str, ThreadingHTTPServer],
) -> None:
    url, _ = owner
    client = ForwardClient()
    answers = [client.post(f"{url}/internal/log/append", b"%d" % i, {}, 5.0) for i in range(5)]
    assert answers == [(200, b'{"echo": %d}' % i) for i in range(5)]
    assert client.opened == 1
    assert len(_Owner.connections) == 1
    client.close()


def test_a_connection_the_owner_closes_is_not_reused(
    owner: tuple[str, ThreadingHTTPServer],
) -> None:
    url, _ = owner
    _Owner.close_after = True  # the owner answers "connection: close"
    client = ForwardClient()
    for _ in range(3):
        assert client.post(f"{url}/x", b"1", {}, 5.0) == (200, b'{"echo": 1}')
    assert client.opened == 3
    client.close()


def test_a_kept_connection_idle_past_the_owners_keep_alive_is_replaced(
    owner: tuple[str, ThreadingHTTPServer], monkeypatch: pytest.MonkeyPatch
) -> None:
    url, _ = owner
    client = ForwardClient()
    assert client.post(f"{url}/x", b"1", {}, 5.0)[0] == 200
    monkeypatch.setattr(forward, "IDLE_S", -1.0)  # every kept connection is now too old
    assert client.post(f"{url}/x", b"2", {}, 5.0)[0] == 200
    assert client.opened == 2
    client.close()


def test_an_owner_that_is_gone_raises_what_the_forwarding_loop_retries_on() -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Owner)
    port = server.server_address[1]
    server.server_close()  # nothing listens there now
    with pytest.raises(ForwardError):
        ForwardClient().post(f"http://127.0.0.1:{port}/x", b"1", {}, 2.0)

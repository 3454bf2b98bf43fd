"""The pooled keep-alive HTTP client that sends a forwarded append to its partition's owner
(`ARBITER_KAFKA_OWNERSHIP=group`, log.py `_forward`).

The standard library's `http.client` on kept-alive connections, one pool per owner URL: a
forward costs this process about 0.2 ms of CPU, where httpx cost about 1.3 ms (issue 27: with
three processes on two cores, two appends in three are forwarded, and the client's CPU was
taken from the requests; tests/bench/http_kafka_ownership.py). A connection is used by one
thread at a time and put back after its answer is read.

A kept connection the owner may have closed is never written to: one idle for longer than
`IDLE_S` (below uvicorn's 5 s keep-alive) is closed, and one whose socket is readable before
a request (the peer's close, or stray bytes) too. A request that fails once sent is not
resent here: the caller finds the owner again and resends the same batch (same event ids: a
batch that landed comes back as a duplicate)."""

from __future__ import annotations

import http.client
import select
import threading
import time
from urllib.parse import urlsplit

#: A kept connection idle for longer than this is closed rather than reused (uvicorn closes
#: an idle keep-alive connection after 5 s).
IDLE_S = 4.0
#: Connections kept per owner (more may be open at once; the extra ones are closed after use).
KEEP = 64


class NotSent(ConnectionError):
    """The owner could not be reached: nothing of the request was sent."""


#: What a failed forward raises (the connection refused, reset, timed out, a bad answer).
ForwardError = (OSError, http.client.HTTPException)


class ForwardClient:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._idle: dict[tuple[str, int], list[tuple[http.client.HTTPConnection, float]]] = {}
        self._closed = False
        #: Connections opened (the test counts reuse).
        self.opened = 0

    def post(
        self, url: str, body: bytes, headers: dict[str, str], timeout: float
    ) -> tuple[int, bytes]:
        """POST `body` to `url` on a kept connection: the answer's status and body. Raises one
        of `ForwardError` when no answer was read (the batch may have landed)."""
        status, content, _ = self.exchange(url, body, headers, timeout)
        return status, content

    def exchange(
        self, url: str, body: bytes, headers: dict[str, str], timeout: float
    ) -> tuple[int, bytes, dict[str, str]]:
        """`post`, with the answer's headers. `NotSent` when the owner could not be reached
        (nothing sent)."""
        parts = urlsplit(url)
        host, port = parts.hostname or "127.0.0.1", parts.port or 80
        path = parts.path + (f"?{parts.query}" if parts.query else "")
        conn = self._checkout((host, port), timeout)
        if conn.sock is None:
            try:
                conn.connect()
            except OSError as exc:
                conn.close()
                raise NotSent(f"{url}: {exc}") from exc
        try:
            if conn.sock is not None:
                conn.sock.settimeout(timeout)
            conn.request("POST", path, body, {**headers, "content-length": str(len(body))})
            answer = conn.getresponse()
            content = answer.read()
        except BaseException:
            conn.close()
            raise
        if answer.will_close:
            conn.close()
        else:
            self._checkin((host, port), conn)
        return answer.status, content, dict(answer.getheaders())

    def _checkout(self, key: tuple[str, int], timeout: float) -> http.client.HTTPConnection:
        now = time.monotonic()
        while True:
            with self._lock:
                idle = self._idle.get(key)
                item = idle.pop() if idle else None
            if item is None:
                break
            conn, since = item
            sock = conn.sock
            if now - since > IDLE_S or sock is None or select.select([sock], [], [], 0)[0]:
                conn.close()  # the owner may have closed it: never written to
                continue
            return conn
        self.opened += 1
        return http.client.HTTPConnection(key[0], key[1], timeout=timeout)

    def _checkin(self, key: tuple[str, int], conn: http.client.HTTPConnection) -> None:
        with self._lock:
            idle = self._idle.setdefault(key, [])
            if self._closed or len(idle) >= KEEP:
                keep = False
            else:
                idle.append((conn, time.monotonic()))
                keep = True
        if not keep:
            conn.close()

    def close(self) -> None:
        with self._lock:
            self._closed = True
            conns = [c for idle in self._idle.values() for c, _ in idle]
            self._idle.clear()
        for conn in conns:
            conn.close()

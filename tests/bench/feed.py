"""Feed benchmark (issue 5): end-to-end latency from an append through the command path
(`POST /tournaments/{id}/commands` on a real `arbiter serve` process on the embedded log) to the
delivery of the changed projection over SSE, p50/p99, at 100 and 1,000 events/s.

Run: `python -m tests.bench.feed [--seconds S] [--rates 100,1000]` from the repository root;
prints one JSON document. Loopback only, bounded in time (a few seconds per rate).

Also home of the helpers the feed tests use: `ApiServer` (a real server process on
127.0.0.1) and `SseReader` (an SSE client in a thread).
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from services.auth import TokenStore  # noqa: E402


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class ApiServer:
    """`arbiter serve` on the embedded log, in its own process, on 127.0.0.1."""

    def __init__(self, data_dir: Path, keepalive: float = 15.0) -> None:
        self.data_dir = Path(data_dir)
        self.env = dict(os.environ)
        self.env.update(
            ARBITER_LOG="sqlite",
            ARBITER_DB=str(self.data_dir / "events.sqlite3"),
            ARBITER_TOKENS_DB=str(self.data_dir / "tokens.sqlite3"),
            ARBITER_FEED_KEEPALIVE=str(keepalive),
        )
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen[bytes] | None = None

    def token(self, role: str, subject: str, tournaments: list[str] | None = None) -> str:
        store = TokenStore(self.env["ARBITER_TOKENS_DB"])
        try:
            return store.create(role, subject, tournaments)[0]
        finally:
            store.close()

    def start(self) -> ApiServer:
        code = "from services.cli.main import app; app()"
        argv = [sys.executable, "-c", code, "serve", "--host", "127.0.0.1"]
        self.proc = subprocess.Popen(
            [*argv, "--port", str(self.port)],
            cwd=REPO,
            env=self.env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        deadline = time.monotonic() + 60
        while True:
            if self.proc.poll() is not None:
                err = self.proc.stderr.read().decode() if self.proc.stderr else ""
                raise RuntimeError(f"arbiter serve exited: {err}")
            try:
                if httpx.get(f"{self.url}/health", timeout=1).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("arbiter serve did not start")
            time.sleep(0.1)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=5)

    def __enter__(self) -> ApiServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


@dataclass
class SseEvent:
    event: str
    id: str | None
    data: Any
    received: float  # time.perf_counter()


@dataclass
class SseReader:
    """Reads an SSE stream in a daemon thread into `events` (a queue); comments are counted."""

    url: str
    headers: dict[str, str] = field(default_factory=dict)
    events: queue.Queue[SseEvent] = field(default_factory=queue.Queue)
    comments: list[str] = field(default_factory=list)
    status: int | None = None
    error: BaseException | None = None
    connected: threading.Event = field(default_factory=threading.Event)

    def __post_init__(self) -> None:
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self) -> SseReader:
        self._thread.start()
        if not self.connected.wait(30):
            raise RuntimeError("SSE stream did not open")
        if self.error is not None:
            raise self.error
        return self

    def _run(self) -> None:
        try:
            timeout = httpx.Timeout(10.0, read=60.0)
            with (
                httpx.Client(timeout=timeout) as client,
                client.stream("GET", self.url, headers=self.headers) as resp,
            ):
                self.status = resp.status_code
                self.connected.set()
                if resp.status_code != 200:
                    return
                event, ident, data = "message", None, []
                for line in resp.iter_lines():
                    if self._stop.is_set():
                        return
                    if line == "":
                        if data:
                            body = json.loads("\n".join(data))
                            self.events.put(SseEvent(event, ident, body, time.perf_counter()))
                        event, ident, data = "message", None, []
                    elif line.startswith(":"):
                        self.comments.append(line[1:].strip())
                    else:
                        name, _, value = line.partition(":")
                        value = value[1:] if value.startswith(" ") else value
                        if name == "event":
                            event = value
                        elif name == "id":
                            ident = value
                        elif name == "data":
                            data.append(value)
        except BaseException as exc:  # surfaced to the test through `error`
            if not self._stop.is_set():
                self.error = exc
        finally:
            self.connected.set()

    def take(self, timeout: float) -> SseEvent:
        return self.events.get(timeout=timeout)

    def drain(self, quiet: float = 0.5) -> list[SseEvent]:
        """Every event until none arrives for `quiet` seconds."""
        out = []
        while True:
            try:
                out.append(self.events.get(timeout=quiet))
            except queue.Empty:
                return out

    def close(self) -> None:
        self._stop.set()

    def __enter__(self) -> SseReader:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def run_rate(
    server: ApiServer, token: str, rate: int, seconds: float, streams: int, batch: int
) -> dict:
    """Append `rate` events/s for `seconds`: PlayerRegistered commands, `batch` per POST (one
    `CommandService.handle` each), spread over `streams` tournaments, each read by its own SSE
    connection. The latency of an event is from just before its POST to the arrival of the
    first standings message with as_of_seq ≥ its seq."""
    headers = {"Authorization": f"Bearer {token}"}
    run = uuid.uuid4().hex[:6]
    tids = [f"bench-{run}-{i}" for i in range(streams)]
    with httpx.Client(base_url=server.url, headers=headers, timeout=30) as client:
        for tid in tids:
            body = {"type": "TournamentCreated", "payload": {"name": tid, "format": "swiss"}}
            client.post(f"/tournaments/{tid}/commands", json=body).raise_for_status()
    readers = [
        SseReader(f"{server.url}/tournaments/{tid}/stream?last_event_id=1", headers).start()
        for tid in tids
    ]
    sent: dict[str, dict[int, float]] = {tid: {} for tid in tids}
    posts = int(rate * seconds) // batch
    post_rate = rate / batch
    senders = 4
    errors: list[str] = []
    lock = threading.Lock()

    def send(worker: int) -> None:
        with httpx.Client(base_url=server.url, headers=headers, timeout=30) as client:
            start = time.perf_counter()
            for i in range(worker, posts, senders):
                due = start + i / post_rate
                now = time.perf_counter()
                if due > now:
                    time.sleep(due - now)
                tid = tids[i % streams]
                commands = [
                    {
                        "type": "PlayerRegistered",
                        "payload": {"player_id": f"p{i}-{j}", "name": f"Player {i}-{j}"},
                    }
                    for j in range(batch)
                ]
                t0 = time.perf_counter()
                r = client.post(f"/tournaments/{tid}/commands", json={"commands": commands})
                if r.status_code != 201:
                    errors.append(r.text)
                    continue
                with lock:
                    for env in r.json()["events"]:
                        sent[tid][env["seq"]] = t0

    began = time.perf_counter()
    workers = [threading.Thread(target=send, args=(w,)) for w in range(senders)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    send_seconds = time.perf_counter() - began
    latencies: list[float] = []
    missing = 0
    for tid, reader in zip(tids, readers, strict=True):
        delivered: list[tuple[int, float]] = []  # (as_of_seq, received), in arrival order
        last = max(sent[tid], default=1)
        deadline = time.monotonic() + 10
        while (not delivered or delivered[-1][0] < last) and time.monotonic() < deadline:
            try:
                ev = reader.take(timeout=0.5)
            except queue.Empty:
                continue
            if ev.event == "standings":
                delivered.append((ev.data["as_of_seq"], ev.received))
        reader.close()
        # Each appended seq is delivered by the first standings message at or after it.
        k = 0
        for seq, t0 in sorted(sent[tid].items()):
            while k < len(delivered) and delivered[k][0] < seq:
                k += 1
            if k == len(delivered):
                missing += 1
                continue
            latencies.append(delivered[k][1] - t0)
    ms = [x * 1000 for x in latencies]
    return {
        "target_events_per_s": rate,
        "events_per_post": batch,
        "achieved_events_per_s": round(len(ms) / send_seconds, 1),
        "events": len(ms),
        "tournaments": streams,
        "errors": len(errors),
        "undelivered": missing,
        "p50_ms": round(statistics.median(ms), 2) if ms else None,
        "p99_ms": round(_percentile(ms, 0.99), 2) if ms else None,
        "max_ms": round(max(ms), 2) if ms else None,
    }


def main(argv: list[str] | None = None, emit: bool = True) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--rates", default="100,1000")
    parser.add_argument("--tournaments", type=int, default=10)
    parser.add_argument(
        "--batch", type=int, default=0, help="events per POST (default: 1 up to 100/s, else 10)"
    )
    args = parser.parse_args(argv)
    out: dict[str, Any] = {"backend": "sqlite", "path": "POST commands -> SSE", "runs": []}
    with tempfile.TemporaryDirectory(prefix="arbiter-feed-bench-") as tmp:
        server = ApiServer(Path(tmp))
        token = server.token("admin", "bench")
        with server:
            for rate in (int(r) for r in args.rates.split(",")):
                batch = args.batch or (1 if rate <= 100 else 10)
                run = run_rate(server, token, rate, args.seconds, args.tournaments, batch)
                out["runs"].append(run)
    out["aim"] = "p99 <= 250 ms at 1000 events/s"
    if emit:
        print(json.dumps(out, indent=2))
    return out


if __name__ == "__main__":
    main(sys.argv[1:])

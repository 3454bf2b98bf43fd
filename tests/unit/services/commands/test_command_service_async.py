"""`CommandService.handle_async`, the API's command path (issue 27): decisions on the event
loop while the tournament has batches in flight, the commit awaited without a thread
(`Pending.when_done`), and every guarantee of `handle` kept: one gapless chain, no command
lost or appended twice, a refusal on the speculative state decided again on the committed
one, and a request that goes away leaves nothing waiting.

The log is a SQLite log behind a committer thread that takes submitted batches in order, as
the Kafka writer does (services/eventlog/kafka/writer.py): `after` must be the stream's last
event and `expected_seq` its last seq, else `AppendConflict`."""

from __future__ import annotations

import asyncio
import queue
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any
from uuid import UUID

import orjson
import pytest
from builders import ADMIN, batch, created
from tests_support import assert_chain

from events_schema import CommandBatch
from events_schema import events as ev
from services.commands import service as service_mod
from services.commands.service import CommandRejected, CommandService
from services.eventlog.base import AppendConflict, AppendResult, NewEvent
from services.eventlog.kafka.partition import AppendRequest
from services.eventlog.kafka.writer import Pending
from services.eventlog.sqlite import SQLiteEventLog

TID = "t1"


class PipelinedLog:
    """A SQLite log with the Kafka writer's `submit`: answered later by a committer thread.
    `gate`: the committer waits for it before each batch (a commit under way)."""

    submit_blocks = False

    def __init__(self, inner: SQLiteEventLog) -> None:
        self.inner = inner
        self.queue: queue.Queue[AppendRequest | None] = queue.Queue()
        self.gate = threading.Event()
        self.gate.set()
        self.committed = 0
        self.thread = threading.Thread(target=self._commit, daemon=True)
        self.thread.start()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def submit(
        self,
        tournament_id: str,
        events: Sequence[NewEvent],
        expected_seq: int | None = None,
        after: UUID | None = None,
    ) -> Callable[[], AppendResult]:
        now = time.monotonic()
        req = AppendRequest(tournament_id, list(events), expected_seq, now + 10, now)
        req.after = after
        self.queue.put(req)

        def wait() -> AppendResult:
            assert req.done.wait(10), "never answered"
            return req.outcome()

        return Pending(wait, req.when_done, 10.0)

    def _commit(self) -> None:
        while (req := self.queue.get()) is not None:
            self.gate.wait(10)
            time.sleep(0.002)  # a commit takes a while: the next batches pile up behind
            try:
                stored = list(self.inner.read(req.tournament_id))
                last = len(stored)
                if req.after is not None and (not stored or stored[-1].event_id != req.after):
                    raise AppendConflict(req.tournament_id, last, last)
                result = self.inner.append(req.tournament_id, req.events, req.expected_seq)
                self.committed += 1
                req.finish(result=result)
            except Exception as exc:
                req.finish(error=exc)

    def close(self) -> None:
        self.queue.put(None)
        self.thread.join(5)
        self.inner.close()


@pytest.fixture
def log(tmp_path: Path) -> Iterator[PipelinedLog]:
    pl = PipelinedLog(SQLiteEventLog(tmp_path / "events.sqlite3"))
    yield pl
    pl.close()


def _ruling(rid: str) -> ev.RulingIssued:
    return ev.RulingIssued(ruling_id=rid, by="chief", subject="bench", text="a ruling")


def _proposed(b: Any) -> list[Any]:
    """The events a batch proposes, as the API's parse hands them in."""
    return [service_mod.parse_command(c, f"commands[{i}]") for i, c in enumerate(b.commands)]


async def _post(svc: CommandService, b: Any) -> AppendResult:
    return await svc.handle_async(TID, b, ADMIN, _proposed(b))


def test_concurrent_commands_decided_on_the_loop_land_once_each_in_one_chain(
    log: PipelinedLog, monkeypatch: pytest.MonkeyPatch
) -> None:
    svc = CommandService(log)  # type: ignore[arg-type]
    on_loop: list[bool] = []
    real = svc._step_on_loop

    def spy(*args: Any) -> Any:
        out = real(*args)
        on_loop.append(out is not None)
        return out

    monkeypatch.setattr(svc, "_step_on_loop", spy)

    async def client(i: int) -> AppendResult:
        await asyncio.sleep(i * 0.002)  # arriving while others are in flight
        return await _post(svc, batch(_ruling(f"r{i}")))

    async def run() -> list[AppendResult]:
        await _post(svc, batch(created()))
        return await asyncio.gather(*(client(i) for i in range(40)))

    results = asyncio.run(run())
    assert not any(r.duplicate for r in results)
    assert sorted(r.last_seq for r in results) == list(range(2, 42))
    stored = list(log.inner.read(TID))
    assert_chain(stored)
    assert sorted(e.payload["ruling_id"] for e in stored[1:]) == sorted(f"r{i}" for i in range(40))
    assert any(on_loop), "no decision was made on the loop while others were in flight"
    assert not svc._entry(TID).inflight


def test_a_command_refused_on_the_speculative_state_is_refused_once_its_peer_lands(
    log: PipelinedLog,
) -> None:
    """Given ruling r1 in flight, when r1 is posted again, then the first lands and the second
    is refused by the decider (a ruling id once), after the first is committed."""
    svc = CommandService(log)  # type: ignore[arg-type]

    async def run() -> list[AppendResult | BaseException]:
        await _post(svc, batch(created()))
        await _post(svc, batch(_ruling("r0")))
        log.gate.clear()  # the next commit waits: r1 stays in flight
        first = asyncio.ensure_future(_post(svc, batch(_ruling("r1"))))
        await asyncio.sleep(0.05)
        second = asyncio.ensure_future(_post(svc, batch(_ruling("r1"))))
        await asyncio.sleep(0.05)
        log.gate.set()
        return await asyncio.gather(first, second, return_exceptions=True)

    first, second = asyncio.run(run())
    assert isinstance(first, AppendResult) and first.last_seq == 3
    assert isinstance(second, CommandRejected)
    assert [e.payload.get("ruling_id") for e in log.inner.read(TID)][1:] == ["r0", "r1"]


def test_a_request_that_goes_away_mid_commit_leaves_its_tournament_free(
    log: PipelinedLog,
) -> None:
    """Given a command whose commit is under way, when its request is cancelled, then its
    append still lands and the tournament's next command is decided and appended."""
    svc = CommandService(log)  # type: ignore[arg-type]

    async def run() -> AppendResult:
        await _post(svc, batch(created()))
        log.gate.clear()
        gone = asyncio.ensure_future(_post(svc, batch(_ruling("gone"))))
        await asyncio.sleep(0.05)
        gone.cancel()
        with pytest.raises(asyncio.CancelledError):
            await gone
        log.gate.set()
        return await asyncio.wait_for(_post(svc, batch(_ruling("next"))), 10)

    result = asyncio.run(run())
    stored = list(log.inner.read(TID))
    assert_chain(stored)
    assert [e.payload.get("ruling_id") for e in stored[1:]] == ["gone", "next"]
    assert result.last_seq == 3
    deadline = time.monotonic() + 5
    while svc._entry(TID).inflight and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not svc._entry(TID).inflight


def test_handle_and_handle_async_give_the_same_refusal_with_a_stale_expected_seq(
    log: PipelinedLog,
) -> None:
    svc = CommandService(log)  # type: ignore[arg-type]
    svc.handle(TID, batch(created()), ADMIN)
    with pytest.raises(AppendConflict):
        svc.handle(TID, batch(_ruling("a"), expected_seq=7), ADMIN)
    with pytest.raises(AppendConflict):
        asyncio.run(_post(svc, batch(_ruling("a"), expected_seq=7)))
    assert log.inner.last_seq(TID) == 1


def test_a_forwarded_command_with_minted_ids_resent_with_them_is_found_not_appended_twice(
    log: PipelinedLog,
) -> None:
    """Given a command forwarded with the ids its sender minted (services/api/app.py
    `mint_ids`: the owner died before it answered), when the sender resends it with those
    ids written into its commands, then the stored events come back as a duplicate and the
    stream holds the command once."""
    from services.api.app import mint_ids, with_ids

    svc = CommandService(log)  # type: ignore[arg-type]
    raw = batch(_ruling("r1"), _ruling("r2")).model_dump_json(exclude_none=True).encode()
    minted = mint_ids(raw)
    assert minted is not None and len(minted) == 2

    async def run() -> tuple[AppendResult, AppendResult]:
        await _post(svc, batch(created()))
        sent = CommandBatch.model_validate_json(raw)
        first = await svc.handle_async(TID, sent, ADMIN, _proposed(sent), minted)
        resent = CommandBatch.model_validate_json(with_ids(raw, minted))
        again = await svc.handle_async(TID, resent, ADMIN, _proposed(resent))
        return first, again

    first, again = asyncio.run(run())
    assert [e.event_id for e in first.envelopes] == minted
    assert again.duplicate and [e.event_id for e in again.envelopes] == minted
    stored = list(log.inner.read(TID))
    assert [e.payload.get("ruling_id") for e in stored[1:]] == ["r1", "r2"]
    assert mint_ids(b"not json") is None and mint_ids(b'{"commands": 3}') is None


def test_minted_ids_go_into_a_single_command_body_and_a_batch_alike() -> None:
    from services.api.app import mint_ids, with_ids

    one = b'{"type": "RulingIssued", "payload": {}}'
    minted = mint_ids(one)
    assert minted is not None and len(minted) == 1
    assert orjson.loads(with_ids(one, minted))["event_id"] == str(minted[0])
    given = b'{"commands": [{"type": "A", "event_id": "x"}, {"type": "B"}]}'
    minted = mint_ids(given)
    assert minted is not None and len(minted) == 1
    assert [c["event_id"] for c in orjson.loads(with_ids(given, minted))["commands"]] == [
        "x",
        str(minted[0]),
    ]


def test_a_resend_found_stored_is_answered_as_the_clients_one_append() -> None:
    """Given a command forwarded with minted ids whose owner died after storing it, when the
    resend comes back as a duplicate, then the client (who sent it once, without ids) gets
    201 with `duplicate` false; without minted ids a duplicate stays a duplicate."""
    from services.api.app import first_send

    dup = orjson.dumps({"duplicate": True, "events": [], "last_seq": 3})
    resp = first_send([UUID(int=1)], 200, dup, {})
    assert resp.status_code == 201 and orjson.loads(resp.body)["duplicate"] is False
    assert first_send([], 200, dup, {}).status_code == 200
    created_ = orjson.dumps({"duplicate": False, "events": [], "last_seq": 3})
    assert first_send([UUID(int=1)], 201, created_, {}).body == created_

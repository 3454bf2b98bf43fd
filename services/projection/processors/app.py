"""The Faust app of one processor, and `run()` (what `arbiter processor NAME` calls).

`faust_app`, `events_topic`, `add_watchdog`, `ensure_topics` and `run_worker` are shared with
the adjudicator (services/projection/processors/adjudicator.py)."""

from __future__ import annotations

import asyncio
import logging
import os
import sys
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import faust
from kafka.errors import KafkaError

from services.projection.processors import transport
from services.projection.processors.config import SNAPSHOT_MAX_BYTES, ProcessorConfig
from services.projection.processors.core import ProcessorCore, Superseded
from services.projection.processors.folding import FoldingCore
from services.projection.processors.topic_reader import TopicReader
from services.projection.projector import Message

log = logging.getLogger("arbiter.processor")

#: A checkpoint whose records are not acknowledged in this time is abandoned (retried at the
#: next one): it must never hold the status timer, and so the watchdog, for long.
CHECKPOINT_SEND_TIMEOUT_S = 60.0


def faust_app(cfg: ProcessorConfig) -> faust.App:
    """A processor's Faust app with the one-node settings of the package docstring."""
    transport.register()
    web: dict[str, Any] = (
        {"web_enabled": False}
        if cfg.web_port is None
        else {"web_enabled": True, "web_bind": "127.0.0.1", "web_port": cfg.web_port}
    )
    return faust.App(
        cfg.group_id,  # the consumer group
        broker=";".join(f"{transport.SCHEME}://{h}" for h in cfg.bootstrap.split(",")),
        store="memory://",
        datadir=str(cfg.workdir / "faust"),
        autodiscover=False,
        topic_partitions=1,  # no internal topics are used
        topic_replication_factor=1,
        table_standby_replicas=0,
        processing_guarantee="at_least_once",
        consumer_auto_offset_reset="earliest",
        broker_commit_interval=1.0,
        broker_commit_every=10_000,
        broker_session_timeout=cfg.session_timeout,
        broker_heartbeat_interval=max(1.0, cfg.session_timeout / 5),
        broker_max_poll_records=cfg.batch,
        stream_buffer_maxsize=max(4096, 2 * cfg.batch),
        producer_acks=-1,
        producer_linger=0.005,
        producer_max_request_size=SNAPSHOT_MAX_BYTES + 1024 * 1024,
        **web,
    )


def events_topic(app: faust.App, cfg: ProcessorConfig) -> Any:
    """The events topic as raw bytes (key: the tournament id)."""
    return app.topic(
        cfg.events_topic,
        key_type=bytes,
        value_type=bytes,
        key_serializer="raw",
        value_serializer="raw",
    )


def add_watchdog(app: faust.App, cfg: ProcessorConfig, core: TopicReader) -> None:
    """Every 5 s: when the events topic grew and nothing was folded for `stall_after` seconds
    (a Faust consumer that never resumes after a broker restart, faust #175/#640), the
    process re-executes itself and rebuilds as on any start."""

    @app.timer(interval=5.0)  # type: ignore[untyped-decorator]
    async def watchdog() -> None:
        if cfg.stall_after <= 0 or core.stats.get("restarting"):
            return
        if core.stats.get("assigning"):  # a restore is folding (in a thread): busy
            return
        loop = asyncio.get_running_loop()
        scope = core.watched()  # the partitions this worker owns (None: all)
        try:
            end_total = await loop.run_in_executor(None, core.events_end_total, scope)
        except KafkaError as exc:  # the broker is away; its return is what we wait for
            log.warning("watchdog: cannot read the events topic's end (%s)", exc)
            return
        if core.stalled(end_total, time.time(), scope):
            core.stats["restarting"] = True
            core.write_status()
            log.error(
                "no batch folded for %.0f s while %s grew: restarting this process "
                "(it rebuilds from the events topic on start)",
                cfg.stall_after,
                cfg.events_topic,
            )
            restart_process()


def fold_agent(
    app: faust.App,
    events: Any,
    cfg: ProcessorConfig,
    core: FoldingCore[Any],
    lock: asyncio.Lock,
    sink: Callable[[Any], Awaitable[None]],
    name: str,
) -> Callable[..., Awaitable[None]]:
    """What every processor runs: decode → fold → `sink` once per fetch, under `lock`, and
    the recovery of held tournaments it triggers; returns `recover` for the processor's
    timer. `name` is the agent's function name.

    The batches come from the transport's batch path (`app.arbiter_batch_handler`,
    transport.py): one call per `getmany`, with each partition's records, no per-record
    Faust event, task or ack. The agent stays subscribed to the events topic (that is what
    makes Faust's consumer subscribe to it) and, should records ever reach it through
    Faust's own per-record path, folds them the same way per `take_events` batch."""

    async def recover(touched_held: bool = False) -> None:
        tids = core.recovery_due(touched_held)
        if not tids:
            return
        loop = asyncio.get_running_loop()
        envs = await loop.run_in_executor(None, core.read_tournaments, tids)
        async with lock:
            await sink(core.apply_recovered(tids, envs))

    fold_partitions = getattr(core, "fold_partitions", None)

    async def on_batch(batch: Mapping[Any, list[Any]]) -> None:
        if core.stats.get("first_batch_at") is None:
            core.stats["first_batch_at"] = time.time()
        held_before = len(core.held)
        async with lock:
            if fold_partitions is not None:
                msgs = fold_partitions({tp.partition: recs for tp, recs in batch.items()})
            else:
                msgs = core.fold([(r.key, r.value) for recs in batch.values() for r in recs])
            await sink(msgs)
        if core.held:
            await recover(touched_held=len(core.held) > held_before)

    app.arbiter_batch_handler = on_batch  # type: ignore[attr-defined]

    async def agent(stream: faust.StreamT[bytes]) -> None:
        core.stats["agent_started_at"] = core.stats.get("agent_started_at") or time.time()
        # take_events (not take): the record's key names the tournament of a record whose
        # bytes cannot be decoded (a poison record holds its own tournament only).
        batches = stream.take_events(cfg.batch, within=cfg.within)  # type: ignore[attr-defined]
        async for events in batches:
            held_before = len(core.held)
            records = [(e.message.key, e.message.value) for e in events]
            async with lock:
                await sink(core.fold(records))
            if core.held:
                await recover(touched_held=len(core.held) > held_before)

    agent.__name__ = name
    agent.__qualname__ = f"build_app.<locals>.{name}"
    app.agent(events, concurrency=1)(agent)
    return recover


class Revoked(Exception):
    """A checkpoint's partition was revoked while its records were being sent."""


def build_app(cfg: ProcessorConfig, core: ProcessorCore) -> faust.App:
    app = faust_app(cfg)
    events = events_topic(app, cfg)
    out = app.topic(cfg.out_topic, key_serializer="raw", value_serializer="raw")
    snaps = app.topic(cfg.snapshot_topic, key_serializer="raw", value_serializer="raw")
    lock = asyncio.Lock()  # compute+send as one step: messages leave in fold order

    async def publish(msgs: list[Message]) -> None:
        for m in msgs:
            await out.send(key=m.tournament_id.encode(), value=m.body)

    recover = fold_agent(app, events, cfg, core, lock, publish, "fold")

    restoring: set[asyncio.Future[None]] = set()
    # Only the partitions an assignment gave this worker, once restored, are folded: until
    # the first one is, a batch (at the group's committed offsets) folds nothing.
    core.scoped = True

    async def on_revoked(_sender: Any, revoked: set[Any], **_kw: Any) -> None:
        """A rebalance begins (eager: every partition is revoked, then the new assignment
        comes): a restore under way stops (`Superseded`), a checkpoint under way sends
        nothing more, none starts until the assignment, and what was sent is flushed before
        this worker rejoins, so a partition's next owner reads it."""
        core.epoch += 1  # first, without the lock: the restore thread watches it
        core.suspended = True
        async with lock:
            core.epoch += 1
            core.suspended = True
        await app.producer.flush()
        if not core.stats.get("assigning"):
            core.write_status()

    async def restore(parts: set[int], generation: int, epoch: int) -> None:
        """Restore the assignment's new partitions (`ProcessorCore.assign`, in a thread, under
        the fold lock) and publish what differs. Outside the rebalance listener: aiokafka
        sends no heartbeat while its listener runs, and a restore can take longer than the
        session timeout. Batches wait for the lock meanwhile, or skip the partitions not
        restored yet (their restore reads past those records)."""
        loop = asyncio.get_running_loop()
        async with lock:
            if core.epoch != epoch:
                return  # another rebalance began: its assignment restores
            core.stats["assigning"] = True  # the timers leave the core alone meanwhile
            try:
                msgs = await loop.run_in_executor(None, core.assign, parts, generation, epoch)
            except Superseded:
                log.info("restore of %s abandoned: a rebalance began", sorted(parts))
                return
            except Exception:
                log.exception("restoring partitions %s failed: restarting", sorted(parts))
                core.stats["restarting"] = True
                core.write_status()
                restart_process()
                raise
            finally:
                core.stats["assigning"] = False
            await publish(msgs)
            await app.producer.flush()
        core.write_status()

    async def on_assigned(_sender: Any, assigned: set[Any], **_kw: Any) -> None:
        """The new assignment: forget the partitions not in it now; restore the new ones
        (from their snapshots, folded to their end) and publish what differs in a task. A
        partition kept across one rebalance (generation + 1) keeps its state: nobody else
        owned it in between; after a missed generation (this worker was out of the group)
        every partition is restored afresh."""
        parts = {tp.partition for tp in assigned if tp.topic == cfg.events_topic}
        generation = int(app.consumer_generation_id or 0)
        async with lock:
            keep = parts if generation == core.generation + 1 else set()
            core.revoke(core.owned - keep)
            core.generation = generation
            core.epoch += 1
            epoch = core.epoch
        task = asyncio.ensure_future(restore(parts, generation, epoch))
        restoring.add(task)
        task.add_done_callback(restoring.discard)

    # Faust's rebalance signals (app._on_partitions_revoked / _on_partitions_assigned send
    # them inside the consumer's rebalance listener, before the group's next step).
    app.on_partitions_revoked.connect(on_revoked)  # type: ignore[arg-type]
    app.on_partitions_assigned.connect(on_assigned)  # type: ignore[arg-type]

    async def send_all(records: list[tuple[bytes, bytes]], epoch: int) -> None:
        futs = []
        for k, v in records:
            if core.epoch != epoch:  # revoked meanwhile: not this worker's to write
                raise Revoked
            futs.append(await snaps.send(key=k, value=v))
        await asyncio.gather(*futs)

    async def checkpoint() -> None:
        """Snapshot the changed tournaments and their partitions' manifests (snapshots.py),
        a partition at a time: pickled under the fold lock (in a thread), sent after it,
        the partition's manifest once its tournaments' records are acknowledged."""
        loop = asyncio.get_running_loop()
        core.stats["checkpointing"] = True
        try:
            for p in core.checkpoint_partitions():
                async with lock:
                    if p not in core.pos or core.suspended:
                        return  # revoked since the checkpoint began
                    epoch = core.epoch
                    tours, manifests, written = await loop.run_in_executor(
                        None, core.checkpoint, [p]
                    )
                try:
                    for records in (tours, manifests):
                        await asyncio.wait_for(send_all(records, epoch), CHECKPOINT_SEND_TIMEOUT_S)
                except Revoked:
                    core.checkpoint_failed(written)
                    return
                except Exception as exc:  # the broker is away: the next checkpoint retries
                    core.checkpoint_failed(written)
                    log.warning("checkpoint not written (%s); retrying later", exc)
                    return
                size = sum(len(v) for _, v in (*tours, *manifests))
                core.checkpoint_done(manifests, written, size)
            core.stats["snapshots"]["checkpoints"] += 1
        finally:
            core.stats["checkpointing"] = False
            core.stats["checkpoint_ended_at"] = time.time()

    @app.timer(interval=0.5)  # type: ignore[untyped-decorator]
    async def status() -> None:
        if core.stats.get("assigning"):
            return
        core.write_status()
        await recover()
        if core.checkpoint_due(time.monotonic()):
            await checkpoint()

    add_watchdog(app, cfg, core)
    return app


#: Restarts after the worker died on a failure (e.g. it could not reach a broker that was
#: restarting); counted across the exec'd processes, so a permanent fault ends the process.
MAX_FAILURE_RESTARTS = 20


def restart_process() -> None:
    """Replace this process with a fresh one running the same `arbiter` command line (same
    pid, environment and working directory)."""
    logging.shutdown()
    code = "from services.cli.main import app; app()"
    os.execv(sys.executable, [sys.executable, "-c", code, *sys.argv[1:]])


def setup_logging(cfg: ProcessorConfig, loglevel: str) -> None:
    logging.basicConfig(
        level=loglevel.upper(),
        format=f"%(asctime)s %(levelname)s [{cfg.projection}] %(name)s: %(message)s",
    )


def ensure_topics(core: TopicReader) -> None:
    """`core.ensure_topics()`, retried for a minute: a broker that has just started can refuse
    topic creation for a moment ("all brokers are currently fenced"); Faust would then die
    creating its own assignor topic."""
    deadline = time.monotonic() + 60
    while True:
        try:
            core.ensure_topics()
            return
        except KafkaError as exc:
            if time.monotonic() > deadline:
                raise
            log.warning("broker not ready (%s); retrying", exc)
            time.sleep(1.0)


def run_worker(app: faust.App, loglevel: str) -> None:
    """Run the Faust worker until SIGTERM/SIGINT."""
    worker = faust.Worker(app, loglevel=loglevel, quiet=True, redirect_stdouts=False)
    try:
        worker.execute_from_commandline()
    except SystemExit as exc:
        # The worker gave up (Faust exits when it cannot bootstrap, e.g. while the broker
        # restarts). The rebuild on start makes a restart safe: try again, a bounded number
        # of times. A stop by signal exits with 0 and is not restarted.
        failures = int(os.environ.get("ARBITER_PROCESSOR_FAILURES", "0"))
        if exc.code not in (None, 0) and failures < MAX_FAILURE_RESTARTS:
            log.error("worker exited with %s; restarting in 2 s", exc.code)
            os.environ["ARBITER_PROCESSOR_FAILURES"] = str(failures + 1)
            time.sleep(2.0)
            restart_process()
        raise


def run(cfg: ProcessorConfig, loglevel: str = "info") -> None:
    """Create topics, then run the Faust worker until SIGTERM/SIGINT; each assignment of
    the group restores (or rebuilds) the partitions it gives this worker (`build_app`)."""
    setup_logging(cfg, loglevel)
    core = ProcessorCore(cfg)
    ensure_topics(core)
    core.watch_from_here()
    core.write_status()
    run_worker(build_app(cfg, core), loglevel)

"""The adjudicator processor: games ended by rule for arenas that write their moves straight to
the events topic (issue 15).

    arbiter processor adjudicator [--tablebases DIR] [--bootstrap H:P] [--topic T] ...

The command path ends a game by rule itself when its tournament says `adjudication="rules"`
(`projections/tournament/endings.py`: the move and its `GameEnded` in one batch). It cannot when
the moves do not come through it (an arena that appends `MovePlayed` to the log directly, in a
tournament with adjudication "manual"), nor for a tablebase ending (a pure decider opens no
files). This processor covers both, the same way for every tournament:

    events topic (keyed by tournament, read_committed)
      -> stream.take_events(BATCH, within=...)
      -> decode -> evolve (the decider's fold, `projections/tournament/evolve.py`), and per
         chess game an `Adjudicator` (`projections/endings`) with the `Prober` of
         `--tablebases` (services/projection/tablebases.py) fed the game's moves in force
      -> emit: for each game the rules ended that has no result in force, a `GameEnded`
         (result, termination, `rule` = the article, detail "ply N: ...": exactly what the
         command path appends) sent THROUGH THE COMMAND PATH (`CommandService.handle` on the
         Kafka log, actor `processor:adjudicator`, role system)

What it acts on: in a tournament with adjudication "manual" (or a v1 tournament) every ending
the preset's rules give (`projections/endings/rules.py`: mate, stalemate, repetition, fifty
moves, the TCEC draw rule, a flag fall, an illegal move where it loses, a tablebase
adjudication when tables are configured); in one with adjudication "rules" only the tablebase
endings (the command path has appended the others already, and a result it ended and a person
retracted is by hand from then on). Go games, and a game whose start position is already over,
are left to the arbiter, as on the command path.

Why GameEnded and not AdjudicationIssued: the decider turns an `AdjudicationIssued` into a
`GameEnded` with termination "adjudication", losing the termination the rule gives (checkmate,
tcec_draw_rule, tablebase); the command path's own automatic endings are `GameEnded` with
`rule`, and these are the same events, so corrections, PGN export and the projections read them
alike.

Idempotency: the command's `event_id` is uuid5(namespace = the event id of the move that ended
the game, name = "adjudicator"). A redelivered or refolded move derives the same id, and the
command path returns the stored event for it (a duplicate, nothing appended). Before sending,
the fold already skips a game that has a result in force, and an ending that any result met
while it stood (a `GameEnded` by the command path or by a person, a correction) is never sent
again, even when that result is retracted later: the retraction makes the game's ending a
matter for the arbiter, as `evolve` reads it for the command path. The decider checks
everything again on the state it reads (`game.already_ended` when someone ended it first);
a refusal is logged, counted (`refused` in status.json) and skipped, never a crash. An
unavailable log keeps the ending pending and it is sent again (every 2 s).

Poison events: a record that cannot be decoded is folded as `Unreadable` (`Recorded.of`): its
tournament is held (nothing is sent for it, the decider would refuse it:
`stream.unreadable_event`) until an admin retracts it; then its pending endings are sent.
Other tournaments go on. A bug in this code for one tournament holds that tournament only.

Restart (nothing on disk, as the projection processors): before the worker joins its group
the processor folds every partition from offset 0 to its current end and sends what is pending
(an ending lost in a kill -9 between fold and send, or the moves appended while it was down);
the Faust consumer then resumes at the group's committed offsets, and what it redelivers up to
the rebuild point is ignored by seq. Gaps, the stall watchdog and the worker's restarts are as
in the projection processors (services/projection/processors/__init__.py). status.json in
`<data-dir>/adjudicator/`.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
import uuid
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Literal
from uuid import UUID

import faust

from events_schema import Actor, Command, CommandBatch, Envelope, Recorded
from events_schema import events as ev
from events_schema.envelope import UnreadableEnvelope
from events_schema.limits import LimitExceeded
from events_schema.registry import encode_payload
from projections.endings.adjudicator import Adjudicator, MoveFacts
from projections.endings.ending import Ending
from projections.endings.tablebase import Prober
from projections.tournament import TournamentState, evolve
from projections.tournament.endings import adjudicator_at_start, game_ended
from projections.tournament.state import GameState
from services.commands.service import CommandRejected, CommandService
from services.eventlog.base import EventIdConflict, EventLog, EventLogUnavailable
from services.eventlog.kafka import decode_record
from services.projection.processors.app import (
    add_watchdog,
    ensure_topics,
    events_topic,
    faust_app,
    fold_agent,
    run_worker,
    setup_logging,
)
from services.projection.processors.config import ADJUDICATOR, ProcessorConfig
from services.projection.processors.folding import FoldingCore
from services.projection.projector import GapDetected
from services.projection.tablebases import open_prober

log = logging.getLogger("arbiter.processor.adjudicator")

ACTOR = Actor(id="processor:adjudicator", role="system")
#: Pending endings whose send failed on an unavailable log are tried again this often.
RETRY_S = 2.0
#: Refusals kept in status.json (the latest).
KEEP_REFUSALS = 50


def command_id(move_event_id: UUID) -> UUID:
    """The event id of the ending the move `move_event_id` gave: fixed by the move, so a
    redelivery or a refold derives the same command (the command path's idempotency)."""
    return uuid.uuid5(move_event_id, ADJUDICATOR)


@dataclass
class _Watch:
    """One chess game's adjudicator, fed the game's moves in force (`GameState.facts`)."""

    game: GameState  # the state's object: a game scheduled again is a new one
    start_fen: str | None
    adjudicator: Adjudicator | None
    folded: int = 0  # facts pushed (or skipped once ended)
    ending: Ending | None = None
    ending_move: UUID | None = None  # the MovePlayed whose push gave `ending`


@dataclass
class _Stream:
    state: TournamentState = field(default_factory=TournamentState)
    watches: dict[str, _Watch] = field(default_factory=dict)
    positioned: set[UUID] = field(default_factory=set)  # unreadable records placed at seq+1


@dataclass(frozen=True)
class Candidate:
    """An ending to send: the game `game_id` of `tournament_id`, ended by the move
    `move_id`."""

    tournament_id: str
    game_id: str
    move_id: UUID
    ending: Ending

    @property
    def command_id(self) -> UUID:
        return command_id(self.move_id)

    def command(self) -> Command:
        payload: dict[str, Any] = encode_payload(game_ended(self.game_id, self.ending))
        return Command(
            type="GameEnded",
            payload=payload,
            event_id=self.command_id,
            causation_id=self.move_id,
        )


Outcome = Literal["appended", "already_stored", "refused", "retry"]


@dataclass(frozen=True)
class Sent:
    candidate: Candidate
    outcome: Outcome
    detail: str = ""


def kafka_log_factory(cfg: ProcessorConfig) -> Callable[[], EventLog]:
    def make() -> EventLog:
        from services.eventlog.kafka import KafkaEventLog

        group_commit: dict[str, Any] = {
            "group_commit_ms": cfg.group_commit_ms,
            "group_max_events": cfg.group_max_events,
        }
        return KafkaEventLog(
            cfg.bootstrap,
            topic=cfg.events_topic,
            partitions=cfg.partitions,
            client_id=cfg.group_id,
            replication_factor=cfg.replication_factor,
            limits=cfg.limits,
            **{k: v for k, v in group_commit.items() if v is not None},
        )

    return make


class AdjudicatorCore(FoldingCore[list["Candidate"]]):
    """The processor's logic outside Faust: the fold, what to send, sending. `open_log`
    gives the event log the command path appends to (the Kafka log in production; tests may
    pass another)."""

    logger = log

    def __init__(
        self,
        cfg: ProcessorConfig,
        prober: Prober | None = None,
        open_log: Callable[[], EventLog] | None = None,
        tablebases: str = "",
    ) -> None:
        self.cfg = cfg
        self.prober = prober
        self._open_log = open_log if open_log is not None else kafka_log_factory(cfg)
        self._service: CommandService | None = None
        self.partitions = 0
        self.streams: dict[str, _Stream] = {}
        self.handled: set[UUID] = set()  # command ids sent, refused, or met by a result
        self.held: dict[str, GapDetected] = {}  # tournament -> first gap
        self.failed: dict[str, str] = {}  # tournament -> error (a bug): held
        self.retry: set[str] = set()  # tournaments with a send to try again
        self.last_recovery = 0.0
        self.last_retry = 0.0
        self.duplicates = 0
        self.refusals: list[dict[str, str]] = []
        self.stats: dict[str, Any] = {
            "events": 0,  # records seen by the agent (redeliveries included)
            "folded": 0,
            "gaps": 0,
            "recovered": 0,
            "batches": 0,
            "endings": 0,  # endings found by the rules (each once per fold of its move)
            "appended": 0,  # GameEnded appended through the command path
            "already_stored": 0,  # the command path had it already (a resend)
            "refused": 0,  # refused by the decider (e.g. game.already_ended)
            "send_errors": 0,  # the log was unavailable: pending, tried again
            "rebuild_events": 0,
            "rebuild_s": 0.0,
            "agent_started_at": None,
            "last_fold_at": None,
            "tablebases": tablebases,
        }

    # -- the command path ------------------------------------------------------------------

    @property
    def service(self) -> CommandService:
        if self._service is None:
            self._service = CommandService(self._open_log())
        return self._service

    def close(self) -> None:
        if self._service is not None:
            self._service.log.close()
            self._service = None

    # -- folding ---------------------------------------------------------------------------

    def apply(self, env: Envelope) -> bool:
        """Fold one event; False for a redelivery. Raises GapDetected for a seq beyond the
        next one (not folded)."""
        tid = env.tournament_id
        stream = self.streams.setdefault(tid, _Stream())
        state = stream.state
        if isinstance(env, UnreadableEnvelope) and env.seq == 0:
            # A record whose bytes do not say its seq stands at its stream's next seq.
            if env.event_id in stream.positioned:
                self.duplicates += 1
                return False
            stream.positioned.add(env.event_id)
            env = env.model_copy(update={"seq": state.seq + 1})
        if env.seq <= state.seq:
            self.duplicates += 1
            return False
        if env.seq != state.seq + 1:
            raise GapDetected(tid, state.seq + 1, env.seq)
        rec = Recorded.of(env)
        if rec.unreadable:
            log.error(
                "%s seq %d (event %s) cannot be read: %s; no ending is sent for this "
                "tournament until an admin retracts it",
                tid,
                env.seq,
                env.event_id,
                getattr(rec.event, "reason", ""),
            )
        evolve(state, rec)
        self._follow(stream, rec)
        return True

    def _follow(self, stream: _Stream, rec: Recorded) -> None:
        """Bring the adjudicators of the games this event touched up to date."""
        state = stream.state
        event = rec.event
        if isinstance(event, ev.EventRetracted):
            # A retracted move, start, result or round: look at every game again.
            for gid in list(stream.watches):
                self._sync(stream, gid)
            target = state.events.get(event.retracted_event_id)
            if target is not None and target.game_id is not None:
                self._sync(stream, target.game_id)
            return
        ref = state.events.get(rec.envelope.event_id)
        if ref is not None and ref.game_id is not None:
            self._sync(stream, ref.game_id)

    def _watched(self, state: TournamentState) -> bool:
        created = state.created
        if state.kind != "tournament" or created is None or created.game != "chess":
            return False
        # "rules": the command path ends the game itself, except by tablebase.
        return created.adjudication != "rules" or self.prober is not None

    def _sync(self, stream: _Stream, gid: str) -> None:
        state = stream.state
        game = state.games.get(gid)
        if game is None or not self._watched(state):
            stream.watches.pop(gid, None)
            return
        w = stream.watches.get(gid)
        n = len(game.facts)
        if (
            w is None
            or w.game is not game
            or w.start_fen != game.start_fen
            or n < w.folded
            or n > w.folded + 1
        ):
            w = stream.watches[gid] = self._rebuild(state, game)
        elif n == w.folded + 1:
            self._push(w, game.facts[-1], game.move_event_ids[-1], game)
        if w.ending is not None and w.ending_move is not None and game.results:
            # A result met this ending (the command path, a person, a correction): it is
            # never sent again, even if that result is retracted (the arbiter's then).
            self.handled.add(command_id(w.ending_move))

    def _rebuild(self, state: TournamentState, game: GameState) -> _Watch:
        w = _Watch(game, game.start_fen, adjudicator_at_start(state, game, self.prober))
        if len(game.move_event_ids) != len(game.facts):
            w.adjudicator = None  # a move without UCI in a chess game: not followed
        for fact, move_id in zip(game.facts, game.move_event_ids, strict=False):
            self._push(w, fact, move_id, game)
        w.folded = len(game.facts)
        return w

    def _push(self, w: _Watch, fact: MoveFacts, move_id: UUID, game: GameState) -> None:
        w.folded += 1
        if w.adjudicator is None or w.ending is not None:
            return
        if len(game.move_event_ids) != len(game.facts):
            w.adjudicator = None
            return
        try:
            ending = w.adjudicator.push_facts(fact)
        except ValueError:  # an illegal move where it is the arbiter's (FIDE 7.5)
            w.adjudicator = None
            return
        if ending is not None:
            w.ending, w.ending_move = ending, move_id
            w.adjudicator = None  # ended: it reads no more moves (a retraction rebuilds it)
            self.stats["endings"] += 1

    def _fold_one(self, env: Envelope, touched: list[str]) -> None:
        tid = env.tournament_id
        if tid in self.failed:
            return
        try:
            if self.apply(env):
                self.stats["folded"] += 1
                if tid not in touched:
                    touched.append(tid)
        except GapDetected as gap:
            self.hold(tid, gap)
        except Exception as exc:  # a bug: hold this tournament, go on
            self.failed[tid] = f"folding seq {env.seq}: {type(exc).__name__}: {exc}"[:500]
            log.exception("%s held: %s", tid, self.failed[tid])

    def _emit(self, touched: list[str]) -> list[Candidate]:
        """The endings to send for the tournaments a batch touched."""
        return self.pending(touched)

    def pending(self, tids: Iterable[str] | None = None) -> list[Candidate]:
        """The endings to send in these tournaments (all: None): games the rules ended that
        have no result in force, never sent nor met by a result."""
        out: list[Candidate] = []
        for tid in sorted(self.streams) if tids is None else tids:
            stream = self.streams.get(tid)
            if stream is None or tid in self.held or tid in self.failed:
                continue
            state = stream.state
            if state.unreadable or not self._watched(state):
                continue
            rules = state.created is not None and state.created.adjudication == "rules"
            for gid, w in stream.watches.items():
                if w.ending is None or w.ending_move is None:
                    continue
                if command_id(w.ending_move) in self.handled or w.game.results:
                    continue
                if rules and w.ending.termination != "tablebase":
                    continue
                out.append(Candidate(tid, gid, w.ending_move, w.ending))
        return out

    # -- sending ---------------------------------------------------------------------------

    def send(self, candidates: list[Candidate]) -> list[Sent]:
        """Blocking I/O (run in an executor): each ending through the command path."""
        out = []
        for c in candidates:
            try:
                result = self.service.handle(
                    c.tournament_id, CommandBatch(commands=[c.command()]), ACTOR
                )
            except CommandRejected as r:
                transient = r.rule == "concurrency.retries_exhausted"
                out.append(Sent(c, "retry" if transient else "refused", f"{r.rule}: {r.message}"))
                continue
            except (EventIdConflict, LimitExceeded) as exc:
                out.append(Sent(c, "refused", f"{type(exc).__name__}: {exc}"))
                continue
            except EventLogUnavailable as exc:
                out.append(Sent(c, "retry", f"{type(exc).__name__}: {exc}"))
                continue
            except Exception as exc:  # kept pending; tried again
                log.exception("sending %s %s", c.tournament_id, c.game_id)
                out.append(Sent(c, "retry", f"{type(exc).__name__}: {exc}"))
                continue
            out.append(Sent(c, "already_stored" if result.duplicate else "appended"))
        return out

    def settle(self, sent: list[Sent]) -> None:
        """Record what `send` did (on the thread that folds)."""
        for s in sent:
            c = s.candidate
            where = f"{c.tournament_id} {c.game_id} (ply {c.ending.ply}, {c.ending.rule})"
            if s.outcome == "retry":
                self.stats["send_errors"] += 1
                self.retry.add(c.tournament_id)
                log.warning("%s: not sent, trying again: %s", where, s.detail)
                continue
            self.handled.add(c.command_id)
            self.stats[s.outcome] += 1
            if s.outcome == "refused":
                log.warning("%s: refused by the command path, skipped: %s", where, s.detail)
                self.refusals.append(
                    {
                        "tournament": c.tournament_id,
                        "game": c.game_id,
                        "ending": c.ending.rule,
                        "refusal": s.detail[:500],
                    }
                )
                del self.refusals[:-KEEP_REFUSALS]
            else:
                log.info(
                    "%s: %s %s (%s) %s",
                    where,
                    c.ending.result,
                    c.ending.termination,
                    c.command_id,
                    s.outcome,
                )

    def send_now(self, candidates: list[Candidate]) -> None:
        if candidates:
            self.settle(self.send(candidates))

    def retry_due(self) -> list[Candidate]:
        if not self.retry or time.monotonic() - self.last_retry < RETRY_S:
            return []
        self.last_retry = time.monotonic()
        tids, self.retry = sorted(self.retry), set()
        return self.pending(tids)

    # -- start and gaps --------------------------------------------------------------------

    def rebuild(self) -> list[Candidate]:
        """Before the worker starts: fold every partition to its current end; every ending
        still to send."""
        t0 = time.perf_counter()
        touched: list[str] = []
        for rec in self.read(self.cfg.events_topic, dict.fromkeys(range(self.partitions))):
            self.stats["rebuild_events"] += 1
            self._fold_one(decode_record(rec.key, rec.value), touched)
        out = self.pending()
        self.stats["rebuild_s"] = round(time.perf_counter() - t0, 3)
        log.info(
            "rebuilt %d events (to the end of the topic) in %.2fs; %d ending(s) to send",
            self.stats["rebuild_events"],
            self.stats["rebuild_s"],
            len(out),
        )
        return out

    def _recovered(self, tids: list[str], touched: list[str]) -> list[Candidate]:
        return self.pending([t for t in tids if t not in self.held])

    def _seq(self, tid: str) -> int:
        stream = self.streams.get(tid)
        return stream.state.seq if stream else 0

    # -- status ----------------------------------------------------------------------------

    def status(self) -> dict[str, Any]:
        unreadable = {}
        for tid, stream in self.streams.items():
            if stream.state.unreadable:
                eid, (seq, reason) = min(stream.state.unreadable.items(), key=lambda kv: kv[1][0])
                unreadable[tid] = {
                    "seq": seq,
                    "event_id": str(eid),
                    "detail": reason,
                    "remedy": f"an admin retracts it: EventRetracted retracted_event_id={eid}",
                }
        return {
            "projection": self.cfg.projection,
            "pid": os.getpid(),
            "events_topic": self.cfg.events_topic,
            "group": self.cfg.group_id,
            **self.stats,
            "duplicates": self.duplicates,
            "pending": len(self.pending()),
            "held": {t: {"expected": g.expected, "got": g.got} for t, g in self.held.items()},
            "failed": dict(self.failed),
            "unreadable": unreadable,
            "refusals": list(self.refusals),
            "tournaments": {t: s.state.seq for t, s in self.streams.items()},
        }


# -- the Faust app -----------------------------------------------------------------------------


def build_app(cfg: ProcessorConfig, core: AdjudicatorCore) -> faust.App:
    app = faust_app(cfg)
    events = events_topic(app, cfg)
    lock = asyncio.Lock()  # fold + send as one step
    # One thread for the command path: CommandService and its log are used from it only
    # once the worker runs.
    executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="adjudicator-send")

    async def emit(candidates: list[Candidate]) -> None:
        if candidates:
            loop = asyncio.get_running_loop()
            core.settle(await loop.run_in_executor(executor, core.send, candidates))

    recover = fold_agent(app, events, cfg, core, lock, emit, "adjudicate")

    @app.timer(interval=0.5)  # type: ignore[untyped-decorator]
    async def status() -> None:
        core.write_status()
        await recover()
        async with lock:
            await emit(core.retry_due())

    add_watchdog(app, cfg, core)
    return app


def run(cfg: ProcessorConfig, loglevel: str = "info") -> None:
    """Open the tablebases (if configured), create topics, rebuild and send what is pending,
    then run the Faust worker until SIGTERM/SIGINT. Raises `TablebaseError` when
    `cfg.tablebases` holds no tables."""
    setup_logging(cfg, loglevel)
    prober = open_prober(cfg.tablebases)
    core = AdjudicatorCore(
        cfg, prober, tablebases=prober.describe() if prober is not None else "(none)"
    )
    ensure_topics(core)
    core.watch_from_here()
    if cfg.rebuild:
        core.send_now(core.rebuild())
    core.write_status()
    run_worker(build_app(cfg, core), loglevel)

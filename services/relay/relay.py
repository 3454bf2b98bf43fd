"""One poll of a live source (`Relay.poll`): the source's PGN text read game by game
(`read_games`: a game that does not read is held, the others go on), the games placed in
the tournament (`match.place`: a game followed from this source, a pairing of its players, or
a new game in a round not scheduled yet), new players and rounds appended, then each game
brought up to date (`sync.sync_game`): its new moves with the clocks of their `[%clk]` (or
TCEC `tl`) comments, a move the source took back retracted (`EventRetracted`, last first: a
correction, never a rewrite), and its result once the movetext ends with one (a live file
keeps `[Result "*"]` in its tags). A game the decider refuses (an illegal move, a take-back
after the end, an unknown player) is held, with the rule and why, and the others go on.

Every poll is idempotent: what is in force is never appended again, and every event id is
derived from the tournament, the game and the ply (`<game>:move:<ply>`, with the number of
the game's moves taken back so far once there are some), so a restarted relay, or two of
them, append nothing twice.

Cost: a game is read again only when its own text changed since the last poll (`_Games`:
the text split at game boundaries by python-chess's `skip_game`), its move facts kept with
it; the same text with the stream unchanged is the last report at once."""

from __future__ import annotations

import io
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import chess.pgn

from events_schema import Actor, Command, Envelope, encode_payload
from events_schema import events as ev
from projections.endings.rules import ruleset_for
from projections.tournament.state import TournamentState
from services.commands.service import CommandService
from services.eventlog.base import EventLog
from services.interchange.game_import import round_scheduled
from services.interchange.pgn.match import Held, place, sources
from services.interchange.pgn.parse import PgnError, PgnGame, read_games
from services.interchange.pgn.plan import PlannedGame, plan
from services.interchange.pgn.sync import sync_game
from services.interchange.pipeline import ImportRefused, Step, chunks, handle_steps

_NAMESPACE = uuid.UUID("6f0b3c2e-8d41-4a57-9e3b-7c1d2a4f5e60")
_TAGS = ("Event", "Round", "Board", "White", "Black", "Result")


class LiveRun:
    """The `Runner` of the relay: each batch decided and appended to the log at once."""

    def __init__(self, service: CommandService, tournament_id: str, actor: Actor) -> None:
        self.service = service
        self.tid = tournament_id
        self.actor = actor
        self.limits = service.limits
        self.appended = 0

    def command(self, key: str, event: ev.Event, where: str) -> Step:
        eid = uuid.uuid5(_NAMESPACE, f"{self.tid}:{key}")
        return Step(
            Command(type=event.event_type, payload=encode_payload(event), event_id=eid), where
        )

    def run(self, steps: Sequence[Step]) -> list[Envelope]:
        envelopes = handle_steps(self.service, self.tid, steps, self.actor)
        self.appended += len(envelopes)
        return envelopes

    def state(self) -> TournamentState:
        return self.service.state(self.tid)


@dataclass
class GameOutcome:
    """One game of the source after a poll: in the shape of lichess's push answer (`tags`,
    `moves`, or `error`), with what Arbiter did."""

    index: int
    line: int
    tags: dict[str, str]
    game_id: str | None = None
    moves: int = 0  # plies in force
    appended: int = 0  # moves appended by this poll
    retracted: int = 0  # moves taken back by this poll
    result: str | None = None
    termination: str | None = None
    rule: str | None = None  # why it is held: the refusal's rule
    error: str | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def held(self) -> bool:
        return self.error is not None

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"tags": self.tags}
        if self.held:
            out["error"] = self.error
            out["rule"] = self.rule
        else:
            out["moves"] = self.moves
        out.update(
            index=self.index,
            line=self.line,
            game_id=self.game_id,
            appended=self.appended,
            retracted=self.retracted,
            result=self.result,
            termination=self.termination,
            notes=self.notes,
        )
        return out


@dataclass
class PollReport:
    tournament_id: str
    source: str
    games: list[GameOutcome] = field(default_factory=list)
    appended: int = 0  # events appended by this poll
    error: str | None = None  # the source as a whole could not be read

    @property
    def held(self) -> list[GameOutcome]:
        return [g for g in self.games if g.held]

    @property
    def changed(self) -> list[GameOutcome]:
        return [g for g in self.games if g.appended or g.retracted or g.held]

    def as_dict(self) -> dict[str, Any]:
        return {
            "tournament_id": self.tournament_id,
            "source": self.source,
            "appended": self.appended,
            "error": self.error,
            "games": [g.as_dict() for g in self.games],
        }


def split_games(text: str) -> list[tuple[int, str]]:
    """The text of each game with its first line (python-chess's `skip_game`, which reads
    game boundaries as `read_game` does, without reading the moves)."""
    handle = io.StringIO(text)
    spans: list[tuple[int, str]] = []
    line = 1
    while True:
        start = handle.tell()
        if not chess.pgn.skip_game(handle):
            return spans
        span = text[start : handle.tell()]
        spans.append((line, span))
        line += span.count("\n")


def _shifted(game: PgnGame | PgnError, index: int, by: int) -> PgnGame | PgnError:
    """A game read on its own, at its place in the whole text (its index, its lines)."""
    if isinstance(game, PgnError):
        exc = PgnError(game.line + by, game.reason)
        exc.headers = game.headers
        return exc
    if by == 0 and game.index == index:
        return game
    return replace(
        game,
        index=index,
        line=game.line + by,
        header_lines={k: v + by for k, v in game.header_lines.items()},
        moves=[replace(m, line=m.line + by) for m in game.moves],
        token_line=None if game.token_line is None else game.token_line + by,
    )


class _Games:
    """The games of a source's text, each read again only when its own text changed since
    the last poll (a 500-board source where one board moved reads one game)."""

    def __init__(self) -> None:
        self._read: dict[str, PgnGame | PgnError] = {}  # a game's text → read (line 1, index 1)
        self.memo: dict[int, Any] = {}  # each game's move facts (plan's memo)

    def read(self, text: str) -> list[PgnGame | PgnError]:
        spans = split_games(text)
        read: dict[str, PgnGame | PgnError] = {}
        out: list[PgnGame | PgnError] = []
        for index, (line, span) in enumerate(spans, 1):
            game = self._read.get(span) or read.get(span)
            if game is None:
                try:
                    alone = read_games(span)
                except PgnError as exc:
                    alone = [exc]
                if len(alone) != 1:  # not one game as `skip_game` saw it: read the whole text
                    self._read, self.memo = {}, {}
                    return read_games(text)
                game = alone[0]
            read[span] = game
            out.append(_shifted(game, index, line - 1))
        if not out:
            raise PgnError(max(text.count("\n"), 1), "no games in the file")
        self._read = read
        live = {id(g) for g in out}
        self.memo = {k: v for k, v in self.memo.items() if k in live}
        return out


def _tags(game: PgnGame) -> dict[str, str]:
    return {k: game.headers[k] for k in _TAGS if k in game.headers}


class Relay:
    """Follows one source into one tournament: `poll(text)` per reading of the source."""

    def __init__(
        self,
        log: EventLog,
        tournament_id: str,
        actor: Actor,
        source: str,
        service: CommandService | None = None,
        by_tags: bool = False,
    ) -> None:
        self.log = log
        self.tid = tournament_id
        self.actor = actor
        self.source = source[:500]
        self.service = service if service is not None else CommandService(log)
        self.by_tags = by_tags
        self._links: dict[tuple[str, int], str] = {}
        self._read_to = 0  # the seq up to which `_links` has read the stream
        # the last poll: its text, the stream's last seq after it, its report
        self._last: tuple[str, int, PollReport] | None = None
        self._games = _Games()

    def links(self, games: Sequence[PgnGame]) -> dict[int, str]:
        """The games of `games` this source feeds already (index in the text → game id), read
        from the stream's `GameStarted.source` (so a restarted relay finds them again): by
        the source's name and the game's place in it, or `by_tags` by the game's own key."""
        for key, gid in sources(self.log.read(self.tid, self._read_to + 1)).items():
            self._links.setdefault(key, gid)
        self._read_to = self.log.last_seq(self.tid)
        out: dict[int, str] = {}
        for g in games:
            found = self._links.get((self.source_of(g), 1 if self.by_tags else g.index))
            if found is not None:
                out[g.index] = found
        return out

    def source_of(self, game: PgnGame) -> str:
        """The source a game is recorded from (`GameSource.file`): the relay's, or with
        `by_tags` the game's own key, its round and players (pushed games come one request at
        a time, each the first of its body)."""
        if not self.by_tags:
            return self.source
        rnd, white, black = (game.headers.get(k, "?") for k in ("Round", "White", "Black"))
        return f"{self.source}: round {rnd}, {white} - {black}"[:500]

    def poll(self, text: str) -> PollReport:
        """Bring the tournament up to `text`, the source's PGN now (the module docstring).
        The same text as the last poll's, the stream unchanged since: nothing to do (the
        last report, nothing appended), without reading the games again."""
        last = self._last
        if last is not None and last[0] == text and self.log.last_seq(self.tid) == last[1]:
            games = [replace(g, appended=0, retracted=0) for g in last[2].games]
            return PollReport(self.tid, self.source, games, 0, last[2].error)
        report = self._poll(text)
        self._last = (text, self.log.last_seq(self.tid), report)
        return report

    def _poll(self, text: str) -> PollReport:
        report = PollReport(self.tid, self.source)
        state = self.service.state(self.tid)
        created = state.created
        if created is None:
            raise ImportRefused(
                "relay.unknown_tournament",
                "TOURNAMENT",
                f"{self.tid} does not exist: create it first (arbiter create, or import pgn)",
            )
        try:
            parsed = self._games.read(text)
        except PgnError as exc:
            report.error = f"line {exc.line}: {exc.reason}"
            return report
        outcomes: dict[int, GameOutcome] = {}
        good: list[PgnGame] = []
        for i, item in enumerate(parsed, 1):
            if isinstance(item, PgnError):
                tags = {k: item.headers[k] for k in _TAGS if k in item.headers}
                why = f"line {item.line}: {item.reason}"
                outcomes[i] = GameOutcome(i, item.line, tags, rule="pgn.malformed", error=why)
            else:
                good.append(item)
                outcomes[i] = GameOutcome(i, item.line, _tags(item))
        report.games = [outcomes[i] for i in sorted(outcomes)]
        if not good:
            return report
        by_rules = created.adjudication == "rules"
        the_plan = plan(
            good,
            file_name=self.source,
            rules=created.rules_preset,
            adjudicate=by_rules,
            fmt=created.format,
            memo=self._games.memo,
        )
        if self.by_tags:  # each game recorded as from its own key (`source_of`)
            for pg in the_plan.games:
                update = {"file": self.source_of(pg.game), "index": 1}
                pg.source = pg.source.model_copy(update=update)
        placement = place(state, the_plan, self.links(good))
        for h in placement.held:
            _hold(outcomes[h.index], h)
        run = LiveRun(self.service, self.tid, self.actor)
        games = placement.games
        if placement.registered or placement.rounds:
            steps = [
                run.command(f"player:{pl.player_id}", pl, f"{self.source}:1")
                for pl in placement.registered
            ]
            steps += [
                run.command(
                    f"round:{rnd}",
                    round_scheduled(rnd, in_round, _time_control),
                    f"{self.source}:{in_round[0].game.line}",
                )
                for rnd, in_round in sorted(placement.rounds.items())
            ]
            try:
                for chunk in chunks(steps, run.limits):  # (within the limits of a batch)
                    run.run(chunk)
            except ImportRefused as exc:  # the new games are held; those in force go on
                new = {g.game.index for gs in placement.rounds.values() for g in gs}
                for index in new:
                    _hold(outcomes[index], Held(index, 0, exc.rule, f"{exc.where}: {exc.message}"))
                games = [g for g in games if g.game.index not in new]
        ruleset = ruleset_for(created.rules_preset) if by_rules else None
        for g in games:
            self._sync(run, g, ruleset, outcomes[g.game.index])
        report.appended = run.appended
        return report

    def _sync(self, run: LiveRun, g: PlannedGame, ruleset: Any, out: GameOutcome) -> None:
        gid = out.game_id = g.game_id

        def move_key(ply: int, uci: str) -> str:
            state = run.state()
            gen = sum(
                1
                for eid in state.retracted
                if (ref := state.events.get(eid)) is not None
                and ref.type == "MovePlayed"
                and ref.game_id == gid
            )
            return f"{gid}:move:{ply}" + (f":{gen}" if gen else "")

        try:
            synced = sync_game(
                run,
                g,
                ruleset,
                self.source,
                prefix=gid,
                move_key=move_key,
                take_back=f"relay of {self.source}",
            )
        except ImportRefused as exc:
            game = run.state().games.get(gid)
            out.moves = len(game.moves) if game is not None else 0
            _hold(out, Held(g.game.index, g.game.line, exc.rule, f"{exc.where}: {exc.message}"))
            return
        out.moves, out.appended, out.retracted = synced.plies, synced.appended, synced.retracted
        out.notes = synced.notes
        if synced.ended is not None:
            out.result = synced.ended.get("result")
            out.termination = synced.ended.get("termination")
            said = g.game.result
            if said != "*" and said != out.result:
                out.notes.append(
                    f"the source now says {said}; {out.result} is in force (a change of result "
                    "is a correction: arbiter correct)"
                )
        if synced.cut:
            out.notes.append(
                f"the game ended at ply {synced.plies}; the source's later moves are not played"
            )


def _hold(out: GameOutcome, h: Held) -> None:
    out.rule, out.error = h.rule, h.why


def _time_control(g: PlannedGame) -> str | None:
    return g.time_control.name if g.time_control is not None else None

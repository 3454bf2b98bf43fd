"""What the imports of game records (PGN, SGF) share on top of the pipeline
(`services/interchange/pipeline.py`): the rounds read from the files' round numbers
(`number_rounds`), the loop that decides the tournament's head, rounds and games in the dry
run (`decide_games`) and a game's moves in batches (`play_moves`), and the report of each game
(`GameRow`) and of the import (`GamesReport`)."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

from events_schema import events as ev
from projections.games import rule_text
from services.interchange.pipeline import (
    AppendReport,
    DryRun,
    ImportRefused,
    Progress,
    Runner,
    Step,
    chunks,
    ended_payload,
)


class Paired(Protocol):
    """A planned game as the round numbering reads and numbers it."""

    game_id: str
    white: str  # player ids
    black: str
    round: int
    board: int


P = TypeVar("P", bound=Paired)
K = TypeVar("K", bound=Hashable)


def split_rounds(keyed: Iterable[tuple[K, P]]) -> dict[K, list[list[P]]]:
    """The games by round key, a round that pairs a player twice split into as many rounds as
    it needs: each game in the first that has neither of its players."""
    rounds: dict[K, list[list[P]]] = {}
    for key, g in keyed:
        subs = rounds.setdefault(key, [])
        for sub in subs:
            if not any({g.white, g.black} & {o.white, o.black} for o in sub):
                sub.append(g)
                break
        else:
            subs.append([g])
    return rounds


def number_rounds(groups: Iterable[tuple[int | None, list[P]]], keep: bool) -> dict[int, list[P]]:
    """Rounds numbered in the order of `groups` (the file's number kept with `keep`, else 1,
    2, …), each game given its round and board."""
    rounds: dict[int, list[P]] = {}
    for key, sub in groups:
        number = key if keep and key is not None else len(rounds) + 1
        rounds[number] = sub
        for board, g in enumerate(sub, 1):
            g.round, g.board = number, board
    return dict(sorted(rounds.items()))


def round_scheduled(
    rnd: int, games: Sequence[P], time_control: Callable[[P], str | None] | None = None
) -> ev.RoundScheduled:
    """The `RoundScheduled` of round `rnd`'s games, on their boards (with the name of each
    game's time control, when `time_control` gives one)."""
    return ev.RoundScheduled(
        round=rnd,
        pairings=[
            ev.Pairing(
                game_id=g.game_id,
                white=g.white,
                black=g.black,
                board=g.board,
                time_control=time_control(g) if time_control is not None else None,
            )
            for g in games
        ],
    )


@dataclass(kw_only=True)
class GameRow:
    """One imported game on the report: how Arbiter recorded its ending beside its source's,
    and why they disagree (None: they agree)."""

    game_id: str
    round: int
    source: ev.GameSource
    source_plies: int
    result: str | None = None
    termination: str | None = None
    rule: str | None = None
    plies: int = 0
    detail: str = ""
    why: str | None = None

    @property
    def disagrees(self) -> bool:
        return self.why is not None

    def ended(self, payload: dict[str, Any]) -> None:
        """Record the ending of the `GameEnded` payload."""
        self.result = payload.get("result")
        self.termination = payload.get("termination")
        self.rule = payload.get("rule")
        self.detail = payload.get("detail", "")

    def ending_fields(self) -> dict[str, Any]:
        """The row's JSON for Arbiter's ending."""
        return {
            "result": self.result,
            "termination": self.termination,
            "rule": rule_text(self.termination, self.rule),
            "citation": self.rule,
            "plies": self.plies,
        }

    def source_fields(self) -> dict[str, Any]:
        """The row's JSON for the source's ending and the disagreement."""
        return {
            "source": {**self.source.model_dump(), "plies": self.source_plies},
            "disagrees": self.disagrees,
            "why": self.why or "",
        }


R = TypeVar("R", bound=GameRow)


@dataclass(kw_only=True)
class GamesReport(AppendReport, Generic[R]):
    """An import of game records: a row per game, and what the append did."""

    games: list[R] = field(default_factory=list)

    @property
    def disagreements(self) -> list[R]:
        return [g for g in self.games if g.disagrees]

    def summary(self, disagreements: list[dict[str, Any]]) -> dict[str, Any]:
        """The part of the report's JSON the importers share: counts, the disagreements (each
        importer names its own places), and what the append did."""
        return {
            "games": len(self.games),
            "moves": sum(g.plies for g in self.games),
            "matched": sum(1 for g in self.games if not g.disagrees),
            "disagreements": disagreements,
            "appended": self.appended,
            "duplicate": self.duplicate,
            "last_seq": self.last_seq,
            "batches": self.batches,
        }


class Scheduled(Protocol):
    """A planned game as `decide_games` reads it."""

    round: int


G = TypeVar("G", bound=Scheduled)


def decide_games(
    dry: DryRun,
    head: Sequence[Step],
    games: Iterable[G],
    schedule: Callable[[G], Step],
    decide: Callable[[G], R],
    rows: list[R],
    progress: Progress | None,
    total: int | None = None,
) -> None:
    """Decide the tournament's head (creation, players), then each game in order (`decide`,
    its row added to `rows`), its round scheduled before its first game (`schedule`, given
    that game). `games` may be read as they are decided (`total` of them: a streamed
    import)."""
    count = total if total is not None else len(games)  # type: ignore[arg-type]
    dry.run_all(head)
    scheduled: set[int] = set()
    for n, g in enumerate(games, 1):
        if g.round not in scheduled:
            scheduled.add(g.round)
            dry.run([schedule(g)])
        rows.append(decide(g))
        if progress is not None:
            progress("decide", n, count)


def play_moves(
    dry: Runner, steps: Sequence[Step], game_id: str, after_end: frozenset[str]
) -> tuple[list[Step], dict[str, Any] | None, bool]:
    """Decide a game's moves in batches with room for the `GameEnded` the rules may add: the
    steps recorded, the payload of the `GameEnded` when the decider ended the game, and
    whether it cut the file's later moves (refused with a rule of `after_end`: they are not
    played)."""
    recorded: list[Step] = []
    ended: dict[str, Any] | None = None
    cut = False
    for chunk in chunks(steps, dry.limits, spare=1):
        try:
            envs = dry.run(chunk)
        except ImportRefused as exc:
            i = exc.index
            if exc.rule not in after_end or not i:
                raise
            chunk = chunk[:i]  # the decider ended the game: the file's later moves are not played
            envs = dry.run(chunk)
            cut = True
        recorded.extend(chunk)
        ended = ended_payload(envs, game_id)
        if ended is not None:
            break
    return recorded, ended, cut

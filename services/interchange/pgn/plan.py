"""The plan of a PGN import (`plan`): the tournament, players, rounds and games a parsed file
records, with each move's facts read from its comment by dialect
(`projections.endings.pgn_comments.parse_comment`: TCEC `{d=…, mt=…, tl=…, wv=…}`,
cutechess / fastchess `{+0.35/20 1.2s}`, lichess `[%eval …] [%clk …] [%emt …]`). The
mapping is described in the package (`services/interchange/pgn/__init__.py`)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

from events_schema import events as ev
from projections.endings.pgn_comments import MoveComment, parse_comment
from projections.games import SourceEnding, read_source
from services.interchange.game_import import number_rounds, split_rounds
from services.interchange.pgn.parse import PgnGame, player_name

_MAX_INT = 2**53 - 1


def time_control_of(text: str) -> ev.TimeControl | None:
    """`base[+increment]` in seconds (TCEC, lichess, cutechess with whole seconds); other forms
    (moves/time, fractions, "-") are not recorded."""
    m = re.fullmatch(r"\s*(\d{1,7})(?:\+(\d{1,5}))?\s*", text)
    if m is None:
        return None
    return ev.TimeControl(
        name=text.strip()[:64], base_seconds=int(m.group(1)), increment_seconds=int(m.group(2) or 0)
    )


def _bounded(value: int | None, low: int | None = 0) -> int | None:
    if value is None:
        return None
    if low is not None and value < low:
        return None
    return value if -_MAX_INT <= value <= _MAX_INT else None


@dataclass(frozen=True, slots=True)
class MoveFacts:
    """A move's payload fields (besides game, ply, colour, uci)."""

    clock_ms: int | None
    move_time_ms: int | None
    eval_cp: int | None
    mate_in: int | None
    depth: int | None
    nodes: int | None


def move_facts(game: PgnGame, tc: ev.TimeControl | None) -> tuple[list[MoveFacts], MoveComment]:
    """Each move's clock, time and evaluation; and the last move's comment."""
    left: dict[str, int | None] = {
        "white": tc.base_seconds * 1000 if tc is not None else None,
        "black": tc.base_seconds * 1000 if tc is not None else None,
    }
    inc = tc.increment_seconds * 1000 if tc is not None else 0
    out: list[MoveFacts] = []
    last = MoveComment()
    for m in game.moves:
        c = parse_comment(m.comment, m.colour) if m.comment else MoveComment()
        last = c
        clock = _bounded(c.clock_ms)
        spent = _bounded(c.move_time_ms)
        if clock is None and spent is not None and tc is not None:
            before = left[m.colour]
            if before is not None and before >= spent:
                clock = before - spent + inc
        elif clock is None and spent is None:
            # A TCEC book move spends no time and earns no increment (the first engine move's
            # `tl` shows it): its clock is unchanged. Any other move without timing used an
            # unknown time, so its mover's clock is unknown until one is reported
            # (projections/endings/clock.py): nothing is derived from a stale clock.
            clock = left[m.colour] if c.book else None
            if not c.book:
                left[m.colour] = None
        if clock is not None:
            left[m.colour] = clock
        out.append(
            MoveFacts(
                clock,
                spent,
                _bounded(c.eval_cp, None),
                _bounded(c.mate_in, None),
                _bounded(c.depth),
                _bounded(c.nodes),
            )
        )
    return out, last


def _engine_game(game: PgnGame) -> bool:
    site = (game.header("Site") + " " + game.header("Event")).lower()
    if "tcec" in site:
        return True
    for m in game.moves[:16]:
        if m.comment and "[%" not in m.comment:
            c = parse_comment(m.comment, m.colour)
            if c.book or c.depth is not None or c.fields:
                return True
    return False


def _kind(game: PgnGame, side: str, engine: bool) -> Literal["human", "engine"]:
    typ = game.header(f"{side}Type").lower()
    if typ in ("program", "engine", "computer"):
        return "engine"
    if typ == "human":
        return "human"
    if game.header(f"{side}Title").upper() == "BOT":
        return "engine"
    return "engine" if engine else "human"


def _rating(game: PgnGame, side: str) -> int | None:
    text = game.header(f"{side}Elo")
    return int(text) if text.isdigit() and 0 <= int(text) <= 4000 else None


def _major(text: str) -> int | None:
    m = re.match(r"\s*(\d{1,6})(?:\.|\s*$)", text)
    return int(m.group(1)) if m is not None and int(m.group(1)) >= 1 else None


# --- the plan ----------------------------------------------------------------------------------


@dataclass
class PlannedGame:
    game: PgnGame
    game_id: str
    round: int
    board: int
    white: str  # player ids
    black: str
    time_control: ev.TimeControl | None
    source: ev.GameSource
    ending: SourceEnding
    facts: list[MoveFacts] = field(default_factory=list)


@dataclass
class Plan:
    created: ev.TournamentCreated
    players: list[ev.PlayerRegistered]
    games: list[PlannedGame]
    rounds: dict[int, list[PlannedGame]]
    notes: list[str] = field(default_factory=list)  # what was not recorded, with its line


def time_control_note(game: PgnGame) -> str | None:
    """Why the game's `TimeControl` tag is not recorded, with its line (None: recorded, or
    no tag): only `base[+increment]` in seconds is (`time_control_of`)."""
    text = game.header("TimeControl")
    if not text or time_control_of(text) is not None:
        return None
    line = game.header_lines.get("TimeControl", game.line)
    return (
        f"line {line}: TimeControl {text[:40]!r} not recorded: Arbiter keeps base[+increment] "
        "in seconds, the base at most 9,999,999 and the increment at most 99,999 (PGN 9.6.1's "
        "other forms are not read)"
    )


def _format(event: str, games: Sequence[PlannedGame], players: int) -> str:
    name = event.lower()
    if players == 2:
        return "match"
    if "swiss" in name:
        return "swiss"
    if "cup" in name:
        return "cup"
    if any(w in name for w in ("league", "premier", "division")):
        return "league"
    met = {frozenset((g.white, g.black)) for g in games}
    return "round_robin" if len(met) == players * (players - 1) // 2 else "swiss"


def plan(
    games: Iterable[PgnGame],
    *,
    file_name: str,
    rules: str | None,
    adjudicate: bool,
    fmt: str | None = None,
    memo: dict[int, tuple[PgnGame, list[MoveFacts], MoveComment]] | None = None,
    light: bool = False,
) -> Plan:
    """The tournament, players, rounds and games a parsed file records (`games` read once,
    in order). `memo` keeps each game's move facts between plans of the same game objects
    (the relay's polls). `light`: each planned game keeps its headers, not its moves nor
    their facts (`PgnGame.moves`, `PlannedGame.facts` empty: a streamed import reads the
    game again to decide it, `with_moves`), so that the plan of a big file stays small."""
    players: dict[str, ev.PlayerRegistered] = {}
    event = ""
    planned: list[PlannedGame] = []
    tcs: dict[str, ev.TimeControl] = {}
    notes: dict[str, str] = {}  # one note per distinct TimeControl text not recorded
    for g in games:
        if not event:
            event = g.header("Event")
        if (note := time_control_note(g)) is not None:
            notes.setdefault(g.header("TimeControl"), note)
        engine = _engine_game(g)
        ids = []
        for side in ("White", "Black"):
            name = player_name(g.headers, side)
            if name not in players:
                players[name] = ev.PlayerRegistered(
                    player_id=f"p{len(players) + 1:03d}",
                    name=name,
                    kind=_kind(g, side, engine),
                    rating=_rating(g, side),
                    title=g.header(f"{side}Title")[:8] or None,
                )
            ids.append(players[name].player_id)
        tc = time_control_of(g.header("TimeControl"))
        if tc is not None:
            tcs.setdefault(tc.name, tc)
        kept = memo.get(id(g)) if memo is not None else None
        if kept is not None and kept[0] is g:
            facts, last = kept[1], kept[2]
        else:
            facts, last = move_facts(g, tc)
            if memo is not None:
                memo[id(g)] = (g, facts, last)
        details = g.header("TerminationDetails")
        if not details and last.notes and not last.fields:
            details = "; ".join(last.notes)
        source = ev.GameSource(
            file=file_name[:500],
            index=g.index,
            result=g.result,  # the movetext's final token: `*` while in progress
            termination=g.header("Termination")[:200],
            details=details[:2000],
            # (a game read in progress: where it ends is not known yet, so not its plies)
            plies=None if g.in_progress else len(g.moves),
        )
        ending = read_source(source.result, source.termination, source.details, last.notes)
        if light:
            g, facts = replace(g, moves=[]), []
        planned.append(
            PlannedGame(
                g,
                f"g{g.index:04d}",
                0,
                0,
                ids[0],
                ids[1],
                tc,
                source,
                ending,
                facts,
            )
        )
    rounds = _number_rounds(planned)
    created = ev.TournamentCreated(
        name=(event or file_name or "PGN import")[:200],
        format=fmt or _format(event, planned, len(players)),
        rounds=len(rounds) or None,
        rules_preset=rules,
        time_controls=list(tcs.values()),
        adjudication="rules" if adjudicate else "manual",
    )
    return Plan(created, list(players.values()), planned, rounds, list(notes.values()))


def with_moves(light: PlannedGame, game: PgnGame) -> PlannedGame:
    """A game of a `light` plan with its moves read again (`game`, the same game of the same
    file) and their facts, as `plan` gives them."""
    if game.index != light.game.index:
        raise ValueError(f"game {game.index} read where game {light.game.index} was planned")
    facts, _ = move_facts(game, light.time_control)
    return replace(light, game=game, facts=facts)


def _number_rounds(games: Sequence[PlannedGame]) -> dict[int, list[PlannedGame]]:
    """Rounds from the `Round` headers, split where a round pairs a player twice; the file's
    numbers kept unless a split or a game without one forces 1, 2, … in order."""
    majors = split_rounds((_major(g.game.headers.get("Round", "")), g) for g in games)
    keep = None not in majors and all(len(subs) == 1 for subs in majors.values())
    order = sorted(majors, key=lambda k: (k is None, k or 0))
    return number_rounds(((key, sub) for key in order for sub in majors[key]), keep)

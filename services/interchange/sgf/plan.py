"""The plan of an SGF import (`plan`): the tournament, players, rounds and games the files
record (the readings are described in the package, `services/interchange/sgf/__init__.py`)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

from events_schema import events as ev
from projections.go.scoring import komi_for
from services.interchange.game_import import number_rounds, split_rounds
from services.interchange.sgf.parse import DEFAULT_KOMI, MAX_NAME, SgfError, SgfGame, read_rank


@dataclass
class PlannedPlayer:
    player_id: str
    name: str
    rank: str | None


@dataclass
class PlannedGame:
    game: SgfGame
    game_id: str
    black: str  # player ids
    white: str
    source: ev.GameSource
    komi: Decimal  # what Arbiter counts this game with
    round: int = 0
    board: int = 0


@dataclass
class SgfPlan:
    created: ev.TournamentCreated
    players: list[PlannedPlayer]
    games: list[PlannedGame]
    rounds: dict[int, list[PlannedGame]]
    notes: list[str]


def _major(text: str) -> int | None:
    m = re.match(r"\s*(\d{1,6})(?!\d)", text)
    return int(m.group(1)) if m is not None and int(m.group(1)) >= 1 else None


def plan(games: Sequence[SgfGame], *, name: str, adjudicate: bool, fmt: str | None) -> SgfPlan:
    """The tournament, players, rounds and games the files record."""
    first = games[0]
    for g in games[1:]:
        if g.size != first.size:
            raise SgfError(
                g.file,
                g.index,
                0,
                f"SZ[{g.size}]: the games of one import share a board size; "
                f"{first.where(0)} is {first.size}x{first.size}",
                g.many,
            )
    even = next((g for g in games if g.handicap < 2 and g.komi is not None), None)
    komi = even.komi if even is not None and even.komi is not None else DEFAULT_KOMI
    players: dict[str, PlannedPlayer] = {}
    notes: list[str] = []
    planned: list[PlannedGame] = []

    def register(who: str, written_rank: str, g: SgfGame, ident: str) -> str:
        rank = read_rank(written_rank) if written_rank else None
        if written_rank and rank is None:
            g.notes.append(f"{ident}[{written_rank}] is not a rank (5k, 2d, 1p): ignored")
        player = players.get(who)
        if player is None:
            player = players[who] = PlannedPlayer(f"p{len(players) + 1:03d}", who, rank)
        elif rank is not None and player.rank is None:
            player.rank = rank
        elif rank is not None and rank != player.rank:
            g.notes.append(f"{ident}[{written_rank}]: {who} is registered as {player.rank}")
        return player.player_id

    for n, g in enumerate(games, 1):
        black = g.black if g.black not in ("", "?", "-") else "? (Black)"
        white = g.white if g.white not in ("", "?", "-") else "? (White)"
        if black == white:
            g.notes.append(f"PB and PW are both {black!r}: registered as two players")
            black, white = f"{black} (Black)"[:MAX_NAME], f"{white} (White)"[:MAX_NAME]
        bid = register(black, g.black_rank, g, "BR")
        wid = register(white, g.white_rank, g, "WR")
        counted_with = komi_for(g.handicap, komi)
        if g.komi is not None and g.komi != counted_with:
            g.notes.append(
                f"KM[{g.komi}]: Arbiter counts this game with komi {counted_with} (LGC "
                "Scoring: the tournament's komi in an even game, 0.5 with handicap stones)"
            )
        source = ev.GameSource(
            file=g.file[:500],
            index=g.index,
            result=g.result.result or "*",
            termination=g.result.words,
            details=g.result.text[:2000],
            plies=len(g.moves),
        )
        planned.append(PlannedGame(g, f"g{n:04d}", bid, wid, source, counted_with))
    rounds = _number_rounds(planned)
    event = next((g.event for g in games if g.event), "")
    dates = sorted(d for g in games for d in g.dates)
    created = ev.TournamentCreated(
        name=(event or name or "SGF import")[:200],
        game="go",
        format=fmt or ("match" if len(players) == 2 else "mcmahon"),
        rounds=len(rounds) or None,
        board_size=first.size,
        komi=komi,
        adjudication="rules" if adjudicate else "manual",
        starts_on=dates[0] if dates else None,
        ends_on=dates[-1] if dates else None,
    )
    return SgfPlan(created, list(players.values()), planned, rounds, notes)


def _number_rounds(games: Sequence[PlannedGame]) -> dict[int, list[PlannedGame]]:
    """One round per game; with RO on every game, grouped by its number (split where a round
    pairs a player twice), the numbers kept unless a split forces 1, 2, … in order."""
    majors = [_major(g.game.round) for g in games]
    if any(m is None for m in majors):
        return number_rounds(((None, [g]) for g in games), keep=False)
    by_major = split_rounds(zip(majors, games, strict=True))
    keep = all(len(subs) == 1 for subs in by_major.values())
    groups = [(k, sub) for k in sorted(by_major, key=lambda k: k or 0) for sub in by_major[k]]
    return number_rounds(groups, keep)

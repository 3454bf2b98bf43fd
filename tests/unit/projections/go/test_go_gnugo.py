"""projections.go cross-checked against GNU Go 3.8.

The fixtures (tests/fixtures/go/, made by scripts/gnugo_fixtures: GNU Go self-play over GTP
with `--situational-superko`, Japanese rules, suicide forbidden) are replayed through
`GoBoard` move by move:

- every move GNU Go played is legal for us;
- after every move the stones equal GNU Go's (`list_stones`) and so do the captures (GTP
  `captures`, which leaves out pass stones: ours are `prisoners` minus the passes received);
- at the recorded positions, the empty points where the player to move may not play (our
  `clone().play(...)` not legal, and `check(...)` alike) are exactly those where GNU Go's
  `is_legal` says 0 (ko, situational superko, suicide);
- the count of the final position (`count` with GNU Go's `final_status_list dead`) agrees with
  GNU Go's `final_score` once the two differences between the rulesets are accounted for
  (`_expected_margin`);
- the fixed handicap points equal GNU Go's `fixed_handicap`.

When /usr/games/gnugo is installed, two fresh 9×9 games are played and checked the same way.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
from decimal import Decimal
from importlib.machinery import SourceFileLoader
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from sgfmill import sgf

from projections.go import (
    GoBoard,
    Point,
    count,
    format_point,
    handicap_points,
    parse_point,
    unfilled_dame,
)

REPO = Path(__file__).resolve().parents[4]
FIXTURES = REPO / "tests" / "fixtures" / "go"
DOC: dict[str, Any] = json.loads((FIXTURES / "gnugo.json").read_text(encoding="utf-8"))
GAMES: list[dict[str, Any]] = DOC["games"]
GNUGO = "/usr/games/gnugo"


def _script() -> ModuleType:
    """scripts/gnugo_fixtures as a module (it has no .py suffix)."""
    path = REPO / "scripts" / "gnugo_fixtures"
    loader = SourceFileLoader("gnugo_fixtures", str(path))
    spec = importlib.util.spec_from_loader("gnugo_fixtures", loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def _board_string(board: GoBoard) -> str:
    """The board as GNU Go's fixtures hold it: size² of ".XO", row 1 first."""
    n = board.size
    cells = ["."] * (n * n)
    for (r, c), colour in board.stones().items():
        cells[r * n + c] = "X" if colour == "black" else "O"
    return "".join(cells)


def _our_illegal(board: GoBoard) -> set[str]:
    """The empty points where the player to move may not play, by playing each on a clone."""
    out = set()
    colour = board.to_move
    for r in range(board.size):
        for c in range(board.size):
            p = (r, c)
            if board.colour_at(p) is not None:
                continue
            result = board.clone().play(colour, p)
            assert board.check(colour, p) == result  # the cheap check agrees with playing
            if not result.legal:
                out.add(format_point(p, board.size))
    return out


def _gnugo_margin(final_score: str) -> Decimal:
    """GNU Go's `final_score` ("B+7.5", "W+0.5", "0") as Black's margin."""
    if final_score == "0":
        return Decimal(0)
    sign = 1 if final_score[0] == "B" else -1
    return sign * Decimal(final_score[2:])


def _seki_eyes(board: GoBoard, dead: list[Point], seki: list[Point]) -> dict[str, int]:
    """Empty points surrounded by one colour only whose surrounding stones are in seki (GNU
    Go's `final_status_list seki`), per colour: the eye points in seki."""
    n = board.size
    stones = {p: c for p, c in board.stones().items() if p not in set(dead)}
    seki_set = set(seki)
    seen: set[Point] = set()
    out = {"black": 0, "white": 0}
    for r in range(n):
        for c in range(n):
            if (r, c) in stones or (r, c) in seen:
                continue
            region, border, todo = [], set(), [(r, c)]
            seen.add((r, c))
            while todo:
                p = todo.pop()
                region.append(p)
                pr, pc = p
                for q in ((pr - 1, pc), (pr + 1, pc), (pr, pc - 1), (pr, pc + 1)):
                    if not (0 <= q[0] < n and 0 <= q[1] < n):
                        continue
                    if q in stones:
                        border.add(q)
                    elif q not in seen:
                        seen.add(q)
                        todo.append(q)
            colours = {stones[q] for q in border}
            if len(colours) == 1 and border & seki_set:
                out[colours.pop()] += len(region)
    return out


def _expected_margin(board: GoBoard, game: dict[str, Any], dead: list[Point]) -> Decimal:
    """Our margin from GNU Go's, across the two differences between the rulesets.

    1. Pass stones: LGC Timing "Ending the game" 1 hands the opponent a prisoner for every pass;
       GNU Go's Japanese count has no pass stones. Each pass by White is a prisoner of Black's
       placed in White's territory (+1 to Black's margin), each pass by Black −1.
    2. Seki: LGC Scoring "eye points in seki count as territory"; GNU Go's Japanese count gives
       no territory to groups in seki (the Japanese rule). Each eye point of Black in seki +1,
       of White −1.
    """
    seki = [p for p in (parse_point(v, board.size) for v in game["seki"]) if p is not None]
    eyes = _seki_eyes(board, dead, seki)
    passes = board.passes["white"] - board.passes["black"]
    return _gnugo_margin(game["final_score"]) + passes + eyes["black"] - eyes["white"]


def _check_game(game: dict[str, Any], moves: list[Point | None], setup: list[Point]) -> GoBoard:
    """Replay one GNU Go game through GoBoard, asserting it agrees with GNU Go throughout."""
    size = game["size"]
    board = GoBoard(size, handicap=game["handicap"], handicap_points=setup or None)
    assert len(moves) == len(game["boards"]) == len(game["captures"])
    checks = {c["after"]: c for c in game["checks"]}
    for k in range(len(moves) + 1):
        if k in checks:
            assert checks[k]["colour"] == board.to_move
            assert _our_illegal(board) == set(checks[k]["illegal"]), f"{game['name']} after {k}"
        if k == len(moves):
            break
        colour = board.to_move
        result = board.play(colour, moves[k])
        where = f"{game['name']} move {k + 1} {colour} {format_point(moves[k], size)}"
        assert result.legal, f"{where}: {result.reason}"
        assert _board_string(board) == game["boards"][k], where
        # GNU Go's `captures` leaves out pass stones (LGC "Ending the game" 1 counts them).
        ours = [
            board.prisoners["black"] - board.passes["white"],
            board.prisoners["white"] - board.passes["black"],
        ]
        assert ours == game["captures"][k], where
        assert sum(board.passes.values()) == sum(1 for m in moves[: k + 1] if m is None)
    assert board.moves_played() == len(moves)
    return board


def _final_count(board: GoBoard, game: dict[str, Any]) -> None:
    dead = [p for p in (parse_point(v, board.size) for v in game["dead"]) if p is not None]
    result = count(board, dead, Decimal(game["komi"]))
    assert result.margin == _expected_margin(board, game, dead), game["name"]


def _load_sgf(name: str) -> tuple[list[Point | None], list[Point], int]:
    game = sgf.Sgf_game.from_bytes((FIXTURES / f"{name}.sgf").read_bytes())
    root = game.get_root()
    black_setup, _, _ = root.get_setup_stones()
    handicap = root.get("HA") if root.has_property("HA") else 0
    moves: list[Point | None] = []
    colour = "w" if black_setup else "b"
    for node in game.get_main_sequence()[1:]:
        c, move = node.get_move()
        assert c == colour  # alternation from the SGF itself
        moves.append(move)
        colour = "b" if c == "w" else "w"
    return moves, sorted(black_setup), handicap


@pytest.mark.parametrize("game", GAMES, ids=[g["name"] for g in GAMES])
def test_gnugo_game_replays_move_by_move(game: dict[str, Any]) -> None:
    moves, setup, handicap = _load_sgf(game["name"])
    assert handicap == game["handicap"]
    if handicap >= 2:
        # the SGF's AB are GNU Go's fixed_handicap, which is what we place too
        assert setup == handicap_points(game["size"], handicap)
    board = _check_game(game, moves, setup)
    _final_count(board, game)


def test_fixtures_cover_what_they_are_for() -> None:
    """The fixture set: ≥ 6 9×9 and ≥ 4 13×13 games, handicaps, a seki, dead stones, kos."""
    sizes = [g["size"] for g in GAMES]
    assert sizes.count(9) >= 6 and sizes.count(13) >= 4
    assert sum(g["handicap"] >= 2 for g in GAMES) >= 2
    assert any(g["seki"] for g in GAMES) and any(g["dead"] for g in GAMES)
    # a ko point refused by GNU Go in play: an illegal point just after a single capture
    assert any(c["illegal"] for g in GAMES for c in g["checks"] if c["after"] > 0)
    total = sum(p.stat().st_size for p in FIXTURES.iterdir())
    assert total < 300_000


@pytest.mark.parametrize("game", [g for g in GAMES if g["seki"]], ids=lambda g: g["name"])
def test_seki_liberties_are_dame_not_demanded(game: dict[str, Any]) -> None:
    """LGC Game protocol "Dame, Teire": the shared liberties of GNU Go's seki are neutral
    points (dame in the count) that cannot be filled without destroying the seki, so
    `unfilled_dame` does not demand them; GNU Go filled every other dame."""
    moves, setup, _ = _load_sgf(game["name"])
    board = GoBoard(game["size"], handicap=game["handicap"], handicap_points=setup or None)
    for move in moves:
        board.play(board.to_move, move)
    dead = [p for p in (parse_point(v, board.size) for v in game["dead"]) if p is not None]
    seki = {parse_point(v, board.size) for v in game["seki"]}
    result = count(board, dead, Decimal(game["komi"]))
    assert result.dame
    for r, c in result.dame:  # each a liberty of seki stones of both colours
        around = {(r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)} & seki
        assert {board.colour_at(p) for p in around} == {"black", "white"}
    assert unfilled_dame(board, dead) == []


@pytest.mark.parametrize("seq", DOC["handcrafted"], ids=[h["name"] for h in DOC["handcrafted"]])
def test_handcrafted_superko_agrees_with_gnugo(seq: dict[str, Any]) -> None:
    """The triple ko and the ko retaken after two passes: every illegal set after every move
    equals GNU Go's, and the last move is refused by both, as superko (LGC Irregularities
    "Illegal move": "recreate a previous board position with the same person to play")."""
    size = seq["size"]
    moves = [parse_point(v, size) for v in seq["moves"]]
    game = {**seq, "handicap": 0}
    board = _check_game(game, moves, [])
    last = seq["illegal_last"]
    assert board.to_move == last["colour"]
    result = board.play(board.to_move, parse_point(last["vertex"], size))
    assert (result.legal, result.reason) == (False, "superko")


def test_fixed_handicap_points_equal_gnugo() -> None:
    for size, by_n in DOC["fixed_handicap"].items():
        for n, vertices in by_n.items():
            ours = {format_point(p, int(size)) for p in handicap_points(int(size), int(n))}
            assert ours == set(vertices), (size, n)
            board = GoBoard(int(size), handicap=int(n))
            assert set(board.stones()) == set(handicap_points(int(size), int(n)))
            assert board.to_move == "white"


@pytest.mark.slow  # plays GNU Go in a subprocess
@pytest.mark.skipif(
    shutil.which(GNUGO) is None, reason=f"GNU Go not installed at {GNUGO} (apt-get install gnugo)"
)
@pytest.mark.parametrize("seed", [101, 102])
def test_fresh_gnugo_game(seed: int) -> None:
    """A game GNU Go plays now (9×9, level 1), checked like the fixtures."""
    script = _script()
    game = script.play_game(9, 0, seed, GNUGO, 1)
    moves = [parse_point(v, 9) for v in game["moves"]]
    board = _check_game(game, moves, [])
    # the game ends with two passes, White's last (LGC Timing "Ending the game" 3)
    assert moves[-2:] == [None, None] and board.to_move == "black"
    _final_count(board, game)

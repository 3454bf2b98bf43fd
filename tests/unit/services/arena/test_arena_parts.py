"""The arena's parts without engines: `--engine` words as cutechess writes them, the run-level
clock, the openings files and which game plays which opening (TCEC game pairs)."""

from __future__ import annotations

from pathlib import Path

import chess
import pytest

from services.arena.engines import EngineSpec, search_report
from services.arena.limits import RunLimit
from services.arena.openings import OpeningsError, assign, read_openings, start_board


def test_an_engine_is_name_command_options_and_its_own_node_count() -> None:
    spec = EngineSpec.parse(
        "Stockfish 15=/usr/games/stockfish --flag", ["option.Threads=1", "nodes=2000"]
    )
    assert spec.name == "Stockfish 15"
    assert spec.command == ("/usr/games/stockfish", "--flag")
    assert spec.options == (("Threads", "1"),)
    assert spec.nodes == 2000
    inline = EngineSpec.parse("sf=stockfish option.UCI_Elo=1800 'option.Skill Level=3'")
    assert inline.command == ("stockfish",)
    assert inline.options == (("UCI_Elo", "1800"), ("Skill Level", "3"))


@pytest.mark.parametrize(
    "bad", ["stockfish", "=stockfish", "sf=", "sf=x option.Hash", "sf=x nodes=0"]
)
def test_a_malformed_engine_is_refused(bad: str) -> None:
    words = bad.split(" ", 1)
    with pytest.raises(ValueError):
        EngineSpec.parse(words[0], words[1:])


def test_a_run_level_time_control_is_seconds_as_cutechess_writes_it() -> None:
    limit = RunLimit.parse_time_control("2+0.1")
    assert (limit.base_ms, limit.increment_ms) == (2000, 100)
    assert limit.decision() == {"base_ms": 2000, "increment_ms": 100}
    assert limit.clock is not None and limit.clock.increment(1) == 100
    assert RunLimit(nodes=500).decision() == {"nodes": 500} and RunLimit(nodes=500).clock is None
    for bad in ("x", "0+1", "2+-1"):
        with pytest.raises(ValueError):
            RunLimit.parse_time_control(bad)


def test_each_pair_of_games_plays_one_opening_with_colours_reversed() -> None:
    # a double round robin of three: cycle 2 replays cycle 1 with colours reversed
    games = [
        ("r1", "a", "b"),
        ("r2", "c", "a"),
        ("r3", "b", "c"),
        ("r4", "b", "a"),  # reverses r1
        ("r5", "a", "c"),  # reverses r2
        ("r6", "c", "b"),  # reverses r3
        ("r7", "a", "b"),  # a third meeting: a new pair
    ]
    chosen = assign(games, 2)
    assert chosen == {"r1": 0, "r2": 1, "r3": 0, "r4": 0, "r5": 1, "r6": 0, "r7": 1}


def test_an_epd_gives_positions_and_a_pgn_gives_moves(tmp_path: Path) -> None:
    epd = tmp_path / "book.epd"
    epd.write_text(
        'rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - id "open";\n'
        "# a comment\n"
        "bqnbrkrn/pppppppp/8/8/8/8/PPPPPPPP/BQNBRKRN w GEge -\n"
    )
    first, frc = read_openings(epd)
    assert first.name == "open" and first.moves == ()
    assert first.fen == "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 1"
    assert not start_board(first.fen).chess960 and start_board(frc.fen).chess960
    pgn = tmp_path / "book.pgn"
    pgn.write_text('[Opening "Italian"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bc4 *\n\n1. d4 d5 *\n')
    italian, queens = read_openings(pgn)
    assert italian.name == "Italian" and italian.fen is None
    assert italian.moves == ("e2e4", "e7e5", "g1f3", "b8c6", "f1c4")
    assert queens.moves == ("d2d4", "d7d5")


def test_a_bad_openings_file_names_its_line(tmp_path: Path) -> None:
    epd = tmp_path / "bad.epd"
    epd.write_text("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -\nnot a position\n")
    with pytest.raises(OpeningsError, match=r"bad\.epd:2"):
        read_openings(epd)
    empty = tmp_path / "empty.pgn"
    empty.write_text("")
    with pytest.raises(OpeningsError, match="no openings"):
        read_openings(empty)


def test_the_search_report_is_read_from_the_engines_last_info_line_in_whites_view() -> None:
    move = chess.Move.from_uci("e7e5")
    line = "info depth 12 seldepth 15 multipv 1 score cp 35 nodes 2000 nps 1 pv e7e5 g1f3 b8c6"
    played = search_report(move, 7, line, chess.BLACK)
    assert (played.eval_cp, played.mate_in, played.depth, played.nodes) == (-35, None, 12, 2000)
    assert played.pv == ("e7e5", "g1f3", "b8c6") and played.elapsed_ms == 7
    mate = search_report(move, 1, "info depth 3 score mate -2 upperbound nodes 9 pv e7e5", True)
    assert (mate.eval_cp, mate.mate_in, mate.nodes) == (None, -2, 9)
    assert search_report(move, 1, "", True).pv == ()  # an engine that reports nothing

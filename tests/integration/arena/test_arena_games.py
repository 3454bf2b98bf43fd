"""`arbiter arena` (issue 25): real UCI engines play the tournament's schedule on the embedded
log, every move appended as played, every ending by the preset's rule, every engine failure an
`EngineCrashed` with what was seen and the crash rule's loss (TCEC Leagues 14.2)."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path
from typing import Any

import chess
import pytest
from tests_support import append_events, cli_db
from typer.testing import CliRunner

from events_schema import Recorded
from events_schema import events as ev
from projections.standings import fold as standings_fold
from projections.standings import standings
from services.cli.main import app
from services.eventlog.sqlite import SQLiteEventLog

STOCKFISH = shutil.which("stockfish") or (
    "/usr/games/stockfish" if Path("/usr/games/stockfish").exists() else None
)
ENGINE = Path(__file__).resolve().parents[2] / "engines" / "uci_engine.py"
T = "arena-rr"
runner = CliRunner()


def test_engine(mode: str, at: int = 1) -> str:
    return f"{sys.executable} {ENGINE} {mode} {at}"


test_engine.__test__ = False  # type: ignore[attr-defined]


def _create(db: Path, names: list[str], preset: str = "tcec-league", **extra: Any) -> None:
    players = [
        ev.PlayerRegistered(player_id=pid, name=name, kind="engine")
        for pid, name in names_of(names)
    ]
    created = ev.TournamentCreated(
        name="Arena RR", format="round_robin", rules_preset=preset, **extra
    )
    append_events(db, T, created, *players)


def names_of(names: list[str]) -> list[tuple[str, str]]:
    return [(n.lower().replace(" ", "-"), n) for n in names]


def _arena(*args: str, code: int = 0) -> str:
    res = runner.invoke(app, ["arena", T, *args])
    assert res.exit_code == code, res.output
    return res.output


def _records(db: Path) -> list[Recorded]:
    log = SQLiteEventLog(db)
    try:
        return [Recorded.of(e) for e in log.read(T, 1)]
    finally:
        log.close()


def _of(records: list[Recorded], kind: type[ev.Event]) -> list[Any]:
    return [r.event for r in records if isinstance(r.event, kind)]


@pytest.mark.slow
@pytest.mark.skipif(STOCKFISH is None, reason="stockfish not installed (apt-get install stockfish)")
def test_a_four_engine_round_robin_plays_to_final_standings_each_ending_naming_its_rule(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = cli_db(tmp_path, monkeypatch)
    _create(db, ["Stockfish Strong", "Stockfish Weak", "Random", "Crasher"])
    out = _arena(
        "--engine",
        f"stockfish-strong={STOCKFISH}",
        "option.Threads=1",
        "nodes=4000",
        "--engine",
        f"Stockfish Weak={STOCKFISH}",  # by name
        "option.Threads=1",
        "--engine",
        f"random={test_engine('random')}",
        "--engine",
        f"crasher={test_engine('crash', 3)}",
        "--nodes",
        "500",
    )
    assert "pairing.round_robin_complete" in out
    records = _records(db)
    scheduled = _of(records, ev.RoundScheduled)
    assert [r.round for r in scheduled] == [1, 2, 3]
    games = {p.game_id for r in scheduled for p in r.pairings}
    ended = {e.game_id: e for e in _of(records, ev.GameEnded)}
    assert set(ended) == games  # every game finished
    for e in ended.values():
        assert e.rule and e.rule.startswith("tcec-rules Leagues"), e  # each names its rule
    crashes = _of(records, ev.EngineCrashed)
    assert {c.player_id for c in crashes} == {"crasher"} and len(crashes) == 3
    for c in crashes:
        assert "exit code 3" in c.detail and "segmentation fault at move 3" in c.detail
        assert ended[c.game_id].termination == "engine_crash"
        assert ended[c.game_id].rule == "tcec-rules Leagues 14.2"
    # the run-level limit and the engine's own node count are recorded
    (limit,) = [r for r in _of(records, ev.RulingIssued) if r.subject == "arena:limit"]
    assert limit.decision == {"nodes": 500, "engine_nodes": {"stockfish-strong": 4000}}
    # every move came from an engine, with its search report, plies contiguous
    moves = _of(records, ev.MovePlayed)
    sf_moves = [m for m in moves if m.depth is not None and m.depth > 1]
    assert sf_moves and all(m.nodes is not None and m.pv for m in sf_moves)
    assert all(m.pv[0] == m.uci for m in sf_moves)  # the principal variation starts with it
    for gid in games:
        plies = [m.ply for m in moves if m.game_id == gid]
        assert plies == list(range(1, len(plies) + 1))
    table = standings(standings_fold(records))
    assert len(table.rows) == 4
    crasher = next(r for r in table.rows if r.player_id == "crasher")
    assert (crasher.points, crasher.losses, table.rows[-1].player_id) == (0, 3, "crasher")
    assert all(r.played == 3 for r in table.rows)
    assert sum(r.points for r in table.rows) == 6 * 2  # six games, two half-points each


@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        ("crash", "the process died (exit code 3); stderr: test-crash: segmentation fault"),
        ("hang", "no move within 1.0 s (its time and the grace): killed; stderr: test-hang"),
        ("illegal", "answered a move that is not legal: illegal uci: '"),
        ("never", "never started: /nonexistent/engine"),
        ("dies", "engine process died unexpectedly (exit code: 7); stderr: no licence"),
    ],
)
def test_each_engine_failure_is_an_engine_crash_with_what_was_seen_and_the_crash_rules_loss(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: str, expected: str
) -> None:
    db = cli_db(tmp_path, monkeypatch)
    _create(db, ["Good", "Bad"])
    bad = {
        "never": "/nonexistent/engine",
        "dies": "sh -c 'echo no licence >&2; exit 7'",  # exits before the UCI handshake
    }.get(mode) or test_engine(mode, 2)
    _arena(
        "--engine",
        f"good={test_engine('random')}",
        "--engine",
        f"bad={bad}",
        "--nodes",
        "10",
        "--grace",
        "1",
    )
    records = _records(db)
    (crash,) = _of(records, ev.EngineCrashed)
    assert crash.player_id == "bad"
    assert expected in crash.detail, crash.detail
    (ended,) = _of(records, ev.GameEnded)
    (pairing,) = _of(records, ev.RoundScheduled)[0].pairings
    bad_white = pairing.white == "bad"
    assert ended.result == ("0-1" if bad_white else "1-0")
    assert (ended.termination, ended.rule) == ("engine_crash", "tcec-rules Leagues 14.2")
    moves = [m for m in _of(records, ev.MovePlayed)]
    # the failing engine's own moves before its 2nd: one (never: none at all)
    bad_moves = [m for m in moves if (m.colour == "white") == bad_white]
    assert len(bad_moves) == (0 if mode in ("never", "dies") else 1)
    assert crash.ply == len(moves)


def test_a_preset_without_a_crash_rule_leaves_the_game_to_the_arbiter(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = cli_db(tmp_path, monkeypatch)
    _create(db, ["Good", "Bad"], preset="fide-round-robin")
    out = _arena(
        "--engine",
        f"good={test_engine('random')}",
        "--engine",
        f"bad={test_engine('crash', 1)}",
        "--nodes",
        "10",
    )
    assert "left to the arbiter: main-r1-b1" in " ".join(out.split())
    records = _records(db)
    assert len(_of(records, ev.EngineCrashed)) == 1 and not _of(records, ev.GameEnded)


def test_the_clock_runs_under_a_run_level_time_control_and_each_move_carries_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = cli_db(tmp_path, monkeypatch)
    _create(db, ["One", "Two"])
    _arena(
        "--engine",
        f"one={test_engine('random')}",
        "--engine",
        f"two={test_engine('random')}",
        "--time-control",
        "30+0.5",
    )
    records = _records(db)
    (limit,) = [r for r in _of(records, ev.RulingIssued) if r.subject == "arena:limit"]
    assert limit.decision == {"base_ms": 30_000, "increment_ms": 500}
    moves = _of(records, ev.MovePlayed)
    assert moves and all(m.clock_ms is not None and m.move_time_ms is not None for m in moves)
    left = {"white": 30_000, "black": 30_000}
    for m in moves:  # the clock after each move: time off, increment on
        left[m.colour] = left[m.colour] - m.move_time_ms + 500
        assert m.clock_ms == left[m.colour]
    (ended,) = _of(records, ev.GameEnded)
    assert ended.rule is not None


def test_a_flag_fall_under_a_run_level_clock_is_the_presets_loss_on_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = cli_db(tmp_path, monkeypatch)
    _create(db, ["Slow", "Fast"])
    # the slow engine answers after a second, within the grace but past its 0.3 s: a flag
    # fall the decider cannot see (the tournament has no clock), so the arena appends the
    # preset's loss on time
    _arena(
        "--engine",
        f"slow={test_engine('slow', 1)}",
        "--engine",
        f"fast={test_engine('random')}",
        "--time-control",
        "0.3+0",
        "--grace",
        "3",
    )
    records = _records(db)
    (ended,) = _of(records, ev.GameEnded)
    (pairing,) = _of(records, ev.RoundScheduled)[0].pairings
    assert ended.termination == "time_forfeit"
    assert ended.result == ("0-1" if pairing.white == "slow" else "1-0")
    assert ended.rule == "tcec-rules Leagues 10.5"
    assert not _of(records, ev.EngineCrashed)


def test_an_epd_opening_is_the_games_start_position_played_once_with_each_colour(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = cli_db(tmp_path, monkeypatch)
    _create(db, ["One", "Two"], cycles=2)
    book = tmp_path / "book.epd"
    frc = "bqnbrkrn/pppppppp/8/8/8/8/PPPPPPPP/BQNBRKRN w GEge -"
    book.write_text(
        f'{frc} id "frc 1";\nrnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq -\n'
    )
    _arena(
        "--engine",
        f"one={test_engine('random')}",
        "--engine",
        f"two={test_engine('random')}",
        "--nodes",
        "10",
        "--openings",
        str(book),
    )
    records = _records(db)
    rounds = _of(records, ev.RoundScheduled)
    (g1,), (g2,) = (r.pairings for r in rounds)
    assert (g1.white, g1.black) == (g2.black, g2.white)  # the pair, colours reversed
    starts = {s.game_id: s.fen for s in _of(records, ev.GameStarted)}
    assert starts[g1.game_id] == starts[g2.game_id]  # one opening for the pair
    expected = chess.Board(f"{frc} 0 1", chess960=True)
    assert chess.Board(starts[g1.game_id], chess960=True) == expected  # FRC castling kept
    assert len(_of(records, ev.GameEnded)) == 2


def test_a_pgn_opening_is_played_as_its_moves_without_times(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = cli_db(tmp_path, monkeypatch)
    _create(db, ["One", "Two"], cycles=2)
    book = tmp_path / "book.pgn"
    book.write_text('[Opening "Italian"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bc4 *\n')
    _arena(
        "--engine",
        f"one={test_engine('random')}",
        "--engine",
        f"two={test_engine('random')}",
        "--nodes",
        "10",
        "--openings",
        str(book),
    )
    records = _records(db)
    moves = _of(records, ev.MovePlayed)
    for gid in {m.game_id for m in moves}:
        mine = [m for m in moves if m.game_id == gid]
        assert [m.uci for m in mine[:5]] == ["e2e4", "e7e5", "g1f3", "b8c6", "f1c4"]
        assert all(m.move_time_ms is None and m.eval_cp is None for m in mine[:5])  # book
        assert all(m.move_time_ms is not None for m in mine[5:])  # the engines' own
    assert all(s.fen is None for s in _of(records, ev.GameStarted))


def test_under_the_tournaments_time_control_the_decider_itself_rules_the_flag_fall(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = cli_db(tmp_path, monkeypatch)
    blitz = ev.TimeControl(name="1+0", base_seconds=1)
    _create(db, ["Slow", "Fast"], time_controls=[blitz])
    _arena(
        "--engine", f"slow={test_engine('slow', 2)}", "--engine", f"fast={test_engine('random')}"
    )
    records = _records(db)
    assert not [r for r in _of(records, ev.RulingIssued) if r.subject == "arena:limit"]
    moves = _of(records, ev.MovePlayed)
    (ended,) = _of(records, ev.GameEnded)
    (pairing,) = _of(records, ev.RoundScheduled)[0].pairings
    assert ended.termination == "time_forfeit" and ended.rule == "tcec-rules Leagues 10.5"
    assert ended.result == ("0-1" if pairing.white == "slow" else "1-0")
    assert "run-level" not in ended.detail  # the decider's own ending, with the move
    last = moves[-1]
    assert last.move_time_ms is not None and last.move_time_ms >= 1000 and last.clock_ms is None
    seqs = [r.envelope.seq for r in records if isinstance(r.event, ev.MovePlayed | ev.GameEnded)]
    assert seqs[-1] == seqs[-2] + 1  # the move and its ending, one batch


@pytest.mark.slow
def test_a_swiss_is_paired_round_by_round_as_arbiter_pair_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = cli_db(tmp_path, monkeypatch)
    players = [
        ev.PlayerRegistered(player_id=f"e{i}", name=f"E{i}", kind="engine") for i in range(4)
    ]
    created = ev.TournamentCreated(
        name="Swiss", format="swiss", rounds=2, rules_preset="fide-swiss"
    )
    append_events(db, T, created, *players)
    engines = [w for i in range(4) for w in ("--engine", f"e{i}={test_engine('random')}")]
    out = _arena(*engines, "--nodes", "10", "--rounds", "1")
    assert "1 round(s) played (--rounds)" in " ".join(out.split())
    assert [r.round for r in _of(_records(db), ev.RoundScheduled)] == [1]
    out = _arena(*engines, "--nodes", "10")  # round 2 is paired from round 1's results
    records = _records(db)
    assert [r.round for r in _of(records, ev.RoundScheduled)] == [1, 2]
    assert len(_of(records, ev.GameEnded)) == 4
    assert "no round to pair" in out


def test_an_frd_event_plays_bookmaker_positions_in_an_order_drawn_by_lot(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = cli_db(tmp_path, monkeypatch)
    _create(db, ["One", "Two"], preset="tcec-frd", cycles=2)
    engines = [
        "--engine",
        f"one={test_engine('random')}",
        "--engine",
        f"two={test_engine('random')}",
    ]
    out = _arena(*engines, "--nodes", "10", code=1)
    assert "arena.frd_openings" in out  # FRD 4: FRC/DFRC positions, from the bookmaker's file
    positions = [
        "bqnbrkrn/pppppppp/8/8/8/8/PPPPPPPP/BQNBRKRN w GEge -",
        "rkrnnqbb/pppppppp/8/8/8/8/PPPPPPPP/RKRNNQBB w CAca -",
        "nrbkqrnb/pppppppp/8/8/8/8/PPPPPPPP/NRBKQRNB w FBfb -",
    ]
    book = tmp_path / "frc.epd"
    book.write_text("".join(f"{p}\n" for p in positions))
    _arena(*engines, "--nodes", "10", "--openings", str(book))
    _arena(*engines, "--nodes", "10", "--openings", str(book))  # complete: nothing more
    records = _records(db)
    (lot,) = [lot for lot in _of(records, ev.LotDrawn) if lot.subject == "arena:openings-order"]
    assert sorted(lot.outcome) == ["0001", "0002", "0003"]
    first = positions[int(lot.outcome[0]) - 1]
    fens = [s.fen for s in _of(records, ev.GameStarted)]
    assert len(fens) == 2 and fens[0] == fens[1]  # the pair plays the lot's first position
    assert chess.Board(fens[0], chess960=True) == chess.Board(f"{first} 0 1", chess960=True)

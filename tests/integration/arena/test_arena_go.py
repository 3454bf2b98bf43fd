"""`arbiter arena` on a Go tournament (issue 25): GTP engines play the McMahon schedule under
the LGC rules, every move and pass appended as played, the passes pausing play, both engines'
`final_status_list dead` agreed (the LGC count ends the game) or disputed (play resumes),
every engine failure an `EngineCrashed` with what was seen, left to the referee (the LGC
rules have no crash rule)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from tests_support import append_events, cli_db
from typer.testing import CliRunner

from events_schema import Recorded
from events_schema import events as ev
from events_schema.go import GoSettings
from projections.standings import fold as standings_fold
from projections.standings import standings
from services.cli.main import app
from services.eventlog.sqlite import SQLiteEventLog

GNUGO = shutil.which("gnugo") or ("/usr/games/gnugo" if Path("/usr/games/gnugo").exists() else None)
ROOT = Path(__file__).resolve().parents[3]
ENGINE = ROOT / "tests" / "engines" / "gtp_engine.py"
CLI = "import sys; from services.cli.main import main; sys.argv[0] = 'arbiter'; main()"
T = "go-arena"
runner = CliRunner()
BYO_YOMI = ev.TimeControl(
    name="byo-yomi", base_seconds=0, overtime="byo_yomi", overtime_seconds=2, overtime_periods=5
)


def gtp(mode: str, at: int = 1) -> str:
    return f"{sys.executable} {ENGINE} {mode} {at}"


def _create(db: Path, ranks: list[str], size: int, **extra: Any) -> None:
    created = ev.TournamentCreated(
        name="Go arena",
        game="go",
        format="mcmahon",
        rounds=1,
        board_size=size,
        rules_preset="lgc",
        go=GoSettings(mcmahon_bar="1d", handicap="rank_difference"),
        **extra,
    )
    players = [
        ev.PlayerRegistered(player_id=f"p{i}", name=f"P{i}", kind="engine", go_rank=rank)
        for i, rank in enumerate(ranks, start=1)
    ]
    append_events(db, T, created, *players)


def _arena(*args: str, code: int = 0) -> str:
    res = runner.invoke(app, ["arena", T, *args])
    assert res.exit_code == code, res.output
    return " ".join(res.output.split())


def _records(db: Path) -> list[Recorded]:
    log = SQLiteEventLog(db)
    try:
        return [Recorded.of(e) for e in log.read(T, 1)]
    finally:
        log.close()


def _of(records: list[Recorded], kind: type[ev.Event]) -> list[Any]:
    return [r.event for r in records if isinstance(r.event, kind)]


@pytest.mark.slow
@pytest.mark.skipif(GNUGO is None, reason="GNU Go not installed (apt-get install gnugo)")
def test_a_gnugo_mcmahon_round_plays_itself_through_gtp_to_standings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = cli_db(tmp_path, monkeypatch)
    # 2d and 1d start on the bar (even game); 2k and 6k are 4 McMahon points apart: 3 stones
    _create(db, ["2d", "1d", "2k", "6k"], 9, time_controls=[BYO_YOMI])
    gnugo = f"{GNUGO} --mode gtp --level 1 --never-resign"  # both games to the count
    out = _arena(*(w for i in range(1, 5) for w in ("--engine", f"p{i}={gnugo}")))
    assert "no round to pair: mcmahon.complete" in out
    records = _records(db)
    (scheduled,) = _of(records, ev.RoundScheduled)
    handicaps = {(p.white, p.black): p.handicap for p in scheduled.pairings}
    assert sorted(handicaps.values()) == [0, 3]
    ended = {e.game_id: e for e in _of(records, ev.GameEnded)}
    agreed = {e.game_id: e for e in _of(records, ev.GoStatusAgreed)}
    assert set(ended) == {p.game_id for p in scheduled.pairings} == set(agreed)
    for pairing in scheduled.pairings:
        game = ended[pairing.game_id]
        assert game.termination == "counting" and game.rule == "LGC Scoring"
        assert game.go_score is not None
        # LGC Scoring: komi 7.5 in an even game, 0.5 in a handicap game
        assert game.go_score.komi == (7.5 if pairing.handicap == 0 else 0.5)
        assert game.go_score.dead_stones == agreed[pairing.game_id].dead_stones
        moves = [m for m in _of(records, ev.MovePlayed) if m.game_id == pairing.game_id]
        # with handicap stones White moves first; every move carries its time and clock
        assert moves[0].colour == ("white" if pairing.handicap >= 2 else "black")
        assert all(m.point and m.move_time_ms is not None for m in moves)
        assert [m.point for m in moves[-2:]] == ["pass", "pass"] and moves[-1].colour == "white"
        assert [m.ply for m in moves] == list(range(1, len(moves) + 1))  # none twice
    table = standings(standings_fold(records))
    assert sum(r.wins for r in table.rows) == 2
    shown = runner.invoke(app, ["standings", T])
    assert shown.exit_code == 0 and "McMahon score" in shown.output


@pytest.fixture
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = cli_db(tmp_path, monkeypatch)
    _create(path, ["1d", "1d"], 7)
    return path


def test_random_gtp_engines_play_to_the_count_with_a_run_level_clock(db: Path) -> None:
    out = _arena("--engine", f"p1={gtp('random')}", "--engine", f"p2={gtp('random')}",
                 "--time-control", "60")  # fmt: skip
    assert "LGC Scoring" in out
    records = _records(db)
    (limit,) = [r for r in _of(records, ev.RulingIssued) if r.subject == "arena:limit"]
    assert limit.decision == {"base_ms": 60000, "increment_ms": 0}
    (game,) = _of(records, ev.GameEnded)
    assert game.termination == "counting" and game.go_score.dead_stones == []
    moves = _of(records, ev.MovePlayed)
    assert all(m.clock_ms is not None and m.clock_ms <= 60000 for m in moves)


@pytest.mark.parametrize(
    ("mode", "seen"),
    [
        ("crash", "the process died (exit code 3); stderr: test-crash: segmentation fault"),
        ("hang", "no answer to 'genmove"),
        ("illegal", "which is not legal"),
    ],
)
def test_an_engine_failure_is_an_engine_crashed_with_what_was_seen_left_to_the_referee(
    db: Path, mode: str, seen: str
) -> None:
    out = _arena("--engine", f"p1={gtp(mode, 3)}", "--engine", f"p2={gtp(mode, 3)}",
                 "--time-control", "1", "--grace", "0.5")  # fmt: skip
    assert "left to the arbiter" in out
    records = _records(db)
    (crash,) = _of(records, ev.EngineCrashed)
    assert seen in crash.detail
    assert crash.ply == 4  # Black (first to move) fails at its third move, ply 5
    assert not _of(records, ev.GameEnded)  # LGC: no crash rule, the referee decides
    moves = _of(records, ev.MovePlayed)
    assert len(moves) == crash.ply  # the failed move was not appended


def test_an_engine_that_never_starts_is_an_engine_crashed(db: Path) -> None:
    _arena("--engine", "p1=/no/such/gtp-engine", "--engine", f"p2={gtp('random')}",
           "--time-control", "60")  # fmt: skip
    (crash,) = _of(_records(db), ev.EngineCrashed)
    assert crash.ply == 0 and "never started: /no/such/gtp-engine" in crash.detail


def test_engines_disagreeing_on_dead_stones_dispute_and_play_resumes(db: Path) -> None:
    out = _arena("--engine", f"p1={gtp('disagree')}", "--engine", f"p2={gtp('random')}",
                 "--time-control", "60")  # fmt: skip
    records = _records(db)
    (disputed,) = _of(records, ev.GoStatusDisputed)
    assert len(disputed.points) == 1 and "Black's engine none" in disputed.detail
    assert not _of(records, ev.GoStatusAgreed)
    (game,) = _of(records, ev.GameEnded)
    # LGC Timing "Ending the game" 6: both pass at the start of the resumption: the game
    # stops and all stones are counted as they stand
    assert game.rule == 'LGC Timing "Ending the game" 6' and game.termination == "counting"
    assert "LGC" in out


def test_a_resigning_engine_loses_by_resignation(db: Path) -> None:
    _arena("--engine", f"p1={gtp('resign', 2)}", "--engine", f"p2={gtp('random')}",
           "--time-control", "60")  # fmt: skip
    records = _records(db)
    (pairing,) = _of(records, ev.RoundScheduled)[0].pairings
    (game,) = _of(records, ev.GameEnded)
    assert game.termination == "resignation" and game.rule == 'LGC Game protocol "Resignation"'
    assert game.result == ("0-1" if pairing.white == "p1" else "1-0")


def test_a_byo_yomi_flag_falls_by_the_decider_s_clock(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """LGC Timing "Loss on time": one byo-yomi period of 1 s, no main time; the slow engine's
    third move takes 1.5 s: the move is recorded, then the loss (the decider's clock)."""
    db = cli_db(tmp_path, monkeypatch)
    one = ev.TimeControl(
        name="byo", base_seconds=0, overtime="byo_yomi", overtime_seconds=1, overtime_periods=1
    )
    _create(db, ["1d", "1d"], 7, time_controls=[one])
    _arena("--engine", f"p1={gtp('slow', 3)}", "--engine", f"p2={gtp('slow', 3)}",
           "--grace", "3")  # fmt: skip
    records = _records(db)
    (game,) = _of(records, ev.GameEnded)
    assert game.termination == "time_forfeit" and game.rule == 'LGC Timing "Loss on time"'
    moves = _of(records, ev.MovePlayed)
    assert len(moves) == 5 and moves[-1].move_time_ms >= 1000  # Black's third move
    assert game.result == "1-0"  # Black lost on time


def test_nodes_is_refused_for_gtp_engines(db: Path) -> None:
    out = _arena("--engine", f"p1={gtp('random')}", "--engine", f"p2={gtp('random')}",
                 "--nodes", "5", code=1)  # fmt: skip
    assert "refused arena.no_time_control (--nodes)" in out


def test_kill_9_in_mid_game_then_again_resumes_from_the_log_nothing_lost_or_repeated(
    tmp_path: Path,
) -> None:
    db = tmp_path / "events.sqlite3"
    _create(db, ["1d", "1d"], 7)

    def args(pace_ms: int) -> list[str]:
        engine = f"{sys.executable} {ENGINE} paced {pace_ms}"
        return [sys.executable, "-c", CLI, "arena", T, "--db", str(db), "--time-control", "600",
                "--engine", f"p1={engine}", "--engine", f"p2={engine}"]  # fmt: skip

    env = {**os.environ, "PYTHONPATH": str(ROOT), "ARBITER_DATA": str(tmp_path)}
    proc = subprocess.Popen(
        args(40), cwd=ROOT, env=env, start_new_session=True, stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if len(_of(_records(db), ev.MovePlayed)) >= 10:
                break
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
            time.sleep(0.05)
        else:
            pytest.fail("the game did not reach 10 plies")
        os.killpg(proc.pid, signal.SIGKILL)  # the arena and its engines: a power cut
        proc.wait(10)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        if proc.stderr:
            proc.stderr.close()
    before = [m.point for m in _of(_records(db), ev.MovePlayed)]
    assert not _of(_records(db), ev.GameEnded)  # cut off in the middle

    again = subprocess.run(args(1), cwd=ROOT, env=env, capture_output=True, timeout=120)
    assert again.returncode == 0, again.stderr.decode()[-3000:]
    after = _records(db)
    ids = [r.envelope.event_id for r in after]
    assert len(ids) == len(set(ids))
    moves = _of(after, ev.MovePlayed)
    assert [m.ply for m in moves] == list(range(1, len(moves) + 1))  # none twice
    assert [m.point for m in moves][: len(before)] == before  # none lost or replaced
    (game,) = _of(after, ev.GameEnded)
    assert game.rule is not None and game.rule.startswith("LGC")
    assert len(_of(after, ev.GameStarted)) == 1

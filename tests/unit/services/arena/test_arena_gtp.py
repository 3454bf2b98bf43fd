"""The Go arena's parts: the GTP client against the test engine (responses, refusals, a death,
a hang), the GTP clock commands for each LGC time control, the mover's deadline, and the dead
stones an engine lists."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from events_schema import events as ev
from projections.go import clock as go_clock
from services.arena.engines import EngineFailed, EngineSpec
from services.arena.go_game import (
    dead_vertices,
    deadline_s,
    time_left_command,
    time_settings_command,
)
from services.arena.gtp import GtpEngine

ENGINE = Path(__file__).resolve().parents[3] / "engines" / "gtp_engine.py"


def _engine(mode: str, at: int = 1) -> GtpEngine:
    return GtpEngine.start(EngineSpec.parse(f"e={sys.executable} {ENGINE} {mode} {at}"))


def test_the_client_reads_responses_multi_line_ones_and_refusals() -> None:
    engine = _engine("random")
    try:
        assert {"genmove", "final_status_list", "time_left"} <= engine.commands
        assert engine.command("boardsize 7") == ""
        assert engine.command("name") == "test-random"
        move, elapsed = engine.genmove("black", 5.0)
        assert move != "pass" and elapsed >= 0
        with pytest.raises(EngineFailed) as refused:
            engine.command("no_such_command")
        assert refused.value.kind == "no_move" and "unknown command" in refused.value.detail
    finally:
        engine.close()
    assert engine.process.poll() is not None  # gone


def test_a_dying_engine_is_seen_with_its_exit_code_and_stderr() -> None:
    engine = _engine("crash", 1)
    try:
        with pytest.raises(EngineFailed) as died:
            engine.genmove("black", 5.0)
    finally:
        engine.close()
    assert died.value.kind == "terminated"
    assert "exit code 3" in died.value.detail and "segmentation fault" in died.value.detail


def test_a_hanging_engine_is_killed_after_its_deadline() -> None:
    engine = _engine("hang", 1)
    with pytest.raises(EngineFailed) as hung:
        engine.genmove("white", 0.3)
    assert hung.value.kind == "timeout" and "killed" in hung.value.detail
    assert engine.process.poll() is not None


def test_a_command_that_is_not_an_engine_never_starts() -> None:
    with pytest.raises(EngineFailed) as failed:
        GtpEngine.start(EngineSpec.parse("e=/no/such/engine"))
    assert failed.value.kind == "never_started" and "/no/such/engine" in failed.value.detail


def _tc(**kw: object) -> go_clock.ClockSpec:
    return go_clock.ClockSpec.of(ev.TimeControl(name="tc", **kw))  # type: ignore[arg-type]


def test_gtp_time_settings_for_each_lgc_time_control() -> None:
    byo = _tc(base_seconds=600, overtime="byo_yomi", overtime_seconds=30, overtime_periods=5)
    canadian = _tc(base_seconds=600, overtime="canadian", overtime_seconds=300, overtime_stones=25)
    sudden = _tc(base_seconds=1800)
    assert time_settings_command({"kgs-time_settings"}, byo) == "kgs-time_settings byoyomi 600 30 5"
    assert time_settings_command(set(), byo) == "time_settings 600 30 1"
    assert time_settings_command(set(), canadian) == "time_settings 600 300 25"
    assert time_settings_command(set(), sudden) == "time_settings 1800 0 0"


def test_time_left_and_the_deadline_follow_the_clock_into_overtime() -> None:
    canadian = _tc(base_seconds=10, overtime="canadian", overtime_seconds=60, overtime_stones=5)
    clock = go_clock.start(canadian)
    assert time_left_command(set(), clock, "black") == "time_left black 10 0"
    assert deadline_s(clock, "black") == 70  # main time and the first period
    clock = go_clock.apply_move(clock, "black", 12_000)  # 2 s into the period: one stone
    assert time_left_command(set(), clock, "black") == "time_left black 58 4"
    assert deadline_s(clock, "black") == 58
    byo = _tc(base_seconds=0, overtime="byo_yomi", overtime_seconds=30, overtime_periods=3)
    clock = go_clock.start(byo)
    assert time_left_command({"kgs-time_settings"}, clock, "white") == "time_left white 30 3"
    assert time_left_command(set(), clock, "white") == "time_left white 30 1"
    assert deadline_s(clock, "white") == 90


def test_the_dead_stones_an_engine_lists_are_vertices_on_the_board() -> None:
    assert dead_vertices("A1 b2\nC3 pass Z99", 9) == {"A1", "B2", "C3"}
    assert dead_vertices("", 9) == set()

"""Server interruptions (Swiss/Cup/FRD 7.b, Leagues 14.1, 4k 6.1) and engine crashes (Swiss
7.a, Leagues 14.2), each event in its own wording."""

from __future__ import annotations

import chess
import pytest

from events_schema.events import AdjudicationIssued, EngineCrashed, ServerInterrupted
from projections.endings import WDL, crash_ending, interruption_ruling


def _facts(
    w: int | None, b: int | None, moves: int = 40, men: int = 20, ply: int = 80
) -> ServerInterrupted:
    return ServerInterrupted(
        game_id="g1",
        ply=ply,
        moves_completed=moves,
        white_eval_cp=w,
        black_eval_cp=b,
        pieces_on_board=men,
    )


@pytest.mark.parametrize(
    ("preset", "w", "b", "scenario", "outcome", "rule"),
    [
        # ii, Swiss wording: "equal to or more than ABS(10)"
        ("tcec-swiss", 1000, 1000, "ii", "1-0", "tcec-rules Swiss 7.b.ii"),
        ("tcec-cup", -1000, -1200, "ii", "0-1", "tcec-rules Cup 7.b.ii"),
        ("tcec-frd", 999, 1500, "v", "restart", "tcec-rules FRD 7.b.v"),
        ("tcec-swiss", 1000, -1000, "v", "restart", "tcec-rules Swiss 7.b.v"),
        # ii, Leagues wording: "more than +10, or … less than −10"
        ("tcec-league", 1000, 1500, "v", "restart", "tcec-rules Leagues 14.1.5"),
        ("tcec-league", 1001, 1500, "ii", "1-0", "tcec-rules Leagues 14.1.2"),
        ("tcec-4k", -1001, -1001, "ii", "0-1", "tcec-rules 4k 6.1.2"),
        ("tcec-4k", -1000, -1001, "v", "restart", "tcec-rules 4k 6.1.5"),
        # iii: Swiss "equal to or less than ABS(0.15)", Leagues "less than ABS(0.15)"
        ("tcec-swiss", 15, -15, "iii", "1/2-1/2", "tcec-rules Swiss 7.b.iii"),
        ("tcec-swiss", 16, 0, "v", "restart", "tcec-rules Swiss 7.b.v"),
        ("tcec-premier", 15, 0, "v", "restart", "tcec-rules Leagues 14.1.5"),
        ("tcec-premier", 14, -14, "iii", "1/2-1/2", "tcec-rules Leagues 14.1.3"),
        # a missing evaluation meets neither ii nor iii
        ("tcec-swiss", None, 0, "v", "restart", "tcec-rules Swiss 7.b.v"),
    ],
)
def test_scenarios_ii_iii_v(
    preset: str, w: int | None, b: int | None, scenario: str, outcome: str, rule: str
):
    ruling = interruption_ruling(_facts(w, b), preset)
    assert (ruling.scenario, ruling.outcome, ruling.rule) == (scenario, outcome, rule)
    assert ruling.rule in ruling.basis


def test_iii_needs_35_moves_completed_by_both():
    assert interruption_ruling(_facts(0, 0, moves=34), "tcec-swiss").scenario == "v"
    assert interruption_ruling(_facts(0, 0, moves=35), "tcec-swiss").scenario == "iii"
    assert interruption_ruling(_facts(0, 0, moves=34), "tcec-league").scenario == "v"
    assert interruption_ruling(_facts(0, 0, moves=35), "tcec-league").scenario == "iii"


def test_i_web_server_only_the_game_goes_on():
    ruling = interruption_ruling(_facts(2000, 2000), "tcec-swiss", web_server_only=True)
    assert (ruling.scenario, ruling.outcome) == ("i", "continue")
    assert ruling.adjudication("g1") is None


class _Prober:
    def __init__(self, wdl: WDL | None) -> None:
        self.wdl = wdl

    def probe_wdl(self, board: chess.Board) -> WDL | None:
        return self.wdl


def test_iv_seven_men_await_a_tablebase_unless_one_answers():
    ruling = interruption_ruling(_facts(50, 60, men=7), "tcec-cup")
    assert (ruling.scenario, ruling.outcome, ruling.rule) == (
        "iv",
        "await_tablebase",
        "tcec-rules Cup 7.b.iv",
    )
    assert ruling.adjudication("g1") is None
    assert interruption_ruling(_facts(50, 60, men=8), "tcec-cup").scenario == "v"
    board = chess.Board("8/8/8/3k4/8/1P6/1PP5/K6Q b - - 0 1")  # 7 men, Black to move
    ruling = interruption_ruling(
        _facts(50, 60, men=7), "tcec-league", board=board, prober=_Prober("loss")
    )
    assert (ruling.scenario, ruling.outcome, ruling.rule) == (
        "iv",
        "1-0",
        "tcec-rules Leagues 14.1.4",
    )
    ruling = interruption_ruling(
        _facts(None, None, men=5), "tcec-4k", board=board, prober=_Prober("draw")
    )
    assert (ruling.scenario, ruling.outcome) == ("iv", "1/2-1/2")
    ruling = interruption_ruling(
        _facts(50, 60, men=7), "tcec-4k", board=board, prober=_Prober(None)
    )
    assert ruling.outcome == "await_tablebase"


def test_v_restarts_from_the_position_reached():
    ruling = interruption_ruling(_facts(120, 80, ply=57), "tcec-swiss")
    assert (ruling.scenario, ruling.outcome, ruling.restart_from_ply) == ("v", "restart", 57)
    event = ruling.adjudication("g1")
    assert isinstance(event, AdjudicationIssued)
    assert (event.outcome, event.restart_from_ply, event.rule) == (
        "restart",
        57,
        "tcec-rules Swiss 7.b.v",
    )
    event = interruption_ruling(_facts(1000, 1000), "tcec-swiss").adjudication("g1")
    assert event is not None and (event.outcome, event.restart_from_ply) == ("1-0", None)


def test_human_presets_have_no_interruption_rule():
    with pytest.raises(ValueError, match="no server-interruption rule"):
        interruption_ruling(_facts(0, 0), "fide-swiss")


def test_crashes_are_counted_as_losses():
    crash = EngineCrashed(game_id="g1", player_id="stockfish", ply=33, detail="segfault")
    ending = crash_ending(crash, "tcec-swiss", "white")
    assert ending is not None
    assert (ending.result, ending.termination, ending.rule, ending.ply) == (
        "0-1",
        "engine_crash",
        "tcec-rules Swiss 7.a",
        33,
    )
    assert "segfault" in ending.detail and "tcec-rules 0.0" in ending.detail
    ending = crash_ending(crash, "tcec-league", "black")
    assert ending is not None and (ending.result, ending.rule) == ("1-0", "tcec-rules Leagues 14.2")
    ending = crash_ending(crash, "tcec-4k-minifinal", "black")
    assert ending is not None and ending.rule == "tcec-rules 4k 6.2"
    assert crash_ending(crash, "gct", "white") is None

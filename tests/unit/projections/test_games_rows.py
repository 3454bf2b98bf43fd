"""projections/games.py: a source's words read as a termination, the disagreements between the
ending in force and the source's, and one row per game from the records."""

from __future__ import annotations

import pytest
from builders import created, move, player, recorded, round_

from events_schema import events as ev
from projections.endings.rules import ruleset_for
from projections.games import disagreement, ending_label, game_rows, read_source, rule_text


@pytest.mark.parametrize(
    ("result", "termination", "details", "notes", "expected", "crashed"),
    [
        ("1-0", "", "White mates", (), "checkmate", None),
        ("1/2-1/2", "adjudication", "TCEC draw rule", (), "tcec_draw_rule", None),
        ("1/2-1/2", "adjudication", "SyzygyTB", (), "tablebase", None),
        ("1-0", "adjudication", "TCEC win rule", (), "adjudication", None),
        ("1/2-1/2", "", "3-Fold repetition", (), "threefold_repetition", None),
        ("1/2-1/2", "", "Fifty moves rule", (), "fifty_move_rule", None),
        ("1/2-1/2", "", "Stalemate", (), "stalemate", None),
        ("1-0", "abandoned", "Black disconnects", (), "engine_crash", "black"),
        ("0-1", "abandoned", "White disconnects", (), "engine_crash", "white"),
        ("0-1", "stalled connection", "", (), "engine_crash", "white"),
        ("0-1", "time forfeit", "", ("White loses on time",), "time_forfeit", None),
        ("0-1", "Normal", "", (), None, None),
        ("1-0", "", "", ("Black resigns",), "resignation", None),
        ("1/2-1/2", "Time forfeit", "", (), "time_forfeit", None),
    ],
)
def test_read_source(result, termination, details, notes, expected, crashed):
    src = read_source(result, termination, details, notes)
    assert src.termination == expected
    assert src.crashed == crashed
    assert src.result == result


def test_rule_text():
    assert rule_text("tcec_draw_rule", "tcec-rules Leagues 10.2") == (
        "TCEC draw rule (tcec-rules Leagues 10.2)"
    )
    assert rule_text("adjudication", "arena: TCEC win rule") == "arena: TCEC win rule"
    assert rule_text("agreement", None) == "agreement"
    assert rule_text(None, None) == ""
    # A result typed off a score sheet: its words, not the stored termination "other".
    assert rule_text("other", None, "result entered by the arbiter") == (
        "result entered by the arbiter"
    )


def test_ending_label_names_an_entered_result_in_words():
    assert ending_label("other") == "result entered by the arbiter"  # no move recorded
    assert ending_label("other", plies=40) == "other ending"
    assert ending_label("other", "rules infraction") == "rules infraction"
    assert ending_label("time_forfeit") == "loss on time"
    assert ending_label(None) == ""


def test_disagreements():
    league = ruleset_for("tcec-league")
    mate = read_source("1-0", "", "White mates")
    agree = dict(result="1-0", termination="checkmate", rule="tcec-rules Leagues 10.4", plies=9)
    assert disagreement(**agree, source=mate, source_plies=9, ruleset=league) is None
    assert disagreement(**agree, source=mate, source_plies=11, ruleset=league) == (
        "ended at ply 9; the source at ply 11"
    )
    other = {**agree, "result": "1/2-1/2", "termination": "tcec_draw_rule"}
    other["rule"] = "tcec-rules Leagues 10.2"
    why = disagreement(**other, source=mate, ruleset=league)
    assert why == (
        "result 1/2-1/2; the source says 1-0; TCEC draw rule (tcec-rules Leagues 10.2); "
        "the source says 'White mates'"
    )
    # the source's own ending recorded: fine by hand, a disagreement when the rules decide it
    arena = {**agree, "termination": "adjudication", "rule": "arena: White mates"}
    assert disagreement(**arena, source=mate) is None
    assert disagreement(**arena, source=mate, ruleset=league) == (
        "the source says 'White mates'; the rules of tcec-league do not end the game by ply 9"
    )
    # tablebase adjudication and the old win rule are not decided from the moves
    tb = read_source("1/2-1/2", "adjudication", "SyzygyTB")
    draw = {**arena, "result": "1/2-1/2", "rule": "arena: SyzygyTB"}
    assert disagreement(**draw, source=tb, ruleset=league) is None
    # a FIDE claim is not automatic: the source's repetition is no disagreement there
    rep = read_source("1/2-1/2", "", "3-Fold repetition")
    rep_arena = {**draw, "rule": "arena: 3-Fold repetition"}
    assert disagreement(**rep_arena, source=rep, ruleset=ruleset_for(None)) is None
    assert disagreement(**rep_arena, source=rep, ruleset=league) is not None
    # no result on one side
    unfinished = read_source("")
    assert disagreement(**agree, source=unfinished) == "result 1-0; the source has none (no Result)"
    # a source read in progress (`*`: an import of a live file, the relay) says nothing
    assert disagreement(**agree, source=read_source("*")) is None
    assert disagreement(result=None, termination=None, rule=None, plies=3, source=mate) == (
        "no result recorded; the source says 1-0"
    )


def test_rows_keep_the_rule_the_source_and_a_correction():
    source = ev.GameSource(file="f.pgn", index=1, result="1-0", details="White mates")
    events: list[ev.Event] = [
        created(fmt="match", rules_preset="tcec-league", adjudication="rules"),
        player("a", kind="engine"),
        player("b", kind="engine"),
        round_(1, ("g1", "a", "b")),
        round_(2, ("g2", "b", "a")),
        ev.GameStarted(game_id="g1", source=source),
        move("g1", 1, "e2e4"),
        ev.GameEnded(
            game_id="g1",
            result="1-0",
            termination="checkmate",
            detail="ply 1: …",
            rule="tcec-rules Leagues 10.4",
        ),
    ]
    recs = recorded("t", events)
    rows = game_rows(recs)
    assert [r.game_id for r in rows] == ["g1", "g2"]
    g1, g2 = rows
    assert (g1.white, g1.black, g1.result, g1.plies) == ("A", "B", "1-0", 1)
    assert g1.rule == "checkmate (tcec-rules Leagues 10.4)"
    assert g1.source == source
    assert g1.disagrees is False
    assert (g2.result, g2.source, g2.disagrees, g2.rule) == (None, None, False, "")
    # a correction to a draw now disagrees with the source
    ended_id = recs[-1].envelope.event_id
    corrected = ev.ResultCorrected(
        corrects_event_id=ended_id,
        game_id="g1",
        result="1/2-1/2",
        termination="agreement",
        reason="the players agreed",
    )
    g1 = game_rows(recorded("t", [*events, corrected]))[0]
    assert (g1.result, g1.citation, g1.detail) == ("1/2-1/2", None, "corrected: the players agreed")
    assert g1.disagrees and g1.why == "result 1/2-1/2; the source says 1-0"
    assert g1.as_dict()["source"]["details"] == "White mates"


def test_a_go_count_with_another_margin_than_the_sgf_result_disagrees():
    from decimal import Decimal

    from events_schema import events as ev
    from projections.games import go_margin_disagreement

    def ended(margin: str) -> ev.GameEnded:
        score = ev.GoScore(
            black_territory=10,
            white_territory=5,
            black_prisoners=1,
            white_prisoners=1,
            komi=Decimal("7.5"),
            margin=Decimal(margin),
        )
        return ev.GameEnded(game_id="g1", result="1-0", termination="counting", go_score=score)

    source = ev.GameSource(file="a.sgf", result="1-0", details="W+2.5")
    assert go_margin_disagreement(source, ended("-2.5")) is None
    assert go_margin_disagreement(source, ended("-1.5")) == "counted W+1.5; the source says W+2.5"
    assert (
        go_margin_disagreement(source.model_copy(update={"details": "W+R"}), ended("-1.5")) is None
    )

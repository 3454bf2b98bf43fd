"""Each preset's own list of endings, with its articles."""

from __future__ import annotations

from typing import get_args

import pytest

from events_schema.events import Termination
from projections.endings import RULESETS, ruleset_for
from projections.playoffs import EVENT_MACHINES
from projections.tiebreaks.presets import PRESETS


def test_every_preset_in_use_has_endings():
    for preset in [*PRESETS, *EVENT_MACHINES]:
        assert ruleset_for(preset).rules, preset
    assert ruleset_for(None).name == "fide"
    with pytest.raises(KeyError, match="tcec-leage"):
        ruleset_for("tcec-leage")


def test_every_termination_is_a_schema_literal():
    allowed = set(get_args(Termination))
    for rs in RULESETS.values():
        assert rs.terminations <= allowed, rs.name
        for rule in rs.rules:
            assert rule.citation, (rs.name, rule.name)


@pytest.mark.parametrize(
    ("preset", "section"),
    [
        ("tcec-swiss", "tcec-rules Swiss"),
        ("tcec-cup", "tcec-rules Cup"),
        ("tcec-league", "tcec-rules Leagues"),
        ("tcec-superfinal", "tcec-rules Leagues"),
        ("tcec-frd-final", "tcec-rules FRD"),
    ],
)
def test_tcec_events_with_the_draw_rule_and_tablebases(preset: str, section: str):
    rs = ruleset_for(preset)
    for name in (
        "checkmate",
        "illegal_move",
        "time_forfeit",
        "threefold_repetition",
        "fifty_move_rule",
        "stalemate",
        "tablebase",
        "tcec_draw_rule",
        "engine_crash",
    ):
        rule = rs.rule(name)  # type: ignore[arg-type]
        assert rule is not None, (preset, name)
    assert rs.citation("tcec_draw_rule").startswith(section)
    assert rs.tablebase_men == 6 and rs.flag_fall == "loss"
    assert not rs.has("dead_position")  # insufficient material is not a TCEC ending
    assert not rs.has("armageddon")


def test_the_articles_as_written():
    assert ruleset_for("tcec-swiss").citation("tcec_draw_rule") == "tcec-rules Swiss 6.b"
    assert ruleset_for("tcec-league").citation("tablebase") == "tcec-rules Leagues 10.3"
    assert ruleset_for("tcec-league").citation("time_forfeit") == "tcec-rules Leagues 10.5"
    assert ruleset_for("tcec-cup").citation("time_forfeit") == "tcec-rules Cup 5.b"
    assert ruleset_for("tcec-frd").citation("fifty_move_rule") == "tcec-rules FRD 6.a"
    assert ruleset_for("tcec-4k").citation("stalemate") == "tcec-rules 4k 2.2"
    assert ruleset_for("tcec-4k").citation("checkmate") == "tcec-rules 4k 2.1"


def test_4k_lists_no_draw_rule_and_no_tablebase():
    rs = ruleset_for("tcec-4k-minifinal")
    assert not rs.has("tcec_draw_rule") and not rs.has("tablebase")
    assert rs.tablebase_men is None
    assert rs.has("stalemate") and rs.has("threefold_repetition") and rs.has("illegal_move")


def test_frd_reads_mate_and_stalemate_as_the_laws_of_chess():
    rs = ruleset_for("tcec-frd")
    stalemate = rs.rule("stalemate")
    assert stalemate is not None and "Chess960" in stalemate.note
    illegal = rs.rule("illegal_move")
    assert illegal is not None and "read across" in illegal.citation


def test_human_chess_claims_and_automatic_endings():
    rs = ruleset_for("fide-swiss")
    threefold = rs.rule("threefold_repetition")
    fifty = rs.rule("fifty_move_rule")
    assert threefold is not None and not threefold.automatic
    assert fifty is not None and not fifty.automatic
    for name in ("fivefold_repetition", "seventy_five_move_rule", "dead_position", "stalemate"):
        rule = rs.rule(name)  # type: ignore[arg-type]
        assert rule is not None and rule.automatic
    assert not rs.has("illegal_move") and not rs.has("tcec_draw_rule")
    assert rs.flag_fall == "fide-6.9"
    assert ruleset_for("gct-classical").citation("armageddon") == "GCT 2022 3.5.2"
    assert ruleset_for("gct").citation("armageddon") == "GCT 2022 2.5.2"
    assert not ruleset_for("gct-tour-playoff").has("armageddon")

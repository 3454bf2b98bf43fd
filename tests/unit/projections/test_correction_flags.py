"""The correction flag (`projections.documents.corrections_after_pairing`): a result corrected
after later rounds of its stage were paired is flagged with those rounds, and its `text` (the
standings document's, shown by `arbiter standings --json` and as the console's tooltip) names
them as a reader writes them, "round(s) 2, 3", not as a Python list ("[2, 3]")."""

from __future__ import annotations

from builders import created, eid, player, recorded, result, round_

from events_schema import events as ev
from projections.documents import corrections_after_pairing
from projections.standings import fold


def test_a_correction_after_two_rounds_were_paired_names_both_in_words() -> None:
    events = [
        created(fmt="swiss", rounds=3),  # 1
        *(player(p, 2000) for p in ("a", "b", "c", "d")),  # 2-5
        round_(1, ("r1", "a", "b"), ("r1b", "c", "d")),  # 6
        result("r1", "1-0"),  # 7
        result("r1b", "0-1"),  # 8
        round_(2, ("r2", "d", "a"), ("r2b", "b", "c")),  # 9
        result("r2", "1/2-1/2"),  # 10
        result("r2b", "1-0"),  # 11
        round_(3, ("r3", "a", "c"), ("r3b", "d", "b")),  # 12
        ev.ResultCorrected(
            corrects_event_id=eid(7),
            game_id="r1",
            result="0-1",
            termination="resignation",
            reason="score sheets swapped",
        ),  # 13
    ]
    (flag,) = corrections_after_pairing(fold(recorded("t", events)))
    assert (flag["game_id"], flag["round"], flag["corrected_at_seq"]) == ("r1", 1, 13)
    assert flag["rounds_paired_before"] == [2, 3]
    assert (
        flag["text"] == "r1 (round 1) was corrected at seq 13, after round(s) 2, 3 had been paired"
    )

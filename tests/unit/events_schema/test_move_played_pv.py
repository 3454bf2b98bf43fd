"""MovePlayed v2 (issue 25): the engine's principal variation, `pv`, in UCI; a stored v1 move
decodes with none, its stored bytes unchanged."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from events_schema import events as ev
from events_schema.upcasters import upcast


def test_a_v1_move_decodes_as_v2_without_a_principal_variation() -> None:
    stored = {"game_id": "g1", "ply": 1, "colour": "white", "uci": "e2e4", "eval_cp": 20}
    payload = upcast("MovePlayed", 1, stored, ev.MovePlayed.schema_version)
    move = ev.MovePlayed.model_validate(payload)
    assert move.pv is None and move.eval_cp == 20
    assert "pv" not in stored  # the stored payload is not changed


def test_a_principal_variation_is_uci_moves_at_most_32() -> None:
    move = ev.MovePlayed(game_id="g1", ply=1, colour="white", uci="e2e4", pv=["e2e4", "e7e5"])
    assert move.pv == ["e2e4", "e7e5"]
    with pytest.raises(ValidationError):
        ev.MovePlayed(game_id="g1", ply=1, colour="white", uci="e2e4", pv=["Nf3"])
    with pytest.raises(ValidationError):
        ev.MovePlayed(game_id="g1", ply=1, colour="white", uci="e2e4", pv=["e2e4"] * 33)

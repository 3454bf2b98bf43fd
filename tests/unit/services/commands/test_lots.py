"""Lots: drawn at the edge with a recorded seed; replay never draws again."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from services.commands.lots import draw, redraw


def test_a_seeded_draw_is_reproducible_and_recorded():
    lot = draw("pairing_numbers", "gct-playoff-rr", ["carol", "alice", "bob"], seed="s1")
    assert lot.candidates == ["alice", "bob", "carol"]
    assert sorted(lot.outcome) == ["alice", "bob", "carol"]
    assert lot.seed == "s1" and "Random" in (lot.method or "")
    assert redraw(lot) == lot.outcome
    # The input order does not matter, only the seed.
    assert draw("pairing_numbers", "x", ["bob", "carol", "alice"], seed="s1").outcome == lot.outcome


def test_pick_draws_a_subset():
    lot = draw("bye", "gct-armageddon-1", list("abcdefg"), pick=1, seed="k")
    assert len(lot.outcome) == 1 and lot.outcome[0] in "abcdefg"


@pytest.mark.parametrize(
    ("candidates", "pick"), [([], None), (["a", "a"], None), (["a", "b"], 3), (["a"], 0)]
)
def test_bad_draws_are_refused(candidates, pick):
    with pytest.raises(ValueError):
        draw("bye", "s", candidates, pick)


@given(
    st.lists(st.text("abcdef", min_size=1, max_size=4), min_size=1, max_size=9, unique=True),
    st.text(min_size=1, max_size=8),
)
def test_outcome_comes_from_the_candidates(candidates, seed):
    lot = draw("engine_order", "s", candidates, seed=seed)
    assert sorted(lot.outcome) == sorted(candidates)
    assert redraw(lot) == lot.outcome

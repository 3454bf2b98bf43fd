"""The arena's run-level limit is a ruling the decider holds to its subject (projections/
rulings.py "arena:limit"): the keys the arena reads are accepted, any other is refused."""

from __future__ import annotations

from builders import created
from given_when_then import then_accepted, then_rejected

from events_schema import events as ev


def limit(decision: dict[str, object]) -> ev.RulingIssued:
    return ev.RulingIssued(
        ruling_id="arena-limit-1",
        by="arena",
        subject="arena:limit",
        text="arena run-level limit",
        decision=decision,
    )


def test_a_node_limit_a_clock_and_engines_own_nodes_are_recorded() -> None:
    then_accepted([created()], limit({"nodes": 1000, "engine_nodes": {"sf": 4000}}))
    then_accepted([created()], limit({"base_ms": 2000, "increment_ms": 100}))
    then_accepted([created()], limit({"tournament_time_control": True}))


def test_a_limit_key_the_arena_does_not_read_is_refused() -> None:
    then_rejected([created()], limit({"depth": 12}), "ruling.unknown_key", "payload.decision.depth")

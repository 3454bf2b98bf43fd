"""The pairing interface (projections/pairing/base.py, systems.py) and the edge that runs it
(services/pairing.plan): the context a system reads, the system a tournament runs, and the
lots drawn before the round they feed."""

from __future__ import annotations

import dataclasses

import pytest
from builders import created, player, recorded, result, round_

from events_schema import events as ev
from events_schema.envelope import envelope_from_bytes
from events_schema.registry import Recorded
from projections.pairing import systems
from projections.pairing.base import LotRequest, PairingContext, Proposal, context
from projections.standings import fold
from services.commands.pairing import plan

TID = "ctx-open"


def _state(*events: ev.Event):
    return fold(recorded(TID, list(events)))


def test_context_reads_history_pending_games_and_withdrawals():
    state = _state(
        created(fmt="swiss", rounds=5),
        player("a", 2400),
        player("b", 2300),
        player("c", 2200),
        player("d", 2100),
        round_(1, ("g1", "a", "b"), ("g2", "c", "d")),
        result("g1", "1-0"),
        result("g2", "1/2-1/2"),
        round_(2, ("g3", "d", "a"), ("g4", "b", "c")),
        result("g3", "0-1"),
        ev.PlayerWithdrew(player_id="c", from_round=3),
    )
    ctx = context(state)
    assert ctx.round == 3
    a, c, d = ctx.players["a"], ctx.players["c"], ctx.players["d"]
    assert a.points == 4 and a.colours == ("white", "black") and a.opponents == {"b", "d"}
    assert d.points == 1
    # g4 has no result: it is pending, scores nothing, but b and c have met
    assert c.rounds[-1].pending and c.rounds[-1].opponent == "b" and c.points == 1
    assert ctx.active == ("a", "b", "d")  # c withdrew from round 3
    assert [p.registered_order for p in ctx.players.values()] == [0, 1, 2, 3]


@pytest.mark.parametrize(
    ("fmt", "preset", "pairing", "system"),
    [
        ("swiss", None, None, "dutch"),
        ("swiss", "tcec-swiss", None, "monrad"),
        ("porous_swiss", None, None, "galway"),
        ("round_robin", None, None, "berger"),
        ("league", "tcec-league", None, "berger"),
        ("cup", "tcec-cup", None, "tcec-cup"),
        ("swiss", None, "monrad", "monrad"),
        ("swiss", None, "manual", None),
        ("match", None, None, None),
    ],
)
def test_the_system_a_tournament_runs(fmt, preset, pairing, system):
    c = created(fmt=fmt, rules_preset=preset, pairing=pairing)
    assert systems.system_name(c) == system


def test_a_v1_tournament_created_reads_as_v2_without_a_system():
    """Logs written before `pairing` existed keep their bytes; the upcaster fills the field."""
    rec = recorded(TID, [created(fmt="swiss")])[0]
    raw = rec.envelope.to_json_dict()
    raw["schema_version"] = 1
    raw["payload"].pop("pairing", None)
    from events_schema.codec import dumps

    env = envelope_from_bytes(dumps(raw))
    up = Recorded.of(env).event
    assert isinstance(up, ev.TournamentCreated) and up.pairing is None
    assert systems.system_name(up) == "dutch"


def _fake(ctx: PairingContext) -> Proposal:
    """A system that needs an engine order lot, then pairs the first two of it."""
    lot = ctx.lot("main/engine-order")
    if lot is None:
        return Proposal(lots=(LotRequest("engine_order", "main/engine-order", ctx.active),))
    a, b = lot.outcome[:2]
    return Proposal(
        round=ev.RoundScheduled(
            round=ctx.round, pairings=[ev.Pairing(game_id="x", white=a, black=b)]
        )
    )


def test_plan_draws_the_lots_a_system_asks_for_with_seeds_derived_from_the_run_seed(monkeypatch):
    fake = dataclasses.replace(systems.SYSTEMS["dutch"], propose=_fake)
    monkeypatch.setitem(systems.SYSTEMS, "dutch", fake)
    state = _state(created(fmt="swiss"), player("a"), player("b"), player("c"))
    rnd, lots, _ = plan(context(state), seed="run-1")
    assert [lot.subject for lot in lots] == ["main/engine-order"]
    assert lots[0].seed == "run-1:main/engine-order"
    assert [rnd.pairings[0].white, rnd.pairings[0].black] == lots[0].outcome[:2]
    rnd2, lots2, _ = plan(context(state), seed="run-1")
    assert lots2[0].outcome == lots[0].outcome and rnd2 == rnd  # the same seed, the same round


def test_dutch_initial_order_is_rating_then_title_then_name():
    """C.04.2 "Initial order": rating, then FIDE title (GM, IM, WGM, FM, …), then name."""
    from projections.pairing.dutch import initial_ranking

    regs = [
        ev.PlayerRegistered(player_id="zed", name="Zed", rating=2500),
        ev.PlayerRegistered(player_id="amy", name="Amy", rating=2500),
        ev.PlayerRegistered(player_id="fm", name="Fay", rating=2500, title="FM"),
        ev.PlayerRegistered(player_id="gm", name="Gus", rating=2500, title="GM"),
        ev.PlayerRegistered(player_id="wgm", name="Wen", rating=2500, title="WGM"),
        ev.PlayerRegistered(player_id="top", name="Top", rating=2600),
        ev.PlayerRegistered(player_id="new", name="New"),
    ]
    ctx = context(_state(created(fmt="swiss"), *regs))
    order = initial_ranking(ctx.players.values())
    assert order == ("top", "gm", "wgm", "fm", "amy", "zed", "new")

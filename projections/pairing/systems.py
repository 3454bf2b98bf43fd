"""Which pairing system a tournament runs, and the one entry point `propose`.

A tournament names its system in `TournamentCreated.pairing`; without one, its format (and,
for a TCEC Swiss, its rules preset) chooses: see `projections.pairing.names.SYSTEM_OF_FORMAT`."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from events_schema import events as ev
from projections.pairing import dutch, galway, knockout, mcmahon, monrad, round_robin
from projections.pairing.base import PairingContext, PairingRefused, Proposal, context
from projections.pairing.names import system_name as system_name  # re-exported
from projections.standings.state import StandingsState

System = Callable[[PairingContext], Proposal]

SYSTEMS: dict[str, System] = {
    "berger": round_robin.propose,  # FIDE C.05 Annex 1
    "dutch": dutch.propose,  # FIDE C.04.3 (2025 text), through gacrux
    "galway": galway.propose,  # galway-congress-2023-structure.md, porous sections
    "mcmahon": mcmahon.propose,  # lgc-go-tournament-rules "Top groups"; OpenGotha McMahon
    "monrad": monrad.propose,  # tcec-rules Swiss 2
    "tcec-cup": knockout.propose,  # tcec-rules Cup 1-3
}


def propose(ctx: PairingContext) -> Proposal:
    name = system_name(ctx.created)
    if name is None:
        raise PairingRefused(
            "pairing.no_system",
            "format",
            f"a {ctx.created.format!r} tournament has no pairing system: its rounds are "
            "scheduled as RoundScheduled events (or by its playoff machine)",
        )
    return SYSTEMS[name](ctx)


def _round_json(
    rnd: ev.RoundScheduled, status: str, results: Mapping[str, str]
) -> dict[str, object]:
    return {
        "round": rnd.round,
        "status": status,
        "pairings": [
            {
                "board": p.board if p.board is not None else i,
                "game_id": p.game_id,
                "white": p.white,
                "black": p.black,
                "pair_id": p.pair_id,
                "result": results.get(p.game_id),
            }
            for i, p in enumerate(rnd.pairings, start=1)
        ],
        "byes": [{"player_id": b.player_id, "kind": b.kind} for b in rnd.byes],
    }


def planned(state: StandingsState, stage: str = "main") -> dict[str, Any]:
    """The schedule as `arbiter schedule` shows it: the rounds scheduled so far (with their
    results), then, for a round robin, the rounds its table fixes; for a cup, the bracket."""
    ctx = context(state, stage)
    name = system_name(ctx.created) or "manual"
    results = {
        g.game_id: g.results[-1][2] for g in state.games.values() if g.results and g.stage == stage
    }
    rounds: list[dict[str, object]] = []
    for rnd in ctx.scheduled.values():
        games = [p.game_id for p in rnd.pairings]
        done = all(g in results for g in games)
        rounds.append(_round_json(rnd, "finished" if done else "scheduled", results))
    notes: list[str] = []
    body: dict[str, Any] = {"system": name, "stage": stage, "rounds": rounds, "notes": notes}
    if name == "berger":
        try:
            for rnd in round_robin.schedule(ctx):
                if rnd.round not in ctx.scheduled:
                    rounds.append(_round_json(rnd, "planned", results))
        except PairingRefused as exc:
            notes.append(exc.message)
    elif name == "tcec-cup":
        body["bracket"] = knockout.bracket(ctx).as_dict()
    return body

"""Which pairing system a tournament runs: the one registry `SYSTEMS`, and the entry points
that read it (`propose`, `planned`, `system_of`).

Each system is a `PairingSystem` (`projections/pairing/base.py`) defined by its own module
(`SYSTEM`) and registered below, once: a new system is its module and one line here (and its
name in the schema's closed set, `events_schema.events.PairingName`). A tournament names its
system in `TournamentCreated.pairing`; without one, its format (and, for a TCEC Swiss, its
rules preset) chooses: see `projections.pairing.names.SYSTEM_OF_FORMAT`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, get_args

from events_schema import events as ev
from projections.pairing import (
    dutch,
    galway,
    go_swiss,
    knockout,
    mcmahon,
    monrad,
    round_robin,
)
from projections.pairing.base import (
    PairingContext,
    PairingRefused,
    PairingSystem,
    Proposal,
    context,
)
from projections.pairing.names import system_name as system_name  # re-exported
from projections.standings.state import StandingsState

SYSTEMS: dict[str, PairingSystem] = {
    s.name: s
    for s in (
        round_robin.SYSTEM,  # "berger": FIDE C.05 Annex 1
        dutch.SYSTEM,  # FIDE C.04.3 (2025 text), through gacrux
        galway.SYSTEM,  # galway-congress-2023-structure.md, porous sections
        mcmahon.SYSTEM,  # lgc-go-tournament-rules "Top groups"; OpenGotha McMahon
        go_swiss.SYSTEM,  # "go-swiss": OpenGotha Swiss (initForSwiss)
        monrad.SYSTEM,  # tcec-rules Swiss 2
        knockout.SYSTEM,  # "tcec-cup": tcec-rules Cup 1-3
    )
}

MANUAL = "manual"  # pairings entered by hand: no system


def _check_names() -> None:
    named = set(get_args(ev.PairingName)) - {MANUAL}
    if named != set(SYSTEMS):
        raise RuntimeError(
            "the pairing systems registered in projections/pairing/systems.py "
            f"({', '.join(sorted(SYSTEMS))}) and the names the schema allows "
            f"(events_schema.events.PairingName: {', '.join(sorted(named))}) differ"
        )


_check_names()


def system_of(created: ev.TournamentCreated) -> PairingSystem | None:
    """The system `arbiter pair` runs for this tournament (None: pairings entered by hand)."""
    name = system_name(created)
    return None if name is None else SYSTEMS[name]


def propose(ctx: PairingContext) -> Proposal:
    system = system_of(ctx.created)
    if system is None:
        raise PairingRefused(
            "pairing.no_system",
            "format",
            f"a {ctx.created.format!r} tournament has no pairing system: its rounds are "
            "scheduled as RoundScheduled events (or by its playoff machine)",
        )
    return system.propose(ctx)


def pairing_json(board: int, p: ev.Pairing) -> dict[str, Any]:
    """A pairing as `arbiter schedule` and `arbiter pair` show it (`board`: its place in the
    round when it states no board of its own)."""
    return {
        "board": p.board if p.board is not None else board,
        "game_id": p.game_id,
        "white": p.white,
        "black": p.black,
        "pair_id": p.pair_id,
    }


def byes_json(rnd: ev.RoundScheduled) -> list[dict[str, Any]]:
    return [{"player_id": b.player_id, "kind": b.kind} for b in rnd.byes]


def _round_json(
    rnd: ev.RoundScheduled, status: str, results: Mapping[str, str]
) -> dict[str, object]:
    return {
        "round": rnd.round,
        "status": status,
        "pairings": [
            {**pairing_json(i, p), "result": results.get(p.game_id)}
            for i, p in enumerate(rnd.pairings, start=1)
        ],
        "byes": byes_json(rnd),
    }


def planned(state: StandingsState, stage: str = "main") -> dict[str, Any]:
    """The schedule as `arbiter schedule` shows it: the rounds scheduled so far (with their
    results), then what the system previews (`PairingSystem.preview`): for a round robin, the
    rounds its table fixes; for a cup, the bracket."""
    ctx = context(state, stage)
    system = system_of(ctx.created)
    results = {
        g.game_id: g.results[-1][2] for g in state.games.values() if g.results and g.stage == stage
    }
    rounds: list[dict[str, object]] = []
    for rnd in ctx.scheduled.values():
        games = [p.game_id for p in rnd.pairings]
        done = all(g in results for g in games)
        rounds.append(_round_json(rnd, "finished" if done else "scheduled", results))
    notes: list[str] = []
    name = MANUAL if system is None else system.name
    body: dict[str, Any] = {"system": name, "stage": stage, "rounds": rounds, "notes": notes}
    if system is not None and system.preview is not None:
        preview = system.preview(ctx)
        rounds += [_round_json(rnd, "planned", results) for rnd in preview.rounds]
        notes += preview.notes
        body.update(preview.extra)
    return body

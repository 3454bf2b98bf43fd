"""Reading one stage of a season from its tournament's standings fold: is it finished, and in
what order did its engines end?

- a round robin or a Swiss is finished when every round of its main stage is scheduled (its
  `TournamentCreated.rounds`, or cycles × (N - 1)) and every game has a result; its order is
  `projections.standings.table.standings(state)`, the tournament's own chain (tiebreaks);
- the Premier Division (`tcec-premier`) also waits for the Conditional Tiebreak
  (`projections.playoffs.tcec_conditional`, Leagues 6): its Superfinal places come first, in
  the machine's order, then the table's (Leagues 11.1); places are renumbered over that order;
- a match (`tcec-superfinal`, `tcec-frd-final`, `tcec-4k-minifinal`) is finished when its
  machine (`projections.playoffs.tcec_match`) has decided it: winner, then loser;
- a Cup is finished when its bracket (`projections.pairing.knockout`) has a champion; its
  order is the final's and the bronze match's (Cup 2.e).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from projections.pairing import knockout
from projections.pairing.base import PairingRefused, context
from projections.playoffs import playoff_view
from projections.playoffs.tcec_conditional import conditional_tiebreak
from projections.seasons.structure import StageSpec, total_rounds
from projections.standings.state import StandingsState
from projections.standings.table import Row, standings

Status = Literal["not_created", "created", "in_progress", "finished"]


@dataclass(frozen=True)
class Standing:
    place: int
    player_id: str
    name: str
    tie: tuple[str, ...] = ()  # everyone at this place when shared or left to the organisers
    unresolved: bool = False  # "the organisers decide" and no ruling yet
    score: str = ""

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "place": self.place,
            "player_id": self.player_id,
            "name": self.name,
            "score": self.score,
        }
        if self.tie:
            out["tied_with"] = [p for p in self.tie if p != self.player_id]
            out["unresolved"] = self.unresolved
        return out


@dataclass(frozen=True)
class StageOutcome:
    status: Status
    order: tuple[Standing, ...] = ()  # the final order once finished; the table so far before
    decided_top: int = 0  # top places a playoff fixed (the chain's ties above do not matter)
    champion: str | None = None
    seq: int = 0  # the tournament's seq it was read at
    text: str = ""

    @property
    def finished(self) -> bool:
        return self.status == "finished"

    def as_dict(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "as_of_seq": self.seq,
            "champion": self.champion,
            "text": self.text,
            "order": [s.as_dict() for s in self.order],
        }


def _standings_of(rows: Sequence[Row]) -> tuple[Standing, ...]:
    at: dict[int, list[str]] = {}
    for r in rows:
        at.setdefault(r.place, []).append(r.player_id)
    return tuple(
        Standing(
            r.place,
            r.player_id,
            r.name,
            tuple(at[r.place]) if len(at[r.place]) > 1 else (),
            r.unresolved,
            r.score,
        )
        for r in rows
    )


def _renumbered(order: Sequence[Standing], fixed: int) -> tuple[Standing, ...]:
    """Places over `order`: the first `fixed` one each (a playoff ordered them); below, engines
    that shared a place in the table still share one, numbered by position (1, 2, 3, 3, 5)."""
    top_ids = {s.player_id for s in order[:fixed]}
    out: list[Standing] = []
    for i, s in enumerate(order):
        if i < fixed:
            out.append(Standing(i + 1, s.player_id, s.name, (), False, s.score))
            continue
        same = i > fixed and order[i - 1].place == s.place
        place = out[-1].place if same else i + 1
        tie = tuple(p for p in s.tie if p not in top_ids)
        shared = len(tie) > 1
        out.append(
            Standing(
                place, s.player_id, s.name, tie if shared else (), s.unresolved and shared, s.score
            )
        )
    return tuple(out)


def main_stage_done(spec: StageSpec, state: StandingsState) -> bool:
    """Every round of the main stage scheduled and every game of it played."""
    created = state.created
    if created is None:
        return False
    games = state.stage_games("main")
    if not games:
        return False
    rounds = (
        created.rounds if created.rounds is not None else total_rounds(spec, len(state.players))
    )
    if rounds is not None:
        scheduled = {r for (stage, r) in state.round_keys if stage == "main"}
        if not set(range(1, rounds + 1)) <= scheduled:
            return False
    return all(g.results for g in games)


def _started(state: StandingsState) -> Status:
    return "in_progress" if state.games else "created"


def read_stage(spec: StageSpec, state: StandingsState | None) -> StageOutcome:
    """The stage's outcome from its tournament's fold (None: not created yet)."""
    if state is None or state.created is None:
        return StageOutcome("not_created")
    if state.unreadable:
        # ARCHITECTURE "Poison events": a held tournament gives nothing until retracted.
        return StageOutcome(
            _started(state),
            seq=state.seq,
            text=f"held: {len(state.unreadable)} unreadable event(s) to retract first",
        )
    if spec.format == "match":
        return _read_match(state)
    if spec.format == "cup":
        return _read_cup(state)
    table = standings(state)
    order = _standings_of(table.rows)
    if not main_stage_done(spec, state):
        return StageOutcome(_started(state), order, seq=state.seq, text="being played")
    if spec.rules_preset == "tcec-premier":
        return _read_premier(state, order, table)
    top = order[0].player_id if order and not order[0].tie else None
    return StageOutcome("finished", order, champion=top, seq=state.seq, text="finished")


def _read_premier(state: StandingsState, order: tuple[Standing, ...], table: Any) -> StageOutcome:
    view = conditional_tiebreak(state, table)
    if view.status not in ("not_needed", "decided"):
        return StageOutcome(
            "in_progress",
            order,
            seq=state.seq,
            text=f"Conditional Tiebreak (tcec-rules Leagues 6): {view.status}",
        )
    position = {s.player_id: i for i, s in enumerate(order)}
    top = [p for block in view.final_order for p in sorted(block, key=position.__getitem__)]
    by_id = {s.player_id: s for s in order}
    rest = [s for s in order if s.player_id not in top]
    final = _renumbered([by_id[p] for p in top] + rest, len(top))
    how = (
        "the Superfinal places on points (Leagues 5.7, 6.1)"
        if view.status == "not_needed"
        else "the Superfinal places by the Conditional Tiebreak (Leagues 6)"
    )
    return StageOutcome(
        "finished",
        final,
        decided_top=len(top),
        champion=top[0] if top else None,
        seq=state.seq,
        text=f"finished; {how}",
    )


def _decided(
    state: StandingsState, final_order: Iterable[str], champion: str, text: str
) -> StageOutcome:
    """A stage its machine has decided (a match, a Cup): one engine a place, in `final_order`,
    every place fixed by it."""
    names = {p: i.name for p, i in state.players.items()}
    order = tuple(Standing(i, p, names.get(p, p)) for i, p in enumerate(final_order, start=1))
    return StageOutcome(
        "finished", order, decided_top=len(order), champion=champion, seq=state.seq, text=text
    )


def _read_match(state: StandingsState) -> StageOutcome:
    view = playoff_view(state)
    if view is None or view.status != "decided" or view.winner is None:
        status = "not decided" if view is None else view.status
        return StageOutcome(_started(state), seq=state.seq, text=f"match: {status}")
    final_order = (p for block in view.final_order for p in block)
    return _decided(state, final_order, view.winner, f"decided ({view.rule})")


def _read_cup(state: StandingsState) -> StageOutcome:
    try:
        bracket = knockout.bracket(context(state, "main"))
    except PairingRefused as exc:
        return StageOutcome(_started(state), seq=state.seq, text=exc.message)
    if bracket.champion is None:
        current = bracket.current
        text = current.title if current is not None else "awaiting the bracket lot"
        return StageOutcome(_started(state), seq=state.seq, text=text)
    return _decided(state, bracket.final_order, bracket.champion, "decided (tcec-rules Cup 2.e)")

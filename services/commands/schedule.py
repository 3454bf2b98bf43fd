"""The schedule as the organiser reads it (`arbiter schedule`, `GET /tournaments/{id}/schedule`):
the rounds scheduled so far and to come (the pairing system's `planned`), and the lots to draw
next with the command that draws each (`next_lots`).

`lots_wanted` is the one source of the next lot to draw: the lots the pairing system asks for
before the stage's next round (what `arbiter pair` would draw with it), then the lots the
playoff's `required_next` asks for. `arbiter lot T --next` draws the first of them
(services/cli/prescribed.py) and the schedule names them, so the hint and the draw agree.

Pure: a `PlayoffView` and the tournament's fold in, a document out (the pairing system is asked
with a fixed seed: nothing random is drawn, nothing appended)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from projections.playoffs.base import PlayoffView, Requirement, said
from projections.standings import StandingsState


@dataclass(frozen=True)
class LotSpec:
    """A lot to draw: `pick` None orders every candidate."""

    purpose: str
    subject: str
    candidates: tuple[str, ...]
    pick: int | None


def lot_requirements(view: PlayoffView | None) -> list[Requirement]:
    if view is None:
        return []
    return [r for r in view.required_next if r.kind == "lot" and r.lot is not None]


PAIRING, PLAYOFF = "pairing", "playoff"
MAIN = "main"


@dataclass(frozen=True)
class WantedLot:
    """A lot the tournament needs drawn now: for its pairing system to pair the stage's next
    round (`source` "pairing"; `arbiter pair` draws it with the round, `arbiter lot --next`
    on its own), or for its playoff (`source` "playoff", `req` the playoff's requirement)."""

    spec: LotSpec
    source: str
    stage: str
    why: str
    req: Requirement | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "purpose": self.spec.purpose,
            "subject": self.spec.subject,
            "candidates": list(self.spec.candidates),
            "pick": self.spec.pick,
            "source": self.source,
            "stage": self.stage,
            "why": self.why,
        }


def pairing_lots(state: StandingsState, stage: str) -> list[WantedLot]:
    """The lots the stage's pairing system asks for before its next round (a round robin's
    pairing-number or engine-order lot, a Swiss's initial colour): the first lots
    `arbiter pair` would draw, when drawing them leads to a round (none once the stage is
    complete, or while a round is unfinished)."""
    from projections.pairing.base import PairingRefused, context
    from projections.pairing.systems import propose, system_of
    from services.commands.pairing import plan

    if state.created is None or system_of(state.created) is None:
        return []
    try:
        ctx = context(state, stage)
        first = propose(ctx)
        if not first.lots:
            return []
        plan(ctx, "probe")  # seeded, appends nothing: only whether a round follows the lots
    except (PairingRefused, ValueError):
        return []
    return [
        WantedLot(
            LotSpec(r.purpose, r.subject, tuple(r.candidates), r.pick), PAIRING, stage, r.rule
        )
        for r in first.lots
    ]


def lots_wanted(
    view: PlayoffView | None, state: StandingsState, stage: str = MAIN
) -> list[WantedLot]:
    """THE source of the next lot to draw, read by `arbiter lot --next` (which draws the
    first, or the one `--subject` names) and by `arbiter schedule` (which names them): the
    pairing system's lots for `stage`'s next round (not for a playoff's own stages, whose
    games the playoff prescribes), then the lots the playoff requires."""
    playoff_stages: set[str] = set()
    if view is not None:
        playoff_stages = {st.name for st in view.stages} | {
            r.stage for r in view.required_next if r.kind in ("lot", "schedule")
        }
    wanted = [] if stage in playoff_stages else pairing_lots(state, stage)
    for req in lot_requirements(view):
        spec = lot_spec(req)
        wanted.append(
            WantedLot(
                LotSpec(spec["purpose"], spec["subject"], tuple(spec["candidates"]), spec["pick"]),
                PLAYOFF,
                req.stage,
                said(req.text, {p: i.name for p, i in state.players.items()}),
                req,
            )
        )
    return wanted


def lot_hint(tid: str, wanted: Sequence[WantedLot], lot: WantedLot) -> str:
    """The command that draws `lot`, as `arbiter schedule` names it."""
    if lot.source == PAIRING and lot.stage != MAIN:
        return f"arbiter pair {tid} --stage {lot.stage}"  # `lot --next` reads the main stage
    several = len([w for w in wanted if w.source == PLAYOFF or w.stage == MAIN]) > 1
    subject = f" --subject {lot.spec.subject}" if several else ""
    also = (
        f" (or `arbiter pair {tid}`, which draws it with the round)"
        if lot.source == PAIRING
        else ""
    )
    return f"arbiter lot {tid} --next{subject}{also}"


def lot_spec(req: Requirement) -> dict[str, Any]:
    """The lot a playoff requirement asks for (purpose, subject, candidates, pick)."""
    assert req.lot is not None
    return req.lot


def schedule_of(
    tournament: str, state: StandingsState, view: PlayoffView | None, stage: str = MAIN
) -> dict[str, Any]:
    """The schedule document: `planned(state, stage)` (rounds, bracket, notes) with
    `next_lots` (each lot wanted and the command that draws it, `run`). The system's own
    "draw the lot … first" notes are said by `next_lots`, with the command. Raises the
    pairing system's `PairingRefused` when the stage cannot be planned."""
    from projections.pairing.systems import planned

    wanted = lots_wanted(view, state, stage)
    body = planned(state, stage)
    body["next_lots"] = [{**w.as_dict(), "run": lot_hint(tournament, wanted, w)} for w in wanted]
    # The system's notes name players as `{id}` (projections/mentions.py): said by name here.
    names = {p: i.name for p, i in state.players.items()}
    notes = [n for n in body.get("notes", []) if not said(n).startswith("draw the lot ")]
    body["notes"] = [said(n, names) for n in notes]
    bracket = body.get("bracket")
    if isinstance(bracket, dict) and "note_templates" in bracket:
        bracket["notes"] = [said(n, names) for n in bracket["note_templates"]]
    return body

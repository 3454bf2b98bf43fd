"""What the playoff machine and the pairing system prescribe, as the organiser's commands ask.

`lots_wanted` (services/commands/schedule.py, which `arbiter schedule` and `GET
/tournaments/{id}/schedule` share) is the one source of the next lot to draw: the lots the
pairing system asks for before the stage's next round (what `arbiter pair` would draw with
it), then the lots the playoff's `required_next` asks for. `arbiter lot T --next` draws the
first of them (purpose, subject, candidates, how many to pick) and `arbiter schedule` names
them with the command; `arbiter lot T --purpose ... --subject S` is checked against the lot
the playoff asks for under S before anything is appended; `hint` names the command that
answers each requirement (the schedule itself is `services/commands/playoff.py`).

Pure: a `PlayoffView` and the tournament's fold in, lot specifications out (the pairing system
is asked with a fixed seed: nothing random is drawn, nothing appended); a request that does
not fit raises `Refusal` naming the option to change or the command to run.
"""

from __future__ import annotations

from collections.abc import Sequence

from projections.playoffs.base import PlayoffView, Requirement, said
from projections.standings import StandingsState
from services.cli.common import Refusal
from services.commands.playoff import schedule_requirements
from services.commands.schedule import (
    MAIN,
    PAIRING,
    PLAYOFF,
    LotSpec,
    WantedLot,
    lot_hint,
    lot_requirements,
    lots_wanted,
    pairing_lots,
)
from services.commands.schedule import lot_spec as _spec

__all__ = [
    "MAIN",
    "PAIRING",
    "PLAYOFF",
    "LotSpec",
    "WantedLot",
    "check_lot",
    "hint",
    "lot_hint",
    "lot_requirements",
    "lots_wanted",
    "next_lot",
    "pairing_lots",
]


def _shown(req: Requirement) -> str:
    spec = _spec(req)
    cands = spec["candidates"]
    of = f" of {', '.join(cands)}" if cands else ""
    return f"{spec['purpose']} lot for {spec['subject']!r} (pick {spec['pick']}{of})"


def next_lot(
    tid: str,
    view: PlayoffView | None,
    state: StandingsState,
    *,
    subject: str | None = None,
    purpose: str | None = None,
    candidates: Sequence[str] = (),
    pick: int | None = None,
) -> LotSpec:
    """The lot the tournament requires next (`--next`), from `lots_wanted`, the source
    `arbiter schedule` names it from; `subject` chooses among several. Given options must
    agree with it (candidates only where the playoff accepts any, e.g. TCEC openings)."""
    all_wanted = lots_wanted(view, state)
    if not all_wanted and view is None:
        preset = state.created.rules_preset if state.created is not None else None
        raise Refusal(
            "lot.no_playoff",
            "--next",
            f"the rules {preset!r} of {tid!r} define no playoff and its pairing system needs no "
            "lot now, so nothing prescribes a lot: leave out --next and give --purpose, "
            f"--subject and --candidate (see `arbiter schedule {tid}`)",
        )
    if not all_wanted:
        assert view is not None
        nxt = "; ".join(f"{r.kind} ({r.stage})" for r in view.required_next) or "nothing"
        raise Refusal(
            "lot.none_required",
            "--next",
            f"the playoff of {tid!r} ({view.status}) requires no lot now; it requires: {nxt} "
            f"(see `arbiter playoff {tid}`)",
        )
    wanted = all_wanted
    if subject is not None:
        wanted = [w for w in wanted if w.spec.subject == subject]
        if not wanted:
            asked = ", ".join(w.spec.subject for w in all_wanted)
            raise Refusal(
                "lot.not_required",
                "--subject",
                f"{tid!r} requires no lot for {subject!r}; it requires lots for: "
                f"{asked} (run `arbiter lot {tid} --next --subject SUBJECT`)",
            )
    if len(wanted) > 1:
        raise Refusal(
            "lot.ambiguous",
            "--subject",
            f"{tid!r} requires {len(wanted)} lots: "
            + "; ".join(_shown_spec(w.spec) for w in wanted)
            + f": choose one with `arbiter lot {tid} --next --subject SUBJECT`",
        )
    chosen = wanted[0]
    spec = chosen.spec
    if chosen.req is not None:
        found = _recorded_lot(state, spec.subject, spec.purpose)
        if found is not None:
            raise Refusal(
                "lot.recorded_does_not_fit",
                "--next",
                f"a {spec.purpose} lot for {spec.subject!r} is recorded ({found}) but does "
                f"not fit ({said(chosen.req.text)}): retract it first with `arbiter append {tid} "
                f'--type EventRetracted --payload \'{{"retracted_event_id": "{found}", '
                f'"reason": "..."}}\'`, then run `arbiter lot {tid} --next` again',
            )
    if purpose is not None and purpose != spec.purpose:
        raise _not_asked("--purpose", f"for a {spec.purpose} lot", spec.subject, purpose)
    if pick is not None and pick != spec.pick:
        raise _not_asked("--pick", f"to pick {spec.pick}", spec.subject, pick)
    wanted_candidates = spec.candidates
    if wanted_candidates and candidates and sorted(candidates) != sorted(wanted_candidates):
        raise Refusal(
            "lot.not_required",
            "--candidate",
            f"the {spec.purpose} lot for {spec.subject!r} is drawn from "
            f"{', '.join(wanted_candidates)}: leave out --candidate (--next reads them from "
            "the tournament)",
        )
    if not wanted_candidates and not candidates:
        source = (
            chosen.req.lot.get("candidates_from", "the candidates the rules name")
            if chosen.req is not None and chosen.req.lot is not None
            else "the candidates the rules name"
        )
        raise Refusal(
            "lot.candidates_needed",
            "--candidate",
            f"the playoff accepts any candidates for the {spec.purpose} lot for "
            f"{spec.subject!r} ({source}): give them, e.g. `arbiter lot {tid} --next "
            "-c FIRST -c SECOND ...`",
        )
    return LotSpec(spec.purpose, spec.subject, wanted_candidates or tuple(candidates), spec.pick)


def _shown_spec(spec: LotSpec) -> str:
    of = f" of {', '.join(spec.candidates)}" if spec.candidates else ""
    return f"{spec.purpose} lot for {spec.subject!r} (pick {spec.pick}{of})"


def _not_asked(option: str, asked: str, subject: str, given: object) -> Refusal:
    """An option of `--next` that differs from what the lot asks for."""
    return Refusal(
        "lot.not_required",
        option,
        f"the tournament asks {asked} for {subject!r}, not {given}: leave out {option} (--next "
        "reads it from the playoff or the pairing system)",
    )


def _recorded_lot(state: StandingsState, subject: str, purpose: str) -> str | None:
    """The event id of the lot in force for `subject` (the playoff asks for one again only
    when the recorded one does not fit)."""
    found = None
    for event_id, lot in state.lots.items():
        if lot.subject == subject and lot.purpose == purpose:
            found = str(event_id)
    return found


def check_lot(tid: str, view: PlayoffView | None, spec: LotSpec) -> None:
    """A lot given by hand for a subject the playoff asks a lot for must be that lot: refused
    before it is appended (instead of stored and then rejected by the playoff)."""
    for req in lot_requirements(view):
        want = _spec(req)
        if want["subject"] != spec.subject:
            continue
        problems = []
        if want["purpose"] != spec.purpose:
            problems.append(f"--purpose {want['purpose']}")
        wanted = want["candidates"]
        if wanted and sorted(wanted) != sorted(spec.candidates):
            problems.append(" ".join(f"-c {c}" for c in wanted))
        picked = len(spec.candidates) if spec.pick is None else spec.pick
        if picked != want["pick"]:
            problems.append(f"--pick {want['pick']}")
        if problems:
            raise Refusal(
                "lot.not_required",
                "--purpose/--candidate/--pick",
                f"the playoff asks for this lot for {spec.subject!r}: {_shown(req)}; give "
                f"{' '.join(problems)}, or run `arbiter lot {tid} --next --subject "
                f"{spec.subject}`",
            )


def hint(tid: str, view: PlayoffView, req: Requirement) -> str:
    """The command that answers a requirement, for the playoff's "next" lines."""
    if req.kind == "lot":
        several = len(lot_requirements(view)) > 1
        subject = f" --subject {_spec(req)['subject']}" if several and req.lot else ""
        return f"arbiter lot {tid} --next{subject}"
    if req.kind == "schedule":
        stages = {r.stage for r in schedule_requirements(view)}
        return f"arbiter playoff {tid} --schedule" + (
            f" --stage {req.stage}" if len(stages) > 1 else ""
        )
    if req.kind == "results":
        game = req.games[0].game_id if req.games else "GAME"
        return (
            f"arbiter append {tid} --type GameEnded --payload "
            f'\'{{"game_id": "{game}", "result": "1-0", "termination": "resignation"}}\''
        )
    return ""  # a ruling or a correction: the requirement's text says which

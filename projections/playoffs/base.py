"""What every playoff state machine shows, and helpers they share.

A machine is a pure function of the tournament's standings fold (`StandingsState`): it reads
the main stage's final table, the lots drawn (`LotDrawn`, looked up by `subject`), and the
games of its own stages (`RoundScheduled` with `stage` names it prescribes), and recomputes its
whole view. It never draws a lot: where one is needed it says so in `required_next`, and an
arbiter (or a process manager) appends the `LotDrawn` with the outcome; replay then reproduces
the same schedule. `Machine` is what every machine collects while it recomputes (stages,
requirements, notes, whether the arbiter must act) and the steps they share: the lot in force,
stray games, asking for a schedule or results, the status.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from events_schema.events import LotDrawn, Scoring, TimeControl
from projections.mentions import MENTION as MENTION
from projections.mentions import said as said
from projections.mentions import templated as templated
from projections.mentions import who as who
from projections.outcome import game_points
from projections.standings.state import GameRecord, StandingsState
from projections.standings.table import score_dict
from projections.tiebreaks.registry import half_points

Status = Literal["not_needed", "waiting", "in_progress", "decided", "awaiting_ruling"]


@dataclass(frozen=True)
class PlannedGame:
    """A game the machine prescribes: schedule it with these ids, colours and time control."""

    stage: str
    round: int
    game_id: str
    white: str
    black: str
    time_control: TimeControl
    result: str | None = None  # "1-0" / "0-1" / "1/2-1/2" once played
    scheduled: bool = False  # a RoundScheduled holds it

    def as_dict(self) -> dict[str, Any]:
        return {
            "stage": self.stage,
            "round": self.round,
            "game_id": self.game_id,
            "white": self.white,
            "black": self.black,
            "time_control": self.time_control.model_dump(mode="json", exclude_defaults=True),
            "result": self.result,
            "scheduled": self.scheduled,
        }


@dataclass(frozen=True)
class PairedGame(PlannedGame):
    """A prescribed game with its game pair and book exit (TCEC): schedule it with
    `Pairing(game_id, white, black, pair_id=..., opening=...)`."""

    pair_id: str | None = None
    opening: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {**super().as_dict(), "pair_id": self.pair_id, "opening": self.opening}


# --- players named in a text -------------------------------------------------------------------

#: A player named in a note or a requirement's text: `{player id}` (projections/mentions.py).
#: The machines write templates; the document publishes the text with the ids as before
#: (`said(t)`) and the template beside it, and the edge (the CLI) renders it with names
#: (`said(t, names)`): the projection stays pure, the document stable.


@dataclass(frozen=True)
class Requirement:
    """What must happen next for the playoff to go on."""

    kind: Literal["lot", "schedule", "results", "ruling"]
    stage: str
    text: str  # a template: players as `{id}` (`who`, `said`)
    # kind == "lot": the LotDrawn to append (purpose, subject, candidates; how many to pick)
    lot: dict[str, Any] | None = None
    # kind == "schedule": the games to schedule (one RoundScheduled per round)
    games: tuple[PlannedGame, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "stage": self.stage, "text": said(self.text)}
        if templated(self.text):
            out["template"] = self.text
        if self.lot is not None:
            out["lot"] = self.lot
        if self.games:
            out["games"] = [g.as_dict() for g in self.games]
        return out


@dataclass(frozen=True)
class StageView:
    name: str
    kind: str  # "round_robin", "double_round_robin", "armageddon", "match", ...
    players: tuple[str, ...]
    games: tuple[PlannedGame, ...]
    byes: tuple[str, ...] = ()
    scores: tuple[tuple[str, str], ...] = ()  # (player, shown score) within the stage
    # (player, half-points) within the stage: the exact scores the document carries
    half_points: tuple[tuple[str, int], ...] = ()
    advanced: tuple[str, ...] = ()
    eliminated: tuple[str, ...] = ()
    complete: bool = False

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "kind": self.kind,
            "players": list(self.players),
            "games": [g.as_dict() for g in self.games],
            "byes": list(self.byes),
            # `events_schema.documents.Score`: half-points, exact points, as shown
            "scores": {
                p: {**score_dict(half), "display": shown}
                for (p, half), (_, shown) in zip(self.half_points, self.scores, strict=True)
            },
            "advanced": list(self.advanced),
            "eliminated": list(self.eliminated),
            "complete": self.complete,
        }


def scored_stage(
    name: str,
    kind: str,
    players: Sequence[str],
    games: Sequence[PlannedGame],
    points: dict[str, int],
    ranking: Sequence[str],
    *,
    advanced: Sequence[str] = (),
    eliminated: Sequence[str] = (),
    complete: bool = False,
) -> StageView:
    """A stage that scores its games: `points` in half-points per player, listed in `ranking`
    order."""
    return StageView(
        name,
        kind,
        tuple(players),
        tuple(games),
        scores=tuple((p, half_points(points[p])) for p in ranking),
        half_points=tuple((p, points[p]) for p in ranking),
        advanced=tuple(advanced),
        eliminated=tuple(eliminated),
        complete=complete,
    )


@dataclass(frozen=True)
class PlayoffView:
    kind: str  # "gct-event", "gct-tour", "tcec-conditional", "tcec-cup", ...
    status: Status
    rule: str  # the article the machine implements
    tied: tuple[str, ...] = ()
    still_in: tuple[str, ...] = ()
    eliminated: tuple[str, ...] = ()
    stages: tuple[StageView, ...] = ()
    required_next: tuple[Requirement, ...] = ()
    # Decided order of the players in the playoff, best first; a block shares its place.
    final_order: tuple[tuple[str, ...], ...] = ()
    notes: tuple[str, ...] = field(default_factory=tuple)  # templates (`who`, `said`)

    @property
    def winner(self) -> str | None:
        """The one player on top of a decided playoff; None while undecided or shared."""
        if self.status != "decided" or not self.final_order:
            return None
        top = self.final_order[0]
        return top[0] if len(top) == 1 else None

    def stage(self, name: str) -> StageView | None:
        """The stage of that name, or None while the playoff has not reached it."""
        return next((s for s in self.stages if s.name == name), None)

    def lots_required(
        self, *, subject: str | None = None, stage: str | None = None
    ) -> list[Requirement]:
        """The lots `required_next` asks for, for a subject and/or a stage."""
        return [
            r
            for r in self.required_next
            if r.kind == "lot"
            and r.lot is not None
            and (subject is None or r.lot.get("subject") == subject)
            and (stage is None or r.stage == stage)
        ]

    def as_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "status": self.status,
            "rule": self.rule,
            "tied": list(self.tied),
            "still_in": list(self.still_in),
            "eliminated": list(self.eliminated),
            "stages": [s.as_dict() for s in self.stages],
            "required_next": [r.as_dict() for r in self.required_next],
            "final_order": [list(b) for b in self.final_order],
            "notes": [said(n) for n in self.notes],
            **(
                {"note_templates": list(self.notes)}
                if any(templated(n) for n in self.notes)
                else {}
            ),
        }


def lot_problem(lot: LotDrawn, expected: Sequence[str] | None, pick: int) -> str | None:
    """Why a recorded lot does not fit what the machine asked for, or None. `expected` None
    accepts any candidates (e.g. openings). A misfit is reported, never folded silently."""
    if expected is not None and sorted(lot.candidates) != sorted(expected):
        return f"drawn from {sorted(lot.candidates)}, expected {sorted(expected)}"
    if len(set(lot.outcome)) != len(lot.outcome):
        return f"the outcome {list(lot.outcome)} names an entry twice"
    strangers = sorted(set(lot.outcome) - set(lot.candidates))
    if strangers:
        return f"the outcome names {strangers}, which are not candidates"
    if len(lot.outcome) != pick:
        return f"the outcome names {len(lot.outcome)} entries, {pick} expected"
    return None


@dataclass
class Machine:
    """What one recomputation of a playoff machine collects: its stages, what is required
    next and notes; `stuck` when a lot, a schedule or a result needs the arbiter
    (`awaiting_ruling`). The machines extend it with their own state."""

    notes: list[str] = field(default_factory=list)
    stages: list[StageView] = field(default_factory=list)
    required: list[Requirement] = field(default_factory=list)
    stuck: bool = False

    def lot(
        self,
        state: StandingsState,
        purpose: str,
        subject: str,
        stage: str,
        candidates: Sequence[str] | None,
        pick: int,
        why: str,
        extra: dict[str, Any] | None = None,
    ) -> list[str] | None:
        """The checked outcome of the lot in force for `subject`, or None with a requirement
        added: the lot to draw, or to retract and redraw when the recorded one does not fit
        (then `stuck`: the arbiter must act). `candidates` None accepts any (e.g. openings)."""
        spec: dict[str, Any] = {
            "purpose": purpose,
            "subject": subject,
            "candidates": list(candidates) if candidates is not None else [],
            "pick": pick,
            **(extra or {}),
        }
        found = state.lot(subject, purpose)
        if found is None:
            self.required.append(Requirement("lot", stage, why, lot=spec))
            return None
        error = lot_problem(found, candidates, pick)
        if error is not None:
            text = (
                f"the {purpose} lot for {subject!r} does not fit ({error}): retract it "
                f"(EventRetracted) and draw again; {why}"
            )
            self.notes.append(text)
            self.required.append(Requirement("lot", stage, text, lot=spec))
            self.stuck = True
            return None
        return list(found.outcome)

    def strays(self, state: StandingsState, stage: str, used: set[str]) -> None:
        """A note for each game of `stage` the machine did not prescribe."""
        for gid in sorted(g.game_id for g in state.stage_games(stage)):
            if gid not in used:
                self.notes.append(
                    f"game {gid!r} in stage {stage!r} is not part of the playoff; it is ignored"
                )

    def ask_schedule(self, stage: str, games: Sequence[PlannedGame], what: str, art: str) -> None:
        """Ask to schedule the unscheduled games, one requirement per round."""
        todo = [g for g in games if not g.scheduled]
        for rnd in sorted({g.round for g in todo}):
            these = tuple(g for g in todo if g.round == rnd)
            self.required.append(
                Requirement(
                    "schedule",
                    stage,
                    f"schedule round {rnd} of {what} (stage {stage!r}, "
                    f"{these[0].time_control.name}, {art})",
                    games=these,
                )
            )

    def ask_results(self, stage: str, games: Sequence[PlannedGame], why: str) -> None:
        """Ask for the results of the scheduled games not yet played."""
        waiting = tuple(g for g in games if g.scheduled and g.result is None)
        if waiting:
            ids = ", ".join(g.game_id for g in waiting)
            self.required.append(
                Requirement("results", stage, f"results of {ids} ({why})", games=waiting)
            )

    def ask(self, stage: str, games: Sequence[PlannedGame], what: str, art: str) -> None:
        """Ask to schedule the unscheduled games and for the results of the scheduled ones."""
        self.ask_schedule(stage, games, what, art)
        self.ask_results(stage, games, f"{what}, {art}")

    def status(self) -> Status:
        """The status of a playoff still going on."""
        return "awaiting_ruling" if self.stuck else "in_progress"


def main_stage_complete(state: StandingsState) -> bool:
    """Every round of the main stage is scheduled (up to `rounds` when the tournament set it)
    and every main-stage game has a result."""
    created = state.created
    games = state.stage_games("main")
    if not games:
        return False
    if created is not None and created.rounds is not None:
        scheduled = {g.round for g in games} | {
            b.round for _ids, byes in state.rounds.values() for b in byes if b.stage == "main"
        }
        if not set(range(1, created.rounds + 1)) <= scheduled:
            return False
    return all(g.results for g in games)


def result_of(state: StandingsState, game_id: str) -> str | None:
    game = state.games.get(game_id)
    return game.results[-1][2] if game is not None and game.results else None


def recorded_points(rec: GameRecord, scoring: Scoring) -> tuple[int, int] | None:
    """(White, Black) half-points of the result in force under the tournament's scoring, as
    the crosstable counts them; None while unplayed."""
    if not rec.results:
        return None
    _, _, result, termination = rec.results[-1]
    return game_points(result, scoring, forfeit=termination == "forfeit")


def berger_round_robin(players: list[str], double: bool = False) -> list[list[tuple[str, str]]]:
    """FIDE Berger tables (Handbook C.05 annex 1) for pairing numbers 1..n in `players` order:
    rounds of (white, black). With `double`, a second cycle with colours reversed."""
    n = len(players)
    seats: list[str | None] = [*players, None] if n % 2 else list(players)
    m = len(seats)
    rounds: list[list[tuple[str, str]]] = []
    fixed = seats[-1]
    rotating = seats[:-1]
    for r in range(m - 1):
        pairs: list[tuple[str, str]] = []
        # Board 1: the last seat against the rotating head, colours alternating by round.
        head = rotating[0]
        if fixed is not None and head is not None:
            pairs.append((fixed, head) if r % 2 else (head, fixed))
        for i in range(1, m // 2):
            a, b = rotating[i], rotating[-i]
            if a is not None and b is not None:
                pairs.append((a, b))
        rounds.append(pairs)
        rotating = rotating[-(m // 2) + 1 :] + rotating[: -(m // 2) + 1] if m > 2 else rotating
    if double:
        rounds += [[(b, w) for w, b in rnd] for rnd in rounds]
    return rounds

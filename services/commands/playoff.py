"""Scheduling what a playoff requires, at the edge (`arbiter playoff T --schedule`).

`schedule` takes the tournament's fold and playoff view, keeps the playoff's schedule
requirements (`schedule_requirements`, optionally of one stage), builds their `RoundScheduled`s
(`rounds`: games, colours, time controls, TCEC game pairs and openings, and the byes of an
Armageddon round) and appends them as ONE batch through the command path (`CommandService`),
with `expected_seq`: all or nothing, refused if the tournament changed since the fold. Then it
folds again and returns what was appended with the playoff as it now stands. Nothing required
to schedule: nothing is appended (`Scheduled.appended` is empty), and the caller says what the
playoff requires instead.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from events_schema import Actor, Command, CommandBatch, Recorded, encode_payload
from events_schema import events as ev
from events_schema.inputs import CoinTossChoice, Problem
from projections.playoffs.base import PairedGame, PlayoffView, Requirement
from projections.standings import StandingsState
from projections.standings import fold as standings_fold
from services.commands.service import CommandRejected, CommandService
from services.eventlog.base import EventLog

BYE_KIND = "advance"  # GCT 2.4.1/3.4.1: a bye to the next Armageddon round
TOSS_RULE = "playoff.invalid_toss_choice"


@dataclass(frozen=True)
class Scheduled:
    """What `schedule` appended, each `RoundScheduled` with its seq, and the playoff after it
    (before it when nothing was appended)."""

    appended: list[tuple[int, ev.RoundScheduled]]
    view: PlayoffView


def schedule_requirements(view: PlayoffView, stage: str | None = None) -> list[Requirement]:
    """The playoff's requirements of games to schedule now (of `stage`, if given)."""
    return [
        r
        for r in view.required_next
        if r.kind == "schedule" and r.games and (stage is None or r.stage == stage)
    ]


def toss_colours(
    reqs: list[Requirement], state: StandingsState, choices: Sequence[CoinTossChoice]
) -> dict[str, tuple[str, str]]:
    """{game id: (white, black)} as the toss winners chose (GCT 2.5.3/3.5.3: "The winner of
    the toss shall have choice of color"); the machine prescribes the winner as White, so a
    choice of Black swaps the game's colours. Refused, with every wrong choice named, for a
    game that is not to be scheduled now or has no coin toss recorded, or chosen twice."""
    games = {g.game_id: g for req in reqs for g in req.games}
    tosses = {
        lot.subject: lot.outcome[0]
        for lot in state.lots.values()
        if lot.purpose == "coin_toss" and lot.outcome
    }
    open_tosses = sorted(g for g in games if g in tosses) or ["none"]
    found: list[Problem] = []
    chosen: dict[str, tuple[str, str]] = {}
    for i, c in enumerate(choices):
        where = f"--toss-choice[{i}]"
        game = games.get(c.game_id)
        if game is None or c.game_id not in tosses:
            found.append(
                Problem(
                    TOSS_RULE,
                    where,
                    f"{c.game_id} is no game with a recorded coin toss to schedule now "
                    f"(those: {', '.join(open_tosses)})",
                )
            )
            continue
        if c.game_id in chosen:
            found.append(Problem(TOSS_RULE, where, f"{c.game_id} is chosen twice"))
            continue
        winner = tosses[c.game_id]
        other = game.black if game.white == winner else game.white
        chosen[c.game_id] = (winner, other) if c.winner_plays == "white" else (other, winner)
    if found:
        raise CommandRejected.of(found)
    return chosen


def rounds(
    req: Requirement, colours: Mapping[str, tuple[str, str]] | None = None
) -> list[ev.RoundScheduled]:
    """The `RoundScheduled`s a schedule requirement prescribes, one per round: its games with
    their colours (or, for a coin-toss game, the colours its toss winner chose: `colours`),
    time control, game pair and opening, and the byes it carries (an Armageddon round with
    byes: `byes`, given with its games)."""
    colours = colours or {}
    byes = tuple(getattr(req, "byes", ()))
    out: list[ev.RoundScheduled] = []
    numbers = sorted({g.round for g in req.games})
    for i, rnd in enumerate(numbers):
        pairings = [
            ev.Pairing(
                game_id=g.game_id,
                white=colours.get(g.game_id, (g.white, g.black))[0],
                black=colours.get(g.game_id, (g.white, g.black))[1],
                time_control=g.time_control.name,
                pair_id=g.pair_id if isinstance(g, PairedGame) else None,
                opening=g.opening if isinstance(g, PairedGame) else None,
            )
            for g in req.games
            if g.round == rnd
        ]
        out.append(
            ev.RoundScheduled(
                round=rnd,
                stage=req.stage,
                pairings=pairings,
                byes=[ev.Bye(player_id=p, kind=BYE_KIND) for p in byes] if i == 0 else [],
            )
        )
    return out


def schedule(
    log: EventLog,
    tid: str,
    state: StandingsState,
    view: PlayoffView,
    view_of: Callable[[StandingsState], PlayoffView | None],
    *,
    stage: str | None,
    actor: Actor,
    toss_choices: Sequence[CoinTossChoice] = (),
) -> Scheduled:
    """Append the rounds `view` (the playoff of `state`, the fold of `tid`) requires next, of
        `stage` if given, as one batch (a coin-toss game with the colours its toss winner chose,
    `toss_choices`); `view_of` gives the playoff of the fold after it. Raises
        `CommandRejected` when the command path refuses the batch."""
    reqs = schedule_requirements(view, stage)
    if not reqs:
        return Scheduled([], view)
    colours = toss_colours(reqs, state, toss_choices)
    scheduled = [rs for req in reqs for rs in rounds(req, colours)]
    batch = CommandBatch(
        commands=[Command(type=r.event_type, payload=encode_payload(r)) for r in scheduled],
        expected_seq=state.seq,
    )
    result = CommandService(log).handle(tid, batch, actor)
    after = view_of(standings_fold([Recorded.of(e) for e in log.read(tid, 1, None)]))
    assert after is not None  # the same rules define the same playoff
    seqs = [env.seq for env in result.envelopes]
    return Scheduled(list(zip(seqs, scheduled, strict=True)), after)

"""TCEC Premier Division Conditional Tiebreak (Leagues 6); the matches are in `tcec_match`.

The machine is a pure function of the standings fold (`StandingsState`): it reads the main
stage's table, the lots drawn and the games of the stages it prescribes, and recomputes its
whole view. It never draws a lot, reads no clock and depends on no dict order. Articles are
cited from `shared/seeds/tcec-rules.txt`: "Leagues" (TCEC Leagues Season rules).

`conditional_tiebreak(state)` — Leagues 6, `rules_preset="tcec-premier"`:

1. 6.1 Only after the Premier Division (the main stage) is completely played; until then the
   view is `waiting`. Only points count ("no tiebreak formula shall be used"):
   - the top two are separated from the third on points (one clear first and one clear second,
     or exactly two tied for first): `not_needed`; both go to the Superfinal;
   - 6.1.1 one engine clear first and two or more tied for second: the clear first takes one
     Superfinal spot, the tied engines play for the other (one spot at stake);
   - 6.1.2 three or more tied for first: they play for both spots (two spots at stake).
2. 6.2 Double round robins, stage `tcec-ct-<n>` (n = 1, 2, ...): the engines' pairing order by
   `LotDrawn(purpose="engine_order", subject="tcec-ct-<n>", candidates=<engines left, sorted>)`
   (every random choice is a lot; Leagues 5.6 randomises the engine order too), fed to the FIDE
   Berger tables (`berger_round_robin(order, double=True)`); games `tcec-ct-<n>-r<round>-b<board>`,
   a game and its reverse in the second cycle share `pair_id` `tcec-ct-<n>-p<round>.<board>`;
   6.4: 60'+6". With an odd number of engines one sits out each round (Berger); no bye is
   scheduled or scored. Openings come from the book and are taken as scheduled.
3. After each double round robin, on the points scored in that double round robin alone:
   6.2.1 with two spots at stake, an engine clear first promotes and leaves, one spot is left;
   6.2.2 every engine strictly below the points of the last spot at stake is eliminated.
4. 6.3 Repeat until the engines left equal the spots at stake: they promote.
   `final_order` then lists the Superfinal engines: the clear first of the Premier Division
   (6.1.1) or the engine that promoted by 6.2.1 first, then the other; two engines promoting
   together at 6.3 share a block (Leagues 6 does not order them; which one is the "winner of
   the Premier Division" for the Superfinal colours, 7.3, is left to the organisers, rule 0).
   Places below the Superfinal spots come from the table's chain (Leagues 11.1), not from here.

`required_next` asks first for a lot, then for the games to schedule (one `RoundScheduled`
per round), then for their results, a whole double round robin at a time. A scheduled game is
used as it stands; where it differs from the prescription (colours, stray games) a note says
so. A lot that does not fit stops the machine with `awaiting_ruling` until it is retracted and
drawn again.
"""

from __future__ import annotations

from collections.abc import Sequence

from projections.outcome import scoring_of
from projections.playoffs.base import (
    Machine,
    PairedGame,
    PlannedGame,
    PlayoffView,
    Requirement,
    StageView,
    berger_round_robin,
    main_stage_complete,
    recorded_points,
    result_of,
    scored_stage,
    who,
)
from projections.standings.state import StandingsState
from projections.standings.table import Row, Table, standings
from projections.time_controls import TC_60_6

CT_KIND = "tcec-conditional"
CT_RULE = "TCEC Leagues 6 (Premier Division Conditional Tiebreak)"
CT_PRESET = "tcec-premier"

# Leagues 6.4 / 9.3: the Premier Division time control.
TC_PREMIER = TC_60_6


def _ranked(players: Sequence[str], points: dict[str, int]) -> list[str]:
    """Best first; equal points keep the given order."""
    return sorted(players, key=lambda p: -points[p])


def ct_stage(n: int) -> str:
    return f"tcec-ct-{n}"


def _after_drr(
    still_in: Sequence[str], spots: int, points: dict[str, int]
) -> tuple[str | None, list[str], list[str], int]:
    """Leagues 6.2 on one double round robin's points:
    (promoted by 6.2.1, eliminated by 6.2.2, engines left, spots left)."""
    ranked = _ranked(still_in, points)
    promoted = None
    left = list(still_in)
    if spots == 2 and points[ranked[0]] > points[ranked[1]]:
        # 6.2.1: clear first with two spots at stake: promotes, leaves, one spot remains.
        promoted = ranked[0]
        left.remove(promoted)
        ranked = ranked[1:]
        spots = 1
    # 6.2.2: strictly worse on points than the last promotion spot at stake.
    threshold = points[ranked[spots - 1]]
    eliminated = [p for p in left if points[p] < threshold]
    left = [p for p in left if points[p] >= threshold]
    return promoted, eliminated, left, spots


def _ct_drr(
    run: Machine, state: StandingsState, stage: str, order: list[str]
) -> tuple[list[PlannedGame], dict[str, int], bool]:
    """The double round robin of `stage` in the lot's `order`: its games (as scheduled where
    they are), the points scored in it, and whether it is complete."""
    rounds = berger_round_robin(order, double=True)
    half = len(rounds) // 2
    scoring = scoring_of(state.created)
    by_key = {(g.round, frozenset((g.white, g.black))): g for g in state.stage_games(stage)}
    used: set[str] = set()
    games: list[PlannedGame] = []
    points = dict.fromkeys(order, 0)
    for r, pairs in enumerate(rounds, start=1):
        cycle_round = r if r <= half else r - half
        for b, (white, black) in enumerate(pairs, start=1):
            pair_id = f"{stage}-p{cycle_round}.{b}"
            rec = by_key.get((r, frozenset((white, black))))
            if rec is None:
                games.append(
                    PairedGame(
                        stage, r, f"{stage}-r{r}-b{b}", white, black, TC_PREMIER, pair_id=pair_id
                    )
                )
                continue
            used.add(rec.game_id)
            if rec.white != white:
                run.notes.append(
                    f"{rec.game_id}: scheduled {rec.white}–{rec.black}, the Berger table has "
                    f"{white}–{black} (other colours); the scheduled game is used"
                )
            games.append(
                PairedGame(
                    stage,
                    r,
                    rec.game_id,
                    rec.white,
                    rec.black,
                    TC_PREMIER,
                    result=result_of(state, rec.game_id),
                    scheduled=True,
                    pair_id=rec.pair_id,
                    opening=rec.opening,
                )
            )
            got = recorded_points(rec, scoring)
            if got is not None:
                points[rec.white] += got[0]
                points[rec.black] += got[1]
    run.strays(state, stage, used)
    return games, points, all(g.result is not None for g in games)


def _decided_on_points(rows: Sequence[Row]) -> PlayoffView:
    """Leagues 6.1: the top two are separated from the third on points: no tiebreak."""
    top_two = [r.player_id for r in rows][:2]
    places = {r.player_id: r.place for r in rows}
    final = (
        (tuple(top_two),)
        if len(top_two) == 2 and places[top_two[0]] == places[top_two[1]]
        else tuple((p,) for p in top_two)
    )
    return PlayoffView(
        CT_KIND,
        "not_needed",
        CT_RULE,
        final_order=final,
        notes=(
            "the two Superfinal places are determined on points (Leagues 5.7, 6.1); "
            "their order is the table's (Leagues 11.1)",
        ),
    )


def conditional_tiebreak(state: StandingsState, table: Table | None = None) -> PlayoffView:
    """The Premier Division Conditional Tiebreak (Leagues 6); see the module docstring.
    `table` is the main stage's standings when the caller has them."""
    created = state.created
    if created is None or created.rules_preset != CT_PRESET:
        preset = created.rules_preset if created is not None else None
        return PlayoffView(
            CT_KIND,
            "not_needed",
            CT_RULE,
            notes=(f"rules_preset {preset!r}: the Conditional Tiebreak is for {CT_PRESET!r}",),
        )
    if not main_stage_complete(state):
        text = (
            "the Premier Division is not completely played: the Conditional Tiebreak can only "
            "follow its last game (Leagues 6.1)"
        )
        return PlayoffView(
            CT_KIND,
            "waiting",
            CT_RULE,
            required_next=(Requirement("results", "main", text),),
            notes=(text,),
        )
    rows = (table if table is not None else standings(state)).rows
    values = sorted({r.points for r in rows}, reverse=True)
    groups = [[r.player_id for r in rows if r.points == v] for v in values]
    top = groups[0]
    second = groups[1] if len(groups) > 1 else []
    run = Machine()
    decided: list[tuple[str, ...]] = []  # Superfinal engines, in the order they promote
    if len(top) == 2 or (len(top) == 1 and len(second) <= 1):
        return _decided_on_points(rows)
    if len(top) == 1:
        entrants, spots = second, 1
        decided.append((top[0],))
        run.notes.append(
            f"Leagues 6.1.1: {top[0]} is clear first and takes one Superfinal spot; "
            f"{who(*entrants)} are tied for second and play for the other"
        )
    else:
        entrants, spots = top, 2
        run.notes.append(
            f"Leagues 6.1.2: {who(*entrants)} are tied for first and play for both Superfinal spots"
        )
    still_in = list(entrants)
    eliminated: list[str] = []
    n = 0
    while len(still_in) > spots:
        n += 1
        stage = ct_stage(n)
        candidates = sorted(still_in)
        order = run.lot(
            state,
            "engine_order",
            stage,
            stage,
            candidates,
            len(candidates),
            f"draw the engine order of double round robin {n} of the Conditional Tiebreak "
            f"(stage {stage!r}; Leagues 6.2, engine order randomised as in 5.6)",
        )
        if order is None:
            run.stages.append(StageView(stage, "double_round_robin", tuple(candidates), ()))
            break
        games, points, complete = _ct_drr(run, state, stage, order)
        ranking = _ranked(order, points)
        if not complete:
            run.ask(stage, games, f"Conditional Tiebreak double round robin {n}", "Leagues 6.4")
            run.stages.append(
                scored_stage(stage, "double_round_robin", order, games, points, ranking)
            )
            break
        promoted, out, still_in, spots = _after_drr(still_in, spots, points)
        advanced: list[str] = []
        if promoted is not None:
            decided.append((promoted,))
            advanced.append(promoted)
            run.notes.append(
                f"{stage}: {promoted} is clear first with two spots at stake: promotes to the "
                "Superfinal and leaves the Conditional Tiebreak; one spot is left (Leagues 6.2.1)"
            )
        if out:
            eliminated += out
            run.notes.append(
                f"{stage}: {', '.join(out)} strictly below the last spot at stake: eliminated "
                "(Leagues 6.2.2)"
            )
        if len(still_in) == spots:
            decided.append(tuple(still_in))
            advanced += still_in
            run.notes.append(
                f"{stage}: {', '.join(still_in)} left for {spots} spot(s): "
                f"promote{'s' if spots == 1 else ''} to the Superfinal (Leagues 6.3)"
            )
            if spots == 2:
                run.notes.append(
                    "Leagues 6 does not order two engines promoting together: which is the "
                    "Premier Division winner for the Superfinal colours (7.3) is for the "
                    "organisers (rule 0)"
                )
        elif not promoted and not out:
            run.notes.append(f"{stage}: nothing decided; another double round robin (6.3)")
        run.stages.append(
            scored_stage(
                stage,
                "double_round_robin",
                order,
                games,
                points,
                ranking,
                advanced=advanced,
                eliminated=out,
                complete=True,
            )
        )
    played = {s.name for s in run.stages}
    for name in sorted({g.stage for g in state.games.values()}):
        if name.startswith("tcec-ct-") and name not in played:
            run.notes.append(f"stage {name!r} is not part of the tiebreak (yet); it is ignored")
    done = len(still_in) == spots
    return PlayoffView(
        CT_KIND,
        "decided" if done else run.status(),
        CT_RULE,
        tied=tuple(entrants),
        still_in=tuple(still_in),
        eliminated=tuple(eliminated),
        stages=tuple(run.stages),
        required_next=() if done else tuple(run.required),
        final_order=tuple(decided) if done else (),
        notes=tuple(run.notes),
    )

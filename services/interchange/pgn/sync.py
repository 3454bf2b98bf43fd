"""A PGN game brought up to date in its tournament (`sync_game`): started if it is not, the
moves the source has beyond those in force appended (with their clocks and evaluations, the
decider ending the game by rule where it does), moves the source no longer has taken back as
a correction (`EventRetracted` of each, last first: history is never rewritten) where the
caller allows it, and the source's own ending recorded (`record_source_ending`) once its
movetext has a final result. One function for the three callers: a new tournament's import
and an import into an existing tournament (in the dry run, all or nothing), and the relay
(services/relay/, live, game by game, poll after poll)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from events_schema import events as ev
from projections.endings.interruptions import crash_ending
from projections.endings.rules import Ruleset
from projections.games import BY_MOVES
from projections.tournament.rules.consistency import mismatch
from projections.tournament.state import GameState
from services.interchange.game_import import play_moves
from services.interchange.pgn.plan import PlannedGame
from services.interchange.pipeline import ImportRefused, Runner, ended_payload

_AFTER_END = frozenset({"move.after_end"})  # the decider's refusal of a move after the end
# Endings declared by an event under every preset (never an adjudication).
_DECLARED: frozenset[str] = frozenset({"resignation", "agreement", "time_forfeit", "forfeit"})
# Endings that are adjudications by the arena.
_ADJUDICATIONS: frozenset[str] = frozenset({"adjudication", "tablebase", "tcec_draw_rule"})


@dataclass
class Synced:
    """What a sync did to one game and where it stands."""

    plies: int = 0  # moves in force after the sync
    appended: int = 0  # moves appended by this sync
    retracted: int = 0  # moves taken back by this sync
    ended: dict[str, Any] | None = None  # the ending in force (a GameEnded payload's fields)
    cut: bool = False  # the game ended (by rule) before the source's last move
    notes: list[str] = field(default_factory=list)  # disagreements found on the way


def _in_force(game: GameState) -> dict[str, Any] | None:
    entry = game.result
    if entry is None:
        return None
    return {"result": entry.result, "termination": entry.termination, "rule": entry.rule}


def sync_game(
    run: Runner,
    g: PlannedGame,
    ruleset: Ruleset | None,
    file_name: str,
    *,
    prefix: str,
    move_key: Callable[[int, str], str] | None = None,
    take_back: str | None = None,
) -> Synced:
    """Bring `g.game_id` up to the source `g`. Event keys are `prefix` + ":start",
    ":move:<ply>" (or `move_key(ply, uci)`), ":retract:<event id>", ":end", ":crash".
    Moves in force the source no longer has are taken back (`EventRetracted`, its reason
    `take_back` + what was taken back) when `take_back` is given, else refused
    (`pgn.moves_differ`, naming the line); a refusal of the decider is `ImportRefused`."""
    pgn = g.game
    gid = g.game_id
    out = Synced()
    game = run.state().games[gid]
    if not game.started:
        start = ev.GameStarted(game_id=gid, fen=pgn.start_fen, source=g.source)
        run.run([run.command(f"{prefix}:start", start, f"{file_name}:{pgn.line}")])
        game = run.state().games[gid]
    recorded = list(game.moves)
    source = [m.uci for m in pgn.moves]
    same = 0
    while same < min(len(recorded), len(source)) and recorded[same] == source[same]:
        same += 1
    if same < len(recorded):
        at = pgn.moves[same] if same < len(source) else None
        where = f"{file_name}:{at.line if at is not None else pgn.line}"
        theirs = source[same] if at is not None else "no move"
        what = f"ply {same + 1} is {recorded[same]} in {gid}, {theirs} in the source"
        if take_back is None:
            raise ImportRefused(
                "pgn.moves_differ",
                where,
                f"{what}: the file does not continue the game in force (a take-back is a "
                "correction: arbiter relay records it, an import does not)",
            )
        steps = [
            run.command(
                f"{prefix}:retract:{game.move_event_ids[j]}",
                ev.EventRetracted(
                    retracted_event_id=game.move_event_ids[j],
                    reason=f"{take_back}: the source took back ply {j + 1} ({recorded[j]}); {what}"[
                        :4000
                    ],
                ),
                where,
            )
            for j in range(len(recorded) - 1, same - 1, -1)
        ]
        run.run(steps)
        out.retracted = len(steps)
        game = run.state().games[gid]
    out.ended = _in_force(game)
    new = pgn.moves[same:]
    if new and out.ended is not None:
        out.cut = True  # the game ended in force (by rule, or before): later moves not played
    elif new:
        facts = g.facts[same:]
        steps = [
            run.command(
                f"{prefix}:move:{m.ply}" if move_key is None else move_key(m.ply, m.uci),
                ev.MovePlayed(
                    game_id=gid,
                    ply=m.ply,
                    colour=m.colour,
                    uci=m.uci,
                    clock_ms=f.clock_ms,
                    move_time_ms=f.move_time_ms,
                    eval_cp=f.eval_cp,
                    mate_in=f.mate_in,
                    depth=f.depth,
                    nodes=f.nodes,
                ),
                f"{file_name}:{m.line}",
            )
            for m, f in zip(new, facts, strict=True)
        ]
        played, out.ended, out.cut = play_moves(run, steps, gid, _AFTER_END)
        out.appended = len(played)
    game = run.state().games[gid]
    out.plies = len(game.moves)
    if out.ended is None and not pgn.in_progress:
        out.ended = record_source_ending(
            run, g, ruleset, file_name, out.plies, out.notes, prefix=prefix
        )
    elif out.ended is None:
        out.ended = _in_force(game)
    return out


def _final_termination(g: PlannedGame) -> ev.Termination:
    """What a source ending without words ("Normal", none) was, from the final position."""
    final = g.game.final
    decisive = g.ending.result in ("1-0", "0-1")
    if final is not None and (
        not decisive or final in ("checkmate", "stalemate", "insufficient_material")
    ):
        return final
    lower = g.source.termination.lower()
    if lower == "normal":
        return "resignation" if decisive else "agreement"
    return "other"


def _claim(ruleset: Ruleset, termination: ev.Termination) -> bool:
    """An ending the preset leaves to a claim (FIDE 9.2, 9.3: three-fold, fifty moves)."""
    for name in BY_MOVES.get(termination, ()):
        rule = ruleset.rule(name)
        if rule is not None and not rule.automatic:
            return True
    return False


def _consistent(
    result: ev.Result, termination: ev.Termination, g: PlannedGame, notes: list[str]
) -> ev.Termination:
    """`termination`, or "other" when the file's result cannot end that way (a 1-0 whose
    final position is stalemate, a draw by "White mates"): the decider refuses such an
    ending (rules/consistency.py), so the result is recorded as the file gives it, its way
    as "other", and the contradiction is reported as a disagreement."""
    why = mismatch(result, termination)
    if why is None:
        return termination
    notes.append(
        f"the file's result contradicts its ending ({g.ending.words or termination}): {why}"
    )
    return "other"


def record_source_ending(
    run: Runner,
    g: PlannedGame,
    ruleset: Ruleset | None,
    file_name: str,
    plies: int,
    notes: list[str],
    *,
    prefix: str,
) -> dict[str, Any] | None:
    """The PGN's own ending, when the rules did not end the game: the envelope payload of the
    `GameEnded` recorded, or None for a game in progress (no final result in its movetext).
    A result that contradicts its ending is added to `notes` (`_consistent`)."""
    src = g.ending
    if src.result not in ("1-0", "0-1", "1/2-1/2"):
        return None
    pgn = g.game
    result: ev.Result = src.result  # type: ignore[assignment]
    words = src.words or f"result {src.result}"
    rule = f"arena: {words}"[:200]
    line = pgn.token_line or pgn.header_lines.get("Result", pgn.line)
    where = f"{file_name}:{line}"
    basis = (
        f"{file_name} game {pgn.index}: Result {src.result}, Termination "
        f"{g.source.termination or '-'!r}, TerminationDetails {g.source.details or '-'!r}, "
        f"after ply {plies}"
    )[:2000]
    key = f"{prefix}:end"
    termination = src.termination
    if termination == "engine_crash" and src.crashed is not None:
        pid = g.white if src.crashed == "white" else g.black
        crash = ev.EngineCrashed(game_id=g.game_id, player_id=pid, ply=plies, detail=words)
        envs = run.run([run.command(f"{prefix}:crash", crash, where)])
        found = ended_payload(envs, g.game_id)
        if found is not None:
            return found
        ending = crash_ending(crash, ruleset, src.crashed) if ruleset is not None else None
        if ending is not None:
            ended = ev.GameEnded(
                game_id=g.game_id,
                result=ending.result,
                termination="engine_crash",
                detail=f"{ending.detail}; {basis}"[:2000],
                rule=ending.rule,
            )
        else:
            ended = ev.GameEnded(
                game_id=g.game_id,
                result=result,
                termination=_consistent(result, "engine_crash", g, notes),
                detail=basis,
                rule=rule,
            )
        return ended_payload(run.run([run.command(key, ended, where)]), g.game_id)
    if termination is None:
        termination = _final_termination(g)
    adjudication = termination in _ADJUDICATIONS or (
        ruleset is not None
        and termination not in _DECLARED
        and termination != "engine_crash"
        and not _claim(ruleset, termination)
    )
    if adjudication:
        issued = ev.AdjudicationIssued(game_id=g.game_id, rule=rule, outcome=result, basis=basis)
        return ended_payload(run.run([run.command(key, issued, where)]), g.game_id)
    ended = ev.GameEnded(
        game_id=g.game_id,
        result=result,
        termination=_consistent(result, termination, g, notes),
        detail=basis,
        rule=rule,
    )
    return ended_payload(run.run([run.command(key, ended, where)]), g.game_id)

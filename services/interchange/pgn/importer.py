"""A PGN import (`import_pgn`): the file parsed in full (`parse`), planned (`plan`), every
command decided in a dry run on the shared pipeline (`services/interchange/game_import.py`;
the rules may end a game before the file does), then appended; and the file's own ending
recorded where the rules did not end the game (`record_source_ending`)."""

from __future__ import annotations

import hashlib
import uuid
from typing import Any

from events_schema import Actor
from events_schema import events as ev
from projections.endings.interruptions import crash_ending
from projections.endings.rules import Ruleset, ruleset_for
from projections.games import BY_MOVES, disagreement
from projections.tournament.rules.consistency import mismatch
from services.eventlog.base import EventLog
from services.interchange.game_import import decide_games, play_moves, round_scheduled
from services.interchange.pgn.parse import decode, read_pgn
from services.interchange.pgn.plan import Plan, PlannedGame, plan
from services.interchange.pgn.report import GameReport, ImportReport
from services.interchange.pipeline import (
    DryRun,
    ImportRefused,
    Progress,
    Step,
    Target,
    decide_then_append,
    ended_payload,
)

_NAMESPACE = uuid.UUID("0d6a4c1e-5b7f-4f1a-8f3c-2e9b7a6d4c53")
_AFTER_END = frozenset({"move.after_end"})  # the decider's refusal of a move after the end
# Endings declared by an event under every preset (never an adjudication).
_DECLARED: frozenset[str] = frozenset({"resignation", "agreement", "time_forfeit", "forfeit"})
# Endings that are adjudications by the arena.
_ADJUDICATIONS: frozenset[str] = frozenset({"adjudication", "tablebase", "tcec_draw_rule"})


def import_pgn(
    log: EventLog,
    data: bytes,
    *,
    file_name: str,
    tournament_id: str,
    actor: Actor,
    rules: str | None = None,
    adjudicate: bool = False,
    fmt: str | None = None,
    progress: Progress | None = None,
) -> ImportReport:
    """Parse `data` in full (`PgnError`), decide every command in a dry run (`ImportRefused`),
    then append them to `log`. Importing the same bytes with the same options into the same
    tournament again appends nothing."""
    if rules is not None:
        try:
            ruleset_for(rules)
        except KeyError as exc:
            raise ImportRefused("pgn.unknown_rules", "--rules", str(exc.args[0])) from None
    games = read_pgn(decode(data), progress)
    the_plan = plan(games, file_name=file_name, rules=rules, adjudicate=adjudicate, fmt=fmt)
    digest = hashlib.sha256(data).hexdigest()
    namespace = f"pgn:{tournament_id}:{digest}:{rules or ''}:{'rules' if adjudicate else 'manual'}"
    report = ImportReport(
        tournament_id,
        file_name,
        digest,
        rules,
        adjudicate,
        len(the_plan.players),
        len(the_plan.rounds),
    )
    target = Target(log, tournament_id, actor, _NAMESPACE, namespace)
    decide_then_append(
        target,
        report,
        lambda dry: _decide_all(dry, the_plan, report, file_name, progress),
        progress,
    )
    return report


def _decide_all(
    dry: DryRun, p: Plan, report: ImportReport, file_name: str, progress: Progress | None
) -> None:
    ruleset: Ruleset | None = ruleset_for(p.created.rules_preset) if report.adjudicate else None
    head = [dry.command("created", p.created, f"{file_name}:1")]
    head += [dry.command(f"player:{pl.player_id}", pl, f"{file_name}:1") for pl in p.players]

    def schedule(g: PlannedGame) -> Step:
        rs = round_scheduled(g.round, p.rounds[g.round], _time_control)
        return dry.command(f"round:{g.round}", rs, f"{file_name}:{g.game.line}")

    decide_games(
        dry,
        head,
        p.games,
        schedule,
        lambda g: _decide_game(dry, g, ruleset, file_name),
        report.games,
        progress,
    )


def _time_control(g: PlannedGame) -> str | None:
    return g.time_control.name if g.time_control is not None else None


def _decide_game(
    dry: DryRun, g: PlannedGame, ruleset: Ruleset | None, file_name: str
) -> GameReport:
    pgn = g.game
    where = f"{file_name}:{pgn.line}"
    rep = GameReport(
        index=pgn.index,
        line=pgn.line,
        round_header=pgn.headers.get("Round", ""),
        game_id=g.game_id,
        round=g.round,
        white=pgn.headers.get("White", ""),
        black=pgn.headers.get("Black", ""),
        source=g.source,
        source_plies=len(pgn.moves),
    )
    start = ev.GameStarted(game_id=g.game_id, fen=pgn.start_fen, source=g.source)
    dry.run([dry.command(f"game:{pgn.index}:start", start, where)])
    moves = [
        dry.command(
            f"game:{pgn.index}:move:{m.ply}",
            ev.MovePlayed(
                game_id=g.game_id,
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
        for m, f in zip(pgn.moves, g.facts, strict=True)
    ]
    # the rules may end the game before the PGN does: its later moves are not played
    played, ended, _ = play_moves(dry, moves, g.game_id, _AFTER_END)
    rep.plies = len(played)
    rep.in_progress = pgn.in_progress and ended is None
    notes: list[str] = []
    if ended is None:
        ended = _record_source_ending(dry, g, ruleset, file_name, rep.plies, notes)
    if ended is not None:
        rep.ended(ended)
    tag = pgn.header("Result")
    if pgn.in_progress and tag in ("1-0", "0-1", "1/2-1/2"):
        notes.append(
            f"the Result tag says {tag} but the movetext has no final result"
            f"{' (the file is cut inside a move)' if pgn.cut else ''}: in progress after "
            f"ply {len(pgn.moves)}, no ending recorded"
        )
    why = disagreement(
        result=rep.result,
        termination=rep.termination,
        rule=rep.rule,
        plies=rep.plies,
        source=g.ending,
        source_plies=len(pgn.moves),
        ruleset=ruleset,
    )
    rep.why = "; ".join([*([why] if why else []), *notes]) or None
    return rep


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


def _record_source_ending(
    dry: DryRun,
    g: PlannedGame,
    ruleset: Ruleset | None,
    file_name: str,
    plies: int,
    notes: list[str],
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
    line = pgn.header_lines.get("Result", pgn.line)
    where = f"{file_name}:{line}"
    basis = (
        f"{file_name} game {pgn.index}: Result {src.result}, Termination "
        f"{g.source.termination or '-'!r}, TerminationDetails {g.source.details or '-'!r}, "
        f"after ply {plies}"
    )[:2000]
    key = f"game:{pgn.index}:end"
    termination = src.termination
    if termination == "engine_crash" and src.crashed is not None:
        pid = g.white if src.crashed == "white" else g.black
        crash = ev.EngineCrashed(game_id=g.game_id, player_id=pid, ply=plies, detail=words)
        envs = dry.run([dry.command(f"game:{pgn.index}:crash", crash, where)])
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
        return ended_payload(dry.run([dry.command(key, ended, where)]), g.game_id)
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
        return ended_payload(dry.run([dry.command(key, issued, where)]), g.game_id)
    ended = ev.GameEnded(
        game_id=g.game_id,
        result=result,
        termination=_consistent(result, termination, g, notes),
        detail=basis,
        rule=rule,
    )
    return ended_payload(dry.run([dry.command(key, ended, where)]), g.game_id)

"""An SGF import (`import_sgf`): the files read in full (`parse`), planned (`plan`), every
command decided in a dry run on the shared pipeline (`services/interchange/game_import.py`:
a resumption stopped by two passes ends a game before the file does; a count is made by the
decider, LGC Scoring), then appended; the SGF's own ending recorded where the decider did
not end the game (`_record_ending`)."""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from events_schema import Actor
from events_schema import events as ev
from projections.games import disagreement, read_source
from services.eventlog.base import EventLog
from services.interchange.game_import import decide_games, play_moves, round_scheduled
from services.interchange.pipeline import (
    DryRun,
    ImportRefused,
    Progress,
    Step,
    Target,
    decide_then_append,
    ended_payload,
)
from services.interchange.sgf.parse import SgfMove, margin_text, read_all
from services.interchange.sgf.plan import PlannedGame, SgfPlan, plan
from services.interchange.sgf.report import SgfGameReport, SgfImportReport

_NAMESPACE = uuid.UUID("5b0c7e0a-3f0e-4d8e-9a55-6f2f1c9d3e71")  # SGF import event ids
# the decider's refusals of a move or a dispute after the end
_AFTER_END = frozenset({"move.after_end", "game.already_ended"})


def digest_of(files: Sequence[tuple[str, bytes]]) -> str:
    """The digest of an import: each file's name and bytes, in order."""
    h = hashlib.sha256()
    for name, data in files:
        h.update(name.encode("utf-8") + b"\0" + hashlib.sha256(data).digest())
    return h.hexdigest()


def import_sgf(
    log: EventLog,
    files: Sequence[tuple[str, bytes]],
    *,
    tournament_id: str,
    actor: Actor,
    adjudicate: bool = False,
    fmt: str | None = None,
    progress: Progress | None = None,
) -> SgfImportReport:
    """Read `files` (name, bytes) in full (`SgfError`), decide every command in a dry run
    (`ImportRefused`), then append them to `log`. Importing the same files with the same
    options into the same tournament again appends nothing."""
    if not files:
        raise ImportRefused("sgf.no_files", "FILE", "no SGF files given")
    games = read_all(files, progress)
    stem = files[0][0].rsplit(".", 1)[0]
    the_plan = plan(games, name=stem, adjudicate=adjudicate, fmt=fmt)
    digest = digest_of(files)
    namespace = f"sgf:{tournament_id}:{digest}:{'rules' if adjudicate else 'manual'}:{fmt or ''}"
    report = SgfImportReport(
        tournament_id,
        [f for f, _ in files],
        digest,
        adjudicate,
        the_plan.created.board_size,
        the_plan.created.komi,
        len(the_plan.players),
        len(the_plan.rounds),
    )
    target = Target(log, tournament_id, actor, _NAMESPACE, namespace)
    decide_then_append(
        target, report, lambda dry: _decide_all(dry, the_plan, report, progress), progress
    )
    return report


def _decide_all(
    dry: DryRun, p: SgfPlan, report: SgfImportReport, progress: Progress | None
) -> None:
    where = p.games[0].game.where(0)
    head = [dry.command("created", p.created, where)]
    for pl in p.players:
        registered = ev.PlayerRegistered(player_id=pl.player_id, name=pl.name, go_rank=pl.rank)
        head.append(dry.command(f"player:{pl.player_id}", registered, where))
    names = {pl.player_id: pl.name for pl in p.players}

    def schedule(g: PlannedGame) -> Step:
        rs = round_scheduled(g.round, p.rounds[g.round])
        return dry.command(f"round:{g.round}", rs, g.game.where(0))

    decide_games(
        dry, head, p.games, schedule, lambda g: _decide_game(dry, g, names), report.games, progress
    )


def _paused(moves: Sequence[SgfMove]) -> bool:
    """LGC Timing "Ending the game" 3: the last two moves are a Black pass, then a White
    pass."""
    return (
        len(moves) >= 2
        and moves[-1].point == "pass"
        and moves[-1].colour == "white"
        and moves[-2].point == "pass"
        and moves[-2].colour == "black"
    )


def _move_steps(dry: DryRun, g: PlannedGame) -> tuple[list[Step], bool]:
    """The moves, with a `GoStatusDisputed` where the SGF plays on after play paused; and
    whether play is paused after the last move recorded (the moves after a stop at the start
    of a resumption are left out: the decider ends the game there)."""
    sgf_game = g.game
    steps: list[Step] = []
    tail: list[SgfMove] = []  # the moves since the start or the last resumption
    resumed = False
    for m in sgf_game.moves:
        if _paused(tail):
            if resumed and len(tail) == 2:
                return steps, False  # both passed at the start of a resumption: stopped
            dispute = ev.GoStatusDisputed(
                game_id=g.game_id,
                detail=f"the SGF plays on after the passes (node {m.node})",
            )
            steps.append(
                dry.command(f"game:{g.game_id}:dispute:{m.ply}", dispute, sgf_game.where(m.node))
            )
            tail, resumed = [], True
        move = ev.MovePlayed(game_id=g.game_id, ply=m.ply, colour=m.colour, point=m.point)
        steps.append(dry.command(f"game:{g.game_id}:move:{m.ply}", move, sgf_game.where(m.node)))
        tail.append(m)
    stopped = resumed and len(tail) == 2 and _paused(tail)
    return steps, _paused(tail) and not stopped


def _decide_game(dry: DryRun, g: PlannedGame, names: dict[str, str]) -> SgfGameReport:
    sgf_game = g.game
    rep = SgfGameReport(
        file=sgf_game.file,
        index=sgf_game.index,
        game_id=g.game_id,
        round=g.round,
        black=names[g.black],
        white=names[g.white],
        source=g.source,
        source_plies=len(sgf_game.moves),
        notes=list(sgf_game.notes),
    )
    start = ev.GameStarted(game_id=g.game_id, handicap=sgf_game.handicap, source=g.source)
    dry.run([dry.command(f"game:{g.game_id}:start", start, sgf_game.where(0))])
    steps, paused = _move_steps(dry, g)
    # the decider may end the game before the SGF does: its later moves are not played
    played, ended, cut = play_moves(dry, steps, g.game_id, _AFTER_END)
    paused = paused and not cut and ended is None
    rep.plies = plies = sum(1 for s in played if s.command.type == "MovePlayed")
    not_counted: str | None = None
    if ended is None:
        ended, not_counted = _record_ending(dry, g, paused, plies)
    if ended is not None:
        rep.ended(ended)
        score = ended.get("go_score") or {}
        if score.get("margin") is not None:
            rep.counted = margin_text(Decimal(str(score["margin"])))
    rep.why = _why(g, rep, not_counted)
    return rep


def _record_ending(
    dry: DryRun, g: PlannedGame, paused: bool, plies: int
) -> tuple[dict[str, Any] | None, str | None]:
    """The SGF's ending when the decider did not end the game: the `GameEnded` payload (None
    for no result) and, for a count Arbiter could not make, why."""
    src = g.game.result
    if src.result is None or src.termination is None:
        return None, None
    where = g.game.where(0)
    not_counted: str | None = None
    if src.counted:
        if paused:
            agreed = ev.GoStatusAgreed(game_id=g.game_id, dead_stones=g.game.dead)
            try:
                envs = dry.run([dry.command(f"game:{g.game_id}:status", agreed, where)])
            except ImportRefused as exc:
                not_counted = f"Arbiter's count was refused ({exc.rule}): {exc.message}"
            else:
                return ended_payload(envs, g.game_id), None
        else:
            not_counted = (
                "Arbiter did not count: the moves do not end with play paused (a Black pass, "
                'then a White pass: LGC Timing "Ending the game" 3)'
            )
    basis = f"{g.game.file} game {g.game.index}: RE[{src.text}] after ply {plies}"
    if not_counted is not None:
        basis = f"{basis}; {not_counted}"
    ended = ev.GameEnded(
        game_id=g.game_id,
        result=src.result,
        termination=src.termination,
        detail=basis[:2000],
        rule=f"arena: RE[{src.text}]"[:200],
    )
    envs = dry.run([dry.command(f"game:{g.game_id}:end", ended, where)])
    return ended_payload(envs, g.game_id), not_counted


def _why(g: PlannedGame, rep: SgfGameReport, not_counted: str | None) -> str | None:
    src = g.game.result
    reasons: list[str] = []
    base = disagreement(
        result=rep.result,
        termination=rep.termination,
        rule=rep.rule,
        plies=rep.plies,
        source=read_source(g.source.result, g.source.termination, g.source.details),
        source_plies=len(g.game.moves),
    )
    if base is not None:
        reasons.append(base)
    if rep.counted is not None and src.counted and src.margin is not None:
        if rep.counted != margin_text(src.margin):
            reasons.append(f"counted {rep.counted}; RE[{src.text}]")
    elif rep.counted is not None and src.result is not None and not src.counted:
        reasons.append(f"counted {rep.counted}; RE[{src.text}] is not a count")
    if not_counted is not None:
        reasons.append(not_counted)
    return "; ".join(reasons) if reasons else None

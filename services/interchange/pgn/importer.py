"""A PGN import (`import_pgn`): the file parsed in full (`parse`), planned (`plan`), every
command decided in a dry run on the shared pipeline (`services/interchange/game_import.py`;
the rules may end a game before the file does), then appended; and the file's own ending
recorded where the rules did not end the game (`sync.record_source_ending`).

Into a tournament that exists (`--tournament T`, T created otherwise: `arbiter create`, an
earlier import of another file), the file's games are placed in it (`match.place`: a game it
follows from this file, a pairing of its players, or a round it has not scheduled yet; else
refused naming the line) and each is brought up to date (`sync.sync_game`: a game in
progress continued from its last move in force; a file that does not continue it refused).
The dry run then starts from a copy of the tournament's stream. Its rules are its own
(`--rules`, `--format`, `--adjudicate` other than its own are refused).

A new tournament's file is streamed (issue 26 item 6: "a 50 MB PGN took 6 minutes and
1.2 GB"), read twice from its bytes (decoded as read, `parse.text_stream`), never held as
text nor as a list of games:

1. the first reading checks every game (`PgnError` naming the line: nothing decided, nothing
   appended) and keeps what the plan needs — players, rounds, each game's headers, source
   and ending, not its moves (`plan(light=True)`);
2. the second reading gives each game its moves again (`plan.with_moves`) and decides it in
   the dry run, whose log is a temporary SQLite file and whose decided commands are written
   to a temporary file as they are accepted (`decide_then_append(spill=True)`): a refusal
   still raises before anything is appended;
3. the append then reads those commands back batch by batch (`pipeline.append_stream`),
   the batches cut exactly as before (`iter_chunks`), so the events are the same, id for id
   (tests/integration/interchange/test_pgn_import_streamed.py).

Why not one transaction over batched appends to the real log (rolled back on a refusal): the
log's contract is an append per batch (SQLite `BEGIN IMMEDIATE` per append, Kafka a
produce), with no transaction spanning batches, and readers (the feed, projections) see each
batch as it commits; holding the log's write lock for minutes would also stall every other
writer. The dry run keeps "bad input: nothing appended" on every backend. What stays in
memory is the plan without moves (bounded by `limits.max_import_games`), the dry run's
tournament state (the decider's) and one game, one batch at a time; the file's bytes
themselves are bounded by `limits.max_import_bytes`.

An import into an existing tournament (`_into_existing`) still reads the file in full: its
placement matches every game against the tournament before anything is decided."""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Iterable, Iterator

from events_schema import Actor
from events_schema.limits import LimitExceeded
from projections.endings.rules import Ruleset, ruleset_for
from projections.games import disagreement
from projections.tournament.state import TournamentState
from services.commands.service import CommandService
from services.eventlog.base import EventLog
from services.interchange.game_import import decide_games, round_scheduled
from services.interchange.pgn.match import linked, place
from services.interchange.pgn.parse import (
    PgnError,
    PgnGame,
    decode,
    iter_games,
    read_pgn,
    text_stream,
)
from services.interchange.pgn.plan import Plan, PlannedGame, plan, with_moves
from services.interchange.pgn.report import GameReport, ImportReport
from services.interchange.pgn.sync import sync_game
from services.interchange.pipeline import (
    DryRun,
    ImportRefused,
    Progress,
    Step,
    Target,
    decide_then_append,
    event_id,
)

_NAMESPACE = uuid.UUID("0d6a4c1e-5b7f-4f1a-8f3c-2e9b7a6d4c53")


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
    bound = log.limits.max_import_bytes
    if len(data) > bound:  # refused before it is parsed (issue 26 item 6)
        raise LimitExceeded(
            "import_bytes",
            file_name,
            f"{len(data):,} bytes: one import reads at most {bound:,} "
            "(limits.max_import_bytes, ARBITER_MAX_IMPORT_BYTES); split the file",
            413,
        )
    max_games = log.limits.max_import_games
    digest = hashlib.sha256(data).hexdigest()
    namespace = f"pgn:{tournament_id}:{digest}:{rules or ''}:{'rules' if adjudicate else 'manual'}"
    if log.last_seq(tournament_id) > 0 and (
        log.find(event_id(_NAMESPACE, namespace, "created"), tournament_id) is None
    ):  # a tournament that exists, not made by this same import (run again: a no-op)
        games = read_pgn(decode(data), progress, max_games)
        return _into_existing(
            log, games, file_name, tournament_id, actor, rules, adjudicate, fmt, digest, progress
        )
    # the first reading: every game checked, the plan kept without the moves
    the_plan = plan(
        _stream(data, progress, max_games),
        file_name=file_name,
        rules=rules,
        adjudicate=adjudicate,
        fmt=fmt,
        light=True,
    )
    report = ImportReport(
        tournament_id,
        file_name,
        digest,
        rules,
        adjudicate,
        len(the_plan.players),
        len(the_plan.rounds),
        notes=the_plan.notes,
    )
    target = Target(log, tournament_id, actor, _NAMESPACE, namespace)

    def full_games() -> Iterator[PlannedGame]:  # the second reading: each game with its moves
        for light, game in zip(the_plan.games, _stream(data, None, None), strict=True):
            yield with_moves(light, game)

    decide_then_append(
        target,
        report,
        lambda dry: _decide_all(dry, the_plan, full_games(), report, file_name, progress),
        progress,
        spill=True,
    )
    return report


def _stream(data: bytes, progress: Progress | None, max_games: int | None) -> Iterator[PgnGame]:
    """The games of `data`, read one at a time (`PgnError` at the first bad one)."""
    stream, position = text_stream(data)
    for game in iter_games(stream, position, len(data), progress, max_games):
        if isinstance(game, PgnError):
            raise game
        yield game


def _into_existing(
    log: EventLog,
    games: list[PgnGame],
    file_name: str,
    tid: str,
    actor: Actor,
    rules: str | None,
    adjudicate: bool,
    fmt: str | None,
    digest: str,
    progress: Progress | None,
) -> ImportReport:
    """The file's games added to the existing tournament `tid` (the module docstring)."""
    state = CommandService(log).state(tid)
    created = state.created
    if created is None:
        raise ImportRefused("pgn.not_a_tournament", "--tournament", f"{tid} is not a tournament")
    _same_rules(state, rules, adjudicate, fmt)
    own_rules = created.rules_preset
    by_rules = created.adjudication == "rules"
    the_plan = plan(
        games, file_name=file_name, rules=own_rules, adjudicate=by_rules, fmt=created.format
    )
    placement = place(state, the_plan, linked(log.read(tid), file_name))
    if placement.held:
        h = placement.held[0]
        raise ImportRefused(h.rule, f"{file_name}:{h.line}", h.why)
    report = ImportReport(
        tid,
        file_name,
        digest,
        own_rules,
        by_rules,
        len(placement.registered),
        len(placement.rounds),
        notes=the_plan.notes,
    )
    ruleset = ruleset_for(own_rules) if by_rules else None

    def decide(dry: DryRun) -> None:
        head = [
            dry.command(f"player:{pl.player_id}", pl, f"{file_name}:1")
            for pl in placement.registered
        ]
        dry.run_all(head)
        for rnd, in_round in sorted(placement.rounds.items()):
            rs = round_scheduled(rnd, in_round, _time_control)
            dry.run([dry.command(f"round:{rnd}", rs, f"{file_name}:{in_round[0].game.line}")])
        for n, g in enumerate(placement.games, 1):
            report.games.append(_decide_game(dry, g, ruleset, file_name))
            if progress is not None:
                progress("decide", n, len(placement.games))

    namespace = f"pgn:{tid}:{digest}:into"
    target = Target(log, tid, actor, _NAMESPACE, namespace)
    decide_then_append(target, report, decide, progress, seed=True)
    return report


def _same_rules(
    state: TournamentState, rules: str | None, adjudicate: bool, fmt: str | None
) -> None:
    """An import into a tournament takes its rules: other options are refused."""
    created = state.created
    assert created is not None
    if rules is not None and rules != created.rules_preset:
        raise ImportRefused(
            "pgn.tournament_exists",
            "--rules",
            f"{state.stream_id} plays under {created.rules_preset or 'the FIDE Laws'}: its "
            "games are imported under its own rules",
        )
    if adjudicate and created.adjudication != "rules":
        raise ImportRefused(
            "pgn.tournament_exists",
            "--adjudicate",
            f"{state.stream_id} does not end games by rule (adjudication {created.adjudication!r})",
        )
    if fmt is not None and fmt != created.format:
        raise ImportRefused(
            "pgn.tournament_exists", "--format", f"{state.stream_id} is a {created.format}"
        )


def _decide_all(
    dry: DryRun,
    p: Plan,
    games: Iterable[PlannedGame],
    report: ImportReport,
    file_name: str,
    progress: Progress | None,
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
        games,
        schedule,
        lambda g: _decide_game(dry, g, ruleset, file_name),
        report.games,
        progress,
        len(p.games),
    )


def _time_control(g: PlannedGame) -> str | None:
    return g.time_control.name if g.time_control is not None else None


def _decide_game(
    dry: DryRun, g: PlannedGame, ruleset: Ruleset | None, file_name: str
) -> GameReport:
    pgn = g.game
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
    synced = sync_game(dry, g, ruleset, file_name, prefix=f"game:{pgn.index}")
    rep.plies = synced.plies
    rep.in_progress = pgn.in_progress and synced.ended is None
    notes = synced.notes
    ended = synced.ended
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

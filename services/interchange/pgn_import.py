"""PGN import (`arbiter import pgn`): a file of chess games as one new tournament, recorded
through the command path.

Read (`read_pgn`): python-chess's `read_game` with a visitor that keeps the main line only
(variations are skipped), the line of every header and move, and refuses the whole file on the
first problem with its line and reason (`PgnError`: an illegal or ambiguous move, a bad FEN, an
unsupported variant, a bad `Result`, a player against themself, no games). Variant tags
Chess960, Chess 960, Fischerandom, FRC, DFRC, Freestyle read as Chess960 boards (the start from
the `FEN` header); Standard / From Position as standard chess. Move comments by dialect
(`projections.endings.pgn_comments.parse_comment`): TCEC `{d=…, mt=…, tl=…, wv=…}`,
cutechess / fastchess `{+0.35/20 1.2s}` (the mover's view), lichess `[%eval …] [%clk …]
[%emt …]`.

The mapping, PGN → events (in this order):

- `TournamentCreated`: name from the first `Event` (else the file name), `format` from the
  headers (two players: match; "Swiss", "Cup", "League"/"Premier"/"Division" in the event
  name; else a round robin when every pair met, else swiss) unless given, `rules_preset`
  from --rules, `adjudication` "rules" with --adjudicate else "manual", `rounds`, and the
  `TimeControl` headers of the form `base[+increment]` (seconds) as time controls;
- `PlayerRegistered` per distinct name, in order of first appearance (`p001`, …): `kind`
  engine for engine games (a TCEC site or event, engine comments, `WhiteType "program"`,
  a BOT title), `rating` from `WhiteElo`/`BlackElo`, `title`;
- `RoundScheduled` before the first game of each round: the round is the number before the
  first dot of `Round` ("3.2" → 3). A round that pairs a player twice (a match written as
  "1.1" … "1.8", a league round of game pairs) is split into as many rounds as it needs, each
  game in the first that has neither player; then every round is renumbered 1, 2, … in order
  (so are files without round numbers); otherwise the file's numbers stay. Game ids `g0001`
  … by position in the file;
- `GameStarted` with `fen` for a non-standard (or Chess960) start and `source` (file name,
  index in the file, `Result`, `Termination`, `TerminationDetails` — else the notes of the
  last move comment, where cutechess writes "White mates");
- `MovePlayed` per main-line move: `uci`, `eval_cp`/`mate_in` in White's view, `depth`,
  `nodes`, `move_time_ms` (TCEC `mt`, cutechess's time, lichess `%emt`: the source's, never
  derived), `clock_ms` (TCEC `tl`, lichess `%clk`; else derived from the time control and the
  move time as the arena counts them, cutechess-cli: clock − move time + increment);
- the ending. With --adjudicate (adjudication "rules") the decider ends the game from its
  moves (the move and its `GameEnded` in one batch); moves the PGN has after that ending are
  not recorded (the decider refuses them) and the disagreement is reported. When the moves
  run out without an ending by rule, the PGN's ending is recorded as the source says:
  a disconnect or crash is `EngineCrashed` (the side named, else the loser) and a `GameEnded`
  by the preset's crash rule (`crash_ending`: "crashes are counted as losses"; without one,
  or without --adjudicate, the PGN's result with rule "arena: <words>"); a resignation, an
  agreed draw, a loss on time, a forfeit (events under every preset) and a claim the preset
  does not decide itself (FIDE 9.2, 9.3: three-fold, fifty moves) a `GameEnded` with that
  termination and rule "arena: <words>"; anything else (an adjudication: the old "TCEC win
  rule", "SyzygyTB" — the decider opens no tables —, an older draw rule, or an ending the
  rules should have reached) an `AdjudicationIssued` with rule "arena: <words>", the PGN's
  result and the headers as basis (the decider adds its `GameEnded`, termination
  "adjudication"). Without --adjudicate the same, except that mate, stalemate, repetition,
  fifty moves and dead positions are `GameEnded` with their termination (rule "arena:
  <words>"): nothing is decided by rule. A `*` result records no ending.

Disagreements (`projections.games.disagreement`: another result, another ply, another
termination, or an ending the rules decide from the moves that they did not reach) are in the
report of every game, never hidden.

All or nothing, idempotent: the file is parsed in full first; then every command is decided
against an in-memory log (a dry run that also finds where the rules end each game), and only
then appended to the real log in batches within the limits (events and bytes per batch,
`events_schema/limits.py`), chained by `expected_seq`. Every command's event id is derived
from the tournament id, the file's digest, the options and the command's place (`game:3:move:
41`), so importing the same file again appends nothing, and an import cut short is completed
by running it again.
"""

from __future__ import annotations

import hashlib
import io
import re
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import chess
import chess.pgn

from events_schema import Actor
from events_schema import events as ev
from projections.endings.interruptions import crash_ending
from projections.endings.pgn_comments import MoveComment, parse_comment
from projections.endings.rules import Ruleset, ruleset_for
from projections.games import BY_MOVES, SourceEnding, disagreement, read_source, rule_text
from services.eventlog.base import EventLog
from services.interchange.pipeline import (
    AppendReport,
    DryRun,
    ImportRefused,
    Progress,
    chunks,
    decide_then_append,
    ended_payload,
    summary,
)

Colour = Literal["white", "black"]

_NAMESPACE = uuid.UUID("0d6a4c1e-5b7f-4f1a-8f3c-2e9b7a6d4c53")
_MAX_INT = 2**53 - 1
_CHESS960 = frozenset(
    {"chess960", "chess 960", "fischerandom", "fischerrandom", "fischer random", "frc", "dfrc"}
    | {"freestyle", "chess960 (frc)", "double fischer random", "doublefischerrandom"}
)
_STANDARD = frozenset({"", "standard", "chess", "normal", "from position", "fromposition"})
_RESULTS = ("1-0", "0-1", "1/2-1/2", "*")
# Endings declared by an event under every preset (never an adjudication).
_DECLARED: frozenset[str] = frozenset({"resignation", "agreement", "time_forfeit", "forfeit"})
# Endings that are adjudications by the arena.
_ADJUDICATIONS: frozenset[str] = frozenset({"adjudication", "tablebase", "tcec_draw_rule"})


class PgnError(ValueError):
    """A malformed PGN: the line (1-based) and the reason."""

    def __init__(self, line: int, reason: str) -> None:
        super().__init__(f"line {line}: {reason}")
        self.line = line
        self.reason = reason


# --- reading -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PgnMove:
    ply: int
    colour: Colour
    uci: str
    line: int
    comment: str


@dataclass
class PgnGame:
    index: int  # 1-based position in the file
    line: int  # its first line
    headers: dict[str, str]
    header_lines: dict[str, int]
    start_fen: str | None  # the FEN to record (None: the standard start)
    moves: list[PgnMove]
    final: ev.Termination | None  # what the position after the last move says, if anything

    def header(self, name: str) -> str:
        value = self.headers.get(name, "").strip()
        return "" if value in ("?", "-") else value


class _Lines(io.StringIO):
    """A text stream that counts the lines read (python-chess reads with `readline`)."""

    line = 0

    def readline(self, size: int = -1, /) -> str:  # type: ignore[override]
        text = super().readline(size)
        if text:
            self.line += 1
        return text


@dataclass
class _Raw:
    line: int
    headers: chess.pgn.Headers = field(default_factory=lambda: chess.pgn.Headers({}))
    header_lines: dict[str, int] = field(default_factory=dict)
    moves: list[PgnMove] = field(default_factory=list)
    comments: list[list[str]] = field(default_factory=list)
    start: chess.Board | None = None
    board: chess.Board | None = None
    error: tuple[int, str] | None = None


class _Visitor(chess.pgn.BaseVisitor[_Raw]):
    """The main line with its lines and comments; the first error with its line."""

    def __init__(self, reader: _Lines) -> None:
        self.reader = reader
        self.raw = _Raw(line=reader.line)

    def _error(self, line: int, reason: str) -> None:
        if self.raw.error is None:
            self.raw.error = (line, reason)

    def begin_game(self) -> None:
        self.raw = _Raw(line=self.reader.line)

    def begin_headers(self) -> chess.pgn.Headers:
        return self.raw.headers

    def visit_header(self, tagname: str, tagvalue: str) -> None:
        line = self.reader.line
        self.raw.header_lines.setdefault(tagname, line)
        if tagname == "Variant":
            variant = tagvalue.strip().lower()
            if variant in _CHESS960:
                tagvalue = "chess960"
            elif variant in _STANDARD:
                return  # standard chess: no Variant for python-chess
            else:
                self._error(line, f"unsupported variant {tagvalue!r} (chess and Chess960 only)")
                return
        self.raw.headers[tagname] = tagvalue

    def begin_variation(self) -> chess.pgn.SkipType:
        return chess.pgn.SKIP  # the main line only

    def visit_board(self, board: chess.Board) -> None:
        if self.raw.start is None:
            self.raw.start = board.copy(stack=False)
        self.raw.board = board

    def visit_move(self, board: chess.Board, move: chess.Move) -> None:
        line = self.reader.line
        if not move:
            self._error(line, "a null move (--) is not a move")
            return
        ply = len(self.raw.moves) + 1
        colour: Colour = "white" if board.turn == chess.WHITE else "black"
        self.raw.moves.append(PgnMove(ply, colour, board.uci(move), line, ""))
        self.raw.comments.append([])

    def visit_comment(self, comment: str) -> None:
        if self.raw.comments:
            self.raw.comments[-1].append(comment)

    def handle_error(self, error: Exception) -> None:
        if self.raw.start is None:  # before the board: the FEN (or the variant)
            line = self.raw.header_lines.get("FEN", self.raw.line)
        else:
            line = self.reader.line
        self._error(line, str(error))

    def result(self) -> _Raw:
        return self.raw


def decode(data: bytes) -> str:
    """UTF-8 (a BOM is dropped), else Latin-1 (the PGN standard's own)."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def read_pgn(text: str, progress: Progress | None = None) -> list[PgnGame]:
    """Every game of a PGN text, or `PgnError` for the first problem."""
    reader = _Lines(text)
    total = len(text)
    games: list[PgnGame] = []
    while True:
        raw = chess.pgn.read_game(reader, Visitor=lambda: _Visitor(reader))
        if raw is None:
            break
        if raw.error is not None:
            raise PgnError(*raw.error)
        games.append(_game(raw, len(games) + 1))
        if progress is not None:
            progress("read", reader.tell(), total)
    if not games:
        raise PgnError(max(reader.line, 1), "no games in the file")
    return games


def _game(raw: _Raw, index: int) -> PgnGame:
    headers = {k: v for k, v in raw.headers.items()}
    lines = raw.header_lines
    if not headers:
        raise PgnError(raw.line, "not a PGN game: no tag pairs ([Event …], [White …], …)")
    result = headers.get("Result", "*").strip()
    if result not in _RESULTS:
        raise PgnError(lines.get("Result", raw.line), f"Result {result!r} is not a PGN result")
    for side in ("White", "Black"):
        name = headers.get(side, "").strip()
        if len(name) > 200:
            raise PgnError(lines.get(side, raw.line), f"{side} is longer than 200 characters")
    white, black = _name(headers, "White"), _name(headers, "Black")
    if white == black:
        raise PgnError(
            lines.get("Black", raw.line), f"White and Black are the same player ({white!r})"
        )
    start = raw.start
    chess960 = headers.get("Variant") == "chess960"
    fen: str | None = None
    if start is not None and (chess960 or "FEN" in headers):
        fen = headers.get("FEN", start.fen()).strip()
        if fen == chess.STARTING_FEN and not chess960:
            fen = None
        elif len(fen) > 100:
            raise PgnError(lines.get("FEN", raw.line), "FEN longer than 100 characters")
    moves = [
        PgnMove(m.ply, m.colour, m.uci, m.line, " ".join(c.strip() for c in comments).strip())
        for m, comments in zip(raw.moves, raw.comments, strict=True)
    ]
    return PgnGame(index, raw.line, headers, dict(lines), fen, moves, _final(raw.board))


def _final(board: chess.Board | None) -> ev.Termination | None:
    """The ending the final position shows: mate, stalemate, bare material, or a position
    there for the third time / fifty moves on (claimable)."""
    if board is None:
        return None
    if board.is_checkmate():
        return "checkmate"
    if board.is_stalemate():
        return "stalemate"
    if board.is_insufficient_material():
        return "insufficient_material"
    if board.is_repetition(3):
        return "threefold_repetition"
    if board.halfmove_clock >= 100:
        return "fifty_move_rule"
    return None


def _name(headers: dict[str, str], side: str) -> str:
    name = headers.get(side, "").strip()
    return name if name and name not in ("?", "-") else f"? ({side})"


# --- reading a game's facts --------------------------------------------------------------------


def time_control_of(text: str) -> ev.TimeControl | None:
    """`base[+increment]` in seconds (TCEC, lichess, cutechess with whole seconds); other forms
    (moves/time, fractions, "-") are not recorded."""
    m = re.fullmatch(r"\s*(\d{1,7})(?:\+(\d{1,5}))?\s*", text)
    if m is None:
        return None
    return ev.TimeControl(
        name=text.strip()[:64], base_seconds=int(m.group(1)), increment_seconds=int(m.group(2) or 0)
    )


def _bounded(value: int | None, low: int | None = 0) -> int | None:
    if value is None:
        return None
    if low is not None and value < low:
        return None
    return value if -_MAX_INT <= value <= _MAX_INT else None


@dataclass(frozen=True, slots=True)
class _Facts:
    """A move's payload fields (besides game, ply, colour, uci)."""

    clock_ms: int | None
    move_time_ms: int | None
    eval_cp: int | None
    mate_in: int | None
    depth: int | None
    nodes: int | None


def move_facts(game: PgnGame, tc: ev.TimeControl | None) -> tuple[list[_Facts], MoveComment]:
    """Each move's clock, time and evaluation; and the last move's comment."""
    left: dict[str, int | None] = {
        "white": tc.base_seconds * 1000 if tc is not None else None,
        "black": tc.base_seconds * 1000 if tc is not None else None,
    }
    inc = tc.increment_seconds * 1000 if tc is not None else 0
    out: list[_Facts] = []
    last = MoveComment()
    for m in game.moves:
        c = parse_comment(m.comment, m.colour) if m.comment else MoveComment()
        last = c
        clock = _bounded(c.clock_ms)
        spent = _bounded(c.move_time_ms)
        if clock is None and spent is not None and tc is not None:
            before = left[m.colour]
            if before is not None and before >= spent:
                clock = before - spent + inc
        if clock is not None:
            left[m.colour] = clock
        out.append(
            _Facts(
                clock,
                spent,
                _bounded(c.eval_cp, None),
                _bounded(c.mate_in, None),
                _bounded(c.depth),
                _bounded(c.nodes),
            )
        )
    return out, last


def _engine_game(game: PgnGame) -> bool:
    site = (game.header("Site") + " " + game.header("Event")).lower()
    if "tcec" in site:
        return True
    for m in game.moves[:16]:
        if m.comment and "[%" not in m.comment:
            c = parse_comment(m.comment, m.colour)
            if c.book or c.depth is not None or c.fields:
                return True
    return False


def _kind(game: PgnGame, side: str, engine: bool) -> Literal["human", "engine"]:
    typ = game.header(f"{side}Type").lower()
    if typ in ("program", "engine", "computer"):
        return "engine"
    if typ == "human":
        return "human"
    if game.header(f"{side}Title").upper() == "BOT":
        return "engine"
    return "engine" if engine else "human"


def _rating(game: PgnGame, side: str) -> int | None:
    text = game.header(f"{side}Elo")
    return int(text) if text.isdigit() and 0 <= int(text) <= 4000 else None


def _major(text: str) -> int | None:
    m = re.match(r"\s*(\d{1,6})(?:\.|\s*$)", text)
    return int(m.group(1)) if m is not None and int(m.group(1)) >= 1 else None


# --- the plan ----------------------------------------------------------------------------------


@dataclass
class _Player:
    player_id: str
    name: str
    kind: Literal["human", "engine"]
    rating: int | None
    title: str | None


@dataclass
class _Planned:
    game: PgnGame
    game_id: str
    round: int
    board: int
    white: str  # player ids
    black: str
    time_control: ev.TimeControl | None
    source: ev.GameSource
    ending: SourceEnding
    facts: list[_Facts] = field(default_factory=list)


@dataclass
class Plan:
    created: ev.TournamentCreated
    players: list[_Player]
    games: list[_Planned]
    rounds: dict[int, list[_Planned]]


def _format(event: str, games: Sequence[_Planned], players: int) -> str:
    name = event.lower()
    if players == 2:
        return "match"
    if "swiss" in name:
        return "swiss"
    if "cup" in name:
        return "cup"
    if any(w in name for w in ("league", "premier", "division")):
        return "league"
    met = {frozenset((g.white, g.black)) for g in games}
    return "round_robin" if len(met) == players * (players - 1) // 2 else "swiss"


def plan(
    games: Sequence[PgnGame],
    *,
    file_name: str,
    rules: str | None,
    adjudicate: bool,
    fmt: str | None = None,
) -> Plan:
    """The tournament, players, rounds and games a parsed file records."""
    players: dict[str, _Player] = {}
    planned: list[_Planned] = []
    tcs: dict[str, ev.TimeControl] = {}
    for g in games:
        engine = _engine_game(g)
        ids = []
        for side in ("White", "Black"):
            name = _name(g.headers, side)
            if name not in players:
                title = g.header(f"{side}Title")[:8] or None
                players[name] = _Player(
                    f"p{len(players) + 1:03d}",
                    name,
                    _kind(g, side, engine),
                    _rating(g, side),
                    title,
                )
            ids.append(players[name].player_id)
        tc = time_control_of(g.header("TimeControl"))
        if tc is not None:
            tcs.setdefault(tc.name, tc)
        facts, last = move_facts(g, tc)
        details = g.header("TerminationDetails")
        if not details and last.notes and not last.fields:
            details = "; ".join(last.notes)
        source = ev.GameSource(
            file=file_name[:500],
            index=g.index,
            result=g.header("Result")[:16] or "*",
            termination=g.header("Termination")[:200],
            details=details[:2000],
            plies=len(g.moves),
        )
        ending = read_source(source.result, source.termination, source.details, last.notes)
        planned.append(
            _Planned(
                g,
                f"g{g.index:04d}",
                0,
                0,
                ids[0],
                ids[1],
                tc,
                source,
                ending,
                facts,
            )
        )
    rounds = _number_rounds(planned)
    event = next((g.header("Event") for g in games if g.header("Event")), "")
    created = ev.TournamentCreated(
        name=(event or file_name or "PGN import")[:200],
        format=fmt or _format(event, planned, len(players)),
        rounds=len(rounds) or None,
        rules_preset=rules,
        time_controls=list(tcs.values()),
        adjudication="rules" if adjudicate else "manual",
    )
    return Plan(created, list(players.values()), planned, rounds)


def _number_rounds(games: Sequence[_Planned]) -> dict[int, list[_Planned]]:
    """Rounds from the `Round` headers, split where a round pairs a player twice."""
    majors: dict[int | None, list[list[_Planned]]] = {}
    for g in games:
        subs = majors.setdefault(_major(g.game.headers.get("Round", "")), [])
        for sub in subs:
            if not any({g.white, g.black} & {o.white, o.black} for o in sub):
                sub.append(g)
                break
        else:
            subs.append([g])
    keep = None not in majors and all(len(subs) == 1 for subs in majors.values())
    rounds: dict[int, list[_Planned]] = {}
    order = sorted(majors, key=lambda k: (k is None, k or 0))
    for key in order:
        for sub in majors[key]:
            number = key if keep and key is not None else len(rounds) + 1
            rounds[number] = sub
            for board, g in enumerate(sub, 1):
                g.round, g.board = number, board
    return dict(sorted(rounds.items()))


# --- the import --------------------------------------------------------------------------------


@dataclass
class GameReport:
    index: int
    line: int
    round_header: str
    game_id: str
    round: int
    white: str
    black: str
    source: ev.GameSource
    source_plies: int
    result: str | None = None
    termination: str | None = None
    rule: str | None = None
    plies: int = 0
    detail: str = ""
    why: str | None = None

    @property
    def disagrees(self) -> bool:
        return self.why is not None

    def as_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "line": self.line,
            "round_header": self.round_header,
            "game_id": self.game_id,
            "round": self.round,
            "white": self.white,
            "black": self.black,
            "result": self.result,
            "termination": self.termination,
            "rule": rule_text(self.termination, self.rule),
            "citation": self.rule,
            "plies": self.plies,
            "source": {**self.source.model_dump(), "plies": self.source_plies},
            "disagrees": self.disagrees,
            "why": self.why or "",
        }


@dataclass
class ImportReport(AppendReport):
    tournament_id: str
    file: str
    digest: str
    rules: str | None
    adjudicate: bool
    players: int
    rounds: int
    games: list[GameReport]

    @property
    def disagreements(self) -> list[GameReport]:
        return [g for g in self.games if g.disagrees]

    def as_dict(self) -> dict[str, Any]:
        return {
            "tournament_id": self.tournament_id,
            "file": self.file,
            "digest": self.digest,
            "rules": self.rules,
            "adjudicate": self.adjudicate,
            "players": self.players,
            "rounds": self.rounds,
            **summary(
                self.games,
                [
                    {"game_id": g.game_id, "index": g.index, "line": g.line, "why": g.why}
                    for g in self.disagreements
                ],
                self,
            ),
            "game_rows": [g.as_dict() for g in self.games],
        }


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
        [],
    )
    decide_then_append(
        log,
        tournament_id,
        namespace,
        actor,
        _NAMESPACE,
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
    for pl in p.players:
        head.append(
            dry.command(
                f"player:{pl.player_id}",
                ev.PlayerRegistered(
                    player_id=pl.player_id,
                    name=pl.name,
                    kind=pl.kind,
                    rating=pl.rating,
                    title=pl.title,
                ),
                f"{file_name}:1",
            )
        )
    for chunk in chunks(head, dry.limits):
        dry.run(chunk)
    scheduled: set[int] = set()
    for n, g in enumerate(p.games, 1):
        if g.round not in scheduled:
            scheduled.add(g.round)
            pairings = [
                ev.Pairing(
                    game_id=o.game_id,
                    white=o.white,
                    black=o.black,
                    board=o.board,
                    time_control=o.time_control.name if o.time_control is not None else None,
                )
                for o in p.rounds[g.round]
            ]
            rs = ev.RoundScheduled(round=g.round, pairings=pairings)
            dry.run([dry.command(f"round:{g.round}", rs, f"{file_name}:{g.game.line}")])
        report.games.append(_decide_game(dry, g, ruleset, file_name))
        if progress is not None:
            progress("decide", n, len(p.games))


def _decide_game(dry: DryRun, g: _Planned, ruleset: Ruleset | None, file_name: str) -> GameReport:
    pgn = g.game
    where = f"{file_name}:{pgn.line}"
    rep = GameReport(
        pgn.index,
        pgn.line,
        pgn.headers.get("Round", ""),
        g.game_id,
        g.round,
        pgn.headers.get("White", ""),
        pgn.headers.get("Black", ""),
        g.source,
        len(pgn.moves),
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
    ended: dict[str, Any] | None = None
    done = 0
    # batches with room for the GameEnded the rules may add to a move
    for chunk in chunks(moves, dry.limits, spare=1):
        try:
            envs = dry.run(chunk)
        except ImportRefused as exc:
            i = exc.index
            if exc.rule != "move.after_end" or not i:
                raise
            chunk = chunk[:i]  # the rules ended the game: the PGN's later moves are not played
            envs = dry.run(chunk)
        done += len(chunk)
        ended = ended_payload(envs, g.game_id)
        if ended is not None:
            break
    rep.plies = done
    if ended is None:
        ended = _record_source_ending(dry, g, ruleset, file_name, done)
    if ended is not None:
        rep.result = ended.get("result")
        rep.termination = ended.get("termination")
        rep.rule = ended.get("rule")
        rep.detail = ended.get("detail", "")
    rep.why = disagreement(
        result=rep.result,
        termination=rep.termination,
        rule=rep.rule,
        plies=rep.plies,
        source=g.ending,
        source_plies=len(pgn.moves),
        ruleset=ruleset,
    )
    return rep


def _final_termination(g: _Planned) -> ev.Termination:
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


def _record_source_ending(
    dry: DryRun, g: _Planned, ruleset: Ruleset | None, file_name: str, plies: int
) -> dict[str, Any] | None:
    """The PGN's own ending, when the rules did not end the game: the envelope payload of the
    `GameEnded` recorded, or None for an unfinished game (`*`)."""
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
                termination="engine_crash",
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
        game_id=g.game_id, result=result, termination=termination, detail=basis, rule=rule
    )
    return ended_payload(dry.run([dry.command(key, ended, where)]), g.game_id)

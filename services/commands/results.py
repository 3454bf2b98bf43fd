"""Results entered by board (`arbiter result`, `arbiter results`, `arbiter round`, `arbiter
correct --round`, and their HTTP routes in services/api/results.py): what an organiser types
from the score sheets, turned into the `GameEnded` / `ResultCorrected` events the decider
checks (services/commands/service.py), with the notations of services/commands/notation.py.

A board is addressed as the organiser sees it: round N of a stage ("main" by default), board
number B (the pairing's board, else its place in the round's pairings, as the live page
numbers them). The pairing-allocated bye is no board and needs no result.

- One board (`enter_result`): the same result entered again is a resend and appends nothing
  (`Entry.appended` is False); another result on a board that has one is refused
  (`result.already_entered`): a result in force is changed by a correction.
- A whole round (`enter_round`): one token per board in board order (`*` leaves a board as it
  is); the count must be the number of boards (`result.count_mismatch`). All the results go in
  one batch: any refusal appends nothing. A CSV (`read_csv`: columns board,result[,how], a
  header row) addresses boards by number.
- A correction by board (`correct_board`): the `ResultCorrected` of the result in force
  (admins only, as every correction: service.py `ADMIN_ONLY`), through
  services/commands/corrections.py `correct_result`, which keeps the old termination unless
  it contradicts the new result (then the new result's default: a draw by agreement, a win
  "other"); a forfeit token or `how` names it.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from events_schema import Actor, Command, CommandBatch
from projections.games import ending_label
from services.commands.entries import players as entries_players
from services.commands.notation import Entered, NotationError, read_result, read_round
from services.commands.service import CommandRejected, CommandService

if TYPE_CHECKING:
    from projections.standings.state import GameRecord, StandingsState
    from services.eventlog.base import AppendResult

#: A token that leaves a board as it is in a whole round (PGN's "game still in progress").
SKIP = "*"
#: The CSV's columns (a header row names them; `how` is optional).
CSV_COLUMNS = ("board", "result", "how")
#: Where the i-th row entered is, for a refusal's field ("results[2]", "r3.csv:4").
Where = Callable[[int], str]


# --- the round as the organiser sees it --------------------------------------------------------


@dataclass(frozen=True)
class Side:
    player_id: str
    name: str
    start_no: int | None

    def as_json(self) -> dict[str, Any]:
        return {"player_id": self.player_id, "name": self.name, "start_no": self.start_no}


@dataclass(frozen=True)
class Board:
    board: int
    game_id: str
    white: Side
    black: Side
    result: str | None  # the stored result in force ("1-0", "1/2-1/2", ...), None: none yet
    termination: str | None
    corrected: bool  # the result in force is a correction
    plies: int = 0  # moves recorded: none for a result typed off a score sheet

    @property
    def ending(self) -> str:
        """The ending in words ("resignation", "loss on time", "result entered by the
        arbiter"; projections/games.py `ending_label`), "" when there is no result."""
        return ending_label(self.termination, plies=self.plies) if self.result else ""

    @property
    def shown(self) -> str:
        """The result as organisers read it (`½-½`, `+-` for a forfeit), `-` when none."""
        if self.result is None:
            return "-"
        if self.termination == "forfeit":
            shown = {"1-0": "+-", "0-1": "-+", "0-0": "--", "1-1": "++"}
            return shown.get(self.result, self.result)
        return "½-½" if self.result == "1/2-1/2" else self.result

    def as_json(self) -> dict[str, Any]:
        return {
            "board": self.board,
            "game_id": self.game_id,
            "white": self.white.as_json(),
            "black": self.black.as_json(),
            "result": self.result,
            "termination": self.termination,
            "ending": self.ending,
            "corrected": self.corrected,
        }


@dataclass(frozen=True)
class RoundView:
    tournament: str
    stage: str
    round: int
    boards: list[Board]
    byes: list[tuple[Side, str]]  # (player, kind)

    def board(self, number: int) -> Board:
        for b in self.boards:
            if b.board == number:
                return b
        raise CommandRejected(
            "result.no_such_board",
            "board",
            f"round {self.round} ({self.stage}) of {self.tournament} has no board {number}; its "
            f"boards are {_numbers(self.boards)}",
            status=404,
        )

    def as_json(self) -> dict[str, Any]:
        return {
            "tournament_id": self.tournament,
            "round": self.round,
            "stage": self.stage,
            "boards": [b.as_json() for b in self.boards],
            "byes": [
                {"player_id": s.player_id, "name": s.name, "kind": kind} for s, kind in self.byes
            ],
        }


def _numbers(boards: Sequence[Board]) -> str:
    nums = [b.board for b in boards]
    if not nums:
        return "none (the round has byes only)"
    if nums == list(range(nums[0], nums[0] + len(nums))) and len(nums) > 2:
        return f"{nums[0]}–{nums[-1]}"
    return ", ".join(str(n) for n in nums)


def fold_tournament(
    service: CommandService, tournament: str, upto: int | None = None
) -> StandingsState:
    """The tournament's standings fold (names, boards, results in force; up to seq `upto`
    when given); refused (`result.unknown_tournament`, 404) when it was never created."""
    return entries_players.fold_tournament(service, tournament, "result", upto)


start_numbers = entries_players.start_numbers


def rounds_of(state: StandingsState, stage: str = "main") -> list[int]:
    """The rounds of `stage` scheduled and in force, in order."""
    return sorted(r for (st, r) in state.round_keys if st == stage)


def round_view(
    service: CommandService, tournament: str, rnd: int, stage: str = "main"
) -> RoundView:
    """Round `rnd` of `stage`: its boards (names, start numbers, results in force) and byes;
    refused (`result.no_such_round`, 404) when it is not scheduled."""
    return view_of(fold_tournament(service, tournament), tournament, rnd, stage)


def view_of(state: StandingsState, tournament: str, rnd: int, stage: str = "main") -> RoundView:
    key = state.round_keys.get((stage, rnd))
    if key is None:
        scheduled = rounds_of(state, stage)
        have = ", ".join(map(str, scheduled)) if scheduled else "none yet (pair one first)"
        raise CommandRejected(
            "result.no_such_round",
            "round",
            f"round {rnd} of stage {stage!r} of {tournament} is not scheduled; scheduled: {have}",
            status=404,
        )
    numbers = start_numbers(state)

    def side(pid: str) -> Side:
        info = state.players.get(pid)
        return Side(pid, info.name if info is not None else pid, numbers.get(pid))

    game_ids, byes = state.rounds[key]
    boards = [_board(state.games[gid], i, side) for i, gid in enumerate(game_ids, start=1)]
    boards.sort(key=lambda b: b.board)
    return RoundView(tournament, stage, rnd, boards, [(side(b.player_id), b.kind) for b in byes])


def _board(game: GameRecord, index: int, side: Callable[[str], Side]) -> Board:
    last = game.results[-1] if game.results else None
    return Board(
        board=game.board or index,
        game_id=game.game_id,
        white=side(game.white),
        black=side(game.black),
        result=last[2] if last is not None else None,
        termination=last[3] if last is not None else None,
        corrected=len(game.results) > 1,
        plies=len(game.moves),
    )


# --- entering results --------------------------------------------------------------------------


@dataclass(frozen=True)
class Entry:
    """One board's entry: what was read, and the seq it was appended at (None: nothing was
    appended, the board already had that result)."""

    board: Board
    entered: Entered
    seq: int | None = None

    @property
    def appended(self) -> bool:
        return self.seq is not None


@dataclass(frozen=True)
class Entries:
    """What an entry appended (`result` None: nothing, every board had its result already)."""

    view: RoundView
    entries: list[Entry]
    result: AppendResult | None = None
    skipped: list[Board] = field(default_factory=list)  # boards left as they were (`*`)


def _read(token: str, how: str | None, where: str) -> Entered:
    try:
        return read_result(token, how)
    except NotationError as exc:
        raise CommandRejected(exc.rule, exc.field or where, exc.message) from None


def _same(board: Board, entered: Entered, how_given: bool) -> bool:
    """The board has this result already (a resend): the same result, and the same ending
    when one was named (a forfeit token names "forfeit")."""
    if board.result != entered.result:
        return False
    if entered.forfeit or how_given:
        return board.termination == entered.termination
    return board.termination != "forfeit"  # a game played, as the token says


def _check_free(board: Board, entered: Entered, view: RoundView, where: str) -> None:
    if board.result is not None:
        raise CommandRejected(
            "result.already_entered",
            where,
            f"board {board.board} of round {view.round} has {board.shown} ({board.termination})"
            f" already, not {entered.text}; change it with `arbiter correct {view.tournament} "
            f"--round {view.round} {board.board} {entered.text} --reason …` (an admin)",
            status=409,
        )


def _game_ended(board: Board, entered: Entered) -> Command:
    payload: dict[str, Any] = {
        "game_id": board.game_id,
        "result": entered.result,
        "termination": entered.termination,
    }
    if entered.detail:
        payload["detail"] = entered.detail
    return Command(type="GameEnded", payload=payload)


def _append(
    service: CommandService,
    view: RoundView,
    todo: list[tuple[Board, Entered]],
    done: list[tuple[Board, Entered]],
    actor: Actor,
    skipped: list[Board] | None = None,
) -> Entries:
    """Append the `GameEnded` of each board of `todo` in one batch; `done` already had its
    result (nothing appended for them)."""
    result = None
    seqs: dict[str, int] = {}
    if todo:
        batch = CommandBatch(commands=[_game_ended(b, e) for b, e in todo])
        try:
            result = service.handle(view.tournament, batch, actor)
        except CommandRejected as exc:
            raise _by_board(exc, [b for b, _ in todo]) from None
        for env in result.envelopes:
            gid = env.payload.get("game_id")
            if env.type == "GameEnded" and isinstance(gid, str):
                seqs[gid] = env.seq
    entries = [Entry(b, e, seqs.get(b.game_id)) for b, e in todo]
    entries += [Entry(b, e) for b, e in done]
    entries.sort(key=lambda x: x.board.board)
    return Entries(view, entries, result, skipped or [])


def _by_board(exc: CommandRejected, boards: Sequence[Board]) -> CommandRejected:
    """The decider's refusal of the i-th command named by its board: `board[3].payload.…`,
    the message prefixed "board 3: "."""
    head, dot, rest = exc.field.partition(".")
    if head.startswith("commands[") and head.endswith("]") and head[9:-1].isdigit():
        i = int(head[9:-1])
        if i < len(boards):
            n = boards[i].board
            return CommandRejected(
                exc.rule, f"board[{n}]{dot}{rest}", f"board {n}: {exc.message}", exc.status
            )
    return exc


def enter_result(
    service: CommandService,
    tournament: str,
    rnd: int,
    board: int,
    token: str,
    actor: Actor,
    how: str | None = None,
    stage: str = "main",
) -> Entries:
    """Board `board` of round `rnd`: its `GameEnded` from `token` (and `how`); nothing when
    it has that result already, refused when it has another (the module docstring)."""
    view = round_view(service, tournament, rnd, stage)
    target = view.board(board)
    entered = _read(token, how, "result")
    if _same(target, entered, how is not None):
        return _append(service, view, [], [(target, entered)], actor)
    _check_free(target, entered, view, "result")
    return _append(service, view, [(target, entered)], [], actor)


def enter_round(
    service: CommandService,
    tournament: str,
    rnd: int,
    tokens: str | Sequence[str],
    actor: Actor,
    stage: str = "main",
) -> Entries:
    """A whole round: one token per board in board order (`*` leaves a board as it is);
    all or nothing, in one batch (the module docstring)."""
    view = round_view(service, tournament, rnd, stage)
    typed = read_round(tokens) if isinstance(tokens, str) else list(tokens)
    if len(typed) != len(view.boards):
        raise CommandRejected(
            "result.count_mismatch",
            "results",
            f"{len(typed)} result(s) for the {len(view.boards)} board(s) of round {rnd} "
            f"({_numbers(view.boards)}): give one per board in board order ({SKIP} for a "
            "board without a result yet); the pairing-allocated bye needs none",
        )
    rows = [(b.board, token, None) for b, token in zip(view.boards, typed, strict=True)]
    return _enter_rows(service, view, rows, actor, lambda i: f"results[{i}]")


def enter_csv(
    service: CommandService,
    tournament: str,
    rnd: int,
    text: str,
    actor: Actor,
    stage: str = "main",
    source: str = "csv",
) -> Entries:
    """Results from a CSV with a header row naming `board`, `result` and optionally `how`
    (comma or semicolon separated); every board at most once. All or nothing."""
    view = round_view(service, tournament, rnd, stage)
    rows = read_csv(text, source)
    return _enter_rows(
        service, view, [(b, t, h) for _, b, t, h in rows], actor, _csv_where(rows, source)
    )


def _csv_where(rows: list[tuple[int, int, str, str | None]], source: str) -> Where:
    return lambda i: f"{source}:{rows[i][0]}"


def read_csv(text: str, source: str = "csv") -> list[tuple[int, int, str, str | None]]:
    """(line, board, result, how) of each data row; a bad header, board or repeated board
    refused naming its line (`result.bad_csv`)."""
    lines = text.lstrip("\ufeff").splitlines()
    if not lines or not lines[0].strip():
        raise CommandRejected("result.bad_csv", f"{source}:1", "empty: a header row comes first")
    delimiter = ";" if lines[0].count(";") > lines[0].count(",") else ","
    reader = csv.reader(io.StringIO("\n".join(lines)), delimiter=delimiter)
    header = [h.strip().lower() for h in next(reader)]
    unknown = [h for h in header if h not in CSV_COLUMNS]
    if unknown or "board" not in header or "result" not in header:
        raise CommandRejected(
            "result.bad_csv",
            f"{source}:1",
            f"the header names {', '.join(header)}; the columns are board, result and "
            f"optionally how (unknown: {', '.join(unknown) or 'none'})",
        )
    col = {h: i for i, h in enumerate(header)}
    out: list[tuple[int, int, str, str | None]] = []
    seen: dict[int, int] = {}
    for line, row in enumerate(reader, start=2):
        if not any(c.strip() for c in row):
            continue
        cells = [c.strip() for c in row] + [""] * len(header)
        where = f"{source}:{line}"
        raw = cells[col["board"]]
        if not raw.isdigit() or int(raw) < 1:
            raise CommandRejected("result.bad_csv", f"{where}:board", f"{raw!r} is no board")
        board = int(raw)
        if board in seen:
            raise CommandRejected(
                "result.bad_csv", f"{where}:board", f"board {board} is on line {seen[board]} too"
            )
        seen[board] = line
        how = cells[col["how"]] if "how" in col and cells[col["how"]] else None
        out.append((line, board, cells[col["result"]], how))
    if not out:
        raise CommandRejected("result.bad_csv", source, "no result rows under the header")
    return out


def _enter_rows(
    service: CommandService,
    view: RoundView,
    rows: Sequence[tuple[int, str, str | None]],
    actor: Actor,
    where: Where,
) -> Entries:
    todo: list[tuple[Board, Entered]] = []
    done: list[tuple[Board, Entered]] = []
    skipped: list[Board] = []
    for i, (number, token, how) in enumerate(rows):
        board = view.board(number)
        if token.strip() == SKIP:
            skipped.append(board)
            continue
        entered = _read(token, how, where(i))
        if _same(board, entered, how is not None):
            done.append((board, entered))
            continue
        _check_free(board, entered, view, where(i))
        todo.append((board, entered))
    return _append(service, view, todo, done, actor, skipped)


# --- a correction by board --------------------------------------------------------------------


@dataclass(frozen=True)
class Correction:
    board: Board
    entered: Entered
    result: AppendResult
    old: str  # the result in force it corrects, as organisers read it

    @property
    def seq(self) -> int:
        return self.result.envelopes[0].seq


def correct_board(
    service: CommandService,
    tournament: str,
    rnd: int,
    board: int,
    token: str,
    reason: str,
    actor: Actor,
    how: str | None = None,
    stage: str = "main",
) -> Correction:
    """The `ResultCorrected` of board `board`'s result in force (admins only). Without `how`
    the old termination is kept unless it contradicts the new result or the token says
    otherwise: a forfeit token is a forfeit; a game-played token never keeps "forfeit"
    (services/commands/corrections.py `correct_result`)."""
    from services.commands.corrections import correct_result

    if not reason.strip():
        raise CommandRejected("correction.reason_required", "reason", "a correction needs a reason")
    view = round_view(service, tournament, rnd, stage)
    target = view.board(board)
    if target.result is None:
        raise CommandRejected(
            "correction.no_result",
            "board",
            f"board {board} of round {rnd} has no result to correct: enter it (`arbiter "
            f"result {tournament} --round {rnd} {board} RESULT`)",
        )
    entered = _read(token, how, "result")
    termination: str | None = entered.termination if entered.forfeit or how else None
    if termination is None and target.termination == "forfeit":
        termination = entered.termination  # the token is a game played: its default ending
    res, _ = correct_result(
        service, tournament, target.game_id, entered.result, reason, actor, termination
    )
    return Correction(target, entered, res, target.shown)

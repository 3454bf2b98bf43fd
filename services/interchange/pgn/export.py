"""PGN export: one chess game of the log as PGN text (the live page's download,
`GET /tournaments/{id}/games/{game_id}.pgn`), every game of a tournament (`arbiter export pgn
T [--round N]`, `GET /tournaments/{id}/games.pgn`: `export_tournament_pgn`, stage by stage,
round by round, board by board), written with python-chess (`chess.pgn.Game`,
`add_variation`, the `StringExporter`), and the same game as the plain record the live page
draws its move list and large board from (`game_record`, `GET /tournaments/{id}/games/{id}`).

What is written, from the ranking's fold (`projections.standings.state`: the moves, results
and players in force, retractions and unwound moves applied) and the records:

- the Seven Tag Roster (PGN standard 8.1.1): Event the tournament's name (a stage other than
  the main one in brackets, "Open 2026 (playoff)"), Site "?" (Arbiter records no site), Date
  the day the game's first move (or its `GameStarted`) occurred, else the tournament's
  `starts_on`, else "????.??.??"; Round "round.board" (8.1.1.5's sub-round: the board, so
  `import pgn` reads the round back from the number before the dot); White, Black the
  players' names; Result the result in force ("*" while none, and for a double loss "0-0",
  which PGN cannot write: its Termination says why);
- WhiteElo/BlackElo, WhiteTitle/BlackTitle, WhiteFideId/BlackFideId when registered; Board
  (the pairing's board number), GameId (Arbiter's game id), TimeControl (9.6.1's
  `base+increment` in seconds: the pairing's time control, else the tournament's only one;
  none for Go overtime or asymmetric clocks), Termination (PGN 9.8.1's words: "normal",
  "time forfeit", "adjudication", "abandoned" for a forfeit, "rules infraction"),
  TerminationDetails (the words `import pgn` reads the ending from: an imported game's own
  source words, else the ending's detail, else its termination) and `TerminationRule` (the
  rule that ended it, `GameEnded.rule`: "FIDE Laws 5.1.1", "tcec-rules Leagues 10.2", "arena:
  White mates"), FEN/SetUp (and Variant "Chess960") for a game that started from another
  position;
- the moves in force, each with its facts as lichess-style commands in its comment: the
  mover's clock after it `[%clk h:mm:ss.mmm]`, the time it took `[%emt …]`, the engine's
  evaluation `[%eval cp,depth]` / `[%eval #n,depth]` in White's view, the nodes searched
  `[%nodes n]` (`projections/endings/pgn_comments.py` reads each back exactly: an export
  imports to the same moves, clocks, times, evaluations, depths and nodes). A move the
  position cannot take (a historical oddity the fold kept, as `projections/live.py` stops
  there) ends the movetext.

Go games are refused (`pgn.not_chess`): their file is SGF (`arbiter export sgf`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from decimal import Decimal
from typing import Any
from uuid import UUID

import chess
import chess.pgn

from events_schema import Recorded
from events_schema import events as ev
from projections.standings.state import GameRecord, PlayerInfo, StandingsState, fold

#: PGN standard 9.8.1 (the Termination tag) for Arbiter's terminations; any other is "normal"
#: (mate, resignation, a draw by agreement or by rule over the board).
_TERMINATION = {
    "time_forfeit": "time forfeit",
    "adjudication": "adjudication",
    "tablebase": "adjudication",
    "tcec_draw_rule": "adjudication",
    "arbiter_decision": "adjudication",
    "forfeit": "abandoned",
    "engine_crash": "abandoned",
    "illegal_move": "rules infraction",
}


class ExportRefused(Exception):
    """The game cannot be exported: the rule, the argument it is about, the reason."""

    def __init__(self, rule: str, field: str, message: str) -> None:
        super().__init__(f"{rule} ({field}): {message}")
        self.rule, self.field, self.message = rule, field, message


def _game_of(records: Sequence[Recorded], game_id: str) -> tuple[StandingsState, GameRecord]:
    state = fold(list(records))
    created = state.created
    if created is None:
        raise ExportRefused("pgn.unknown_tournament", "TOURNAMENT", "the tournament has no events")
    if created.game != "chess":
        raise ExportRefused(
            "pgn.not_chess",
            "TOURNAMENT",
            f"{_tid(records)} is a {created.game} tournament: its games export as SGF",
        )
    game = state.games.get(game_id)
    if game is None:
        raise ExportRefused("pgn.unknown_game", "GAME", f"no game {game_id!r} in the tournament")
    return state, game


def _tid(records: Sequence[Recorded]) -> str:
    return records[0].envelope.tournament_id if records else "?"


def _player(state: StandingsState, pid: str) -> dict[str, Any]:
    info: PlayerInfo | None = state.players.get(pid)
    if info is None:
        return {"player_id": pid, "name": pid, "rating": None, "title": None, "fide_id": None}
    return {
        "player_id": pid,
        "name": info.name,
        "rating": info.rating,
        "title": info.title,
        "fide_id": info.fide_id,
    }


def _start(game: GameRecord) -> chess.Board:
    if game.fen:
        try:  # as the folds start it: a FEN start in Chess960 mode (castling rights survive)
            board = chess.Board(game.fen, chess960=True)
            board.chess960 = board.has_chess960_castling_rights()
            return board
        except ValueError:
            pass
    return chess.Board()


def _board(state: StandingsState, game: GameRecord) -> int:
    """The pairing's board number, else its place in its round (as the games document
    numbers boards: `projections/live.py`)."""
    if game.board is not None:
        return game.board
    key = state.round_keys.get((game.stage, game.round))
    ids = state.rounds[key][0] if key is not None and key in state.rounds else []
    return ids.index(game.game_id) + 1 if game.game_id in ids else 1


def _date(index: _Index, state: StandingsState, game: GameRecord) -> str:
    first: list[UUID] = [eid for eid, gid in state.start_game.items() if gid == game.game_id]
    first += game.move_ids[:1]
    days = sorted(index.occurred[e] for e in first if e in index.occurred)
    if days:
        return days[0]
    created = state.created
    if created is not None and created.starts_on is not None:
        return created.starts_on.strftime("%Y.%m.%d")
    return "????.??.??"


def _played(game: GameRecord) -> tuple[chess.Board, list[tuple[ev.MovePlayed, chess.Move, str]]]:
    """The start position and the moves in force as far as the position takes them: each
    move's event, its move on the board and its SAN."""
    start = _start(game)
    board = start.copy()
    out = []
    for m in game.move_events:
        try:
            move = board.parse_uci(m.uci or "")
            san = board.san(move)
        except (ValueError, AssertionError):
            break  # the position stops here (module docstring)
        board.push(move)
        out.append((m, move, san))
    return start, out


def game_record(records: Sequence[Recorded], game_id: str) -> dict[str, Any]:
    """Game `game_id` of the tournament whose records these are, as the live page reads it:
    its round, board, players, result in force and the moves in force, each with its SAN,
    the position after it (FEN), the mover's clock and the evaluation (White's view)."""
    state, game = _game_of(records, game_id)
    return _record(records, state, game, *_played(game), _Index(records))


def _record(
    records: Sequence[Recorded],
    state: StandingsState,
    game: GameRecord,
    start: chess.Board,
    played: list[tuple[ev.MovePlayed, chess.Move, str]],
    index: _Index,
) -> dict[str, Any]:
    board = start.copy()
    moves: list[dict[str, Any]] = []
    for i, (m, move, san) in enumerate(played, start=1):
        board.push(move)
        moves.append(
            {
                "ply": i,
                "colour": m.colour,
                "uci": m.uci,
                "san": san,
                "fen": board.fen(),
                "clock_ms": m.clock_ms,
                "eval_cp": m.eval_cp,
                "mate_in": m.mate_in,
                "depth": m.depth,
            }
        )
    result = game.results[-1] if game.results else None
    created = state.created
    assert created is not None  # _game_of refused a tournament without one
    return {
        "game_id": game.game_id,
        "tournament": created.name,
        "stage": game.stage,
        "round": game.round,
        "board": _board(state, game),
        "date": _date(index, state, game),
        "white": _player(state, game.white),
        "black": _player(state, game.black),
        "result": result[2] if result is not None else None,
        "termination": result[3] if result is not None else None,
        "start_fen": start.fen(),
        "moves": moves,
    }


def export_pgn(records: Sequence[Recorded], game_id: str) -> str:
    """The PGN of chess game `game_id` of the tournament whose records these are."""
    state, game = _game_of(records, game_id)
    return _game_pgn(records, state, game, _Index(records)) + "\n"


class _Index:
    """What one pass over the records tells every game's export: the time each event
    occurred (a game's Date), each game's source (an imported game's `TerminationDetails`),
    the rule and detail of each ending, the time control of each pairing."""

    def __init__(self, records: Sequence[Recorded]) -> None:
        self.occurred: dict[UUID, str] = {}
        self.sources: dict[str, ev.GameSource] = {}
        self.endings: dict[UUID, tuple[str | None, str]] = {}
        self.time_controls: dict[str, str] = {}
        for rec in records:
            env = rec.envelope
            self.occurred[env.event_id] = env.occurred_at.strftime("%Y.%m.%d")
            e = rec.event
            if isinstance(e, ev.GameStarted) and e.source is not None:
                self.sources[e.game_id] = e.source
            elif isinstance(e, ev.GameEnded):
                self.endings[env.event_id] = (e.rule, e.detail)
            elif isinstance(e, ev.RoundScheduled):
                for p in e.pairings:
                    if p.time_control:
                        self.time_controls[p.game_id] = p.time_control


def _time_control(state: StandingsState, game: GameRecord, index: _Index) -> str | None:
    """PGN 9.6.1 `base+increment` in seconds: the pairing's time control, else the
    tournament's only one."""
    created = state.created
    assert created is not None
    tcs = {tc.name: tc for tc in created.time_controls}
    name = index.time_controls.get(game.game_id)
    tc = tcs.get(name) if name is not None else None
    if tc is None and len(tcs) == 1:
        tc = next(iter(tcs.values()))
    if tc is None:
        return name if name is not None and time_control_text(name) else None
    if tc.overtime != "none" or tc.white_base_seconds is not None:
        return None  # not a PGN time control (9.6.1 has no Go overtime, no Armageddon clocks)
    return (
        f"{tc.base_seconds}+{tc.increment_seconds}"
        if tc.increment_seconds
        else str(tc.base_seconds)
    )


def time_control_text(text: str) -> bool:
    """Whether `text` is a PGN `TimeControl` of the form `base[+increment]`."""
    return re.fullmatch(r"\d{1,7}(?:\+\d{1,5})?", text) is not None


def _hms(ms: int) -> str:
    """Milliseconds as `[%clk]`/`[%emt]` write them: h:mm:ss, with the milliseconds kept
    (`projections/endings/pgn_comments.py` reads the fraction back exactly)."""
    h, rest = divmod(ms, 3_600_000)
    m, rest = divmod(rest, 60_000)
    s, milli = divmod(rest, 1000)
    return f"{h}:{m:02d}:{s:02d}" + (f".{milli:03d}" if milli else "")


def _comment(m: ev.MovePlayed) -> str:
    """The move's facts as lichess commands (`[%clk]`, `[%emt]`, `[%eval cp,depth]` in White's
    view, pawns exact) and `[%nodes n]`: what `parse_lichess` reads back."""
    parts = []
    if m.eval_cp is not None or m.mate_in is not None:
        score = (
            f"#{m.mate_in}" if m.mate_in is not None else str(Decimal(m.eval_cp or 0).scaleb(-2))
        )
        parts.append(f"[%eval {score}{f',{m.depth}' if m.depth is not None else ''}]")
    if m.clock_ms is not None:
        parts.append(f"[%clk {_hms(m.clock_ms)}]")
    if m.move_time_ms is not None:
        parts.append(f"[%emt {_hms(m.move_time_ms)}]")
    if m.nodes is not None:
        parts.append(f"[%nodes {m.nodes}]")
    return " ".join(parts)


def _game_pgn(
    records: Sequence[Recorded], state: StandingsState, game: GameRecord, index: _Index
) -> str:
    start, played = _played(game)
    rec = _record(records, state, game, start, played, index)
    pgn = chess.pgn.Game()
    event = rec["tournament"] + ("" if rec["stage"] == "main" else f" ({rec['stage']})")
    pgn.headers["Event"] = event
    pgn.headers["Site"] = "?"
    pgn.headers["Date"] = rec["date"]
    pgn.headers["Round"] = f"{rec['round']}.{rec['board']}"
    pgn.headers["White"] = rec["white"]["name"]
    pgn.headers["Black"] = rec["black"]["name"]
    result = rec["result"]
    pgn.headers["Result"] = result if result in ("1-0", "0-1", "1/2-1/2") else "*"
    for colour in ("White", "Black"):
        p = rec[colour.lower()]
        if p["rating"] is not None:
            pgn.headers[f"{colour}Elo"] = str(p["rating"])
        if p["title"]:
            pgn.headers[f"{colour}Title"] = p["title"]
        if p["fide_id"] is not None:
            pgn.headers[f"{colour}FideId"] = str(p["fide_id"])
    pgn.headers["Board"] = str(rec["board"])
    pgn.headers["GameId"] = rec["game_id"]
    tc = _time_control(state, game, index)
    if tc is not None:
        pgn.headers["TimeControl"] = tc
    if rec["termination"] is not None:
        termination: str = rec["termination"]
        pgn.headers["Termination"] = _TERMINATION.get(termination, "normal")
        rule, detail = index.endings.get(game.results[-1][0], (None, ""))
        source = index.sources.get(game.game_id)
        # The words the import reads the ending from (`projections.games.read_source`): the
        # source's own for an imported game, else the ending's detail, else its termination.
        words = (source.details if source is not None else "") or detail
        pgn.headers["TerminationDetails"] = words or termination.replace("_", " ")
        if rule:
            pgn.headers["TerminationRule"] = rule  # the rule that ended it (GameEnded.rule)
    pgn.setup(start)
    node: chess.pgn.GameNode = pgn
    for m, move, _ in played:
        node = node.add_variation(move)
        comment = _comment(m)
        if comment:
            node.comment = comment
    exporter = chess.pgn.StringExporter(headers=True, variations=False, comments=True)
    text: str = pgn.accept(exporter)
    return text


def export_tournament_pgn(records: Sequence[Recorded], round_: int | None = None) -> str:
    """Every chess game of the tournament whose records these are (`arbiter export pgn`,
    `GET /tournaments/{id}/games.pgn`), stage by stage, round by round, board by board;
    `round_`: the main stage's round `round_` only. Each game as `export_pgn` writes it; a
    game paired but not started is written with its tags and no moves ("*")."""
    state = fold(list(records))
    created = state.created
    if created is None:
        raise ExportRefused("pgn.unknown_tournament", "TOURNAMENT", "the tournament has no events")
    if created.game != "chess":
        raise ExportRefused(
            "pgn.not_chess",
            "TOURNAMENT",
            f"{_tid(records)} is a {created.game} tournament: its games export as SGF",
        )
    games = [
        g
        for g in state.games.values()
        if round_ is None or (g.stage == "main" and g.round == round_)
    ]
    if round_ is not None and not games:
        raise ExportRefused("pgn.unknown_round", "--round", f"no games in round {round_}")
    stages = {s: i for i, s in enumerate(dict.fromkeys(g.stage for g in state.games.values()))}
    games.sort(key=lambda g: (stages[g.stage], g.round, _board(state, g)))
    index = _Index(records)
    return "".join(_game_pgn(records, state, g, index) + "\n\n" for g in games)

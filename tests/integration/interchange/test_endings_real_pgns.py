"""The adjudicator on real TCEC games (/work/shared/data/pgn, see its README): from the moves
alone (with their `wv` evaluations and `mt` move times, no tablebases) each Season 28 and 29
game ends at the ply, with the result and by the rule it really ended. The older archives
(Cup 4, Season 16 FRC) ran older adjudication rules: there the rules of the game alone must
end exactly the games the arena ended by them, and no other before the arena did. The clocks
derived from `mt` and the time control equal the arena's `tl` on every move."""

from __future__ import annotations

from dataclasses import dataclass

import chess
import chess.pgn
import pytest
from tests_support import PGN_DIR

from events_schema.events import TimeControl
from projections.endings import GameFacts, MoveFacts, adjudicate, draw_rule, ruleset_for
from projections.endings.clock import ClockSpec, apply_move, start
from projections.endings.pgn_comments import MoveComment, parse_tcec

CURRENT = {  # file → the preset of the event (rules in force: the seed's)
    "TCEC_Season_28_-_Entrance_League_Tiebreak_1.pgn": "tcec-league",
    "TCEC_Season_29_-_Frd_5_League_B_Tiebreak.pgn": "tcec-frd",
}
OLDER = ["TCEC_Cup_4_Bronze.pgn", "TCEC_Season_16_-_Frc_Cpu_League_2_Playoff.pgn"]
TERMINATION = {  # TerminationDetails → Termination
    "White mates": "checkmate",
    "Black mates": "checkmate",
    "Fifty moves rule": "fifty_move_rule",
    "3-Fold repetition": "threefold_repetition",
    "TCEC draw rule": "tcec_draw_rule",
    "SyzygyTB": "tablebase",
    "Stalemate": "stalemate",
}
GAME_RULES = {"checkmate", "stalemate", "fifty_move_rule", "threefold_repetition"}


@dataclass
class Game:
    name: str
    headers: chess.pgn.Headers
    facts: GameFacts
    comments: list[MoveComment]
    boards: list[chess.Board]  # the position after each ply (copies without stacks)


def _load(file: str) -> list[Game]:
    path = PGN_DIR / file
    if not path.is_file():
        pytest.skip(f"{path} is missing")
    games = []
    with path.open(encoding="utf-8") as fh:
        while (pgn := chess.pgn.read_game(fh)) is not None:
            board = pgn.board()
            moves, comments, boards = [], [], []
            for node in pgn.mainline():
                c = parse_tcec(node.comment)
                moves.append(MoveFacts(board.uci(node.move), c.eval_cp, c.mate_in, c.move_time_ms))
                comments.append(c)
                board.push(node.move)
                boards.append(board.copy(stack=False))
            base, inc = pgn.headers["TimeControl"].split("+")
            tc = TimeControl(
                name=pgn.headers["TimeControl"], base_seconds=int(base), increment_seconds=int(inc)
            )
            facts = GameFacts(tuple(moves), pgn.headers.get("FEN"), time_control=tc)
            games.append(
                Game(f"{file} {pgn.headers['Round']}", pgn.headers, facts, comments, boards)
            )
    return games


@pytest.mark.parametrize("file", sorted(CURRENT))
def test_current_rules_end_each_game_where_it_really_ended(file: str):
    games = _load(file)
    assert len(games) == 2
    for game in games:
        ending = adjudicate(game.facts, CURRENT[file])
        h = game.headers
        assert ending is not None, game.name
        assert ending.ply == int(h["PlyCount"]) == len(game.facts.moves), game.name
        assert ending.result == h["Result"], game.name
        assert ending.termination == TERMINATION[h["TerminationDetails"]], game.name
        if ending.termination == "tcec_draw_rule":
            assert h["Termination"] == "adjudication"
            assert game.comments[-1].notes == ("Adjudication: TCEC draw rule",)
        # one ply earlier the game was still on
        shorter = GameFacts(
            game.facts.moves[:-1], game.facts.start_fen, time_control=game.facts.time_control
        )
        assert adjudicate(shorter, CURRENT[file]) is None, game.name


def test_season_28_fifty_moves_wins_over_the_draw_rule_on_the_same_ply():
    game = _load("TCEC_Season_28_-_Entrance_League_Tiebreak_1.pgn")[0]
    assert game.headers["TerminationDetails"] == "Fifty moves rule"
    count = 0
    for m, board in zip(game.facts.moves, game.boards, strict=True):
        count = draw_rule.step(count, draw_rule.non_pawn_men(board), m.eval_cp, m.mate_in)
    assert count >= draw_rule.PLIES  # the draw rule held too (README: "ply 237")
    assert game.boards[-1].halfmove_clock == 100


@pytest.mark.parametrize("file", sorted(CURRENT))
def test_the_arena_s_counters(file: str):
    """`R50` is 50 − ⌈halfmove clock / 2⌉; `Rd` (8 − the draw-rule counter, −9 at 0) follows
    the ARENA_DISPLAY reading on every ply, and the written reading wherever the two agree."""
    plies = differ = 0
    for game in _load(file):
        written = display = 0
        for m, c, board in zip(game.facts.moves, game.comments, game.boards, strict=True):
            men = draw_rule.non_pawn_men(board)
            zeroing = board.halfmove_clock == 0
            written = draw_rule.step(written, men, m.eval_cp, m.mate_in, zeroing=zeroing)
            display = draw_rule.step(
                display,
                men,
                m.eval_cp,
                m.mate_in,
                zeroing=zeroing,
                reading=draw_rule.ARENA_DISPLAY,
            )
            rd, r50 = c.field("Rd"), c.field("R50")
            if rd is None or r50 is None:
                assert c.book
                continue
            plies += 1
            assert int(r50) == 50 - (board.halfmove_clock + 1) // 2, (game.name, plies)
            assert int(rd) == (8 - display if display else -9), (game.name, plies)
            if written != display:
                differ += 1
                # only where the text says otherwise: a capture or pawn move, or 7–8 men
                assert zeroing or men in (7, 8), (game.name, plies)
    assert plies > 300
    expected = {
        "TCEC_Season_28_-_Entrance_League_Tiebreak_1.pgn": 0,
        "TCEC_Season_29_-_Frd_5_League_B_Tiebreak.pgn": 9,
    }
    assert differ == expected[file]


@pytest.mark.parametrize("file", [*sorted(CURRENT), *OLDER])
def test_clocks_derived_from_move_times_equal_the_arena_s(file: str):
    checked = 0
    for game in _load(file):
        assert game.facts.time_control is not None
        spec = ClockSpec.of(game.facts.time_control)
        assert spec is not None
        state = start(spec)
        board = (
            chess.Board(game.facts.start_fen, chess960=True)
            if game.facts.start_fen
            else (chess.Board())
        )
        for m, c in zip(game.facts.moves, game.comments, strict=True):
            colour = "white" if board.turn else "black"
            # a book move spends no time and earns no increment: its clock is unchanged (as
            # the importer records it)
            book = state.remaining(colour) if c.book else None
            state = apply_move(
                state, colour, m.move_time_ms, move_number=board.fullmove_number, reported_ms=book
            )
            if c.clock_ms is not None:
                assert state.known_ms(colour) == c.clock_ms, (game.name, board.fullmove_number)
                checked += 1
            board.push_uci(m.uci)
        assert state.flagged is None
    assert checked > 100


@pytest.mark.parametrize("file", OLDER)
def test_older_archives_the_rules_of_the_game_alone(file: str):
    """Older adjudication rules (a TCEC win rule, an older draw rule): the game rules alone
    (the tcec-4k list: no draw rule, no tablebase) end the games the arena ended by them at
    the same ply, and end no other game before the arena did."""
    game_rules = ruleset_for("tcec-4k")
    matched = 0
    for game in _load(file):
        ending = adjudicate(game.facts, game_rules)
        real = TERMINATION.get(game.headers.get("TerminationDetails", ""))
        if real in GAME_RULES:
            assert ending is not None, game.name
            assert (ending.ply, ending.result, ending.termination) == (
                len(game.facts.moves),
                game.headers["Result"],
                real,
            ), game.name
            matched += 1
        else:
            assert ending is None, (game.name, ending)
    assert matched == {"TCEC_Cup_4_Bronze.pgn": 5}.get(file, 0)

"""The live games document (`projections/live.py`): given events → the document, golden style
(moves, clocks, evaluations, a retracted move, a corrected and a retracted result, the round
that follows, a Go game), the crosstable the standings document carries, and a property: the
incremental board cache always equals a fresh computation."""

from __future__ import annotations

import random
import uuid
from typing import Any

import chess
from builders import created, eid, move, player, recorded, result, round_
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_folds_agree import raw_logs

from events_schema import Event, Recorded
from events_schema import events as ev
from events_schema.codec import dumps
from events_schema.documents import validate_document
from projections.documents import PROJECTIONS, documents
from projections.live import BoardCache, fen, fresh_position, games_document
from projections.standings.state import GameRecord, StandingsState, evolve, fold

TID = "live-test"


def _doc(events: list[Event], cache: BoardCache | None = None) -> dict[str, Any]:
    return games_document(fold(recorded(TID, events)), cache or BoardCache())


def _opening() -> list[Event]:
    return [
        created(fmt="swiss", rounds=3),  # 1
        player("alice", 2700, kind="engine"),  # 2
        player("bob", 2650, kind="engine"),  # 3
        player("carol", 2600, kind="engine"),  # 4
        round_(1, ("r1g1", "alice", "bob"), byes=("carol",)),  # 5
        move("r1g1", 1, "e2e4", san="e4", clock_ms=60_000, eval_cp=30, depth=20),  # 6
        move("r1g1", 2, "e7e5", san="e5", clock_ms=59_000, eval_cp=25, depth=21),  # 7
        move("r1g1", 3, "g1f3", san="Nf3", clock_ms=58_500, mate_in=None),  # 8: no eval
    ]


def test_moves_clocks_and_the_last_evaluation() -> None:
    data = _doc(_opening())
    assert data["game"] == "chess" and data["engine_event"] is True
    assert data["round"] == {
        "stage": "main",
        "round": 1,
        "cycle": None,
        "games": 1,
        "ended": 0,
        "in_progress": 1,
    }
    assert data["byes"] == [
        {
            "player": {
                "player_id": "carol",
                "name": "Carol",
                "kind": "engine",
                "rating": 2600,
                "title": None,
                "federation": None,
            },
            "kind": "pairing_allocated",
        }
    ]
    (g,) = data["pairings"]
    board = chess.Board()
    for uci in ("e2e4", "e7e5", "g1f3"):
        board.push_uci(uci)
    assert g == {
        "board": 1,
        "game_id": "r1g1",
        "white": {
            "player_id": "alice",
            "name": "Alice",
            "kind": "engine",
            "rating": 2700,
            "title": None,
            "federation": None,
        },
        "black": {
            "player_id": "bob",
            "name": "Bob",
            "kind": "engine",
            "rating": 2650,
            "title": None,
            "federation": None,
        },
        "status": "in_progress",
        "result": None,
        "termination": None,
        "corrected": False,
        "plies": 3,
        "last_move": {
            "ply": 3,
            "colour": "white",
            "uci": "g1f3",
            "san": "Nf3",
            "point": None,
            "move_time_ms": None,
        },
        "position_plies": 3,
        "to_move": "black",
        "fen": board.fen(),
        "stones": None,
        "prisoners": None,
        # White's clock after its latest move, Black's after its own.
        "clocks": {"white_ms": 58_500, "black_ms": 59_000},
        # The latest move carrying an evaluation (ply 2), White's point of view.
        "evaluation": {"ply": 2, "cp": 25, "mate_in": None, "depth": 21},
    }


def test_a_clock_reading_after_the_moves_supersedes_them_and_is_retractable() -> None:
    events = [
        *_opening(),
        ev.ClockReported(game_id="r1g1", white_ms=50_000, black_ms=40_000),  # 9
    ]
    (g,) = _doc(events)["pairings"]
    assert g["clocks"] == {"white_ms": 50_000, "black_ms": 40_000}
    events.append(move("r1g1", 4, "b8c6", san="Nc6", clock_ms=39_000))  # 10
    (g,) = _doc(events)["pairings"]
    assert g["clocks"] == {"white_ms": 50_000, "black_ms": 39_000}  # Black moved since
    events.append(ev.EventRetracted(retracted_event_id=eid(9), reason="misread"))  # 11
    (g,) = _doc(events)["pairings"]
    assert g["clocks"] == {"white_ms": 58_500, "black_ms": 39_000}


def test_a_move_without_a_clock_shows_it_unknown_not_an_older_reading() -> None:
    """A side's last move reported no clock: its clock is unknown (null, "–" on the page),
    never the reading of an earlier move (projections/endings/clock.py); the next reading
    shows again."""
    events = [*_opening(), move("r1g1", 4, "b8c6", san="Nc6")]  # 9: no time data
    (g,) = _doc(events)["pairings"]
    assert g["clocks"] == {"white_ms": 58_500, "black_ms": None}
    events.append(ev.ClockReported(game_id="r1g1", white_ms=58_000, black_ms=57_000))  # 10
    (g,) = _doc(events)["pairings"]
    assert g["clocks"] == {"white_ms": 58_000, "black_ms": 57_000}


def test_a_retracted_last_move_takes_the_board_clock_and_eval_back() -> None:
    cache = BoardCache()
    events = [*_opening(), move("r1g1", 4, "b8c6", clock_ms=57_000, eval_cp=40, depth=22)]  # 9
    before = _doc(events, cache)["pairings"][0]
    assert before["evaluation"] == {"ply": 4, "cp": 40, "mate_in": None, "depth": 22}
    events.append(ev.EventRetracted(retracted_event_id=eid(9), reason="entered twice"))
    after = _doc(events, cache)["pairings"][0]
    assert after == _doc(events[:8])["pairings"][0]  # as if the move had never been played
    assert after["evaluation"]["ply"] == 2 and after["clocks"]["black_ms"] == 59_000


def test_a_result_corrected_then_the_correction_retracted() -> None:
    events = [*_opening(), result("r1g1", "1-0", "resignation")]  # 9
    g = _doc(events)["pairings"][0]
    assert (g["status"], g["result"], g["termination"], g["corrected"]) == (
        "ended",
        "1-0",
        "resignation",
        False,
    )
    events.append(
        ev.ResultCorrected(
            corrects_event_id=eid(9),
            game_id="r1g1",
            result="1/2-1/2",
            termination="agreement",
            reason="scoresheet",
        )
    )  # 10
    data = _doc(events)
    g = data["pairings"][0]
    assert (g["result"], g["termination"], g["corrected"]) == ("1/2-1/2", "agreement", True)
    assert data["round"]["ended"] == 1 and data["round"]["in_progress"] == 0
    events.append(ev.EventRetracted(retracted_event_id=eid(10), reason="wrong game"))
    g = _doc(events)["pairings"][0]
    assert (g["result"], g["corrected"]) == ("1-0", False)


def test_the_current_round_is_the_latest_scheduled_and_its_retraction_goes_back() -> None:
    events = [
        *_opening(),
        result("r1g1", "1-0"),  # 9
        round_(2, ("r2g1", "carol", "alice"), byes=("bob",)),  # 10
    ]
    data = _doc(events)
    assert data["round"]["round"] == 2
    assert [p["game_id"] for p in data["pairings"]] == ["r2g1"]
    assert data["pairings"][0]["status"] == "scheduled"
    assert data["pairings"][0]["fen"] == chess.STARTING_FEN
    assert data["pairings"][0]["clocks"] == {"white_ms": None, "black_ms": None}
    assert data["pairings"][0]["evaluation"] is None
    events.append(ev.EventRetracted(retracted_event_id=eid(10), reason="re-pair"))
    assert _doc(events)["round"]["round"] == 1


def test_a_go_game_shows_its_stones_and_prisoners() -> None:
    events: list[Event] = [
        created(game="go", fmt="mcmahon", board_size=9),
        ev.PlayerRegistered(player_id="b", name="Black", go_rank="2d"),
        ev.PlayerRegistered(player_id="w", name="White", go_rank="1d"),
        round_(1, ("g1", "w", "b")),
    ]
    # Black surrounds and captures White's stone at E5 (LGC: a stone without liberties is
    # removed; the capture is the mover's prisoner).
    points = ["D5", "E5", "E4", "A1", "F5", "A2", "E6"]
    for ply, point in enumerate(points, start=1):
        colour = "black" if ply % 2 == 1 else "white"
        events.append(ev.MovePlayed(game_id="g1", ply=ply, colour=colour, point=point))
    data = _doc(events)
    assert data["game"] == "go" and data["board_size"] == 9 and data["engine_event"] is False
    (g,) = data["pairings"]
    assert g["fen"] is None
    assert g["stones"] == {"black": ["E4", "D5", "F5", "E6"], "white": ["A1", "A2"]}
    assert g["prisoners"] == {"black": 1, "white": 0}
    assert g["last_move"]["point"] == "E6" and g["to_move"] == "white"
    assert g["handicap"] == 0


def test_documents_publish_games_and_the_crosstable_and_validate() -> None:
    events = [*_opening(), result("r1g1", "0-1", "resignation")]
    state = fold(recorded(TID, events))
    docs = documents(state, TID)
    assert tuple(docs) == PROJECTIONS and PROJECTIONS[-1] == "games"
    for doc in docs.values():
        validate_document(doc)
    ct = docs["standings"]["data"]["crosstable"]
    assert ct["rounds"] == 1
    by_player = {p["player_id"]: p["rounds"] for p in ct["players"]}
    assert [p["player_id"] for p in ct["players"]] == [
        r["player_id"] for r in docs["standings"]["data"]["rows"]
    ]
    (bob,) = by_player["bob"]
    assert (bob["opponent"], bob["colour"], bob["display"], bob["outcome"]) == (
        "alice",
        "black",
        "1",
        "win",
    )
    (carol,) = by_player["carol"]
    assert (carol["kind"], carol["opponent"], carol["display"]) == ("bye", None, "1")
    # The same bytes whether the state's cache was warm or cold (a replay and the live feed
    # agree): the fold that built the documents above builds them again from its cache.
    again = documents(fold(recorded(TID, events)), TID)
    assert dumps(again) == dumps(documents(state, TID)) == dumps(docs)


def test_a_new_move_costs_one_push() -> None:
    cache = BoardCache()
    events = _opening()
    _doc(events, cache)
    pushes, rebuilds = cache.pushes, cache.rebuilds
    events.append(move("r1g1", 4, "b8c6"))
    _doc(events, cache)
    assert (cache.pushes - pushes, cache.rebuilds - rebuilds) == (1, 0)


# --- the property: the cache equals a fresh computation ------------------------------------------


def _record(kind: str) -> GameRecord:
    return GameRecord("g", "main", 1, None, "a", "b", None, None, started=True)


def _play(game: GameRecord, mp: ev.MovePlayed) -> None:
    game.moves.append(mp.uci or mp.point or "?")
    game.move_ids.append(uuid.uuid4())
    game.move_events.append(mp)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(["push", "push", "push", "pop", "bad"]), st.integers(0, 999)),
        max_size=40,
    )
)
def test_property_incremental_chess_board_equals_a_fresh_one(ops: list[tuple[str, int]]) -> None:
    cache = BoardCache(4)
    game = _record("chess")
    board = chess.Board()
    for op, pick in ops:
        if op == "push":
            legal = sorted(board.legal_moves, key=lambda m: m.uci())
            if not legal:
                continue
            mv = legal[pick % len(legal)]
            colour = "white" if board.turn else "black"
            board.push(mv)
            _play(
                game,
                ev.MovePlayed(game_id="g", ply=len(game.moves) + 1, colour=colour, uci=mv.uci()),
            )
        elif op == "pop" and game.moves:
            # A retraction of the last move (as the standings fold applies it).
            game.moves.pop()
            game.move_ids.pop()
            game.move_events.pop()
            board = chess.Board()
            for m in game.move_events:
                if m.uci is not None:
                    try:
                        board.push(board.parse_uci(m.uci))
                    except ValueError:
                        break
        elif op == "bad":
            # A move the position cannot take: the position stops there.
            colour = "white" if len(game.moves) % 2 == 0 else "black"
            _play(
                game, ev.MovePlayed(game_id="g", ply=len(game.moves) + 1, colour=colour, uci="a1h8")
            )
        got = cache.position(game, "chess")
        assert got == fresh_position(game, "chess")


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(["play", "play", "pass", "unwind"]), st.integers(0, 80)),
        max_size=40,
    )
)
def test_property_incremental_go_board_equals_a_fresh_one(ops: list[tuple[str, int]]) -> None:
    cache = BoardCache(4)
    game = _record("go")
    cols = "ABCDEFGHJ"
    for op, pick in ops:
        colour = "black" if len(game.moves) % 2 == 0 else "white"
        if op == "unwind":
            keep = pick % (len(game.moves) + 1)
            del game.moves[keep:]
            del game.move_ids[keep:]
            del game.move_events[keep:]
        else:
            point = "pass" if op == "pass" else f"{cols[pick % 9]}{pick // 9 % 9 + 1}"
            _play(
                game,
                ev.MovePlayed(game_id="g", ply=len(game.moves) + 1, colour=colour, point=point),
            )
        assert cache.position(game, "go", 9) == fresh_position(game, "go", 9)


def test_state_of_a_fold_keeps_the_move_events_parallel_to_the_moves() -> None:
    state: StandingsState = fold(recorded(TID, _opening()))
    game = state.games["r1g1"]
    assert [m.uci for m in game.move_events] == game.moves


@settings(max_examples=80, deadline=None, suppress_health_check=list(HealthCheck))
@given(raw_logs())
def test_property_the_documents_never_fail_and_the_cache_never_shows(
    records: list[Recorded],
) -> None:
    """On raw logs (odd ones included: retracted rounds, moves of unknown games, FEN starts,
    unreadable events), the games document builds, validates, and a state advanced record by
    record with its cache warm publishes the bytes of a fresh fold at every step."""
    live = StandingsState()
    for i, rec in enumerate(records, start=1):
        evolve(live, rec)
        if live.created is None:
            continue
        warm = games_document(live)
        cold = games_document(fold(records[:i]), BoardCache())
        assert dumps(warm) == dumps(cold)
    if live.created is not None:
        for doc in documents(live, TID).values():
            validate_document(doc)


def test_the_cache_pickles_empty_with_its_fold() -> None:
    """A processor snapshots its fold with pickle: the cache goes along empty, and the thawed
    state publishes the same bytes."""
    import pickle

    state = fold(recorded(TID, _opening()))
    before = documents(state, TID)
    thawed = pickle.loads(pickle.dumps(state))
    assert isinstance(thawed.live, BoardCache) and thawed.live.rebuilds == 0
    assert dumps(documents(thawed, TID)) == dumps(before)


# -- the FEN built from the bitboards ------------------------------------------------------------

#: Starts where a promotion, an en passant capture (legal, and pinned: not shown) and
#: castling rights lost one by one come within a few random plies.
FEN_STARTS = [
    None,
    "4k3/1P4P1/8/8/8/8/1p4p1/4K3 w - - 0 1",
    "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2",
    "8/8/8/k2pP2R/8/8/8/4K3 w - d6 0 2",
    "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1",
]


@settings(max_examples=200, deadline=None)
@given(
    start=st.sampled_from(FEN_STARTS) | st.integers(0, 959),
    seed=st.integers(0, 2**32),
    plies=st.integers(0, 120),
)
def test_the_fen_is_python_chess_fen_after_every_move(
    start: str | int | None, seed: int, plies: int
) -> None:
    """`projections.live.fen` gives `board.fen()` (the placement, side to move, X-FEN castling,
    the en passant square when a legal capture exists, the clocks) after every ply of random
    legal games from standard, Chess960 and edge-case starts."""
    rng = random.Random(seed)
    if isinstance(start, int):
        board = chess.Board.from_chess960_pos(start)
    else:
        board = chess.Board(start, chess960=True) if start else chess.Board(chess960=True)
    assert fen(board) == board.fen()
    for _ in range(plies):
        moves = list(board.legal_moves)
        if not moves:
            break
        board.push(rng.choice(moves))
        assert fen(board) == board.fen()


@settings(max_examples=120, deadline=None)
@given(
    start=st.sampled_from(FEN_STARTS) | st.integers(0, 959),
    ops=st.lists(
        st.tuples(st.sampled_from(["push", "push", "push", "push", "pop"]), st.integers(0, 999)),
        max_size=60,
    ),
)
def test_the_cached_board_writes_python_chess_fen_after_every_push_and_retraction(
    start: str | int | None, ops: list[tuple[str, int]]
) -> None:
    """The position a game's cached board gives (its castling field kept while the rights,
    kings and back-rank rooks it reads are unchanged) is `board.fen()` after every move and
    every retraction of the last move, from standard, Chess960 and castling-rich starts (a
    rook moved or taken, a king moved, the rights lost one side at a time)."""
    start_fen = chess.Board.from_chess960_pos(start).fen() if isinstance(start, int) else start
    game = GameRecord("g", "main", 1, None, "a", "b", None, None, fen=start_fen, started=True)
    cache = BoardCache(4)
    board = chess.Board(start_fen, chess960=True) if start_fen else chess.Board()
    boards = [board.copy()]
    for op, pick in ops:
        if op == "push":
            legal = sorted(board.legal_moves, key=lambda m: m.uci())
            if not legal:
                continue
            mv = legal[pick % len(legal)]
            colour = "white" if board.turn else "black"
            board.push(mv)
            boards.append(board.copy())
            _play(
                game,
                ev.MovePlayed(game_id="g", ply=len(game.moves) + 1, colour=colour, uci=mv.uci()),
            )
        elif op == "pop" and game.moves:
            game.moves.pop()
            game.move_ids.pop()
            game.move_events.pop()
            boards.pop()
            board = boards[-1].copy()
        assert cache.position(game, "chess").fen == board.fen()


def test_the_castling_letter_follows_a_rook_that_comes_beside_the_castling_rook() -> None:
    """X-FEN (python-chess `castling_xfen`): the g1 rook with the right is "K" while it is
    White's outermost rook on the king's side, "G" once another rook stands on h1, "K" again
    when it leaves; the rights themselves never change."""
    start = "4k3/8/8/8/8/8/7R/4K1R1 w G - 0 1"
    game = GameRecord("g", "main", 1, None, "a", "b", None, None, fen=start, started=True)
    cache = BoardCache(4)
    seen = []
    for ply, uci in enumerate(["h2h1", "e8d8", "h1h2"], start=1):
        _play(game, move("g", ply, uci))
        seen.append(cache.position(game, "chess").fen)
    assert seen == [
        "4k3/8/8/8/8/8/8/4K1RR b G - 1 1",
        "3k4/8/8/8/8/8/8/4K1RR w G - 2 2",
        "3k4/8/8/8/8/8/7R/4K1R1 b K - 3 2",
    ]


def test_the_round_of_a_document_built_for_touched_games_is_the_round_built_afresh() -> None:
    """Issue 27 item 3: a move rebuilds its own game's part and status only (the round's other
    games are not visited). A first move starts its game; a result (built in full, as the
    projector does for it) ends one: the counts and parts equal a fresh build's at every
    step."""
    setup: list[Event] = [
        created(fmt="swiss", rounds=3),
        *(player(p) for p in ("a", "b", "c", "d", "e", "f")),
        round_(1, ("g1", "a", "b"), ("g2", "c", "d"), ("g3", "e", "f")),
    ]
    # (event, the games it touches; None: a document built in full)
    steps: list[tuple[Event, set[str] | None]] = [
        (move("g2", 1, "d2d4"), {"g2"}),  # g2 starts
        (move("g2", 2, "d7d5"), {"g2"}),
        (move("g3", 1, "e2e4"), {"g3"}),  # g3 starts
        (result("g3", "1-0"), None),  # g3 ends
        (move("g2", 3, "c2c4"), {"g2"}),
        (move("g1", 1, "g1f3"), {"g1", "g2"}),  # g1 starts
    ]
    recs = recorded(TID, [*setup, *(e for e, _ in steps)])
    state = fold(recs[: len(setup)])
    cache = BoardCache()
    games_document(state, cache)
    for i, (_, touched) in enumerate(steps, start=len(setup)):
        evolve(state, recs[i])
        data = games_document(state, cache, touched=touched)
        assert data == games_document(fold(recs[: i + 1]), BoardCache())
    assert data["round"]["in_progress"] == 2 and data["round"]["ended"] == 1

"""The relay from a file (issue 25 items 2, 6): a real TCEC PGN written into a file a few
plies at a time, as a live broadcast grows (`[Result "*"]` while a game runs, the final token
when it ends), followed poll by poll (the relay's one-poll function, no sleeping): its final
moves, clocks, evaluations and endings equal `import pgn` of the whole file; a relay
restarted mid-way appends nothing twice; a move the source takes back is retracted (a
correction, never a rewrite); a game with an illegal move or an unknown player is held while
the others go on."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import chess.pgn
from tests_support import append_events, pgn_sample

from events_schema import Actor, Recorded
from events_schema import events as ev
from projections.games import game_rows
from services.eventlog.sqlite import SQLiteEventLog
from services.interchange.pgn import import_pgn
from services.relay import FileSource, Relay, poll_once

S28 = "TCEC_Season_28_-_Entrance_League_Tiebreak_1.pgn"
ADMIN = Actor(id="relay-test", role="admin")


def _games(text: str) -> list[chess.pgn.Game]:
    handle = io.StringIO(text)
    out = []
    while (game := chess.pgn.read_game(handle)) is not None:
        out.append(game)
    return out


def _live(game: chess.pgn.Game, plies: int) -> str:
    """`game` as a live file shows it after `plies` plies: `[Result "*"]`, no final token."""
    live = chess.pgn.Game()
    for k, v in game.headers.items():
        live.headers[k] = v
    live.headers["Result"] = "*"
    live.comment = game.comment
    node = live
    for i, src in enumerate(game.mainline()):
        if i >= plies:
            break
        node = node.add_variation(src.move, comment=src.comment)
    return str(live)


def _chunks(text: str) -> list[str]:
    """Each game of `text` as its own text (tags to the blank line after its movetext)."""
    starts = [
        i for i, line in enumerate(text.splitlines(keepends=True)) if line.startswith("[Event ")
    ]
    lines = text.splitlines(keepends=True)
    return ["".join(lines[a:b]) for a, b in zip(starts, [*starts[1:], len(lines)], strict=True)]


def _growing(text: str, step: int) -> list[str]:
    """The file as it grows: each game `step` plies at a time, then as the whole file has it."""
    whole = _chunks(text)
    games = _games(text)
    out: list[str] = []
    for k, game in enumerate(games):
        done = "".join(whole[:k])
        n = len(list(game.mainline()))
        for plies in range(0, n, step):
            out.append(done + _live(game, plies) + "\n")
        out.append(done + whole[k])
    return out


def _facts(log: SQLiteEventLog, tid: str) -> list[tuple[Any, ...]]:
    """Moves (with clock, time, evaluation) and endings in force, by the game's place in its
    file (the ids differ: the import's `g0002`, the relay's `2.1`)."""
    index: dict[str, int] = {}
    retracted = {
        e.payload["retracted_event_id"] for e in log.read(tid) if e.type == "EventRetracted"
    }
    out: list[tuple[Any, ...]] = []
    for e in log.read(tid):
        p = e.payload
        if str(e.event_id) in retracted:
            continue
        if e.type == "GameStarted":
            index[p["game_id"]] = p["source"]["index"]
        elif e.type == "MovePlayed":
            out.append(
                (
                    index[p["game_id"]],
                    p["ply"],
                    p["uci"],
                    p.get("clock_ms"),
                    p.get("move_time_ms"),
                    p.get("eval_cp"),
                    p.get("depth"),
                )
            )
        elif e.type == "GameEnded":
            out.append((index[p["game_id"]], p["result"], p["termination"], p.get("rule")))
    return sorted(out, key=str)


def _created(log: SQLiteEventLog, tid: str) -> ev.TournamentCreated:
    env = next(iter(log.read(tid)))
    return ev.TournamentCreated.model_validate(env.payload)


def test_a_tcec_file_written_move_by_move_ends_as_its_import(tmp_path: Path):
    """Season 28's tiebreak (a fifty-move draw by rule at ply 237, then a mate), relayed with
    --adjudicate as `import pgn --adjudicate` records it."""
    text = pgn_sample(S28).read_text(encoding="utf-8")
    db = tmp_path / "events.sqlite3"
    log = SQLiteEventLog(db)
    import_pgn(
        log, text.encode(), file_name=S28, tournament_id="whole", actor=ADMIN, adjudicate=True
    )
    append_events(db, "live", _created(log, "whole"))
    path = tmp_path / "live.pgn"
    relay = Relay(log, "live", ADMIN, "live.pgn")
    source = FileSource(path)
    texts = _growing(text, 9)
    assert len(texts) > 40
    half = len(texts) // 2
    for n, now in enumerate(texts):
        path.write_text(now, encoding="utf-8")
        report = poll_once(relay, source)
        assert report is not None and not report.held, report.as_dict()
        if n == half:  # a restart: a new relay (new caches) appends nothing already there
            before = log.last_seq("live")
            relay = Relay(log, "live", ADMIN, "live.pgn")
            again = poll_once(relay, source)
            assert again is not None and again.appended == 0
            assert log.last_seq("live") == before
    assert _facts(log, "live") == _facts(log, "whole")
    ended = [e.payload for e in log.read("live") if e.type == "GameEnded"]
    assert [(p["result"], p["termination"]) for p in ended] == [
        ("1/2-1/2", "fifty_move_rule"),
        ("1-0", "checkmate"),
    ]
    # a poll of the same text again appends nothing
    assert poll_once(relay, source).appended == 0  # type: ignore[union-attr]
    # `arbiter games`: the same endings, and no disagreement with a source read in progress
    rows = {
        tid: [
            (r.result, r.termination, r.plies, r.disagrees)
            for r in game_rows(map(Recorded.of, log.read(tid)))
        ]
        for tid in ("live", "whole")
    }
    assert rows["live"] == rows["whole"]
    assert not any(disagrees for *_, disagrees in rows["live"])
    log.close()


def _pgn(white: str, black: str, moves: str, rnd: str = "1", result: str = "*") -> str:
    return (
        f'[Event "Club"]\n[Round "{rnd}"]\n[White "{white}"]\n[Black "{black}"]\n'
        f'[Result "*"]\n\n{moves} {result}\n\n'
    )


def _club(tmp_path: Path) -> tuple[SQLiteEventLog, Path]:
    db = tmp_path / "events.sqlite3"
    append_events(db, "club", ev.TournamentCreated(name="Club", format="swiss", rounds=3))
    return SQLiteEventLog(db), db


def test_a_take_back_is_a_correction_and_a_failing_game_is_held(tmp_path: Path):
    log, _ = _club(tmp_path)
    relay = Relay(log, "club", ADMIN, "club.pgn")
    first = _pgn("Ann", "Bob", "1. e4 {[%clk 0:10:00]} e5 {[%clk 0:09:58]} 2. Nf3 {[%clk 0:09:55]}")
    second = _pgn("Cid", "Dan", "1. d4 {[%clk 0:10:00]} d5 {[%clk 0:10:00]}")
    report = relay.poll(first + second)
    assert [(g.game_id, g.moves, g.appended) for g in report.games] == [
        ("1.1", 3, 3),
        ("1.2", 2, 2),
    ]
    moves = [e.payload for e in log.read("club") if e.type == "MovePlayed"]
    assert moves[0]["clock_ms"] == 600_000 and moves[1]["clock_ms"] == 598_000

    # the operator took back 2. Nf3 and entered 2. Nc3; board 2 has an illegal move now
    fixed = _pgn("Ann", "Bob", "1. e4 {[%clk 0:10:00]} e5 {[%clk 0:09:58]} 2. Nc3 {[%clk 0:09:50]}")
    broken = _pgn("Cid", "Dan", "1. d4 {[%clk 0:10:00]} d5 {[%clk 0:10:00]} 2. Ke2")
    report = relay.poll(fixed + broken)
    one, two = report.games
    assert (one.retracted, one.appended, one.moves, one.error) == (1, 1, 3, None)
    assert two.held and two.rule == "pgn.malformed" and "Ke2" in (two.error or "")
    retraction = [e for e in log.read("club") if e.type == "EventRetracted"]
    assert len(retraction) == 1 and retraction[0].actor == ADMIN
    assert "the source took back ply 3 (g1f3)" in retraction[0].payload["reason"]
    nf3 = next(e for e in log.read("club") if e.type == "MovePlayed" and e.payload["uci"] == "g1f3")
    assert retraction[0].payload["retracted_event_id"] == str(nf3.event_id)

    # board 2 fixed, board 1 ends, a third game names a player the paired round does not have
    done = _pgn("Ann", "Bob", "1. e4 e5 2. Nc3 Nf6 3. Qh5 Nxh5", result="0-1")
    board2 = _pgn("Cid", "Dan", "1. d4 d5 2. c4")
    stranger = _pgn("Eve", "Fay", "1. c4")
    report = relay.poll(done + board2 + stranger)
    one, two, three = report.games
    assert (one.result, one.moves) == ("0-1", 6) and (two.moves, two.appended) == (3, 1)
    assert (
        three.held
        and three.rule == "pgn.no_pairing"
        and "unknown player 'Eve'" in (three.error or "")
    )
    assert relay.poll(done + board2 + stranger).appended == 0
    as_push = report.as_dict()["games"]
    assert as_push[0]["tags"]["White"] == "Ann" and as_push[0]["moves"] == 6
    assert "error" in as_push[2] and "moves" not in as_push[2]


def test_a_take_back_after_the_end_is_held_not_rewritten(tmp_path: Path):
    log, _ = _club(tmp_path)
    relay = Relay(log, "club", ADMIN, "club.pgn")
    relay.poll(_pgn("Ann", "Bob", "1. f3 e5 2. g4 Qh4#", result="0-1"))
    report = relay.poll(_pgn("Ann", "Bob", "1. f3 e5 2. g4 Qg5"))
    (game,) = report.games
    assert game.held and game.rule == "retraction.game_ended"
    assert [e.type for e in log.read("club")].count("EventRetracted") == 0


def test_a_game_read_again_only_when_its_text_changed_keeps_its_lines(tmp_path: Path):
    """Between two polls game 1 grows by a line: game 2, not read again (its text is the
    same), is placed and reported at its new lines."""
    log, _ = _club(tmp_path)
    relay = Relay(log, "club", ADMIN, "club.pgn")
    bad = _pgn("Cid", "Dan", "1. d4 d5 2. Ke2")
    report = relay.poll(_pgn("Ann", "Bob", "1. e4") + bad)
    assert report.games[1].line == 15 and "line 15:" in (report.games[1].error or "")
    report = relay.poll(_pgn("Ann", "Bob", "1. e4 e5\n2. Nf3") + bad)
    assert report.games[0].appended == 2
    assert report.games[1].line == 16 and "line 16:" in (report.games[1].error or "")

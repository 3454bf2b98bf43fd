"""`arbiter import sgf` and `arbiter export sgf` (services/interchange/sgf/) on a temporary
SQLite log: the small hand-written games of tests/fixtures/sgf/ end to end, the refusals (a
node named, nothing appended), idempotence, the round trip through sgfmill, and the GNU Go
games of tests/fixtures/go/ when they are there."""

from __future__ import annotations

import json
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from sgfmill import sgf
from typer.testing import CliRunner

from events_schema import Actor, Envelope, Recorded
from services.cli.main import app
from services.eventlog.sqlite import SQLiteEventLog
from services.interchange.pipeline import ImportRefused
from services.interchange.sgf import SgfError, import_sgf, read_result
from services.interchange.sgf.export import ExportRefused, export_sgf

runner = CliRunner()

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures"
SGF_DIR = FIXTURES / "sgf"
GO_DIR = FIXTURES / "go"
ACTOR = Actor(id="test", role="admin")
TID = "t1"


@pytest.fixture
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("ARBITER_DATA", str(tmp_path))
    monkeypatch.delenv("ARBITER_BACKEND", raising=False)
    return tmp_path / "events.sqlite3"


@pytest.fixture
def log(db: Path) -> Iterator[SQLiteEventLog]:
    opened = SQLiteEventLog(db)
    yield opened
    opened.close()


def _files(*names: str) -> list[tuple[str, bytes]]:
    return [(n, (SGF_DIR / n).read_bytes()) for n in names]


def _import(log: SQLiteEventLog, *names: str, **kw: Any):
    return import_sgf(log, _files(*names), tournament_id=TID, actor=ACTOR, **kw)


def _inline(log: SQLiteEventLog, *games: str, name: str = "inline.sgf", **kw: Any):
    data = "".join(games).encode()
    return import_sgf(log, [(name, data)], tournament_id=TID, actor=ACTOR, **kw)


def _events(log: SQLiteEventLog, tid: str = TID) -> list[Envelope]:
    return list(log.read(tid, 1))


def _of(envs: list[Envelope], kind: str) -> list[dict[str, Any]]:
    return [dict(e.payload) for e in envs if e.type == kind]


def _cli(db: Path, *args: str, code: int = 0):
    res = runner.invoke(app, [*args, "--db", str(db)])
    assert res.exit_code == code, res.output
    return res


# --- a tiny 9x9 game end to end ------------------------------------------------------------------


def test_tiny_9x9_game_is_recorded_end_to_end_and_counted_as_re_says(log: SQLiteEventLog):
    report = _import(log, "counted-9x9.sgf")
    assert report.disagreements == []
    envs = _events(log)
    kinds = [e.type for e in envs]
    assert kinds == [
        "TournamentCreated",
        "PlayerRegistered",
        "PlayerRegistered",
        "RoundScheduled",
        "GameStarted",
        *["MovePlayed"] * 20,
        "GoStatusAgreed",
        "GameEnded",
    ]
    created = envs[0].payload
    assert created["game"] == "go" and created["format"] == "match"
    assert created["board_size"] == 9 and Decimal(str(created["komi"])) == Decimal("7.5")
    assert created["name"] == "Wall Cup" and created["adjudication"] == "manual"
    assert created.get("rules_preset") is None and created["starts_on"] == "2026-03-14"
    players = _of(envs, "PlayerRegistered")
    assert [(p["name"], p.get("go_rank")) for p in players] == [
        ("Ann Black", "3k"),
        ("Bob White", "2d"),
    ]
    (pairing,) = _of(envs, "RoundScheduled")[0]["pairings"]
    assert (pairing["black"], pairing["white"]) == ("p001", "p002")
    started = _of(envs, "GameStarted")[0]
    assert started["handicap"] == 0
    assert started["source"] == {
        "file": "counted-9x9.sgf",
        "index": 1,
        "result": "0-1",
        "termination": "counting",
        "details": "B+1.5",
        "plies": 20,
    }
    moves = _of(envs, "MovePlayed")
    assert [(m["ply"], m["colour"], m["point"]) for m in moves[:3]] == [
        (1, "black", "E1"),
        (2, "white", "F1"),
        (3, "black", "E2"),
    ]
    assert [(m["colour"], m["point"]) for m in moves[-2:]] == [("black", "pass"), ("white", "pass")]
    assert _of(envs, "GoStatusAgreed") == [{"game_id": "g0001", "dead_stones": []}]
    ended = _of(envs, "GameEnded")[0]
    assert (ended["result"], ended["termination"], ended["rule"]) == (
        "0-1",
        "counting",
        "LGC Scoring",
    )
    assert Decimal(str(ended["go_score"]["margin"])) == Decimal("1.5")
    (row,) = report.games
    assert (row.result, row.counted, row.plies, row.why) == ("0-1", "B+1.5", 20, None)
    assert report.appended == len(envs) == 27 and not report.duplicate


def test_games_lists_the_imported_game_beside_its_source(db: Path):
    _cli(db, "import", "sgf", str(SGF_DIR / "counted-9x9.sgf"), "--tournament", TID)
    res = _cli(db, "games", TID, "--json")
    (row,) = json.loads(res.stdout)["games"]
    assert (row["white"], row["black"]) == ("Bob White", "Ann Black")
    assert (row["result"], row["termination"], row["plies"]) == ("0-1", "counting", 20)
    assert row["source"]["details"] == "B+1.5" and row["source"]["result"] == "0-1"
    assert row["disagrees"] is False


# --- collections, handicap, endings --------------------------------------------------------


def test_a_collection_file_records_each_game_in_its_own_round(log: SQLiteEventLog):
    report = _import(log, "collection-9x9.sgf")
    envs = _events(log)
    created = envs[0].payload
    assert created["format"] == "mcmahon" and created["rounds"] == 2
    assert created["name"] == "Club night" and Decimal(str(created["komi"])) == Decimal("6.5")
    assert [p["name"] for p in _of(envs, "PlayerRegistered")] == ["Ann", "Bob", "Cy", "Di"]
    rounds = _of(envs, "RoundScheduled")
    assert [(r["round"], [p["game_id"] for p in r["pairings"]]) for r in rounds] == [
        (1, ["g0001"]),
        (2, ["g0002"]),
    ]
    assert [s["source"]["index"] for s in _of(envs, "GameStarted")] == [1, 2]
    assert [(g.game_id, g.result, g.termination, g.plies) for g in report.games] == [
        ("g0001", "0-1", "resignation", 3),
        ("g0002", "1-0", "resignation", 4),
    ]
    assert report.disagreements == []


def test_round_numbers_from_ro_group_games_and_split_a_player_paired_twice(log: SQLiteEventLog):
    head = "(;FF[4]GM[1]SZ[9]KM[7.5]RE[B+R]"
    report = _inline(
        log,
        head + "RO[1]PB[A]PW[B];B[ee])",
        head + "RO[1]PB[C]PW[D];B[ee])",
        head + "RO[2]PB[A]PW[C];B[ee])",
        head + "RO[2]PB[B]PW[A];B[ee])",  # A twice in round 2: a round of its own
    )
    rounds = _of(_events(log), "RoundScheduled")
    assert [(r["round"], [p["game_id"] for p in r["pairings"]]) for r in rounds] == [
        (1, ["g0001", "g0002"]),
        (2, ["g0003"]),
        (3, ["g0004"]),
    ]
    assert report.rounds == 3


def test_a_handicap_game_places_the_fixed_stones_and_white_moves_first(log: SQLiteEventLog):
    report = _import(log, "handicap-9x9.sgf")
    envs = _events(log)
    assert _of(envs, "GameStarted")[0]["handicap"] == 2
    moves = _of(envs, "MovePlayed")
    assert [(m["colour"], m["point"]) for m in moves] == [
        ("white", "E5"),
        ("black", "C5"),
        ("white", "E7"),
        ("black", "G5"),
    ]
    assert [p["go_rank"] for p in _of(envs, "PlayerRegistered")] == ["5k", "1d"]
    (row,) = report.games
    assert row.notes == []  # KM[0.5] is the komi of a handicap game (LGC Scoring)
    assert (row.result, row.termination, row.rule) == ("0-1", "resignation", "arena: RE[B+R]")


def test_free_handicap_placement_is_refused_naming_the_root(log: SQLiteEventLog):
    with pytest.raises(SgfError) as err:
        _import(log, "free-handicap-9x9.sgf")
    assert err.value.node == 0
    assert "free handicap placement is not supported" in err.value.reason
    assert _events(log) == []


def test_a_resignation_is_recorded_as_re_says(log: SQLiteEventLog):
    report = _import(log, "resignation-9x9.sgf")
    envs = _events(log)
    assert _of(envs, "GoStatusAgreed") == []
    (ended,) = _of(envs, "GameEnded")
    assert (ended["result"], ended["termination"]) == ("1-0", "resignation")  # W+R: White won
    assert ended["rule"] == "arena: RE[W+R]" and ended.get("go_score") is None
    assert report.disagreements == []


def test_a_loss_on_time_is_recorded_as_re_says(log: SQLiteEventLog):
    _import(log, "time-9x9.sgf")
    (ended,) = _of(_events(log), "GameEnded")
    assert (ended["result"], ended["termination"], ended["rule"]) == (
        "0-1",
        "time_forfeit",
        "arena: RE[B+T]",
    )


def test_a_count_disagreeing_with_re_keeps_both_and_is_reported(log: SQLiteEventLog, db: Path):
    report = _import(log, "counted-disagrees-9x9.sgf")
    (row,) = report.disagreements
    assert row.why == "counted B+1.5; RE[B+3.5]"
    envs = _events(log)
    ended = _of(envs, "GameEnded")[0]
    assert Decimal(str(ended["go_score"]["margin"])) == Decimal("1.5")  # Arbiter's count
    assert _of(envs, "GameStarted")[0]["source"]["details"] == "B+3.5"  # the file's
    assert report.as_dict()["disagreements"][0]["why"] == row.why


def test_a_count_arbiter_cannot_make_records_re_and_is_reported(log: SQLiteEventLog):
    # The moves stop without the final passes: play never paused, so nothing is counted.
    report = _inline(log, "(;FF[4]GM[1]SZ[9]KM[7.5]PB[A]PW[B]RE[W+4.5];B[ee];W[cc])")
    (row,) = report.disagreements
    assert "Arbiter did not count" in (row.why or "")
    (ended,) = _of(_events(log), "GameEnded")
    assert (ended["result"], ended["termination"], ended["rule"]) == (
        "1-0",
        "counting",
        "arena: RE[W+4.5]",
    )


def test_play_on_after_the_passes_is_a_status_dispute_and_both_passing_again_stops(
    log: SQLiteEventLog,
):
    report = _import(log, "resumed-9x9.sgf")
    envs = _events(log)
    (dispute,) = _of(envs, "GoStatusDisputed")
    assert "node 21" in dispute["detail"]
    assert [e.type for e in envs[-4:]] == [
        "GoStatusDisputed",
        "MovePlayed",
        "MovePlayed",
        "GameEnded",
    ]
    ended = _of(envs, "GameEnded")[0]
    assert ended["rule"] == 'LGC Timing "Ending the game" 6' and ended["result"] == "0-1"
    (row,) = report.games
    assert (row.plies, row.counted, row.why) == (22, "B+1.5", None)


def test_dead_stones_are_those_the_last_node_marks_in_the_opponents_territory(
    log: SQLiteEventLog,
):
    walls = (SGF_DIR / "counted-9x9.sgf").read_text().split(";B[];W[]")[0]
    # White's B5 inside Black's area, left there; TB marks A1-D9 (B5 with it) as Black's.
    game = walls + ";B[];W[be];B[];W[]TB[aa:di]TW[ga:ii])"
    report = _inline(log, game)
    envs = _events(log)
    assert _of(envs, "GoStatusAgreed") == [{"game_id": "g0001", "dead_stones": ["B5"]}]
    ended = _of(envs, "GameEnded")[0]
    assert ended["go_score"]["dead_stones"] == ["B5"]
    assert Decimal(str(ended["go_score"]["margin"])) == Decimal("1.5")
    assert report.disagreements == []


def test_void_records_no_ending(log: SQLiteEventLog):
    report = _inline(log, "(;FF[4]GM[1]SZ[9]PB[A]PW[B]RE[Void];B[ee];W[cc])")
    assert _of(_events(log), "GameEnded") == []
    assert report.games[0].result is None and report.disagreements == []


def test_ranks_names_and_komi_are_read_or_noted(log: SQLiteEventLog):
    report = _inline(
        log,
        "(;FF[4]GM[1]SZ[9]KM[6.5]PB[Go Bot]PW[Go Bot]BR[4 kyu?]WR[strong]RE[B+R];B[ee])",
        "(;FF[4]GM[1]SZ[9]KM[5.5]PB[Ann]PW[Bob]RE[B+R]RU[Chinese];B[ee])",
    )
    players = _of(_events(log), "PlayerRegistered")
    assert [(p["name"], p.get("go_rank")) for p in players] == [
        ("Go Bot (Black)", "4k"),
        ("Go Bot (White)", None),
        ("Ann", None),
        ("Bob", None),
    ]
    first, second = report.games
    assert any("registered as two players" in n for n in first.notes)
    assert any("WR[strong] is not a rank" in n for n in first.notes)
    assert any(
        n.startswith("KM[5.5]: Arbiter counts this game with komi 6.5") for n in second.notes
    )
    assert any(n.startswith("RU[Chinese]") for n in second.notes)


@pytest.mark.parametrize(
    ("text", "result", "termination", "margin"),
    [
        ("B+R", "0-1", "resignation", None),
        ("W+Resign", "1-0", "resignation", None),
        ("W+T", "1-0", "time_forfeit", None),
        ("B+F", "0-1", "forfeit", None),
        ("B+3.5", "0-1", "counting", Decimal("3.5")),
        ("W+0.5", "1-0", "counting", Decimal("-0.5")),
        ("0", "1/2-1/2", "counting", Decimal(0)),
        ("Jigo", "1/2-1/2", "counting", Decimal(0)),
        ("B+", "0-1", "other", None),
        ("?", None, None, None),
    ],
)
def test_re_values(text: str, result: str | None, termination: str | None, margin: Any):
    read = read_result(text)
    assert read is not None
    assert (read.result, read.termination, read.margin) == (result, termination, margin)


@pytest.mark.parametrize("text", ["B+X", "Black wins", "1-0"])
def test_re_values_that_are_not_results(text: str):
    assert read_result(text) is None


# --- refusals: the node named, nothing appended ---------------------------------------------------


@pytest.mark.parametrize(
    ("name", "node", "words"),
    [
        ("malformed-9x9.sgf", 3, "B[zz] is not a point of a 9x9 board"),
        ("two-black-moves-9x9.sgf", 4, "two Black moves in a row"),
        ("occupied-9x9.sgf", 3, "C7 is occupied"),
    ],
)
def test_a_malformed_file_is_refused_naming_the_node_and_nothing_is_appended(
    log: SQLiteEventLog, name: str, node: int, words: str
):
    with pytest.raises(SgfError) as err:
        _import(log, name)
    assert (err.value.file, err.value.node) == (name, node)
    assert words in err.value.reason
    assert err.value.where == f"{name} node {node}"
    assert _events(log) == []


def test_a_bad_node_in_a_collection_names_the_game(log: SQLiteEventLog):
    ok = "(;FF[4]GM[1]SZ[9]PB[A]PW[B]RE[B+R];B[ee])"
    with pytest.raises(SgfError) as err:
        _inline(log, ok, "(;FF[4]GM[1]SZ[9]PB[A]PW[B]RE[B+R];B[ee];W[ee])")
    assert err.value.where == "inline.sgf game 2 node 2"
    assert _events(log) == []


def test_not_sgf_names_the_game_and_every_file_is_read_before_anything_is_appended(
    log: SQLiteEventLog,
):
    with pytest.raises(SgfError) as err:
        _import(log, "counted-9x9.sgf", "not-sgf.sgf")
    assert (err.value.file, err.value.game, err.value.node) == ("not-sgf.sgf", 1, None)
    assert err.value.reason.startswith("not SGF")
    assert _events(log) == []


def test_one_import_shares_a_board_size(log: SQLiteEventLog):
    with pytest.raises(SgfError) as err:
        _import(log, "counted-9x9.sgf", "mixed-sizes-13x13.sgf")
    assert err.value.where == "mixed-sizes-13x13.sgf node 0"
    assert "share a board size" in err.value.reason
    assert _events(log) == []


def test_a_first_move_by_the_wrong_side_is_refused(log: SQLiteEventLog):
    with pytest.raises(SgfError) as err:
        _inline(log, "(;FF[4]GM[1]SZ[9]PB[A]PW[B]RE[B+R];W[ee])")
    assert err.value.node == 1 and "Black moves first in an even game" in err.value.reason


def test_a_second_import_into_an_existing_tournament_is_refused(log: SQLiteEventLog):
    _import(log, "counted-9x9.sgf")
    before = len(_events(log))
    with pytest.raises(ImportRefused) as err:
        _import(log, "resignation-9x9.sgf")
    assert err.value.rule == "stream.already_created"
    assert len(_events(log)) == before


# --- idempotence, progress ----------------------------------------------------------------


def test_importing_the_same_files_again_appends_nothing(log: SQLiteEventLog):
    first = _import(log, "counted-9x9.sgf", "resignation-9x9.sgf")
    envs = _events(log)
    again = _import(log, "counted-9x9.sgf", "resignation-9x9.sgf")
    assert again.duplicate and again.appended == 0
    assert again.last_seq == first.last_seq == len(envs)
    assert [e.event_id for e in _events(log)] == [e.event_id for e in envs]


def test_progress_reports_reading_deciding_and_appending(log: SQLiteEventLog):
    seen: list[tuple[str, int, int]] = []
    _import(log, "counted-9x9.sgf", "collection-9x9.sgf", progress=lambda *a: seen.append(a))
    assert ("read", 2, 2) in seen and ("decide", 3, 3) in seen
    assert any(stage == "append" and done == total for stage, done, total in seen)


# --- export -------------------------------------------------------------------------------------


def _parsed(data: bytes) -> dict[str, Any]:
    game = sgf.Sgf_game.from_bytes(data)
    root = game.get_root()
    moves = [n.get_move() for n in game.get_main_sequence()[1:]]

    def prop(name: str) -> Any:
        return root.get(name) if root.has_property(name) else None

    return {
        "size": game.get_size(),
        "komi": game.get_komi(),
        "handicap": prop("HA") or 0,
        "stones": root.get_setup_stones()[0],
        "players": (prop("PB"), prop("PW")),
        "ranks": (prop("BR"), prop("WR")),
        "moves": moves,
        "result": prop("RE"),
    }


@pytest.mark.parametrize(
    "name", ["counted-9x9.sgf", "handicap-9x9.sgf", "resignation-9x9.sgf", "resumed-9x9.sgf"]
)
def test_export_round_trips(log: SQLiteEventLog, name: str):
    _import(log, name)
    data = export_sgf([Recorded.of(e) for e in _events(log)], "g0001")
    assert _parsed(data) == _parsed((SGF_DIR / name).read_bytes())


def test_export_writes_arbiters_count_and_re_when_arbiter_did_not_count(log: SQLiteEventLog):
    _import(log, "counted-disagrees-9x9.sgf")
    data = export_sgf([Recorded.of(e) for e in _events(log)], "g0001")
    assert _parsed(data)["result"] == "B+1.5"  # the result in force: Arbiter's count


def test_export_of_a_source_ending_keeps_the_source_margin(log: SQLiteEventLog):
    _inline(log, "(;FF[4]GM[1]SZ[9]KM[7.5]PB[A]PW[B]RE[W+4.5];B[ee];W[cc])")
    data = export_sgf([Recorded.of(e) for e in _events(log)], "g0001")
    assert _parsed(data)["result"] == "W+4.5"


def test_export_refuses_an_unknown_game(log: SQLiteEventLog):
    _import(log, "counted-9x9.sgf")
    with pytest.raises(ExportRefused) as err:
        export_sgf([Recorded.of(e) for e in _events(log)], "g0009")
    assert err.value.rule == "sgf.unknown_game"


# --- the command line ---------------------------------------------------------------------------


def test_cli_import_and_export(db: Path, tmp_path: Path):
    files = [str(SGF_DIR / n) for n in ("counted-9x9.sgf", "counted-disagrees-9x9.sgf")]
    res = _cli(db, "import", "sgf", *files, "--tournament", "club", "--json")
    body = json.loads(res.stdout)
    assert body["games"] == 2 and body["matched"] == 1 and body["players"] == 2
    assert [d["game_id"] for d in body["disagreements"]] == ["g0002"]
    assert "disagreement" in res.stderr and "counted B+1.5; RE[B+3.5]" in res.stderr

    again = _cli(db, "import", "sgf", *files, "--tournament", "club")
    assert "already imported: nothing appended" in again.stdout

    out = tmp_path / "g1.sgf"
    res = _cli(db, "export", "sgf", "club", "g0001", "--out", str(out))
    assert f"wrote club g0001 to {out}" in res.stdout
    assert _parsed(out.read_bytes()) == _parsed((SGF_DIR / "counted-9x9.sgf").read_bytes())
    res = _cli(db, "export", "sgf", "club", "g0001")
    assert _parsed(res.stdout.encode()) == _parsed(out.read_bytes())


def test_cli_refuses_a_malformed_file_naming_the_node(db: Path):
    res = _cli(db, "import", "sgf", str(SGF_DIR / "malformed-9x9.sgf"), code=1)
    assert "sgf.malformed" in res.stderr and "malformed-9x9.sgf node 3" in res.stderr
    log = SQLiteEventLog(db)
    try:
        assert _events(log, "malformed-9x9") == []
    finally:
        log.close()


def test_cli_default_tournament_id_is_the_first_file_name(db: Path):
    res = _cli(db, "import", "sgf", str(SGF_DIR / "resignation-9x9.sgf"))
    assert res.stdout.startswith("resignation-9x9: imported 1 games")
    _cli(db, "export", "sgf", "resignation-9x9", "g0002", code=1)


# --- real games: GNU Go 3.8 self-play (tests/fixtures/go/) --------------------------------------


def _gnugo_games() -> list[dict[str, Any]]:
    index = GO_DIR / "gnugo.json"
    if not index.is_file():
        return []
    games = json.loads(index.read_text())["games"]
    return [g for g in games if (GO_DIR / f"{g['name']}.sgf").is_file()]


@pytest.mark.parametrize("size", [9, 13])
def test_gnugo_games_import_and_their_counts_differ_from_re_only_by_the_rules(
    tmp_path: Path, size: int
):
    """Every GNU Go game of one size is recorded move by move; where GNU Go captured all dead
    stones and left no seki, Arbiter's count (LGC) is GNU Go's (Japanese) plus the pass
    stones (one prisoner per pass: White's passes to Black's margin, Black's against it), and
    the difference is reported, never hidden."""
    games = [g for g in _gnugo_games() if g["size"] == size]
    if not games:
        pytest.skip(f"no GNU Go {size}x{size} fixtures in {GO_DIR}")
    files = [(f"{g['name']}.sgf", (GO_DIR / f"{g['name']}.sgf").read_bytes()) for g in games]
    log = SQLiteEventLog(tmp_path / "gnugo.sqlite3")
    try:
        report = import_sgf(log, files, tournament_id="gnugo", actor=ACTOR)
        moves = _of(_events(log, "gnugo"), "MovePlayed")
    finally:
        log.close()
    assert len(report.games) == len(games)
    assert sum(g.plies for g in report.games) == len(moves)
    for g, (_, data), row in zip(games, files, report.games, strict=True):
        where = g["name"]
        played = [n.get_move() for n in sgf.Sgf_game.from_bytes(data).get_main_sequence()]
        played = [(colour, move) for colour, move in played if colour is not None]
        assert row.plies == row.source_plies == len(played), where
        assert row.result is not None, where
        if g["dead"] or g["seki"]:
            continue
        passes = {"b": 0, "w": 0}
        for colour, move in played:
            passes[colour] += move is None
        said = read_result(g["final_score"])
        assert said is not None and said.margin is not None
        expected = said.margin + passes["w"] - passes["b"]
        assert row.counted is not None, f"{where}: {row.why}"
        counted = read_result(row.counted)
        assert counted is not None and counted.margin == expected, where
        assert row.disagrees == (expected != said.margin), where


def test_export_of_a_win_for_both_writes_an_unknown_result(log: SQLiteEventLog):
    # SGF's RE has no win for both (OpenGotha's BOTHWIN, "1-1"): "?" (unknown), not a crash
    _inline(log, "(;FF[4]GM[1]SZ[9]PB[A]PW[B]RE[B+R];B[ee];W[cc])")
    envs = [
        e.model_copy(update={"payload": {**e.payload, "result": "1-1", "termination": "other"}})
        if e.type == "GameEnded"
        else e
        for e in _events(log)
    ]
    data = export_sgf([Recorded.of(e) for e in envs], "g0001")
    assert _parsed(data)["result"] == "?"

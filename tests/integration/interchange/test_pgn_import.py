"""`arbiter import pgn` and `arbiter games` end to end on a SQLite log (issue 15 items 5, 7).

The sample TCEC PGNs (/work/shared/data/pgn, see its README): Seasons 28 and 29 imported with
--adjudicate under their own presets end every game by rule at the ply, with the result and
by the rule it really ended; the older archives (Cup 4, Season 16 FRC) imported as they say,
disconnects as crashes. Re-imports append nothing (also in small batches); a malformed file is
refused with its line and appends nothing; a cutechess and a lichess file written here."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from tests_support import cli_db, log_events, pgn_sample
from typer.testing import CliRunner

from services.cli.main import app
from services.eventlog.sqlite import SQLiteEventLog

runner = CliRunner()

S28 = "TCEC_Season_28_-_Entrance_League_Tiebreak_1.pgn"
S29 = "TCEC_Season_29_-_Frd_5_League_B_Tiebreak.pgn"
CUP4 = "TCEC_Cup_4_Bronze.pgn"
S16 = "TCEC_Season_16_-_Frc_Cpu_League_2_Playoff.pgn"
S28_OPTS = ("--adjudicate", "--tournament", "s28")
CUP4_OPTS = ("--rules", "tcec-cup", "--adjudicate", "--tournament", "cup4")
# TerminationDetails → Termination (as test_endings_real_pgns.py reads them)
TERMINATION = {
    "White mates": "checkmate",
    "Black mates": "checkmate",
    "Fifty moves rule": "fifty_move_rule",
    "3-Fold repetition": "threefold_repetition",
    "TCEC draw rule": "tcec_draw_rule",
}


@pytest.fixture
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return cli_db(tmp_path, monkeypatch)


def _import(db: Path, file: Path, *args: str, code: int = 0) -> Any:
    res = runner.invoke(app, ["import", "pgn", str(file), "--db", str(db), "--json", *args])
    assert res.exit_code == code, res.output
    return json.loads(res.stdout) if code == 0 else res


def _games(db: Path, tid: str) -> list[dict[str, Any]]:
    res = runner.invoke(app, ["games", tid, "--db", str(db), "--json"])
    assert res.exit_code == 0, res.output
    body = json.loads(res.stdout)
    assert body["tournament_id"] == tid
    return list(body["games"])


def _headers(path: Path) -> list[dict[str, str]]:
    """Each game's tag pairs, read plainly (not through the importer)."""
    games: list[dict[str, str]] = []
    current: dict[str, str] | None = None
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("[") and line.endswith("]"):
            if current is None:
                current = {}
                games.append(current)
            key, _, value = line[1:-1].partition(" ")
            current[key] = value.strip('"')
        elif current is not None and line.strip():
            current = None
    return games


# --- the current rules: Seasons 28 and 29 ---------------------------------------------------------

CURRENT = {
    S28: (
        "tcec-league",
        [
            ("fifty_move_rule", "tcec-rules Leagues 10.1"),
            ("checkmate", "tcec-rules Leagues 10.4"),
        ],
    ),
    S29: (
        "tcec-frd",
        [
            ("checkmate", "tcec-rules FRD 6 (laws of chess)"),
            ("tcec_draw_rule", "tcec-rules FRD 6.b"),
        ],
    ),
}


@pytest.mark.parametrize("name", sorted(CURRENT))
def test_current_seasons_end_by_rule_where_they_really_ended(db: Path, name: str):
    path = pgn_sample(name)
    preset, expected = CURRENT[name]
    tid = "current"
    report = _import(db, path, "--rules", preset, "--adjudicate", "--tournament", tid)
    assert report["games"] == report["matched"] == 2
    assert report["disagreements"] == []
    rows = _games(db, tid)
    headers = _headers(path)
    assert len(rows) == len(headers) == 2
    for row, h, (termination, citation) in zip(rows, headers, expected, strict=True):
        assert row["disagrees"] is False, row["why"]
        assert row["plies"] == int(h["PlyCount"])
        assert row["result"] == h["Result"]
        assert row["termination"] == TERMINATION[h["TerminationDetails"]] == termination
        assert row["citation"] == citation
        assert row["rule"].endswith(f"({citation})")
        assert row["source"]["result"] == h["Result"]
        assert row["source"]["details"] == h["TerminationDetails"]
        assert (row["white"], row["black"]) == (h["White"], h["Black"])
    assert rows[0]["round"] != rows[1]["round"]  # same two engines: one round each

    envs = log_events(db, tid)
    created = envs[0].payload
    assert created["adjudication"] == "rules" and created["rules_preset"] == preset
    assert created["format"] == "match"
    assert created["time_controls"][0]["name"] == "1800+3"
    players = [e.payload for e in envs if e.type == "PlayerRegistered"]
    assert {p["kind"] for p in players} == {"engine"}
    # the rules ended each game in the batch of its last move: the GameEnded derives from it
    by_id = {e.event_id: e for e in envs}
    ended = [e for e in envs if e.type == "GameEnded"]
    assert len(ended) == 2
    for e in ended:
        cause = by_id[e.causation_id]
        assert cause.type == "MovePlayed" and cause.payload["game_id"] == e.payload["game_id"]
    starts = [e.payload for e in envs if e.type == "GameStarted"]
    if name == S29:
        assert starts[0].get("fen") == "rnbbknqr/pppppppp/8/8/8/8/PPPPPPPP/RNBBKNQR w KQkq - 0 1"
    else:
        assert starts[0].get("fen") is None
    assert starts[1]["source"] == {
        "file": name,
        "index": 2,
        "result": headers[1]["Result"],
        "termination": headers[1].get("Termination", ""),
        "details": headers[1]["TerminationDetails"],
        "plies": starts[1]["source"]["plies"],
    }
    assert starts[1]["source"]["plies"] > 0


def test_tcec_move_comments_become_clocks_and_evaluations(db: Path):
    path = pgn_sample(S28)
    _import(db, path, "--rules", "tcec-league", "--adjudicate", "--tournament", "s28")
    moves = [e.payload for e in log_events(db, "s28") if e.type == "MovePlayed"]
    first = [m for m in moves if m["game_id"] == "g0001"]
    book = first[0]  # 1. d4 {book, …}
    assert book["uci"] == "d2d4" and book["san"] == "d4"
    # a book move spends no time and earns no increment: its clock is recorded unchanged
    assert (
        book.get("eval_cp") is None
        and book.get("clock_ms") == 1_800_000
        and book.get("move_time_ms") is None
    )
    # 9. d5 {d=14, sd=62, mt=60710, tl=1742290, …, n=9555929, …, wv=1.11, …}
    d5 = first[16]
    assert (d5["ply"], d5["colour"], d5["uci"]) == (17, "white", "d4d5")
    assert (d5.get("eval_cp"), d5.get("depth"), d5.get("nodes")) == (111, 14, 9555929)
    assert (d5.get("move_time_ms"), d5.get("clock_ms")) == (60710, 1742290)
    # Qe7 {d=27, …, mt=79538, tl=1723462, …, wv=0.99}: Black's move, White's view
    assert (first[17]["colour"], first[17].get("eval_cp"), first[17].get("clock_ms")) == (
        "black",
        99,
        1723462,
    )


@pytest.mark.slow
def test_reimport_appends_nothing_even_in_small_batches(db: Path, monkeypatch: pytest.MonkeyPatch):
    path = pgn_sample(S28)
    monkeypatch.setenv("ARBITER_MAX_BATCH_EVENTS", "40")
    first = _import(db, path, "--rules", "tcec-league", "--adjudicate", "--tournament", "s28")
    n = len(log_events(db, "s28"))
    assert first["appended"] == n > 376  # 376 moves, their games, players, rounds
    assert first["batches"] >= n // 40
    assert first["duplicate"] is False
    again = _import(db, path, "--rules", "tcec-league", "--adjudicate", "--tournament", "s28")
    assert again["appended"] == 0 and again["duplicate"] is True
    assert again["last_seq"] == first["last_seq"] == n
    assert len(log_events(db, "s28")) == n
    assert again["game_rows"] == first["game_rows"]
    # the human output says so too
    res = runner.invoke(
        app,
        ["import", "pgn", str(path), "--db", str(db), "--rules", "tcec-league", *S28_OPTS],
    )
    assert res.exit_code == 0, res.output
    assert "already imported: nothing appended" in res.stdout
    assert len(log_events(db, "s28")) == n
    # the same file into the tournament (issue 25: --tournament adds to one that exists): it
    # follows every game of it already; under other rules it is refused (its rules are its own)
    res = runner.invoke(app, ["import", "pgn", str(path), "--db", str(db), "--tournament", "s28"])
    assert res.exit_code == 0, res.output
    assert "already imported: nothing appended" in res.stdout
    other = ["--rules", "tcec-cup", "--tournament", "s28"]
    res = runner.invoke(app, ["import", "pgn", str(path), "--db", str(db), *other])
    assert res.exit_code == 1
    assert "pgn.tournament_exists (--rules)" in res.stderr
    assert len(log_events(db, "s28")) == n


# --- older archives: the arena's endings ----------------------------------------------------------

OLDER = {
    CUP4: (
        "tcec-cup",
        [
            ("1/2-1/2", "threefold_repetition", "arena: 3-Fold repetition"),
            ("1-0", "adjudication", "arena: TCEC win rule"),
            ("1/2-1/2", "adjudication", "arena: SyzygyTB"),
            ("1/2-1/2", "threefold_repetition", "arena: 3-Fold repetition"),
            ("1/2-1/2", "adjudication", "arena: TCEC draw rule"),
            ("1/2-1/2", "threefold_repetition", "arena: 3-Fold repetition"),
            ("1/2-1/2", "fifty_move_rule", "arena: Fifty moves rule"),
            ("1/2-1/2", "threefold_repetition", "arena: 3-Fold repetition"),
        ],
    ),
    S16: (
        "tcec-frd",
        [
            ("1-0", "adjudication", "arena: TCEC win rule"),
            ("1-0", "engine_crash", "arena: Black disconnects"),
            ("1-0", "adjudication", "arena: TCEC win rule"),
            ("1-0", "adjudication", "arena: TCEC win rule"),
            ("0-1", "engine_crash", "arena: White disconnects"),
            ("1-0", "engine_crash", "arena: Black disconnects"),
        ],
    ),
}


@pytest.mark.parametrize("name", sorted(OLDER))
def test_older_archives_record_the_arena_s_endings(db: Path, name: str):
    path = pgn_sample(name)
    preset, expected = OLDER[name]
    tid = "older"
    report = _import(db, path, "--rules", preset, "--tournament", tid)
    assert report["matched"] == report["games"] == len(expected)
    rows = _games(db, tid)
    headers = _headers(path)
    for row, h, (result, termination, rule) in zip(rows, headers, expected, strict=True):
        assert (row["result"], row["termination"], row["citation"]) == (result, termination, rule)
        assert row["rule"] == rule
        assert row["result"] == h["Result"]
        assert row["plies"] == int(h["PlyCount"])
        assert row["disagrees"] is False, row["why"]
    # one round per game: the same engines meet in every one (Cup 4 writes them all "1.x")
    assert [r["round"] for r in rows] == list(range(1, len(rows) + 1))

    envs = log_events(db, tid)
    assert envs[0].payload["adjudication"] == "manual"
    pids = {e.payload["name"]: e.payload["player_id"] for e in envs if e.type == "PlayerRegistered"}
    adjudications = [e.payload for e in envs if e.type == "AdjudicationIssued"]
    assert [a["rule"] for a in adjudications] == [r for _, t, r in expected if t == "adjudication"]
    crashes = [e.payload for e in envs if e.type == "EngineCrashed"]
    if name == S16:
        # the disconnects are crashes of the side that disconnected, at the ply it happened
        assert [(c["game_id"], c["player_id"], c["ply"]) for c in crashes] == [
            ("g0002", pids[headers[1]["Black"]], 101),
            ("g0005", pids[headers[4]["White"]], 0),
            ("g0006", pids[headers[5]["Black"]], 1),
        ]
        starts = [e.payload for e in envs if e.type == "GameStarted"]
        assert all(s.get("fen") == h["FEN"] for s, h in zip(starts, headers, strict=True))
    else:
        assert crashes == []


@pytest.mark.slow
def test_rules_that_end_games_otherwise_are_shown_never_hidden(db: Path):
    """Cup 4 under today's Cup rules: the current draw rule ends three games earlier than the
    2019 arena did, and does not end the one the older draw rule ended."""
    path = pgn_sample(CUP4)
    res = runner.invoke(
        app,
        ["import", "pgn", str(path), "--db", str(db), "--json", *CUP4_OPTS],
    )
    assert res.exit_code == 0, res.output
    report = json.loads(res.stdout)
    why = {d["game_id"]: d["why"] for d in report["disagreements"]}
    assert sorted(why) == ["g0001", "g0003", "g0004", "g0005"]
    assert "ended at ply 88; the source at ply 90" in why["g0001"]
    assert "do not end the game by ply 187" in why["g0005"]
    stderr = " ".join(res.stderr.split())
    for gid, text in why.items():
        assert f"{gid}): {text}" in stderr  # each on stderr too
    rows = {r["game_id"]: r for r in _games(db, "cup4")}
    assert {g for g, r in rows.items() if r["disagrees"]} == set(why)
    assert rows["g0001"]["termination"] == "tcec_draw_rule"
    assert rows["g0002"]["rule"] == "arena: TCEC win rule"  # no rule decides a win rule
    assert rows["g0003"]["plies"] == 72  # the draw rule before the tablebase
    assert rows["g0007"]["rule"] == "fifty-move rule (tcec-rules Cup 6.a)"


# --- refusals ------------------------------------------------------------------------------------


def test_a_malformed_file_is_refused_with_its_line_and_appends_nothing(db: Path, tmp_path: Path):
    lines = pgn_sample(S28).read_text(encoding="utf-8").splitlines(keepends=True)
    # game 2, White's 12th move (12. f3 …) becomes a king's walk
    n = next(i for i, line in enumerate(lines) if i > 250 and line.startswith("12. f3 "))
    lines[n] = "12. Ka5 " + lines[n][len("12. f3 ") :]
    bad = tmp_path / "bad.pgn"
    bad.write_text("".join(lines), encoding="utf-8")
    res = _import(db, bad, "--rules", "tcec-league", "--adjudicate", code=1)
    stderr = " ".join(res.stderr.split())
    assert f"refused pgn.malformed (bad.pgn:{n + 1}): illegal san: 'Ka5'" in stderr
    log = SQLiteEventLog(db)
    try:
        assert log.stream_ids() == []
    finally:
        log.close()


def test_an_unknown_preset_and_a_file_without_games_are_refused(db: Path, tmp_path: Path):
    res = _import(db, pgn_sample(S29), "--rules", "tcec-nonsense", code=1)
    assert "pgn.unknown_rules" in res.stderr
    empty = tmp_path / "empty.pgn"
    empty.write_text("\n\n", encoding="utf-8")
    res = _import(db, empty, code=1)
    assert "pgn.malformed (empty.pgn:" in res.stderr and "no games" in res.stderr
    # "fide" has endings but no tiebreak preset: the decider refuses the tournament itself
    res = _import(db, pgn_sample(S29), "--rules", "fide", code=1)
    assert "tiebreak.unknown_preset" in res.stderr
    log = SQLiteEventLog(db)
    try:
        assert log.stream_ids() == []
    finally:
        log.close()


# --- other dialects ------------------------------------------------------------------------------

CUTECHESS = """[Event "Engine gauntlet"]
[Site "?"]
[Date "2024.01.01"]
[Round "1"]
[White "Alpha 1.0"]
[Black "Beta 2.0"]
[Result "0-1"]
[PlyCount "4"]
[TimeControl "10+1"]

1. f3 {-0.50/12 0.21s} e5 {+0.80/14 0.30s} 2. g4 {-5.00/10 0.10s}
Qh4# {+M1/2 0.01s, Black mates} 0-1

[Event "Engine gauntlet"]
[Site "?"]
[Date "2024.01.01"]
[Round "2"]
[White "Beta 2.0"]
[Black "Alpha 1.0"]
[Result "0-1"]
[PlyCount "3"]
[Termination "time forfeit"]
[TimeControl "10+1"]

1. e4 {book} e5 {book} 2. Nf3 {+0.40/18 2.5s, White loses on time} 0-1

[Event "Engine gauntlet"]
[Site "?"]
[Date "2024.01.01"]
[Round "3"]
[White "Alpha 1.0"]
[Black "Gamma 0.1"]
[Result "1/2-1/2"]
[PlyCount "2"]
[Termination "adjudication"]
[TimeControl "10+1"]

1. d4 {+0.10/20 0.5s} d5 {0.00/20 0.4s, Draw by adjudication} 1/2-1/2
"""


def test_a_cutechess_file_with_adjudication(db: Path, tmp_path: Path):
    path = tmp_path / "gauntlet.pgn"
    path.write_text(CUTECHESS, encoding="utf-8")
    report = _import(db, path, "--adjudicate")  # no preset: the FIDE Laws
    assert report["matched"] == 3, report["disagreements"]
    rows = _games(db, "gauntlet")
    assert [(r["result"], r["termination"], r["citation"]) for r in rows] == [
        ("0-1", "checkmate", "FIDE Laws 5.1.1"),
        ("0-1", "time_forfeit", "arena: White loses on time"),
        ("1/2-1/2", "adjudication", "arena: Draw by adjudication"),
    ]
    assert [r["source"]["details"] for r in rows] == [
        "Black mates",
        "White loses on time",
        "Draw by adjudication",
    ]
    envs = log_events(db, "gauntlet")
    assert envs[0].payload["format"] == "swiss"  # three engines, not every pair met
    assert {e.payload["kind"] for e in envs if e.type == "PlayerRegistered"} == {"engine"}
    moves = [e.payload for e in envs if e.type == "MovePlayed" and e.payload["game_id"] == "g0001"]
    # the mover's view turned to White's; the clock derived as cutechess counts it
    assert [(m.get("eval_cp"), m.get("mate_in"), m.get("depth")) for m in moves] == [
        (-50, None, 12),
        (-80, None, 14),
        (-500, None, 10),
        (None, -1, 2),
    ]
    assert [(m.get("move_time_ms"), m.get("clock_ms")) for m in moves] == [
        (210, 10790),
        (300, 10700),
        (100, 11690),
        (10, 11690),
    ]


LICHESS = """[Event "Rated Blitz game"]
[Site "https://lichess.org/aaaaaaaa"]
[Date "2024.03.01"]
[Round "-"]
[White "alice"]
[Black "bob"]
[Result "1-0"]
[WhiteElo "1800"]
[BlackElo "1750"]
[TimeControl "180+2"]
[Termination "Normal"]
[Variant "Standard"]

1. e4 { [%eval 0.2] [%clk 0:03:00] } 1... e5 { [%eval 0.25] [%clk 0:03:00] }
2. Bc4 { [%eval 0.1] [%clk 0:02:58] } 2... Nc6 { [%eval 0.15] [%clk 0:02:57.5] }
3. Qh5 { [%eval 0.0] [%clk 0:02:55] } 3... Nf6 { [%eval #1] [%clk 0:02:50] }
4. Qxf7# { [%clk 0:02:54] } 1-0

[Event "Rated Blitz game"]
[Site "https://lichess.org/bbbbbbbb"]
[Date "2024.03.01"]
[Round "-"]
[White "bob"]
[Black "alice"]
[Result "0-1"]
[TimeControl "180+2"]
[Termination "Normal"]

1. d4 { [%eval 0.1] [%clk 0:03:00] } 1... d5 { [%clk 0:03:00] }
2. c4 { [%eval -9.5,31] [%clk 0:02:59] } 0-1

[Event "Rated Blitz game"]
[Site "https://lichess.org/cccccccc"]
[Date "2024.03.01"]
[Round "-"]
[White "alice"]
[Black "bob"]
[Result "0-1"]
[TimeControl "180+2"]
[Termination "Time forfeit"]

1. Nf3 { [%clk 0:03:00] } 1... Nf6 { [%clk 0:03:00] } 0-1

[Event "Rated Blitz game"]
[Site "https://lichess.org/dddddddd"]
[Date "2024.03.01"]
[Round "-"]
[White "bob"]
[Black "alice"]
[Result "1/2-1/2"]
[TimeControl "180+2"]
[Termination "Normal"]

1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Ng8 1/2-1/2
"""


def test_a_lichess_file_as_it_says(db: Path, tmp_path: Path):
    path = tmp_path / "lichess_alice.pgn"
    path.write_text(LICHESS, encoding="utf-8")
    report = _import(db, path, "--tournament", "blitz")
    assert report["matched"] == 4
    rows = _games(db, "blitz")
    assert [(r["result"], r["termination"], r["rule"]) for r in rows] == [
        ("1-0", "checkmate", "arena: Normal"),  # "Normal": the final position is mate
        ("0-1", "resignation", "arena: Normal"),
        ("0-1", "time_forfeit", "arena: Time forfeit"),
        ("1/2-1/2", "threefold_repetition", "arena: Normal"),  # the position, a third time
    ]
    assert [r["round"] for r in rows] == [1, 2, 3, 4]  # no round numbers: a round per game
    envs = log_events(db, "blitz")
    assert envs[0].payload["adjudication"] == "manual" and envs[0].payload["format"] == "match"
    players = [e.payload for e in envs if e.type == "PlayerRegistered"]
    assert [(p["name"], p["kind"], p["rating"]) for p in players] == [
        ("alice", "human", 1800),
        ("bob", "human", 1750),
    ]
    moves = [e.payload for e in envs if e.type == "MovePlayed"]
    g1 = [m for m in moves if m["game_id"] == "g0001"]
    assert [m.get("clock_ms") for m in g1] == [
        180000,
        180000,
        178000,
        177500,
        175000,
        170000,
        174000,
    ]
    assert [(m.get("eval_cp"), m.get("mate_in")) for m in g1][4:] == [
        (0, None),
        (None, 1),
        (None, None),
    ]
    assert all(m.get("move_time_ms") is None for m in g1)  # lichess gives clocks, not move times
    c4 = next(m for m in moves if m["game_id"] == "g0002" and m["ply"] == 3)
    assert (c4.get("eval_cp"), c4.get("depth")) == (-950, 31)

    # with --adjudicate the FIDE Laws end the first game themselves, the same way
    report = _import(db, path, "--tournament", "blitz-rules", "--adjudicate")
    assert report["matched"] == 4
    rows = _games(db, "blitz-rules")
    assert (rows[0]["termination"], rows[0]["citation"]) == ("checkmate", "FIDE Laws 5.1.1")
    assert rows[1]["citation"] == "arena: Normal"  # a resignation is an event, not a rule's
    # three-fold is a claim under the FIDE Laws (9.2): recorded as claimed, no adjudication
    assert (rows[3]["termination"], rows[3]["plies"]) == ("threefold_repetition", 8)
    envs = log_events(db, "blitz-rules")
    assert not [e for e in envs if e.type == "AdjudicationIssued"]


def test_games_lists_a_tournament_without_sources(db: Path):
    res = runner.invoke(app, ["games", "nothing", "--db", str(db)])
    assert res.exit_code == 1
    assert "games.unknown_tournament" in res.stderr
    path = pgn_sample(S29)
    _import(db, path, "--rules", "tcec-frd", "--adjudicate", "--tournament", "frd")
    res = runner.invoke(app, ["games", "frd", "--db", str(db)])
    assert res.exit_code == 0, res.output
    assert "Ginkgo 5.66" in res.stdout and "TCEC draw rule" in res.stdout


def test_an_import_cut_short_is_completed_by_running_it_again(db: Path):
    """Deterministic ids and batches: the batches stored are found, the rest appended."""
    from events_schema import Actor
    from events_schema.limits import Limits
    from services.interchange.pgn import import_pgn

    class CutShort(SQLiteEventLog):
        appends = 0

        def append(self, *args: Any, **kw: Any) -> Any:
            CutShort.appends += 1
            if CutShort.appends == 3:
                raise OSError("the machine went down")
            return super().append(*args, **kw)

    data = pgn_sample(S28).read_bytes()
    actor = Actor(id="cli:test", role="admin")
    options: dict[str, Any] = {
        "file_name": S28,
        "tournament_id": "s28",
        "actor": actor,
        "rules": "tcec-league",
        "adjudicate": True,
    }
    log = CutShort(db)
    log.limits = Limits(max_batch_events=100)
    try:
        with pytest.raises(OSError):
            import_pgn(log, data, **options)
        stored = len(list(log.read("s28", 1)))
        assert 0 < stored < 376
        report = import_pgn(log, data, **options)
        assert report.duplicate is False and report.appended == report.last_seq - stored
        assert not report.disagreements
        complete = list(log.read("s28", 1))
    finally:
        log.close()
    assert len(complete) == report.last_seq
    rows = _games(db, "s28")
    assert [(r["plies"], r["result"]) for r in rows] == [(237, "1/2-1/2"), (139, "1-0")]

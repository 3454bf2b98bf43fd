"""TRF-16: parse, record through the command path, write, and read back."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest
from builders import ADMIN, batch, created, player, recorded, result, round_
from typer.testing import CliRunner

from events_schema import Recorded
from events_schema import events as ev
from projections.standings import fold, standings
from services.cli.main import app
from services.commands.service import CommandService
from services.eventlog.sqlite import SQLiteEventLog
from services.interchange.pipeline import (
    AppendReport,
    ImportRefused,
    Planned,
    Target,
    import_planned,
    tournament_id_for,
)
from services.interchange.trf import (
    TrfError,
    TrfFile,
    TrfHeader,
    edition_choice,
    export_trf,
    header_date,
    import_edition,
    import_trf,
    pairing_order,
    parse_trf,
    player_details,
    points_mismatches,
    read_trf,
    stated_edition,
    to_commands,
    to_events,
    tournament_dates,
    write_trf,
)
from services.interchange.trf.parse import RoundEntry, TrfPlayer
from services.interchange.trf.plan import NAMESPACE

SAMPLE = Path(__file__).resolve().parents[3] / "data" / "trf" / "spring_open.trf"


@pytest.fixture
def log(tmp_path: Path) -> Iterator[SQLiteEventLog]:
    log = SQLiteEventLog(tmp_path / "events.sqlite3")
    yield log
    log.close()


@pytest.fixture
def svc(log: SQLiteEventLog) -> CommandService:
    return CommandService(log)


def _import(svc: CommandService, tid: str, trf: TrfFile, **kw: object) -> list[Recorded]:
    result = import_trf(svc.log, trf, tournament_id=tid, actor=ADMIN, **kw)  # type: ignore[arg-type]
    assert not result.duplicate
    return [Recorded.of(e) for e in svc.log.read(tid, 1)]


def _line(
    n: int,
    name: str,
    blocks: list[str],
    *,
    rating: int | None = 2000,
    points: str = "",
    head: str = "m   ",
) -> str:
    """A 001 line: `head` is columns 10-13 (sex and title)."""
    base = f"001 {n:>4} {head} {name:<33} {rating or '':>4} {'':<3} {'':>11} {'':<10} "
    return (base + f"{points:>4} {'':>4}" + "".join(f"  {b}" for b in blocks)).rstrip()


def _comparable(p: TrfPlayer) -> tuple[object, ...]:
    """What the export must give back: the TRF fields an import stores."""
    rounds = tuple(dataclasses.replace(e, result="U") if e.result == "F" else e for e in p.rounds)
    return (p.start_rank, p.name, p.rating, p.federation, p.title, p.points, rounds)


# --------------------------------------------------------------------------------------------
# parse
# --------------------------------------------------------------------------------------------


def test_parse_sample_header_players_and_rounds() -> None:
    trf = read_trf(SAMPLE)
    h = trf.header
    assert (h.name, h.city, h.federation) == ("Arbiter Spring Open 2026", "Prague", "CZE")
    assert (h.start_date, h.end_date, h.chief_arbiter) == (
        "2026/04/10",
        "2026/04/12",
        "IA Jana Dvorakova",
    )
    assert h.deputy_arbiters == ["FA Petr Cerny"] and h.time_control == "90'+30''"
    assert h.round_dates == ["26/04/10", "26/04/10", "26/04/11", "26/04/11", "26/04/12"]
    assert trf.rounds == 5 and trf.initial_colour == ["white1"] and trf.played_rounds == 5
    assert [t for _, t in trf.other_lines][1].startswith("DAT 0001")  # tolerated, kept
    assert [p.start_rank for p in trf.players] == list(range(1, 11))
    eva = trf.players[1]
    assert (eva.sex, eva.title, eva.name, eva.rating, eva.federation) == (
        "w",
        "WGM",
        "Horvath, Eva",
        2455,
        "HUN",
    )
    assert (eva.fide_id, eva.birth_date, eva.points, eva.rank) == (
        "720000022",
        "1995/07/01",
        Decimal("3.0"),
        3,
    )
    assert eva.rounds[0] == RoundEntry(1, 7, "b", "1")
    tom = trf.players[9]
    assert tom.rating is None and tom.title == ""
    assert [e.result for e in tom.rounds] == ["0", "-", "U", "-", "-"]
    assert tom.rounds[3] == RoundEntry(4, None, "-", "-")
    assert trf.players[8].entry(5).result == "F" and trf.players[8].entry(9).is_blank
    assert points_mismatches(trf) == []


def test_parse_tolerates_crlf_bom_old_titles_short_lines_and_unknown_tags() -> None:
    text = "\ufeff012 Club\r\nXXS WW 1.0\r\n999 who knows\r\n" + "\r\n".join(
        [
            _line(1, "A", ["   2 w 1"], head="m  g", points="1.0"),
            _line(2, "B", ["   1 b 0"], head="f wf", points="0.0", rating=None),
            _line(3, "C", [], head="    "),
        ]
    )
    trf = parse_trf(text)
    assert [p.title for p in trf.players] == ["GM", "WFM", ""]
    assert [p.sex for p in trf.players] == ["m", "w", ""]
    assert trf.players[2].rounds == () and trf.players[1].rating is None
    assert [t[:3] for _, t in trf.other_lines] == ["XXS", "999"]


def _sample_lines() -> list[str]:
    return SAMPLE.read_text().splitlines()


def _mutate(lineno: int, first: int, text: str) -> str:
    """The sample with `text` written over line `lineno` from column `first`."""
    lines = _sample_lines()
    s = lines[lineno - 1].ljust(first - 1 + len(text))
    lines[lineno - 1] = s[: first - 1] + text + s[first - 1 + len(text) :]
    return "\n".join(lines)


@pytest.mark.parametrize(
    ("mutation", "line", "columns", "words"),
    [
        ((17, 49, "26x0"), 17, "49-52", "rating"),
        ((19, 5, "   x"), 19, "5-8", "starting rank"),
        ((19, 5, "   1"), 19, "5-8", "used already on line 17"),
        ((20, 81, "3,0 "), 20, "81-84", "points"),
        ((21, 99, "X"), 21, "99", "result code"),
        ((21, 97, "x"), 21, "97", "colour"),
        ((21, 101, "5"), 21, "92-101", "aligned"),
        ((22, 92, "  99"), 22, "92-95", "no 001 line"),
        ((22, 15, " " * 33), 22, "15-47", "no name"),
        ((14, 5, "x"), 14, "5-5", "XXR"),
    ],
)
def test_malformed_lines_name_line_and_columns(
    mutation: tuple[int, int, str], line: int, columns: str, words: str
) -> None:
    with pytest.raises(TrfError) as info:
        parse_trf(_mutate(*mutation))
    assert info.value.line == line and info.value.columns == columns
    assert str(info.value).startswith(f"line {line}, column {columns}: ")
    assert words in str(info.value)


@pytest.mark.parametrize(
    ("mutation", "line", "words"),
    [
        ((17, 92, "   7"), 17, "but line 24 has opponent 2"),  # 1 says 7, 7 says 2
        ((17, 97, "b"), 17, "both 1 and 6 have colour 'b'"),
        ((17, 99, "="), 17, "do not make one game"),
        ((17, 99, "+"), 17, "do not make one game"),  # + against a played 0
        ((24, 102, "0000 - +"), 27, "but line 24 has opponent 0000"),  # 7 drops 10
        ((25, 102, "0000 - 1"), 25, "'1' needs an opponent"),
        ((17, 99, "H"), 17, "bye code 'H' with an opponent (6)"),
        ((14, 5, "4"), 14, "XXR says 4 rounds"),
    ],
)
def test_inconsistent_games_name_the_line(
    mutation: tuple[int, int, str], line: int, words: str
) -> None:
    trf = parse_trf(_mutate(*mutation))
    with pytest.raises(TrfError) as info:
        to_commands(trf)
    assert info.value.line == line
    assert words in str(info.value)


# --------------------------------------------------------------------------------------------
# to commands, through the command path
# --------------------------------------------------------------------------------------------


def test_commands_ids_byes_forfeits_and_withdrawal() -> None:
    cmds = to_commands(read_trf(SAMPLE), rules_preset="gct")
    types = [c.type for c in cmds]
    assert types[:11] == ["TournamentCreated"] + ["PlayerRegistered"] * 10
    tc = cmds[0].payload
    assert (tc["name"], tc["format"], tc["rounds"], tc["rules_preset"]) == (
        "Arbiter Spring Open 2026",
        "swiss",
        5,
        "gct",
    )
    p2 = cmds[2].payload
    assert (p2["player_id"], p2["title"], p2["federation"], p2["seed"]) == ("p002", "WGM", "HUN", 2)
    assert cmds[10].payload.get("rating") is None and cmds[10].payload["name"] == "Brown, Tom"
    rounds = {c.payload["round"]: c.payload for c in cmds if c.type == "RoundScheduled"}
    assert [p["game_id"] for p in rounds[1]["pairings"]][:2] == ["r1-p001-p006", "r1-p007-p002"]
    byes = {r: [(b["player_id"], b["kind"]) for b in rounds[r]["byes"]] for r in rounds}
    assert byes == {
        1: [],
        2: [("p008", "half"), ("p009", "pairing_allocated")],
        3: [("p006", "zero"), ("p010", "pairing_allocated")],
        4: [("p006", "pairing_allocated")],
        5: [("p009", "pairing_allocated")],  # F
    }
    ended = {c.payload["game_id"]: c.payload for c in cmds if c.type == "GameEnded"}
    assert (ended["r2-p007-p010"]["result"], ended["r2-p007-p010"]["termination"]) == (
        "1-0",
        "forfeit",
    )
    assert (ended["r3-p005-p009"]["result"], ended["r3-p005-p009"]["termination"]) == (
        "0-0",
        "forfeit",
    )
    assert ended["r1-p003-p008"]["result"] == "1/2-1/2"
    assert ended["r1-p003-p008"]["termination"] == "other"
    # p010 withdrew from round 4: PlayerWithdrew just before round 4, nothing for it after
    w = types.index("PlayerWithdrew")
    assert cmds[w].payload["player_id"] == "p010" and cmds[w].payload["from_round"] == 4
    assert cmds[w + 1].type == "RoundScheduled" and cmds[w + 1].payload["round"] == 4
    assert all("p010" not in str(c.payload) for c in cmds[w + 1 :])
    assert len(cmds) == 1 + 10 + 5 + 1 + 21  # created, players, rounds, withdrawal, results


def test_import_standings_points_equal_the_points_column(svc: CommandService) -> None:
    trf = read_trf(SAMPLE)
    records = _import(svc, "spring", trf)
    assert len(records) == 38
    table = standings(fold(records))
    rows = {r.player_id: r for r in table.rows}
    for p in trf.players:
        assert p.points is not None
        assert rows[f"p{p.start_rank:03d}"].points == int(p.points * 2), p.name
    assert [r.player_id for r in table.rows if r.withdrawn] == ["p010"]
    assert rows["p007"].forfeit_wins == 1 and rows["p010"].forfeit_losses == 1
    assert rows["p005"].forfeit_losses == 1 and rows["p009"].forfeit_losses == 1


def test_reimport_of_the_same_file_appends_nothing(svc: CommandService) -> None:
    trf = read_trf(SAMPLE)
    first = import_trf(svc.log, trf, tournament_id="s", actor=ADMIN, id_namespace="s:abc")
    again = import_trf(svc.log, trf, tournament_id="s", actor=ADMIN, id_namespace="s:abc")
    assert (first.appended, first.duplicate) == (38, False)
    assert (again.appended, again.duplicate, again.last_seq) == (0, True, 38)


def test_import_into_an_existing_tournament_is_refused(svc: CommandService) -> None:
    trf = read_trf(SAMPLE)
    _import(svc, "s", trf)
    with pytest.raises(ImportRefused) as info:
        import_trf(svc.log, trf, tournament_id="s", actor=ADMIN, file_name="spring_open.trf")
    assert info.value.rule == "stream.already_created"
    assert info.value.where == "spring_open.trf:1"  # the 012 line
    assert svc.log.last_seq("s") == 38


# --------------------------------------------------------------------------------------------
# write, and round trips
# --------------------------------------------------------------------------------------------


def test_export_parses_back_to_the_same_players_and_rounds(svc: CommandService) -> None:
    original = read_trf(SAMPLE)
    records = _import(svc, "spring", original)
    text = export_trf(records)
    assert "\r\n" in text and all(len(line) <= 139 for line in text.splitlines())
    back = parse_trf(text)
    assert [_comparable(p) for p in back.players] == [_comparable(p) for p in original.players]
    assert (back.header.name, back.rounds, back.initial_colour) == (
        original.header.name,
        5,
        ["white1"],
    )
    assert (back.header.players_count, back.header.rated_count) == ("10", "9")
    assert back.header.type == "Individual: Swiss-System"
    # rank is our place (shared places repeat); the FIDE id survives (PlayerRegistered v4),
    # sex and birth date are not stored
    places = {r.player_id: r.place for r in standings(fold(records)).rows}
    assert [p.rank for p in back.players] == [places[f"p{n:03d}"] for n in range(1, 11)]
    assert [p.fide_id for p in back.players] == [p.fide_id for p in original.players]
    assert any(p.fide_id for p in back.players)
    assert {(p.sex, p.birth_date) for p in back.players} == {("", "")}
    assert points_mismatches(back) == []


def test_importing_an_export_reproduces_the_standings(svc: CommandService) -> None:
    first = _import(svc, "one", read_trf(SAMPLE))
    text = export_trf(first)
    second = _import(svc, "two", parse_trf(text))
    a, b = standings(fold(first)), standings(fold(second))
    assert [r.as_dict() for r in a.rows] == [r.as_dict() for r in b.rows]
    assert export_trf(second) == text  # a fixed point


def test_write_trf_header_details_rating_order_and_unfinished_games() -> None:
    events = [
        created(fmt="swiss", rounds=3),
        player("zed", 1800),
        player("amy", 2300),
        player("bob", None),
        round_(1, ("g1", "zed", "amy"), byes=("bob",)),
        result("g1", "0-1", "resignation"),
        round_(2, ("g2", "amy", "bob")),  # no result yet
        ev.PlayerWithdrew(player_id="zed"),
    ]
    records = recorded("t", events)
    state = fold(records)
    header = TrfHeader(city="Brno", chief_arbiter="IA X", round_dates=["26/01/01", "26/01/02"])
    details = player_details(records)
    text = write_trf(state, header=header, details=details, order="rating", newline="\n")
    trf = parse_trf(text)
    assert (trf.header.city, trf.header.chief_arbiter) == ("Brno", "IA X")
    assert trf.header.round_dates == ["26/01/01", "26/01/02"]
    assert trf.rounds == 3 and trf.initial_colour == ["black1"]  # no. 1 (amy) had Black
    assert [p.name for p in trf.players] == ["Amy", "Zed", "Bob"]  # rating desc, unrated last
    amy, zed, bob = trf.players
    assert amy.rounds == (RoundEntry(1, 2, "b", "1"), RoundEntry(2, 3, "w", " "))
    assert bob.rounds == (RoundEntry(1, None, "-", "U"), RoundEntry(2, 1, "b", " "))
    # zed withdrew (no from_round) after round 1: round 2 is "0000 - -"
    assert zed.rounds == (RoundEntry(1, 1, "w", "0"), RoundEntry(2, None, "-", "-"))
    assert (amy.points, bob.points, zed.points) == (Decimal("1.0"), Decimal("1.0"), Decimal(0))
    # the unfinished game comes back scheduled, without a result
    cmds = to_commands(trf)
    r2 = next(c for c in cmds if c.type == "RoundScheduled" and c.payload["round"] == 2)
    assert [p["game_id"] for p in r2.payload["pairings"]] == ["r2-p001-p003"]
    assert not any(c.type == "GameEnded" and c.payload["game_id"].startswith("r2") for c in cmds)


def test_codes_without_colour_unrated_games_and_forfeit_byes() -> None:
    text = "\n".join(
        [
            "012 Odd codes",
            _line(1, "A", ["   2 - +", "   3 w W", "0000 - +"], points="3.0"),
            _line(2, "B", ["   1 - -", "0000 - H", "   3 b D"], points="1.0"),
            _line(3, "C", ["0000 - U", "   1 b L", "   2 w D"], points="1.5"),
        ]
    )
    trf = parse_trf(text)
    assert points_mismatches(trf) == []
    cmds = to_commands(trf)
    sched = {c.payload["round"]: c.payload for c in cmds if c.type == "RoundScheduled"}
    assert sched[1]["pairings"][0]["white"] == "p001"  # no colours: lower start rank White
    assert sched[3]["byes"] == [{"player_id": "p001", "kind": "pairing_allocated"}]
    ended = [c.payload for c in cmds if c.type == "GameEnded"]
    assert [(e["result"], e["termination"]) for e in ended] == [
        ("1-0", "forfeit"),
        ("1-0", "other"),
        ("1/2-1/2", "other"),
    ]
    assert "not rated" in ended[1]["detail"]


def _circle_trf(n: int, rounds: int) -> str:
    """A consistent n-player round robin cut to `rounds` rounds (circle method)."""
    blocks: dict[int, list[str]] = {i: [] for i in range(1, n + 1)}
    pts = dict.fromkeys(range(1, n + 1), 0)
    ring = list(range(2, n + 1))
    for r in range(1, rounds + 1):
        order = [1, *ring]
        for k in range(n // 2):
            a, b = order[k], order[n - 1 - k]
            w, bl = (a, b) if (r + k) % 2 else (b, a)
            res = (w + bl + r) % 3  # 0 white wins, 1 draw, 2 black wins
            cw, cb = ("1", "0") if res == 0 else ("=", "=") if res == 1 else ("0", "1")
            pts[w] += {"1": 2, "=": 1, "0": 0}[cw]
            pts[bl] += {"1": 2, "=": 1, "0": 0}[cb]
            blocks[w].append(f"{bl:>4} w {cw}")
            blocks[bl].append(f"{w:>4} b {cb}")
        ring = ring[-1:] + ring[:-1]
    lines = ["012 Big", f"XXR {rounds}"]
    for i in range(1, n + 1):
        lines.append(_line(i, f"Player {i}", blocks[i], points=f"{pts[i] / 2:.1f}"))
    return "\n".join(lines)


def test_more_than_one_batch_is_checked_in_full_then_appended(svc: CommandService) -> None:
    trf = parse_trf(_circle_trf(64, 30))
    assert points_mismatches(trf) == []
    planned = to_events(trf, file_name="big.trf")
    assert len(planned) == 1 + 64 + 30 * 33 > 1000
    assert len(to_commands(trf)) == len(planned)
    nope = ev.GameEnded(game_id="nope", result="1-0", termination="other")
    bad = [*planned, Planned("bad", nope, "big.trf:9999")]
    with pytest.raises(ImportRefused) as info:
        import_planned(Target(svc.log, "big", ADMIN, NAMESPACE, "big:1"), AppendReport(), bad)
    assert (info.value.where, info.value.rule) == ("big.trf:9999", "game.unknown")
    assert svc.log.last_seq("big") == 0  # nothing appended
    result = import_trf(svc.log, trf, tournament_id="big", actor=ADMIN, id_namespace="big:1")
    assert (result.appended, result.last_seq) == (len(planned), len(planned))
    assert result.batches == 2
    rows = {
        r.player_id: r.points
        for r in standings(fold([Recorded.of(e) for e in svc.log.read("big", 1)])).rows
    }
    assert all(
        rows[f"p{p.start_rank:03d}"] == int(p.points * 2)
        for p in trf.players
        if p.points is not None
    )
    assert import_trf(
        svc.log, trf, tournament_id="big", actor=ADMIN, id_namespace="big:1"
    ).duplicate


def test_tournament_id_from_file_name() -> None:
    assert tournament_id_for("/x/Spring Open (2026).trf") == "Spring-Open-2026-"
    assert tournament_id_for("__a.b.txt") == "a.b"
    with pytest.raises(ValueError):
        tournament_id_for("/x/___.trf")


def test_write_trf_needs_nothing_but_the_fold() -> None:
    state = fold(recorded("t", [created(), player("a", 2000), player("b")]))
    text = write_trf(state)
    assert parse_trf(text).players[1].rounds == ()
    assert "XXR" not in text  # nothing scheduled, no rounds given
    events = [created(), player("a", 2000), player("b"), round_(1, ("g", "a", "b"))]
    state = fold(recorded("t", [*events, result("g", "1-0")]))
    assert parse_trf(write_trf(state)).players[0].points == Decimal("1.0")


# --------------------------------------------------------------------------------------------
# CLI
# --------------------------------------------------------------------------------------------


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return {"ARBITER_DATA": str(tmp_path / "data"), "ARBITER_DB": str(tmp_path / "cli.sqlite3")}


def test_cli_import_and_export(tmp_path: Path, env: dict[str, str]) -> None:
    runner = CliRunner()
    r = runner.invoke(app, ["import", "trf", str(SAMPLE)], env=env)
    assert r.exit_code == 0, r.output
    assert "spring_open: imported 10 players, 5 rounds: 38 events" in r.output
    again = runner.invoke(app, ["import", "trf", str(SAMPLE)], env=env)
    assert again.exit_code == 0 and "already imported" in again.output
    r = runner.invoke(app, ["export", "trf", "spring_open"], env=env)
    assert r.exit_code == 0, r.output
    assert [_comparable(p) for p in parse_trf(r.stdout).players] == [
        _comparable(p) for p in read_trf(SAMPLE).players
    ]
    target = tmp_path / "out.trf"
    r = runner.invoke(app, ["export", "trf", "spring_open", "--out", str(target)], env=env)
    with SQLiteEventLog(env["ARBITER_DB"]) as log:
        expected = export_trf([Recorded.of(e) for e in log.read("spring_open", 1)])
    assert r.exit_code == 0 and target.read_bytes().decode() == expected
    r = runner.invoke(
        app, ["import", "trf", str(target), "--tournament", "copy", "--rules", "gct"], env=env
    )
    assert r.exit_code == 0 and "copy: imported" in r.output, r.output
    r = runner.invoke(app, ["standings", "copy", "--json"], env=env)
    assert r.exit_code == 0 and '"as_of_seq":38' in r.stdout


def test_cli_refusals(tmp_path: Path, env: dict[str, str]) -> None:
    runner = CliRunner()
    bad = tmp_path / "bad.trf"
    bad.write_text(_mutate(21, 99, "X"))
    r = runner.invoke(app, ["import", "trf", str(bad)], env=env)
    assert r.exit_code == 1 and "line 21, column 99" in r.output
    r = runner.invoke(app, ["import", "trf", str(SAMPLE), "--rules", "nope"], env=env)
    assert r.exit_code == 1 and "tiebreak.unknown_preset" in r.output
    r = runner.invoke(app, ["export", "trf", "nothing-here"], env=env)
    assert r.exit_code == 1 and "has no events" in r.output
    r = runner.invoke(app, ["import", "trf", str(tmp_path / "missing.trf")], env=env)
    assert r.exit_code == 1 and "trf.unreadable" in r.output


# --------------------------------------------------------------------------------------------
# dates (042, 052) and the FIDE C.07 tie-break edition (issue 16)
# --------------------------------------------------------------------------------------------


def _dated(start: str | None, end: str | None = None) -> TrfFile:
    lines = ["012 Dated"]
    if start is not None:
        lines.append(f"042 {start}")
    if end is not None:
        lines.append(f"052 {end}")
    lines += [_line(1, "A", ["   2 w 1"], points="1.0"), _line(2, "B", ["   1 b 0"], points="0.0")]
    return parse_trf("\n".join(lines))


@pytest.mark.parametrize(
    ("start", "day"),
    [
        ("2026/03/01", date(2026, 3, 1)),  # TRF-16
        ("2026-02-28", date(2026, 2, 28)),
        ("2025.11.05", date(2025, 11, 5)),
        ("05.11.2025", date(2025, 11, 5)),
        ("05/11/2025", date(2025, 11, 5)),
        ("26/04/10", date(2026, 4, 10)),  # the old YY/MM/DD
        ("2026/04/10 09:00", date(2026, 4, 10)),
    ],
)
def test_start_date_formats(start: str, day: date) -> None:
    assert header_date(_dated(start), "042") == day


def test_import_records_the_dates_and_the_edition_in_force_on_the_start_date() -> None:
    cases = {
        "2026/02/28": "fide-2024",  # the last day of the 2024 text
        "2026/03/01": "fide-2026",
        "2024/09/01": "fide-2024",
        None: "fide-2026",  # no 042: the newest, as FIDE's tie-break server reads a file
    }
    for start, edition in cases.items():
        trf = _dated(start, "2026/03/09" if start else None)
        tc = to_commands(trf)[0].payload
        assert tc["tiebreak_edition"] == edition == import_edition(trf), start
        assert tc.get("starts_on") == (start.replace("/", "-") if start else None)
    assert edition_choice(_dated("2026/03/01")) == (
        "tie-break edition fide-2026: the edition in force on the start date 2026-03-01 (042)"
    )
    assert edition_choice(_dated(None)) == (
        "tie-break edition fide-2026: no start date, so the newest edition (no 042 record)"
    )
    assert tournament_dates(_dated("2026/03/01", "2026/03/09")) == (
        date(2026, 3, 1),
        date(2026, 3, 9),
    )


def test_unreadable_or_reversed_dates_are_refused() -> None:
    with pytest.raises(TrfError) as info:
        to_commands(_dated("next spring"))
    assert info.value.line == 2 and "042 'next spring' is not a date" in str(info.value)
    with pytest.raises(TrfError) as info:
        to_commands(_dated("2026/02/30"))
    assert "is not a date" in str(info.value)
    with pytest.raises(TrfError) as info:
        to_commands(_dated("2026/03/09", "2026/03/01"))
    assert info.value.line == 3 and "052 ends on 2026-03-01 before 042" in str(info.value)


def test_sample_import_is_ranked_by_the_2026_text_and_exports_its_dates(
    svc: CommandService,
) -> None:
    records = _import(svc, "spring", read_trf(SAMPLE), rules_preset="fide-swiss")
    created_ = records[0].event
    assert isinstance(created_, ev.TournamentCreated)
    assert (created_.starts_on, created_.ends_on, created_.tiebreak_edition) == (
        date(2026, 4, 10),
        date(2026, 4, 12),
        "fide-2026",
    )
    table = standings(fold(records))
    assert table.edition is not None and table.edition.edition == "fide-2026"
    text = export_trf(records)
    head = parse_trf(text).header
    assert (head.start_date, head.end_date) == ("2026/04/10", "2026/04/12")
    assert "###" not in text  # the start date says the edition in force


def test_export_says_so_when_the_edition_is_not_the_one_the_start_date_implies() -> None:
    """An arbiter's ruling put a 2026 tournament on the 2024 text: another program would read
    the 2026 text from 042, so a comment line says which text ranks the file."""
    events = [
        created(fmt="swiss", rounds=1, rules_preset="fide-swiss", starts_on=date(2026, 5, 1)),
        player("a", 2000),
        player("b", 1900),
        round_(1, ("g", "a", "b")),
        result("g", "1-0"),
    ]
    events[0] = events[0].model_copy(update={"tiebreak_edition": "fide-2026"})
    plain = write_trf(fold(recorded("t", events)))
    assert "042 2026/05/01" in plain and "###" not in plain
    ruled = ev.RulingIssued(
        ruling_id="R1",
        by="chief arbiter",
        subject="tiebreak_edition",
        text="the organiser's regulations name the 2024 text",
        decision={"edition": "fide-2024"},
    )
    text = write_trf(fold(recorded("t", [*events, ruled])))
    assert (
        "### FIDE C.07 tie-break edition fide-2024 (ruling R1), not fide-2026 as the start date "
        "implies"
    ) in text
    assert parse_trf(text).other_lines[0][1].startswith("### FIDE C.07")
    # A chain that follows no edition (GCT) says nothing about it.
    gct = [events[0].model_copy(update={"rules_preset": "gct"}), *events[1:], ruled]
    assert "###" not in write_trf(fold(recorded("t", gct)))


# --------------------------------------------------------------------------------------------
# re-import of the tie-break edition line
# --------------------------------------------------------------------------------------------

R1 = ev.RulingIssued(
    ruling_id="R1",
    by="chief arbiter",
    subject="tiebreak_edition",
    text="the organiser's regulations name the 2024 text",
    decision={"edition": "fide-2024"},
)


def _ruled_swiss(
    svc: CommandService, tid: str, *extra: ev.Event, edition: str | None = None
) -> list[Recorded]:
    """A 2026 Swiss whose forfeit and pairing-allocated byes rank differently under the 2024
    and the 2026 text (C.07 Art. 16.4); players p001.. registered in C.04.2 order, so an
    export-import keeps their ids."""
    ratings = [2400, 2300, 2200, 2100, 2000]
    events: list[ev.Event] = [
        created(
            fmt="swiss",
            rounds=3,
            rules_preset="fide-swiss",
            starts_on=date(2026, 5, 1),
            tiebreak_edition=edition,
        ),
        *(player(f"p{i:03d}", r) for i, r in enumerate(ratings, start=1)),
        round_(1, ("g1", "p001", "p004"), ("g2", "p005", "p002"), byes=("p003",)),
        result("g1", "1-0", "forfeit"),
        result("g2", "0-1"),
        round_(2, ("g3", "p003", "p001"), ("g4", "p004", "p005"), byes=("p002",)),
        result("g3", "1/2-1/2"),
        result("g4", "1-0"),
        round_(3, ("g5", "p002", "p001"), ("g6", "p005", "p003"), byes=("p004",)),
        result("g5", "1/2-1/2"),
        result("g6", "0-1"),
        *extra,
    ]
    svc.handle(tid, batch(*events), ADMIN)
    return [Recorded.of(e) for e in svc.log.read(tid, 1)]


def _json(records: list[Recorded]) -> dict[str, object]:
    body = standings(fold(records)).as_dict()
    del body["as_of_seq"]  # the import has its own number of events
    return body


def test_reimport_keeps_the_ruled_edition_and_the_standings(svc: CommandService) -> None:
    """create -> a ruling puts the 2026 tournament on the 2024 text -> export -> import: the
    import records the same ruling (after the creation, which keeps the start date's
    edition), so the edition, its source and the standings JSON come back unchanged."""
    first = _ruled_swiss(svc, "orig", R1)
    plain = _ruled_swiss(svc, "plain")  # the same games under the start date's edition
    assert _json(first)["tiebreak_edition"] == {"edition": "fide-2024", "source": "ruling R1"}
    assert _json(first)["rows"] != _json(plain)["rows"]  # the edition changes the ranking
    text = export_trf(first)
    trf = parse_trf(text)
    stated = stated_edition(trf)
    assert stated is not None and (stated.edition, stated.ruling_id) == ("fide-2024", "R1")
    assert import_edition(trf) == "fide-2024"
    assert edition_choice(trf) == (
        f"tie-break edition fide-2024: ruling R1 (### line {stated.line}), recorded as "
        "RulingIssued R1; without it, fide-2026: the edition in force on the start date "
        "2026-05-01 (042)"
    )
    cmds = to_commands(trf, rules_preset="fide-swiss")
    assert cmds[0].payload["tiebreak_edition"] == "fide-2026"  # as the original's creation
    assert (cmds[1].type, cmds[1].payload["ruling_id"], cmds[1].payload["decision"]) == (
        "RulingIssued",
        "R1",
        {"edition": "fide-2024"},
    )
    second = _import(svc, "copy", trf, rules_preset="fide-swiss")
    assert _json(second) == _json(first)
    assert export_trf(second) == text  # a fixed point, the ### line included
    # Without the line the import would go back to the start date's edition.
    bare = parse_trf(text.replace(f"{trf.other_lines[0][1]}\r\n", ""))
    assert stated_edition(bare) is None and import_edition(bare) == "fide-2026"
    assert _json(_import(svc, "bare", bare, rules_preset="fide-swiss")) == _json(plain)


def test_an_edition_stated_at_creation_comes_back_as_the_creations(svc: CommandService) -> None:
    original = _ruled_swiss(svc, "orig", edition="fide-2024")
    text = export_trf(original)
    assert "(stated at creation, start date 2026-05-01), not fide-2026" in text
    cmds = to_commands(parse_trf(text), rules_preset="fide-swiss")
    assert cmds[0].payload["tiebreak_edition"] == "fide-2024"
    assert "RulingIssued" not in [c.type for c in cmds]
    copy = _import(svc, "copy", parse_trf(text), rules_preset="fide-swiss")
    assert _json(copy) == _json(original)


def test_edition_lines_that_name_no_edition_or_disagree_are_refused() -> None:
    base = ["012 Dated", "042 2026/05/01", _line(1, "A", []), _line(2, "B", [])]
    note = "### FIDE C.07 tie-break edition {} ({}), not fide-2026 as the start date implies"
    bad = parse_trf("\n".join([*base[:2], note.format("fide-1999", "ruling R1"), *base[2:]]))
    with pytest.raises(TrfError) as info:
        to_commands(bad)
    assert info.value.line == 3 and "'fide-1999' is not a FIDE C.07 edition" in str(info.value)
    two = [note.format("fide-2024", "ruling R1"), note.format("fide-2024", "ruling R2")]
    with pytest.raises(TrfError) as info:
        to_commands(parse_trf("\n".join([*base[:2], *two, *base[2:]])))
    assert info.value.line == 4 and "disagrees with line 3" in str(info.value)
    # other comments are comments
    plain = parse_trf(
        "\n".join([*base[:2], "### tie-break edition: see the regulations", *base[2:]])
    )
    assert stated_edition(plain) is None and to_commands(plain)[1].type == "PlayerRegistered"


def test_cli_round_trip_of_a_ruled_edition(tmp_path: Path, env: dict[str, str]) -> None:
    runner = CliRunner()
    with SQLiteEventLog(env["ARBITER_DB"]) as log:
        _ruled_swiss(CommandService(log), "orig", R1)
    target = tmp_path / "orig.trf"
    r = runner.invoke(app, ["export", "trf", "orig", "--out", str(target)], env=env)
    assert r.exit_code == 0, r.output
    r = runner.invoke(
        app,
        ["import", "trf", str(target), "--tournament", "copy", "--rules", "fide-swiss"],
        env=env,
    )
    assert r.exit_code == 0, r.output
    assert "copy: tie-break edition fide-2024: ruling R1 (### line" in r.output
    assert "recorded as RulingIssued R1" in r.output
    bodies = []
    for tid in ("orig", "copy"):
        r = runner.invoke(app, ["standings", tid, "--json"], env=env)
        assert r.exit_code == 0, r.output
        body = json.loads(r.stdout)
        del body["as_of_seq"]
        bodies.append(body)
    assert bodies[0] == bodies[1]
    assert bodies[1]["tiebreak_edition"] == {"edition": "fide-2024", "source": "ruling R1"}


# --------------------------------------------------------------------------------------------
# the default numbering: the pairing system's own pairing numbers
# --------------------------------------------------------------------------------------------


def _titled(pid: str, rating: int | None, title: str | None = None, seed: int | None = None):
    return ev.PlayerRegistered(
        player_id=pid, name=pid.title(), rating=rating, title=title, seed=seed
    )


def _start_ranks(text: str) -> list[str]:
    return [p.name.lower() for p in parse_trf(text).players]


def test_default_numbers_follow_each_pairing_system() -> None:
    field = [
        _titled("ann", 2200),
        _titled("bea", 2300, "WGM", seed=2),
        _titled("uli", None, seed=1),
        _titled("zed", 2200, "IM"),
        _titled("cal", 2300, "GM", seed=3),
    ]
    # Dutch (a Swiss): C.04.2's initial order - rating, unrated last; title (GM before WGM, IM
    # before none: C.04.2 b); the lot's initial colour is XXC and record 152.
    colour = ev.LotDrawn(
        purpose="colours",
        subject="main:initial-colour",
        candidates=["black", "white"],
        outcome=["black"],
    )
    swiss = fold(recorded("t", [created(fmt="swiss", rounds=3), *field, colour]))
    text = write_trf(swiss)
    assert _start_ranks(text) == ["cal", "bea", "zed", "ann", "uli"]
    assert pairing_order(swiss) == ("cal", "bea", "zed", "ann", "uli")
    assert "XXC black1" in text.splitlines() and "152 B" in text.splitlines()
    assert _start_ranks(write_trf(swiss, order="rating")) == ["bea", "cal", "ann", "zed", "uli"]
    assert _start_ranks(write_trf(swiss, order="registration")) == [
        "ann",
        "bea",
        "uli",
        "zed",
        "cal",
    ]
    # Berger: the pairing numbers drawn by lot (C.05 Annex 1); none drawn yet: registration.
    rr = [created(fmt="round_robin"), *field]
    assert _start_ranks(write_trf(fold(recorded("t", rr)))) == ["ann", "bea", "uli", "zed", "cal"]
    lot = ev.LotDrawn(
        purpose="pairing_numbers",
        subject="main/pairing-numbers",
        candidates=["ann", "bea", "uli", "zed", "cal"],
        outcome=["zed", "uli", "cal", "ann", "bea"],
    )
    drawn = write_trf(fold(recorded("t", [*rr, lot])))
    assert _start_ranks(drawn) == ["zed", "uli", "cal", "ann", "bea"]
    assert "152" not in {line[:3] for line in drawn.splitlines()}
    # Monrad (TCEC Swiss) and the TCEC Cup: by seed, the unseeded after in registration order.
    for fmt, preset in (("swiss", "tcec-swiss"), ("cup", None)):
        state = fold(recorded("t", [created(fmt=fmt, rules_preset=preset), *field]))
        assert _start_ranks(write_trf(state)) == ["uli", "bea", "cal", "ann", "zed"], fmt
    # No pairing system (a match): registration order.
    match = fold(recorded("t", [created(fmt="match"), *field[:2]]))
    assert _start_ranks(write_trf(match)) == ["ann", "bea"]
    with pytest.raises(ValueError, match="order 'seed' is not one of"):
        write_trf(match, order="seed")  # type: ignore[arg-type]

"""The organiser's entry path on the command line (issue 24): `arbiter create`, `register`
(one player, a CSV entry list), `players`, `bye`, `withdraw`, a late entry, pairing between
them; and who did it: `--as`, ARBITER_ACTOR and `--token` name the envelope's actor, which
`arbiter replay` and `arbiter diff` show."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from tests_support import cli_db, cli_json, cli_run
from typer.testing import CliRunner

from services.cli.main import app

runner = CliRunner()

CSV = """\ufeffName;Rating;Title;FED;FIDE ID;Club
Carlsen, Magnus;2830;GM;NOR;1503014;Offerspill
Nakamura, Hikaru;2780;GM;USA;2016192;
Dvořák, Jan;2100;;CZE;;Praha
Smith, Anna;1500;;ENG;;
Smith, Bob;1800;;ENG;;
Novak, Petr;1950;FM;CZE;;
"""


@pytest.fixture
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return cli_db(tmp_path, monkeypatch)


def _envelopes(tid: str) -> list[dict[str, Any]]:
    res = runner.invoke(app, ["events", tid, "--json"])
    return [json.loads(line) for line in res.stdout.splitlines()]


def _finish_round(tid: str, rnd: int) -> None:
    body = cli_json("schedule", tid)
    games = next(r for r in body["rounds"] if r["round"] == rnd)["pairings"]
    for g in games:
        payload = {"game_id": g["game_id"], "result": "1-0", "termination": "resignation"}
        cli_run("append", tid, "--type", "GameEnded", "--payload", json.dumps(payload))


def test_a_swiss_from_a_csv_entry_list_with_a_bye_a_withdrawal_and_a_late_entry(
    db: Path, tmp_path: Path
):
    text = cli_run(
        "create", "open", "--name", "Club Open 2026", "--format", "swiss", "--rounds", "5",
        "--time-control", "90+30", "--start", "2026-05-01", "--end", "2026-05-03",
    )  # fmt: skip
    assert "open#1 TournamentCreated 'Club Open 2026' (swiss, 5 rounds, 90+30)" in text
    created = _envelopes("open")[0]["payload"]
    assert created["time_controls"] == [
        {**created["time_controls"][0], "name": "90+30", "base_seconds": 5400}
    ]
    assert (created["starts_on"], created["ends_on"]) == ("2026-05-01", "2026-05-03")

    entries = tmp_path / "entries.csv"
    entries.write_text(CSV, encoding="utf-8")
    text = cli_run("register", "open", "--file", str(entries))
    assert "registered 6 players, seqs 2-7" in text
    assert "1 Carlsen, Magnus (GM 2830 NOR) carlsen-magnus" in text
    players = cli_json("players", "open")["players"]
    assert [(p["start_no"], p["player_id"]) for p in players] == [
        (1, "carlsen-magnus"),
        (2, "nakamura-hikaru"),
        (3, "dvorak-jan"),
        (4, "novak-petr"),
        (5, "smith-bob"),
        (6, "smith-anna"),
    ]
    assert players[0]["club"] == "Offerspill" and players[0]["fide_id"] == 1503014

    # a requested bye for round 2, before it is paired; "smith" alone is ambiguous
    assert "player.ambiguous" in cli_run("bye", "open", "smith", "--round", "2", code=1)
    text = cli_run("bye", "open", "smith, a", "--round", "2", "--points", "1/2")
    assert "6 Smith, Anna: ½-point bye in round 2" in text
    assert "round 2 byes now: 6 Smith, Anna ½" in text  # named back, not by id
    assert "bye.full_point_not_offered" in cli_run(
        "bye", "open", "dvorak", "--round", "2", "--points", "1", code=1
    )

    # the pairing sheet names each player with the start number the crosstable uses
    text = cli_run("pair", "open")
    for seated in ("Carlsen, Magnus (1)", "Novak, Petr (4)", "Dvořák, Jan (3)", "Smith, Anna (6)"):
        assert seated in text, text
    _finish_round("open", 1)
    assert "bye.round_paired" in cli_run("bye", "open", "5", "--round", "1", code=1)
    text = cli_run("withdraw", "open", "novak", "--from-round", "3", "--reason", "ill")
    assert "PlayerWithdrew 4 Novak, Petr from round 3: ill" in text

    # a late entry after round 1: numbered by rating, paired from round 2
    text = cli_run("register", "open", "Ivanchuk, Vasyl", "--rating", "2700", "--title", "gm")
    assert "late entries" in text and "3 Ivanchuk, Vasyl (GM 2700)" in text
    round2 = cli_json("pair", "open")
    seated = {x for p in round2["pairings"] for x in (p["white"], p["black"])}
    assert "ivanchuk-vasyl" in seated and "smith-anna" not in seated
    assert {"player_id": "smith-anna", "kind": "half"} in round2["byes"]
    rows = {p["player_id"]: p for p in cli_json("players", "open")["players"]}
    assert rows["smith-anna"]["byes"] == {"2": "half"}
    assert rows["novak-petr"]["withdrawn_from"] == 3
    assert rows["dvorak-jan"]["start_no"] == 4  # renumbered by the late entry
    words = cli_run("players", "open")
    assert "withdrawn from round 3" in words and "round 2: ½" in words


def test_a_bad_row_refuses_the_whole_file_with_its_line_and_column(db: Path, tmp_path: Path):
    cli_run("create", "open", "--name", "Open", "--rounds", "3")
    bad = tmp_path / "bad.csv"
    bad.write_text("name,rating\nA,1500\nB,1600\nC,16OO\n", encoding="utf-8")
    text = cli_run("register", "open", "--file", str(bad), code=1)
    assert "refused entries.invalid (line 4, column rating): '16OO' is not a whole number" in text
    unknown = tmp_path / "unknown.csv"
    unknown.write_text("name,colour\nA,white\n", encoding="utf-8")
    assert "(line 1, column colour): unknown column" in cli_run(
        "register", "open", "--file", str(unknown), code=1
    )
    assert len(_envelopes("open")) == 1  # nothing of either file appended


def test_every_bad_row_of_a_csv_is_reported_together(db: Path, tmp_path: Path):
    cli_run("create", "open", "--name", "Open", "--rounds", "3")
    bad = tmp_path / "bad.csv"
    bad.write_text("name,rating\nA,15x0\nB,1600\n,1700\nD,16OO,extra\n", encoding="utf-8")
    text = cli_run("register", "open", "--file", str(bad), code=1)
    assert "refused: 3 problems, nothing was appended" in text
    assert "refused entries.invalid (line 2, column rating): '15x0'" in text
    assert "refused entries.invalid (line 4, column name): every entry needs a name" in text
    assert "refused entries.invalid (line 5): 3 cells for 2 columns" in text
    assert len(_envelopes("open")) == 1


def test_as_and_arbiter_actor_name_the_actor_and_replay_and_diff_show_it(
    db: Path, monkeypatch: pytest.MonkeyPatch
):
    cli_run("create", "open", "--name", "Open", "--rounds", "3", "--as", "Jane Arbiter")
    monkeypatch.setenv("ARBITER_ACTOR", "Desk Two")
    cli_run("register", "open", "Carlsen, Magnus", "--rating", "2830")
    cli_run("register", "open", "Dvořák, Jan", "--as", "Jane Arbiter")
    monkeypatch.delenv("ARBITER_ACTOR")
    cli_run("register", "open", "Nobody, Named")
    actors = [e["actor"] for e in _envelopes("open")]
    assert actors[:3] == [
        {"id": "Jane Arbiter", "role": "admin"},
        {"id": "Desk Two", "role": "admin"},
        {"id": "Jane Arbiter", "role": "admin"},
    ]
    assert actors[3]["id"].startswith("cli:")
    text = cli_run("replay", "open", "--until", "3", "--projection", "standings")
    assert "appended by Jane Arbiter (admin): seq 1, 3" in text
    assert "appended by Desk Two (admin): seq 2" in text
    assert "Desk Two (admin)" in cli_run("diff", "open", "--from", "1", "--to", "3")
    assert "cli.usage" in cli_run("register", "open", "X", "--as", "A", "--token", "t", code=1)


def test_a_token_acts_with_its_subject_and_role(db: Path, monkeypatch: pytest.MonkeyPatch):
    from services.commands.auth import TokenStore

    store = TokenStore(db.parent / "tokens.sqlite3")
    arbiter = store.create("arbiter", "ref-1", ["open"])[0]
    tv = store.create("broadcaster", "tv")[0]
    store.close()
    cli_run("create", "open", "--name", "Open", "--rounds", "3", "--token", arbiter)
    assert _envelopes("open")[0]["actor"] == {"id": "ref-1", "role": "arbiter"}
    assert "auth.forbidden" in cli_run("register", "open", "A", "--token", tv, code=1)
    assert "auth.invalid_token" in cli_run("register", "open", "A", "--token", "arb_x_y", code=1)
    cli_run("register", "open", "A, B", "--token", arbiter)
    event_id = _envelopes("open")[1]["event_id"]
    # the role's rules apply: an arbiter may not retract
    text = cli_run("retract", "open", event_id, "--reason", "typo", "--token", arbiter, code=1)
    assert "auth.admin_only" in text
    monkeypatch.setenv("ARBITER_TOKEN", arbiter)  # the environment's token, the same way
    cli_run("withdraw", "open", "A, B")
    assert _envelopes("open")[-1]["actor"] == {"id": "ref-1", "role": "arbiter"}
    monkeypatch.setenv("ARBITER_TOKEN", "arb_remote_secret")
    assert "auth.invalid_token (ARBITER_TOKEN)" in cli_run(
        "bye", "open", "A", "--round", "1", code=1
    )


def test_an_entry_list_longer_than_one_batch_is_refused_by_its_limit_and_appends_nothing(
    db: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
):
    """All or nothing: a list is one batch, so one longer than `max_batch_events` is refused
    with the limit's rule (not a traceback), and nothing of it is appended."""
    monkeypatch.setenv("ARBITER_MAX_BATCH_EVENTS", "5")
    cli_run("create", "big", "--name", "Big Open", "--format", "swiss", "--rounds", "5")
    entries = tmp_path / "many.csv"
    entries.write_text("name,rating\n" + "".join(f"Player {i},{1500 + i}\n" for i in range(6)))
    res = runner.invoke(app, ["register", "big", "--file", str(entries)])
    assert res.exit_code == 1, res.output
    assert "limits.batch_events" in res.output
    assert [e["type"] for e in _envelopes("big")] == ["TournamentCreated"]


def test_the_help_s_csv_example_is_printed_line_by_line_and_registers_as_it_reads(
    db: Path, tmp_path: Path
):
    """`arbiter register --help` shows its CSV example one row a line (help text is rewrapped
    unless marked), and the rows copied from it are an entry list `register --file` takes."""
    res = runner.invoke(app, ["register", "--help"])
    assert res.exit_code == 0, res.output
    lines = [ln.strip() for ln in res.output.splitlines()]
    start = lines.index("name,rating,title,federation,fide_id,club")
    example = lines[start : lines.index("", start)]
    assert example[1:] == [
        '"Carlsen, Magnus",2830,GM,NOR,1503014,Offerspill',
        '"Ó Súilleabháin, Seán",,,IRL,,Galway',
    ]
    entries = tmp_path / "example.csv"
    entries.write_text("\n".join(example) + "\n", encoding="utf-8")
    cli_run("create", "ex", "--name", "Example Open", "--rounds", "5")
    cli_run("register", "ex", "--file", str(entries))
    players = json.loads(runner.invoke(app, ["players", "ex", "--json"]).stdout)["players"]
    assert [(p["name"], p["rating"], p["club"]) for p in players] == [
        ("Carlsen, Magnus", 2830, "Offerspill"),
        ("Ó Súilleabháin, Seán", None, "Galway"),
    ]


@pytest.mark.parametrize(
    "command", [["standings"], ["crosstable"], ["pair"], ["players"], ["register", "--rating", "1"]]
)
def test_an_unknown_tournament_is_refused_with_the_organiser_command_that_creates_it(
    db: Path, command: list[str]
):
    """A mistyped id or a tournament not yet created: the refusal names `arbiter create`,
    never `arbiter append` with a hand-written TournamentCreated."""
    args = [command[0], "nosuch", *(["Doe, Jane"] if command[0] == "register" else [])]
    out = cli_run(*args, *command[1:], code=1)
    assert out.startswith("refused ") and ".unknown_tournament (" in out, out
    assert "'nosuch' is not a tournament: check the id, or create it first" in out, out
    assert "`arbiter create nosuch --name ... --format swiss --rounds N`" in out, out
    assert "append" not in out and "payload" not in out, out


def test_a_swiss_created_without_a_preset_is_told_its_ties_stay_shared(db: Path):
    """The tie-breaks are chosen at creation only: `create` without --preset says so, with
    the FIDE preset to give, before any player is entered; with a preset it says nothing."""
    out = cli_run("create", "plain", "--name", "Plain Open", "--rounds", "5")
    assert (
        "no --preset: tied players will share their place, no tie-break decides (for FIDE "
        "C.07's, create the tournament with --preset fide-swiss)"
    ) in out
    out = cli_run("create", "rr", "--name", "Plain RR", "--format", "round_robin")
    assert "--preset fide-round-robin)" in out
    out = cli_run(
        "create", "fide", "--name", "FIDE Open", "--rounds", "5", "--preset", "fide-swiss"
    )
    assert "no --preset" not in out and "(swiss, 5 rounds, fide-swiss)" in out
    assert "--preset fide-swiss" in " ".join(
        runner.invoke(app, ["create", "--help"]).output.split()
    )


def test_the_club_of_the_entry_list_is_in_the_standings_and_the_crosstable(
    db: Path, tmp_path: Path
):
    """`club` (PlayerRegistered v5) reaches the published standings rows (documents v6), the
    crosstable's rows and both tables in the terminal."""
    cli_run("create", "open", "--name", "Club Open", "--format", "swiss", "--rounds", "5")
    entries = tmp_path / "entries.csv"
    entries.write_text(CSV, encoding="utf-8")
    cli_run("register", "open", "--file", str(entries))
    rows = cli_json("standings", "open")["rows"]
    clubs = {r["player_id"]: r["club"] for r in rows}
    assert clubs["carlsen-magnus"] == "Offerspill"
    grid_rows = cli_json("crosstable", "open")["rows"]
    assert {r["player_id"]: r["club"] for r in grid_rows} == clubs
    for command in ("standings", "crosstable"):
        out = runner.invoke(app, [command, "open"], terminal_width=200).output
        assert " club " in out and "Offerspill" in out, command

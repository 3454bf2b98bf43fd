"""Pairing notes name players by name (issue 24 item 4: readable output everywhere): the
systems write their notes with players as `{id}` (projections/mentions.py), and `arbiter pair`
(text and --json), `POST /tournaments/{id}/pair` and `arbiter schedule` say them with the
players' names, the templates kept beside for a machine (`note_templates`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from tests_support import cli_db, cli_run
from typer.testing import CliRunner

from services.api.app import create_app
from services.commands.auth import TokenStore

runner = CliRunner()

# Five players: round 1 has a pairing-allocated bye, which the Dutch note names.
CSV = """name,rating,federation
"Carlsen, Magnus",2830,NOR
"Anand, Viswanathan",2750,IND
"Polgar, Judit",2700,HUN
"Dvořák, Jan",2105,CZE
"Doe, Jane",1850,USA
"""
IDS = ("carlsen-magnus", "anand-viswanathan", "polgar-judit", "dvorak-jan", "doe-jane")


@pytest.fixture
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return cli_db(tmp_path, monkeypatch)


def _entries(tmp_path: Path) -> None:
    entries = tmp_path / "entries.csv"
    entries.write_text(CSV, encoding="utf-8")
    cli_run("create", "open", "--name", "Club Open", "--format", "swiss", "--rounds", "5")
    cli_run("register", "open", "--file", str(entries))


def _no_ids(text: str) -> None:
    for pid in IDS:
        assert pid not in text, (pid, text)


def test_arbiter_pair_names_the_bye_and_the_pairing_numbers_by_name(db: Path, tmp_path: Path):
    _entries(tmp_path)
    body: dict[str, Any] = json.loads(cli_run("pair", "open", "--json"))
    first, numbers = body["notes"]
    assert "pairing-allocated bye Doe, Jane;" in first
    assert numbers.endswith(
        "1 Carlsen, Magnus · 2 Anand, Viswanathan · 3 Polgar, Judit · 4 Dvořák, Jan · 5 Doe, Jane"
    )
    _no_ids(" ".join(body["notes"]))
    # The templates beside, for a machine: the same notes with the ids as `{id}`.
    assert "pairing-allocated bye {doe-jane};" in body["note_templates"][0]
    # The text output prints the same notes (the round below its table).
    cli_run("results", "open", "--round", "1", "1-0 ½")
    text = " ".join(cli_run("pair", "open").split())
    assert "1 Carlsen, Magnus · 2 Anand, Viswanathan" in text
    notes_part = text[text.index("FIDE C.04.3") :]
    _no_ids(notes_part)


def test_the_pair_route_answers_its_notes_by_name(log_factory, tmp_path: Path):
    tokens = TokenStore(tmp_path / "tokens.sqlite3")
    client = TestClient(create_app(log_factory(), tokens))
    auth = {"Authorization": f"Bearer {tokens.create('arbiter', 'ref-1', ['open'])[0]}"}
    create = {"name": "Club Open", "format": "swiss", "rounds": 5}
    assert client.post("/tournaments/open/create", json=create, headers=auth).status_code == 201
    r = client.post(
        "/tournaments/open/players",
        content=CSV.encode(),
        headers={**auth, "Content-Type": "text/csv"},
    )
    assert r.status_code == 201, r.text
    r = client.post("/tournaments/open/pair", json={}, headers=auth)
    assert r.status_code == 201, r.text
    body = r.json()
    assert "pairing-allocated bye Doe, Jane;" in body["notes"][0]
    _no_ids(" ".join(body["notes"]))
    assert body["byes"][0]["player_id"] == "doe-jane"  # the ids stay where a machine reads them


def test_a_round_robin_names_the_free_player(db: Path, tmp_path: Path):
    """A Berger table for an odd field: the player without a game is named in the note."""
    entries = tmp_path / "entries.csv"
    entries.write_text(CSV, encoding="utf-8")
    cli_run("create", "rr", "--name", "Club RR", "--format", "round_robin", "--rounds", "5")
    cli_run("register", "rr", "--file", str(entries))
    body = json.loads(cli_run("pair", "rr", "--json"))
    free = [n for n in body["notes"] if "is free in round 1" in n]
    names = {line.split('"')[1] for line in CSV.splitlines()[1:]}
    assert len(free) == 1 and free[0].split(" is free")[0] in names, free
    _no_ids(" ".join(body["notes"]))


def test_a_lot_of_players_is_printed_by_name(db: Path, tmp_path: Path):
    """`arbiter pair` prints the pairing-numbers lot it drew as the players' names with their
    start numbers, in the lot's order (the ids are in --json)."""
    entries = tmp_path / "entries.csv"
    entries.write_text(CSV, encoding="utf-8")
    cli_run("create", "rr", "--name", "Club RR", "--format", "round_robin", "--rounds", "5")
    cli_run("register", "rr", "--file", str(entries))
    text = " ".join(cli_run("pair", "rr").split())
    lot = text[text.index("main/pairing-numbers: ") :].split(" (seed")[0]
    drawn = lot.removeprefix("main/pairing-numbers: ").split(" · ")
    assert len(drawn) == 5 and drawn[0].endswith(" (1)") and drawn[4].endswith(" (5)"), drawn
    _no_ids(text[: text.index("board")])

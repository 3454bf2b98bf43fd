"""An OpenGotha Swiss file imported, then its next round paired by `arbiter pair` and by
`POST /tournaments/{id}/pair` as OpenGotha's Swiss for Go (projections/pairing/go_swiss.py),
not as McMahon (issue 26).

Championnat_Levallois_2018.xml (tests/data/opengotha/real/): criteria NBW, SDC, Rating;
hdCeiling 0; 7 players, 4 rounds planned and played. The organiser plans a fifth round (the
file with `numberOfRounds` 5, as OpenGotha writes it once the round is added). Given the
import, when round 5 is paired, then, worked by hand:

NBW after 4 rounds: Noel 4; Roullier 2; Ravera, Lauzanne, le Galiard 1; Awano, Nasroune 0.
The bye (7 players; OpenGotha `chooseAByePlayer`, no byes yet): the lowest rank + 2 x MMS
(bar 9D, floor 30K: start = rank + 30; genMMS2ValueAbsent ½ per round without a game, their
sum rounded down): le Galiard 9k, 21 + 1 win + ½ (round 4) rounded down = 22, -9 + 44 = 35;
next Nasroune 8k, 22 + 1½ rounded down = 23, -8 + 46 = 38. Then, in NBW order (Rating within a
group: Ravera 1688 before Lauzanne 1527; Awano 1741 before Nasroune 1318): Noel, alone on 4,
floats down; Roullier (NBW 2, met in round 3) is a rematch, so Noel takes the first of NBW 1,
Ravera. Roullier, alone on 2, floats to the next left, Lauzanne (not met). Awano - Nasroune.
Colours: Ravera had White twice, Noel four times: Ravera White; Roullier (W, B, B) and
Lauzanne (B, B, W) level: the higher placed Roullier White; Awano (B, B) against Nasroune
(W): Awano White. No handicap. McMahon would group them by MMS (start from the ranks) instead.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from tests_support import cli_db, cli_json, cli_ok, cli_run

from events_schema import Actor
from services.api.app import create_app
from services.commands.auth import TokenStore
from services.eventlog.sqlite import SQLiteEventLog
from services.interchange.opengotha import import_opengotha

LEVALLOIS = (
    Path(__file__).resolve().parents[2]
    / "data"
    / "opengotha"
    / "real"
    / "Championnat_Levallois_2018.xml"
)
# Players in file order: p001 Lauzanne, p002 Awano, p003 Nasroune, p004 Roullier, p005 Noel,
# p006 le Galiard, p007 Ravera.
ROUND_5 = [("p007", "p005"), ("p004", "p001"), ("p002", "p003")]


def with_five_rounds(tmp_path: Path) -> Path:
    text = LEVALLOIS.read_bytes().replace(b'numberOfRounds="4"', b'numberOfRounds="5"', 1)
    path = tmp_path / "Championnat_Levallois_2018_5.xml"
    path.write_bytes(text)
    return path


def test_arbiter_pair_gives_the_imported_swiss_its_swiss_round_5(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cli_db(tmp_path, monkeypatch)
    cli_ok("import", "opengotha", str(with_five_rounds(tmp_path)), "--tournament", "lev")
    paired = cli_json("pair", "lev")
    assert paired["system"] == "go-swiss" and paired["round"] == 5
    assert [(p["white"], p["black"]) for p in paired["pairings"]] == ROUND_5
    assert [p["handicap"] for p in paired["pairings"]] == [0, 0, 0]
    assert paired["byes"] == [{"player_id": "p006", "kind": "pairing_allocated"}]
    # Round 5 is the last planned: nothing more to pair, refused by name.
    said = cli_run("pair", "lev", code=1)
    assert "go_swiss.complete" in said and "5 rounds are all scheduled" in said


def test_the_file_as_published_has_no_round_5_to_pair(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cli_db(tmp_path, monkeypatch)
    cli_ok("import", "opengotha", str(LEVALLOIS), "--tournament", "lev")
    said = cli_run("pair", "lev", code=1)
    assert "go_swiss.complete" in said and "4 rounds are all scheduled" in said


def test_post_pair_gives_the_same_swiss_round(tmp_path: Path) -> None:
    log = SQLiteEventLog(tmp_path / "events.sqlite3")
    try:
        tokens = TokenStore(tmp_path / "tokens.sqlite3")
        import_opengotha(
            log,
            with_five_rounds(tmp_path).read_bytes(),
            tournament_id="lev",
            actor=Actor(id="td", role="admin"),
            file_name="lev.xml",
        )
        client = TestClient(create_app(log, tokens))
        token = tokens.create("arbiter", "ref-1", ["lev"])[0]
        res = client.post(
            "/tournaments/lev/pair", json={}, headers={"Authorization": f"Bearer {token}"}
        )
        assert res.status_code == 201, res.text
        body = res.json()
        assert body["system"] == "go-swiss"
        assert [(p["white"], p["black"]) for p in body["pairings"]] == ROUND_5
    finally:
        log.close()

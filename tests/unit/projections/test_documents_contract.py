"""The projection contract (`events_schema.documents`): every published document, built from
real streams (the demo log, TRF goldens, a Galway tournament paired by the service, a GCT
playoff, a prize split, a GCT tour playoff), validates against its model and its exported JSON
Schema; no number is a float and no display string stands for one."""

from __future__ import annotations

import json
from decimal import Decimal as D
from fractions import Fraction
from typing import Any

import jsonschema_rs
import pytest
import test_decider_playoff_guards as guards
from builders import ADMIN, batch, created, gct_event_played, player, prizes, recorded, result
from goldens import GOLDEN, STANDINGS_GOLDENS, golden_table, imported_golden

from events_schema import Recorded
from events_schema.codec import dumps
from events_schema.documents import DOCUMENT_VERSION, exact, validate_document
from events_schema.envelope import Envelope
from events_schema.upcasters import upcast
from projections.documents import PROJECTION_VERSION, documents
from projections.standings import fold
from projections.standings.grid import tiebreak_columns
from services.cli.schema_export import DEFAULT_DIR
from services.commands.service import CommandService
from services.eventlog.sqlite import SQLiteEventLog


def _schema(name: str) -> dict[str, Any]:
    path = DEFAULT_DIR / "projections" / f"{name}.v{DOCUMENT_VERSION}.json"
    return dict(json.loads(path.read_bytes()))


def _no_floats(node: Any, where: str = "") -> None:
    assert not isinstance(node, float), f"a float at {where}"
    if isinstance(node, dict):
        for k, v in node.items():
            _no_floats(v, f"{where}.{k}")
    elif isinstance(node, list):
        for i, v in enumerate(node):
            _no_floats(v, f"{where}[{i}]")


def _check(docs: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    out = {}
    for name, doc in docs.items():
        # As published: the canonical bytes, read back.
        body = json.loads(dumps(doc))
        assert body["version"] == PROJECTION_VERSION == DOCUMENT_VERSION
        validate_document(body)
        jsonschema_rs.validate(_schema(name), body)
        _no_floats(body, name)
        out[name] = body
    return out


def _docs(tid: str, records: list[Recorded]) -> dict[str, dict[str, Any]]:
    return _check(documents(fold(records), tid))


def test_the_demo_log() -> None:
    lines = (GOLDEN / "demo-rr.events.jsonl").read_bytes().splitlines()
    docs = _docs("demo", [Recorded.of(Envelope.model_validate_json(x)) for x in lines])
    ana = docs["standings"]["data"]["rows"][0]
    assert ana["score"] == {"half_points": 5, "value": "2.5", "display": "2½"}
    assert {"kind", "rating", "federation", "title", "fide_id"} <= set(ana)
    values = docs["tiebreaks"]["data"]["rows"][0]["values"]
    sb = next(v for v in values.values() if v["criterion"] == "fide-sonneborn-berger")
    assert sb == {
        "criterion": "fide-sonneborn-berger",
        "unit": "points",
        "value": "2.75",
        "display": "2¾",
    }


@pytest.mark.parametrize("name", sorted(STANDINGS_GOLDENS))
def test_trf_goldens_tiebreak_values_are_exact(name: str) -> None:
    table = golden_table(name)
    for row in table.rows:
        for key, cell in row.cells:
            assert cell.display == dict(row.tiebreaks)[key]
            if cell.value is not None and cell.unit == "points":
                assert isinstance(cell.value, str)
                Fraction(cell.value)  # exact decimal or p/q


def test_a_gct_playoff_and_its_prizes() -> None:
    _check(documents(fold(recorded("t1", guards.gct_after_rr())), "t1"))
    events = [*guards.gct_after_rr(), guards.BYE_LOT]
    docs = _docs("t1", recorded("t1", events))
    stage = docs["playoff"]["data"]["stages"][0]
    assert stage["scores"]["t1"] == {"half_points": 2, "value": "1", "display": "1"}
    table = prizes("40000", "20000", "10000", "6000")
    prize_events = gct_event_played(prize_table=table, points_table=[D(12), D(10), D(8), D("6.5")])
    docs = _docs("rb1", recorded("rb1", prize_events))
    assert docs["prizes"]["data"]["currency"] == "USD"
    assert docs["prizes"]["data"]["lines"][2]["tour_points"] == "7.25"


def test_a_gct_tour_playoff() -> None:
    _check(documents(fold(recorded("tour", guards.tour())), "tour"))


def test_a_galway_tournament_paired_by_the_service() -> None:
    from services.commands.pairing import pair_next

    tid = "galway-contract"
    ratings = {f"p{i:02d}": 2400 - 50 * (i - 1) for i in range(1, 17)}
    with SQLiteEventLog(":memory:") as log:
        service = CommandService(log)
        entries = [player(p, r) for p, r in ratings.items()]
        service.handle(tid, batch(created(fmt="porous_swiss", rounds=6), *entries), ADMIN)
        paired = pair_next(service, tid, ADMIN, seed="galway")
        results = [result(p.game_id, "1-0") for p in paired.round.pairings]
        service.handle(tid, batch(*results), ADMIN)
        records = [Recorded.of(e) for e in log.read(tid, 1)]
    docs = _docs(tid, records)
    sections = docs["standings"]["data"]["sections"]
    assert sections["sections"], sections
    top = sections["sections"][0]["top_score"]
    assert top["half_points"] == 2 and top["value"] == "1" and top["display"] == "1"


def test_exact_numbers() -> None:
    assert exact(Fraction(17, 2)) == "8.5"
    assert exact(Fraction(227, 4)) == "56.75"
    assert exact(Fraction(31, 3)) == "31/3"
    assert exact(Fraction(-5, 2)) == "-2.5"
    assert exact(Fraction(1, 40)) == "0.025"
    assert exact(Fraction(6)) == 6 and exact(7) == 7


def test_player_registered_v3_is_upcast_to_v4_without_a_fide_id() -> None:
    v3 = {"player_id": "p1", "name": "A", "kind": "human", "go_rank": None}
    assert upcast("PlayerRegistered", 3, v3, 4)["fide_id"] is None
    assert upcast("PlayerRegistered", 1, {"player_id": "p", "name": "A"}, 4)["fide_id"] is None


def test_every_criterion_that_can_be_a_column_has_a_unit():
    """A tiebreak column carries its criterion's unit and exact value, which the criterion
    declares where it is registered (`registry.criterion(unit=, reading=)`): every
    non-terminal criterion has both, and its unit is one the documents allow."""
    from events_schema.documents import TIEBREAK_UNITS
    from projections.tiebreaks.registry import REGISTRY

    missing = [
        name
        for name, crit in REGISTRY.items()
        if not crit.terminal and (crit.unit not in TIEBREAK_UNITS or crit.reading is None)
    ]
    assert missing == []
    assert all(REGISTRY[n].unit is None for n in ("shared-place", "organisers-decide"))


def test_tiebreak_columns_are_headed_in_words_the_article_kept_apart() -> None:
    """Issue 24 item 4: a spectator reads "Buchholz cut 1", not "Buchholz Cut-1 (C.07 2024)";
    the document carries the heading in words (the CLI's, `tiebreak_columns`) beside the
    label and source that cite the article, for the live page and the console to show."""
    table = golden_table("fide-c07-art16-unplayed")
    state = imported_golden(
        "fide-c07-art16-unplayed", *STANDINGS_GOLDENS["fide-c07-art16-unplayed"]
    )
    columns = _check(documents(state, "t"))["tiebreaks"]["data"]["columns"]
    by_key = {c["key"]: c for c in columns}
    assert by_key["buchholz-cut1"] == {
        "key": "buchholz-cut1",
        "label": "Buchholz Cut-1 (C.07 2024)",
        "source": "FIDE C.07 2024, 8.1, 16.3-16.5, 14.1",
        "heading": "Buchholz cut 1",
    }
    assert [(c["key"], c["heading"]) for c in columns] == [
        (c.key, c.heading) for c in tiebreak_columns(table)
    ]
    for c in columns:
        assert "C.07" not in c["heading"] and "(" not in c["heading"], c
    # A document published before the field existed still validates (optional within v6).
    old = json.loads(dumps(documents(state, "t")["tiebreaks"]))
    for c in old["data"]["columns"]:
        del c["heading"]
    validate_document(old)
    jsonschema_rs.validate(_schema("tiebreaks"), old)

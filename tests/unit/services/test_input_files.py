"""The organiser's input files (services/inputs.py): each worked example in docs/examples/ is
accepted, each kind's JSON Schema is exported and committed beside the events' (so a model
changed without `arbiter schema export` fails `arbiter schema check`), and a file with several
mistakes is refused with all of them, each with its place."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from events_schema.inputs import CoinTossChoice, path
from services.cli.schema_export import DEFAULT_DIR, drift, export, schemas
from services.commands.service import CommandRejected
from services.inputs import EXAMPLES_DIR, INPUTS, check, read

KINDS = sorted(INPUTS)


def test_the_four_inputs_are_documented() -> None:
    assert KINDS == ["coin-toss-choice", "go-settings", "prize-table", "season-plan"]


@pytest.mark.parametrize("kind", KINDS)
def test_each_example_is_accepted_and_its_schema_is_committed(kind: str) -> None:
    k = INPUTS[kind]
    example = EXAMPLES_DIR / k.example
    model = read(kind, example, "FILE")
    assert isinstance(model, k.model())
    committed = json.loads((DEFAULT_DIR / "inputs" / f"{kind}.schema.json").read_text())
    assert committed == k.schema()
    assert committed["x-example"] == f"docs/examples/{k.example}"
    # Every key the example writes is a property the schema publishes.
    assert set(json.loads(example.read_text())) <= set(committed["properties"])


def test_the_committed_schemas_include_the_inputs_and_match_the_models() -> None:
    assert {f"inputs/{k}.schema.json" for k in KINDS} <= set(schemas())
    assert drift(DEFAULT_DIR) == []


def test_a_changed_input_schema_is_drift(tmp_path: Path) -> None:
    export(tmp_path)
    assert drift(tmp_path) == []
    target = tmp_path / "inputs" / "season-plan.schema.json"
    target.write_text(target.read_text().replace('"engines"', '"motors"'))
    (tmp_path / "inputs" / "go-settings.schema.json").unlink()
    assert drift(tmp_path) == ["inputs/go-settings.schema.json", "inputs/season-plan.schema.json"]


def test_the_season_plan_schema_lists_the_formats() -> None:
    fmt = INPUTS["season-plan"].schema()["properties"]["format"]
    assert fmt["enum"] == ["tcec-4k", "tcec-frd", "tcec-leagues", "tcec-season", "tcec-swiss-cup"]


def test_a_plan_with_three_mistakes_is_refused_with_all_three() -> None:
    """A schema error (a rating over 4000), a key the format does not read and an engine the
    field names but `engines` does not list: one refusal, three problems, each placed."""
    plan = json.loads((EXAMPLES_DIR / "season-plan.json").read_text())
    plan["engines"][1]["rating"] = 9000
    plan["holder"] = "stockfish"
    plan["field"][3] = "komodo"
    with pytest.raises(CommandRejected) as exc:
        check("season-plan", plan)
    found = [(p.rule, p.field) for p in exc.value.errors]
    assert found == [
        ("season.invalid_plan", "plan.engines[1].rating"),
        ("season.invalid_plan", "plan.holder"),
        ("season.invalid_plan", "plan.field"),
    ]
    assert "komodo not in plan.engines" in exc.value.errors[2].message
    assert (exc.value.rule, exc.value.field) == found[0]  # the first stays the refusal's own


def test_an_engine_refused_by_the_schema_still_counts_as_listed() -> None:
    plan = json.loads((EXAMPLES_DIR / "season-plan.json").read_text())
    plan["engines"][0]["name"] = ""  # stockfish's entry is refused, its id is still read
    with pytest.raises(CommandRejected) as exc:
        check("season-plan", plan)
    assert [p.field for p in exc.value.errors] == ["plan.engines[0].name"]


def test_a_prize_table_names_every_mistake_with_a_place_paid_twice() -> None:
    raw = {
        "currency": "usd",
        "prizes": [{"place": 1, "amount": "10.001"}, {"place": 1, "amount": "5"}],
    }
    with pytest.raises(CommandRejected) as exc:
        check("prize-table", raw)
    assert [p.field for p in exc.value.errors] == [
        "prize_table.currency",
        "prize_table.prizes[0].amount",
        "prize_table.prizes[0].place",
        "prize_table.prizes[1].place",
    ]


def test_go_settings_name_every_mistake() -> None:
    raw = {"mcmahon_bar": "10d", "handicap": "always", "late_forfeit_minutes": 0}
    with pytest.raises(CommandRejected) as exc:
        check("go-settings", raw)
    assert [p.field for p in exc.value.errors] == [
        "go.mcmahon_bar",
        "go.handicap",
        "go.late_forfeit_minutes",
    ]


def test_a_file_that_is_not_json_names_its_line_and_column(tmp_path: Path) -> None:
    bad = tmp_path / "plan.json"
    bad.write_text('{"format": "tcec-4k",\n  "engines": [}\n')
    with pytest.raises(CommandRejected) as exc:
        read("season-plan", bad, "--plan")
    assert exc.value.field == "--plan" and "line 2 column 15" in exc.value.message


def test_paths_name_list_entries_with_brackets() -> None:
    assert path("plan", ("engines", 0, "rating")) == "plan.engines[0].rating"
    assert CoinTossChoice(game_id="g1", winner_plays="black").winner_plays == "black"

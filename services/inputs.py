"""The organiser's input files: which model each is, its worked example, the command that reads
it, and reading one with every problem named at once.

- the season plan: `projections.seasons.SeasonPlan`, docs/examples/season-plan.json, read by
  `arbiter season start S --plan FILE`;
- the prize table: `events_schema.events.PrizeTable`, docs/examples/prize-table.json, read by
  `arbiter prize-table T FILE` (or given as `TournamentCreated.prize_table`);
- the Go settings: `events_schema.go.GoSettings`, docs/examples/go-settings.json, given as
  `TournamentCreated.go`;
- the GCT coin toss winner's choice: `events_schema.inputs.CoinTossChoice`,
  docs/examples/coin-toss-choice.json, read by `arbiter playoff T --schedule --toss-choice`.

Their JSON Schema is exported by `arbiter schema export` under `events_schema/json/inputs/`
(`services/cli/schema_export.py`), so an editor can check a file as it is written; `arbiter
schema validate KIND FILE` checks one here. A file that is not JSON is refused with its line and
column; a file the model refuses is refused with ALL its problems (`CommandRejected.errors`),
each with its place (`plan.engines[0].rating`), and nothing is appended.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from events_schema.inputs import Problem, problems
from services.commands.service import CommandRejected

EXAMPLES_DIR = Path(__file__).resolve().parents[1] / "docs" / "examples"


@dataclass(frozen=True)
class InputKind:
    """One kind of input file: its model, the root its problems are named under, the rule a
    problem breaks, its example file (in docs/examples/) and the command that reads it."""

    name: str
    model: Callable[[], type[BaseModel]]  # imported when asked: `arbiter --help` stays light
    root: str
    rule: str
    example: str
    command: str
    # A reader that checks more than the schema (the season plan: its format's rules), naming
    # every problem; None: the model's own validation.
    check: Callable[[Any], tuple[BaseModel | None, list[Problem]]] | None = None

    def schema(self) -> dict[str, Any]:
        """The model's JSON Schema, with the kind, its example and its command."""
        schema = self.model().model_json_schema()
        schema["x-input"] = self.name
        schema["x-example"] = f"docs/examples/{self.example}"
        schema["x-read-by"] = self.command
        if self.name == "season-plan":
            from projections.seasons import FORMATS

            # The formats are the season registry's (projections/seasons/view.py FORMATS);
            # the model keeps a string so an unknown one is refused by name, with the list.
            schema["properties"]["format"]["enum"] = sorted(FORMATS)
        return schema


def _season_plan() -> type[BaseModel]:
    from projections.seasons import SeasonPlan

    return SeasonPlan


def _prize_table() -> type[BaseModel]:
    from events_schema.events import PrizeTable

    return PrizeTable


def _check_prize_table(raw: Any) -> tuple[BaseModel | None, list[Problem]]:
    from services.commands.prize_table import check_table

    return check_table(raw)


def _go_settings() -> type[BaseModel]:
    from events_schema.go import GoSettings

    return GoSettings


def _coin_toss_choice() -> type[BaseModel]:
    from events_schema.inputs import CoinTossChoice

    return CoinTossChoice


def _check_season_plan(raw: Any) -> tuple[BaseModel | None, list[Problem]]:
    from projections.seasons.view import check_plan

    return check_plan(raw)


INPUTS: dict[str, InputKind] = {
    k.name: k
    for k in (
        InputKind(
            "season-plan",
            _season_plan,
            "plan",
            "season.invalid_plan",
            "season-plan.json",
            "arbiter season start SERIES --plan FILE",
            _check_season_plan,
        ),
        InputKind(
            "prize-table",
            _prize_table,
            "prize_table",
            "prizes.invalid_table",
            "prize-table.json",
            "arbiter prize-table TOURNAMENT FILE (or TournamentCreated.prize_table)",
            _check_prize_table,
        ),
        InputKind(
            "go-settings",
            _go_settings,
            "go",
            "go.invalid_settings",
            "go-settings.json",
            "TournamentCreated.go (arbiter append T --type TournamentCreated)",
        ),
        InputKind(
            "coin-toss-choice",
            _coin_toss_choice,
            "toss_choice",
            "playoff.invalid_toss_choice",
            "coin-toss-choice.json",
            "arbiter playoff TOURNAMENT --schedule --toss-choice GAME=white|black",
        ),
    )
}


def read_json(path: Path, option: str, rule: str) -> Any:
    """The JSON value in `path`; refused (`rule`, `option`) when the file cannot be read or is
    not JSON, naming the line and column of the first syntax error (JSON stops there)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise CommandRejected(rule, option, f"{path}: {exc}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise CommandRejected(
            rule, option, f"{path}: not JSON: line {exc.lineno} column {exc.colno}: {exc.msg}"
        ) from None


def check(kind: str, raw: Any) -> BaseModel:
    """`raw` read as the input `kind`; refused with every problem found (`CommandRejected.of`)."""
    k = INPUTS[kind]
    if k.check is not None:
        model, found = k.check(raw)
        if found or model is None:
            raise CommandRejected.of(found or [Problem(k.rule, k.root, "not readable")])
        return model
    try:
        return k.model().model_validate(raw)
    except ValidationError as exc:
        raise CommandRejected.of(problems(exc, k.rule, k.root)) from None


def read(kind: str, path: Path, option: str) -> BaseModel:
    """The input file `path` (given with `option`) read as `kind`, every problem named."""
    return check(kind, read_json(path, option, INPUTS[kind].rule))

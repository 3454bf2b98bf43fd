"""The report of an SGF import: a row per game (`SgfGameReport`: the SGF's RE beside
Arbiter's ending and count, why they disagree, notes) and the import's (`SgfImportReport`), as
the CLI prints them and `--json` writes them."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from services.interchange.game_import import GameRow, GamesReport


@dataclass(kw_only=True)
class SgfGameReport(GameRow):
    file: str
    index: int
    black: str  # names
    white: str
    counted: str | None = None  # Arbiter's count ("B+2.5"), when it counted
    notes: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "index": self.index,
            "game_id": self.game_id,
            "round": self.round,
            "black": self.black,
            "white": self.white,
            **self.ending_fields(),
            "counted": self.counted,
            **self.source_fields(),
            "notes": self.notes,
        }


@dataclass
class SgfImportReport(GamesReport[SgfGameReport]):
    tournament_id: str
    files: list[str]
    digest: str
    adjudicate: bool
    board_size: int
    komi: Decimal
    players: int
    rounds: int

    def as_dict(self) -> dict[str, Any]:
        return {
            "tournament_id": self.tournament_id,
            "files": self.files,
            "digest": self.digest,
            "adjudicate": self.adjudicate,
            "board_size": self.board_size,
            "komi": str(self.komi),
            "players": self.players,
            "rounds": self.rounds,
            **self.summary(
                [
                    {"game_id": g.game_id, "file": g.file, "index": g.index, "why": g.why}
                    for g in self.disagreements
                ]
            ),
            "game_rows": [g.as_dict() for g in self.games],
        }

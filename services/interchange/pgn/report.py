"""The report of a PGN import: a row per game (`GameReport`: the file's ending beside
Arbiter's, and why they disagree) and the import's (`ImportReport`), as the CLI prints them
and `--json` writes them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from services.interchange.game_import import GameRow, GamesReport


@dataclass(kw_only=True)
class GameReport(GameRow):
    index: int
    line: int
    round_header: str
    white: str
    black: str
    in_progress: bool = False  # no final result in the movetext: no ending recorded

    def as_dict(self) -> dict[str, Any]:
        return {
            "in_progress": self.in_progress,
            "index": self.index,
            "line": self.line,
            "round_header": self.round_header,
            "game_id": self.game_id,
            "round": self.round,
            "white": self.white,
            "black": self.black,
            **self.ending_fields(),
            **self.source_fields(),
        }


@dataclass
class ImportReport(GamesReport[GameReport]):
    tournament_id: str
    file: str
    digest: str
    rules: str | None
    adjudicate: bool
    players: int
    rounds: int
    # What the file says that was not recorded, each with its line (issue 26 item 6: never
    # dropped without a word): "line 12: TimeControl '40/7200:3600' not recorded: …".
    notes: list[str] = field(default_factory=list)

    @property
    def in_progress(self) -> list[GameReport]:
        """The games whose movetext has no final result yet (the relay continues them)."""
        return [g for g in self.games if g.in_progress]

    def as_dict(self) -> dict[str, Any]:
        return {
            "tournament_id": self.tournament_id,
            "file": self.file,
            "digest": self.digest,
            "rules": self.rules,
            "adjudicate": self.adjudicate,
            "players": self.players,
            "rounds": self.rounds,
            **self.summary(
                [
                    {"game_id": g.game_id, "index": g.index, "line": g.line, "why": g.why}
                    for g in self.disagreements
                ]
            ),
            "in_progress": [g.game_id for g in self.in_progress],
            "notes": self.notes,
            "game_rows": [g.as_dict() for g in self.games],
        }

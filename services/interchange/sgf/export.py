"""SGF export (`arbiter export sgf TOURNAMENT GAME`): one Go game of the log as an SGF file,
written with sgfmill (`Sgf_game`, `set`, `set_setup_stones`, `extend_main_sequence`,
`set_move`, `serialise`).

What is written, from the tournament fold (`projections.tournament`) and the records:

- SZ the tournament's `board_size`; KM the komi Arbiter counts the game with (LGC Scoring:
  the tournament's komi in an even game, 0.5 with handicap stones, `go_play.komi`); HA the
  handicap and, from 2 stones, AB the fixed handicap points (`projections/go/handicap.py`);
- PB/PW the players' names, BR/WR their `go_rank` when known; EV the tournament's name, RO
  the round, GN the game id; DT the tournament's `starts_on` (and `ends_on` when it differs);
- RE from the result in force: a count with a margin ("B+2.5", "W+0.5", "0" for jigo, from
  the `GoScore` of the `GameEnded`); an ending recorded as its source said ("arena: …") the
  source's RE verbatim when it names the same winner (`GameSource.details`, as
  `services/interchange/sgf/` keeps it: an imported "B+3.5" Arbiter did not count stays
  "B+3.5");
  else "B+R"/"W+R" resignation, "+T" loss on time, "+F" forfeit, "B+"/"W+" any other win, "0"
  a draw, "Void" a double loss; no RE without a result;
- the moves in force (B/W nodes, a pass as sgfmill writes it): the moves an illegal move
  noticed within three moves unwound are not in force, so not written. Status disputes and
  agreements are not SGF moves and are not written.

An export of an imported game reads back (`read_sgf`) with the same size, handicap, players,
moves and result; the komi is the one Arbiter counted with (the same as KM unless the import
reported that they differ).
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from sgfmill import sgf

from events_schema import Recorded
from events_schema import events as ev
from projections.go.board import parse_point
from projections.go.handicap import handicap_points
from projections.tournament import fold
from projections.tournament.go_play import komi as komi_of
from services.interchange.sgf.parse import margin_text, read_result

_WINNER = {"1-0": "W", "0-1": "B"}  # PGN-style: "1-0" is White's win
_REASON = {"resignation": "R", "time_forfeit": "T", "forfeit": "F"}


class ExportRefused(Exception):
    """The game cannot be exported: the rule, the argument it is about, the reason."""

    def __init__(self, rule: str, field: str, message: str) -> None:
        super().__init__(f"{rule} ({field}): {message}")
        self.rule, self.field, self.message = rule, field, message


def export_sgf(records: Sequence[Recorded], game_id: str) -> bytes:
    """The SGF of game `game_id` of the tournament whose records these are."""
    state = fold(list(records))
    created = state.created
    if created is None:
        raise ExportRefused("sgf.unknown_tournament", "TOURNAMENT", "the tournament has no events")
    if created.game != "go":
        raise ExportRefused(
            "sgf.not_go",
            "TOURNAMENT",
            f"{state.stream_id} is a {created.game} tournament: SGF is for Go",
        )
    game = state.games.get(game_id)
    if game is None:
        raise ExportRefused("sgf.unknown_game", "GAME", f"no game {game_id!r} in {state.stream_id}")
    events: dict[Any, ev.Event] = {}
    started: ev.GameStarted | None = None
    for rec in records:
        if rec.envelope.event_id in state.retracted:
            continue
        events[rec.envelope.event_id] = rec.event
        if isinstance(rec.event, ev.GameStarted) and rec.event.game_id == game_id:
            started = rec.event
    size = created.board_size
    handicap = game.go.handicap if game.go is not None else (started.handicap if started else 0)
    out = sgf.Sgf_game(size)
    root = out.get_root()
    root.set("KM", float(komi_of(created, handicap)))
    if handicap:
        root.set("HA", handicap)
    if handicap >= 2:
        root.set_setup_stones(handicap_points(size, handicap), [])
    for pid, name_id, rank_id in ((game.black, "PB", "BR"), (game.white, "PW", "WR")):
        player = state.players.get(pid)
        root.set(name_id, player.name if player is not None else pid)
        if player is not None and player.go_rank:
            root.set(rank_id, player.go_rank)
    root.set("EV", created.name)
    root.set("RO", str(game.round))
    root.set("GN", game_id)
    if created.starts_on is not None:
        days = [created.starts_on]
        if created.ends_on is not None and created.ends_on != created.starts_on:
            days.append(created.ends_on)
        root.set("DT", ",".join(d.isoformat() for d in days))
    result = _result(game.result.event_id if game.result else None, events, started)
    if result is not None:
        root.set("RE", result)
    colour = game.first_to_move
    for point in game.moves:
        node = out.extend_main_sequence()
        node.set_move("b" if colour == "black" else "w", parse_point(point, size))
        colour = "white" if colour == "black" else "black"
    data: bytes = out.serialise()
    return data


def _result(
    event_id: Any, events: dict[Any, ev.Event], started: ev.GameStarted | None
) -> str | None:
    """RE for the result in force (the `GameEnded` or `ResultCorrected` that set it)."""
    ending = events.get(event_id) if event_id is not None else None
    if not isinstance(ending, ev.GameEnded | ev.ResultCorrected):
        return None
    if isinstance(ending, ev.GameEnded):
        score = ending.go_score
        if score is not None and score.margin is not None:
            return margin_text(Decimal(score.margin))
        source = started.source if started is not None else None
        if (ending.rule or "").startswith("arena") and source is not None and source.details:
            said = read_result(source.details)
            if said is not None and said.result == ending.result:
                return said.text
    if ending.result == "1/2-1/2":
        return "0"
    if ending.result == "0-0":
        return "Void"
    if ending.result == "1-1":
        # SGF FF[4] RE has no win for both (OpenGotha's BOTHWIN, issue 26): "?" is its
        # "unknown result"; the decision itself stays in the events.
        return "?"
    winner = _WINNER[ending.result]
    return f"{winner}+{_REASON.get(ending.termination, '')}"

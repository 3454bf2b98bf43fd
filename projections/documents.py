"""The five published projections of a tournament, as plain documents.

Every consumer — the Kafka processors, the embedded runner, the HTTP feed, `arbiter replay` —
builds them with this one function from the same fold, so what the live feed showed at a seq
and what a replay to that seq prints are the same bytes (`events_schema.codec.dumps`).

Their shape is a contract: `events_schema.documents` models each document (and the SSE
messages), states the one convention for numbers (integers; quantity objects ``{"value":
exact, "display": shown}`` for scores and tiebreak values; exact decimal strings for money and
tour points; never a float) and is exported as JSON Schema under
`events_schema/json/projections/`.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from events_schema import events as ev
from events_schema.documents import DOCUMENT_VERSION
from projections.live import crosstable, games_document
from projections.names import PROJECTIONS
from projections.playoffs import PlayoffView, playoff_view
from projections.prizes import event_prizes
from projections.standings import standings
from projections.standings.grid import tiebreak_columns
from projections.standings.sections import galway_sections
from projections.standings.state import StandingsState
from projections.standings.table import Table, column_keys

#: Bump when a document's shape or content rules change: consumers see it in every message.
#: 2: the standings document of a Galway tournament carries its `sections` (section winners).
#: 3: FIDE criteria's labels and sources name the tournament's C.07 edition ("(C.07 2024)",
#:    "(C.07 2026)"); the explanation of AOB lists the opponents whose Buchholz was capped.
#: 4: the projection contract (`events_schema.documents`): no display string stands for a
#:    number. Scores are ``{"half_points", "value", "display"}`` (rows, Galway sections, playoff
#:    stage scores); tiebreak values are ``{"criterion", "unit", "value", "display"}``; rows
#:    carry the registered identity (kind, rating, federation, title, fide_id). JSON Schemas
#:    in events_schema/json/projections/.
#: 5: a fifth document, "games" (`projections/live.py`: the current round's pairings, results,
#:    positions, clocks and evaluations); the standings document carries the main stage's
#:    `crosstable` (per player, per round: opponent, colour, result).
PROJECTION_VERSION = DOCUMENT_VERSION

__all__ = [
    "AFFECTS",
    "EVERY",
    "GAMES",
    "NOTHING",
    "PROJECTIONS",
    "PROJECTION_VERSION",
    "TABLE_READERS",
    "affected",
    "corrections_after_pairing",
    "documents",
]

# -- what an event can change (issue 27 item 3: a move costs what it changes) -----------------
#
# Every document is a function of the standings fold (`StandingsState`, never its `seq`: that
# is the message's `as_of_seq`, outside `data`), so an event can change only the documents
# that read what it changes in that fold. The projector builds and serialises only those
# (`services/projection/projector.py`), and keeps the bytes it last published for the others.

#: Every document: the safe reading of an event, and of any type `AFFECTS` does not name.
EVERY: frozenset[str] = frozenset(PROJECTIONS)
#: The live games document alone (`projections/live.py`: moves, positions, clocks).
GAMES: frozenset[str] = frozenset({"games"})
#: No document: the standings fold does not read the event at all.
NOTHING: frozenset[str] = frozenset()

#: Event type -> the documents it can change; a type not named here: `EVERY` (a result, a
#: registration, a withdrawal, a pairing, a start, a correction, a retraction, a ruling, a lot,
#: a skipped round, the creation, an unreadable event: the table and everything that reads it).
#: `GAMES` holds only while the event's game exists and has no result in force (`affected`):
#: a game with a result is in the crosstable, whose r-mobility and average-moves criteria read
#: its moves (TCEC Leagues 11.1.3; `projections/tiebreaks/tcec.py`). Not `GameStarted` nor
#: `ColourErrorNoticed`: they set a Go game's handicap and colours, which the McMahon criteria
#: read for a game without a result too (OpenGotha RESULT_UNKNOWN, `Unresulted`).
#: `tests/unit/projections/test_documents_affected.py` checks it against the fold: a `NOTHING`
#: type has no apply in `projections/standings/state.py`, a `GAMES` type is one the incremental
#: standings leave the table alone for.
AFFECTS: Mapping[type[ev.Event], frozenset[str]] = {
    # A game's progress: its moves in force and its clocks (the standings never read a clock).
    ev.MovePlayed: GAMES,
    ev.IllegalMoveNoticed: GAMES,  # LGC Irregularities "Illegal move": unwound
    ev.PositionDisturbed: GAMES,  # LGC Irregularities "Position disturbance": unwound, restarted
    ev.ClockReported: GAMES,
    ev.ClockSet: GAMES,  # LGC Irregularities "Timing error" / "Faulty clock"
    # What the standings fold does not read (the decider's fold and the edges do).
    ev.SeriesCreated: NOTHING,
    ev.ClockPaused: NOTHING,
    ev.ClockResumed: NOTHING,
    ev.ClockStarted: NOTHING,
    ev.GoStatusAgreed: NOTHING,
    ev.GoStatusDisputed: NOTHING,
    ev.PlayerArrived: NOTHING,
    ev.EngineCrashed: NOTHING,
    ev.ServerInterrupted: NOTHING,
    ev.AdjudicationIssued: NOTHING,
    ev.SanctionIssued: NOTHING,
    ev.AppealFiled: NOTHING,
    ev.AppealDecided: NOTHING,
    ev.AppealsCommitteeFormed: NOTHING,
    ev.ProtestStated: NOTHING,
    ev.TournamentPaused: NOTHING,
    ev.TournamentResumed: NOTHING,
    ev.BroadcastDelaySet: NOTHING,
}


def affected(event: ev.Event, state: StandingsState) -> frozenset[str]:
    """The documents `event` can change when folded onto `state` (the fold before it):
    `AFFECTS` of its type, `EVERY` for a type it does not name, and `EVERY` for a game's
    progress when the game is unknown or has a result in force."""
    kinds = AFFECTS.get(type(event), EVERY)
    if kinds is GAMES:
        game = state.games.get(getattr(event, "game_id", ""))
        if game is None or game.results:
            return EVERY
    return kinds


def corrections_after_pairing(state: StandingsState) -> list[dict[str, Any]]:
    """Results corrected after a later round of the same stage was paired: the pairing of that
    round may rest on the old result, so the arbiter is told (TCEC Swiss 7.d describes such a
    case; every rulebook lets the arbiter decide what to do)."""
    flags = []
    for game in state.games.values():
        if len(game.results) < 2:
            continue
        corrected_at = game.results[-1][1]
        later = sorted(
            {
                g.round
                for g in state.games.values()
                if g.stage == game.stage and g.round > game.round and g.scheduled_seq < corrected_at
            }
        )
        if later:
            flags.append(
                {
                    "kind": "correction_after_pairing",
                    "game_id": game.game_id,
                    "stage": game.stage,
                    "round": game.round,
                    "corrected_at_seq": corrected_at,
                    "rounds_paired_before": later,
                    "text": f"{game.game_id} (round {game.round}) was corrected at seq "
                    f"{corrected_at}, after round(s) {', '.join(map(str, later))} had been "
                    "paired",
                }
            )
    return sorted(flags, key=lambda f: (f["stage"], f["round"], f["game_id"]))


def _standings_doc(table: Table, state: StandingsState) -> dict[str, Any]:
    rows = []
    for r in table.rows:
        row = r.as_dict()
        row.pop("tiebreaks")
        row.pop("decided_by")
        rows.append(row)
    body: dict[str, Any] = {
        "rows": rows,
        "flags": corrections_after_pairing(state),
        "crosstable": crosstable(state, table),
    }
    sections = galway_sections(state, table)
    if sections is not None:
        body["sections"] = sections
    return body


def _tiebreaks_doc(table: Table) -> dict[str, Any]:
    keys = column_keys(table.chain)
    crits = table.chain.criteria()
    # The heading in words is the CLI's (`tiebreak_columns`: two alike get their parameters).
    headings = {c.key: c.heading for c in tiebreak_columns(table)}
    return {
        "chain": [{"name": s.name, "params": dict(s.params)} for s in table.chain.specs],
        # Display order, labels and headings of the value columns (the `values` maps are
        # key-sorted).
        "columns": [
            {"key": key, "label": crit.label, "source": crit.source, "heading": headings[key]}
            for key, (crit, _) in zip(keys, crits, strict=True)
            if not crit.terminal
        ],
        "pairwise_head_to_head": table.chain.options.pairwise_head_to_head,
        "rows": [
            {
                "player_id": r.player_id,
                "place": r.place,
                "shared": r.shared,
                "unresolved": r.unresolved,
                "values": {key: cell.as_dict() for key, cell in r.cells},
                "decided_by": r.decided_by,
            }
            for r in table.rows
        ],
    }


def _playoff_doc(view: PlayoffView | None) -> dict[str, Any]:
    return {"defined": False} if view is None else {"defined": True, **view.as_dict()}


def _prizes_doc(state: StandingsState, table: Table, winner: str | None) -> dict[str, Any]:
    created = state.created
    if created is None or (created.prize_table is None and not created.points_table):
        return {"defined": False}
    try:
        split = event_prizes(state, playoff_winner=winner, table=table)
    except ValueError as exc:
        return {"defined": True, "error": str(exc)}
    return {"defined": True, **split.as_dict()}


#: The documents that read the main stage's ranked table.
TABLE_READERS: frozenset[str] = frozenset({"standings", "tiebreaks", "playoff", "prizes"})


def documents(
    state: StandingsState,
    tournament_id: str,
    table: Table | None = None,
    only: Collection[str] | None = None,
    games_touched: Collection[str] | None = None,
) -> dict[str, dict[str, Any]]:
    """{projection name: message} for the tournament as folded up to `state.seq`, one per
    registered projection (`projections.names.PROJECTIONS`, in its order), or only those in
    `only`. The main stage's table is ranked once (when a document in `only` reads it) and
    shared by the playoff and prize documents; `table`, when given, is that table already
    ranked (`IncrementalStandings.table()`, equal to `standings(state)`). `games_touched`: the
    only games whose facts changed since the games document was last built on this state
    (`projections.live.games_document`); None: any."""
    names = PROJECTIONS if only is None else tuple(n for n in PROJECTIONS if n in only)
    bodies: dict[str, Any] = {}
    if TABLE_READERS.intersection(names):
        if table is None:
            table = standings(state)
        if "standings" in names:
            bodies["standings"] = _standings_doc(table, state)
        if "tiebreaks" in names:
            bodies["tiebreaks"] = _tiebreaks_doc(table)
        if "playoff" in names or "prizes" in names:
            playoff = playoff_view(state, table)
            bodies["playoff"] = _playoff_doc(playoff)
            if "prizes" in names:
                winner = playoff.winner if playoff is not None else None
                bodies["prizes"] = _prizes_doc(state, table, winner)
    if "games" in names:
        bodies["games"] = games_document(state, touched=games_touched)
    return {
        name: {
            "tournament_id": tournament_id,
            "projection": name,
            "version": PROJECTION_VERSION,
            "as_of_seq": state.seq,
            "data": bodies[name],
        }
        for name in names
    }

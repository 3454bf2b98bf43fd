"""Which pairing system a tournament runs, by name only (`system_name`): no pairing code is
imported, so a reader that only needs the name (the CLI's `standings`, deciding whether a
Galway section report applies) does not load every pairing system (`projections.pairing.systems`
holds the systems themselves and re-exports these)."""

from __future__ import annotations

from events_schema import events as ev

SYSTEM_OF_FORMAT: dict[str, str] = {
    "round_robin": "berger",
    "league": "berger",
    "swiss": "dutch",
    "porous_swiss": "galway",
    "cup": "tcec-cup",
    "knockout": "tcec-cup",
    "mcmahon": "mcmahon",
}


def system_name(created: ev.TournamentCreated) -> str | None:
    """The system `arbiter pair` runs for this tournament (None: pairings are entered by
    hand, e.g. a match or a playoff, whose machines prescribe their own games). A Go
    tournament names "mcmahon" or "go-swiss" in `pairing`; without one, format "mcmahon" is
    paired by McMahon unless its criteria start with NBW (OpenGotha's Swiss)."""
    if created.pairing is not None:
        return None if created.pairing == "manual" else created.pairing
    if created.format == "swiss" and (created.rules_preset or "").startswith("tcec-swiss"):
        return "monrad"  # tcec-rules Swiss 2: "Monrad pairing system"
    if (
        created.format == "mcmahon"
        and created.game == "go"
        and created.go is not None
        and created.go.criteria[0] == "NBW"
    ):
        # OpenGotha `TournamentParameterSet.tournamentType`: NBW as the first placement
        # criterion makes the tournament a Swiss (TYPE_SWISS), paired as one
        # (`projections/pairing/go_swiss.py`); a Go tournament stored before "go-swiss"
        # existed, imported from an OpenGotha Swiss file, pairs as a Swiss too.
        return "go-swiss"
    return SYSTEM_OF_FORMAT.get(created.format)

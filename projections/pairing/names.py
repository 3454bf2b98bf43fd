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
    hand, e.g. a match or a playoff, whose machines prescribe their own games)."""
    if created.pairing is not None:
        return None if created.pairing == "manual" else created.pairing
    if created.format == "swiss" and (created.rules_preset or "").startswith("tcec-swiss"):
        return "monrad"  # tcec-rules Swiss 2: "Monrad pairing system"
    return SYSTEM_OF_FORMAT.get(created.format)

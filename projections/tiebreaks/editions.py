"""Which text of the FIDE tie-break regulations (Handbook C.07) a tournament's FIDE criteria
follow: a recorded fact of the tournament, never a clock reading.

The editions (as FIDE's tie-break server groups them, `../shared/rules/fide-c07-2026.md`):

* ``fide-2024``: the texts applied from 1 July 2023 to 28 February 2026 (approved 2023,
  clarified for 1 April 2024 and edited for 1 August 2024; the tie-break definitions did not
  change between them). A participant's own unplayed round is a game against a dummy opponent
  whose score is the participant's own final score (Art. 16.4).
* ``fide-2026``: the text approved by the FIDE Council on 2 February 2026, in force from
  1 March 2026. Art. 16.4 caps the dummy's score: at the scheduled opponent's adjusted score
  for a forfeit (16.4.1), at the points for a draw times the number of rounds for a bye
  (16.4.2).

How they are cited (`citation`): "C.07 2024" and "C.07 2026", the year of the edition's name,
wherever a tie-break's label, source or note names the text a tournament follows (``arbiter
explain``: "Buchholz Cut-1 (C.07 2026)", "... (C.07 2024, 16.4)"; the standings' column labels
and sources: "FIDE C.07 2024, 8.1, 16.3-16.5"). "C.07 2024" is the name of the texts applied
from July 2023 to February 2026 as a group (their first text was approved in 2023; FIDE's server
labels their rules "2024-08-01"). A criterion as registered, without a tournament, names no
edition ("FIDE C.07, 8.1, 16.3-16.5"): the article numbers are the same in both.

Where the edition comes from, in order (`in_force`):

1. `TournamentCreated.tiebreak_edition`, which the decider fills when the creation proposes
   none: the edition in force on `starts_on` (`edition_on`), the newest without a start date
   (the rule FIDE's server applies to a file without a 042 date). A stored creation without
   the field was written before editions were recorded: it keeps the 2024 text it was ranked
   by (the v1 -> v2 upcaster states the same), so no published standings change on replay.
2. An arbiter's ruling, as an event: `RulingIssued` with subject ``"tiebreak_edition"`` and
   decision ``{"edition": "fide-2026"}`` (or ``"fide-2024"``). The latest ruling in force
   wins; a retracted ruling is gone from the fold, and a ruling naming no known edition
   changes nothing (a fold never fails on history).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date
from typing import Literal, get_args

from events_schema import events as ev

Edition = Literal["fide-2024", "fide-2026"]
EDITIONS: tuple[Edition, ...] = get_args(Edition)
NEWEST: Edition = "fide-2026"
#: The edition of a log written before the edition was recorded.
LEGACY: Edition = "fide-2024"
#: The first day each edition is in force. A start before July 2023 (the pre-2023 text with its
#: "virtual opponent", which Arbiter does not implement) gets the oldest edition it does.
IN_FORCE_FROM: dict[Edition, date] = {
    "fide-2024": date(2023, 7, 1),
    "fide-2026": date(2026, 3, 1),
}
#: Short names for citations: "C.07 2026, 16.4.1".
YEAR: dict[Edition, str] = {"fide-2024": "2024", "fide-2026": "2026"}
RULING_SUBJECT = "tiebreak_edition"


def citation(edition: Edition) -> str:
    """How a label or note names the edition: "C.07 2024", "C.07 2026"."""
    return f"C.07 {YEAR[edition]}"


def edition_on(starts_on: date | None) -> Edition:
    """The edition in force on a tournament's start date; the newest when it has none."""
    if starts_on is None:
        return NEWEST
    chosen: Edition = EDITIONS[0]
    for edition in EDITIONS:
        if starts_on >= IN_FORCE_FROM[edition]:
            chosen = edition
    return chosen


def why_on(starts_on: date | None) -> str:
    """The reason `edition_on` gives, in words (for the TRF import and the decider)."""
    edition = edition_on(starts_on)
    if starts_on is None:
        return f"{edition}: no start date, so the newest edition"
    return f"{edition}: the edition in force on the start date {starts_on.isoformat()}"


@dataclass(frozen=True, slots=True)
class EditionInForce:
    edition: Edition
    source: str  # why: "stated at creation (start date 2026-05-02)", "ruling R7", ...

    @property
    def year(self) -> str:
        return YEAR[self.edition]

    @property
    def citation(self) -> str:
        return citation(self.edition)

    def as_dict(self) -> dict[str, str]:
        return {"edition": self.edition, "source": self.source}


#: A crosstable built by hand, without a tournament: the legacy text.
NOT_STATED = EditionInForce(LEGACY, "not stated")


def ruled_edition(ruling: ev.RulingIssued) -> Edition | None:
    """The edition a ruling sets, or None when it is not a (valid) edition ruling."""
    if ruling.subject != RULING_SUBJECT:
        return None
    value = ruling.decision.get("edition")
    for edition in EDITIONS:
        if value == edition:
            return edition
    return None


def in_force(
    created: ev.TournamentCreated | None, rulings: Iterable[ev.RulingIssued] = ()
) -> EditionInForce:
    """The edition in force: the latest edition ruling in force, else the creation's."""
    if created is not None and created.tiebreak_edition is not None:
        when = f", start date {created.starts_on.isoformat()}" if created.starts_on else ""
        found = EditionInForce(created.tiebreak_edition, f"stated at creation{when}")
    else:
        found = EditionInForce(LEGACY, "created before the edition was recorded")
    for ruling in rulings:  # in stream order: the latest wins
        edition = ruled_edition(ruling)
        if edition is not None:
            found = EditionInForce(edition, f"ruling {ruling.ruling_id}")
    return found

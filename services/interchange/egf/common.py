"""What the h9 and AGA writers share: the Go tournament of the log, refused otherwise."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date

from events_schema import Recorded
from projections.standings.state import StandingsState, fold


class ResultsFileRefused(Exception):
    """The tournament cannot be written in this format: the rule, the field, the reason."""

    def __init__(self, rule: str, field: str, message: str) -> None:
        super().__init__(f"{rule} ({field}): {message}")
        self.rule, self.field, self.message = rule, field, message


class ResultsFileError(ValueError):
    """A results file that cannot be read: the line (1-based) and the reason."""

    def __init__(self, line: int, reason: str) -> None:
        super().__init__(f"line {line}: {reason}")
        self.line, self.reason = line, reason


def go_state(records: Sequence[Recorded], kind: str) -> StandingsState:
    """The standings fold of a Go tournament (`<kind>.unknown_tournament`, `<kind>.not_go`)."""
    state = fold(list(records))
    created = state.created
    if created is None:
        raise ResultsFileRefused(
            f"{kind}.unknown_tournament", "TOURNAMENT", "the tournament has no events"
        )
    if created.game != "go":
        raise ResultsFileRefused(
            f"{kind}.not_go",
            "TOURNAMENT",
            f"a {created.game} tournament: the {kind} file reports Go results (chess: "
            "arbiter export trf)",
        )
    return state


def dates(records: Sequence[Recorded], state: StandingsState) -> tuple[date, date]:
    """The tournament's first and last days: `starts_on`/`ends_on` as created, else the days
    its first and last events occurred."""
    created = state.created
    assert created is not None
    first = records[0].envelope.occurred_at.date() if records else date(1970, 1, 1)
    last = records[-1].envelope.occurred_at.date() if records else first
    start = created.starts_on or first
    end = created.ends_on or max(start, last)
    return start, end


def rating_ids(state: StandingsState) -> dict[str, dict[str, str]]:
    """Each player's rating-body ids where Arbiter knows them: `egd_pin` (EGD PIN) and
    `aga_id`, from the values an OpenGotha import kept (its `egfPin` and `agaId`
    attributes, `opengotha:players` rulings); a player without them has no entry."""
    from services.interchange.opengotha.plan import PLAYERS_SUBJECT

    out: dict[str, dict[str, str]] = {}
    for ruling in state.rulings.values():
        if ruling.subject != PLAYERS_SUBJECT:
            continue
        for pid, attrs in dict(ruling.decision.get("players", {})).items():
            ids = {
                ours: str(attrs.get(theirs, "")).strip()
                for ours, theirs in (("egd_pin", "egfPin"), ("aga_id", "agaId"))
                if str(attrs.get(theirs, "")).strip()
            }
            if ids:
                out[str(pid)] = ids
    return out

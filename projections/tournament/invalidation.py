"""TCEC Swiss 7.d: "a system crash or server disconnect ... the tournament should pause. If it
is not paused, and an automated pairing has been made and played which would not have been
made if the tournament had been paused, then those games ... and the pairing ... are
invalidated, and the tournament restarts from the game and point of the crash."

As events, never by deleting: the organisers issue a `RulingIssued` with `rule` citing
"tcec-rules Swiss 7.d" and `decision={"invalidates_round": "<RoundScheduled event id>"}`;
the decider then accepts the `EventRetracted` of that round although games of it were played
(normally `retraction.round_in_play`), which removes the round and its games from both folds
(the games' events stay in the log, as history). The round can then be paired again
(`arbiter pair`)."""

from __future__ import annotations

from uuid import UUID

from events_schema import events as ev

RULE = "tcec-rules Swiss 7.d"
KEY = "invalidates_round"


def invalidated_round(ruling: ev.RulingIssued) -> UUID | None:
    """The RoundScheduled event id a Swiss 7.d ruling invalidates, or None."""
    if "7.d" not in ruling.rule or KEY not in ruling.decision:
        return None
    try:
        return UUID(str(ruling.decision[KEY]))
    except ValueError:
        return None

"""A game's result from one side, and the points it scores: the one place results become
points, for the standings (crosstable) and every playoff machine.

A `Result` ("1-0", "0-1", "1/2-1/2", "0-0", "1-1") and a colour give one closed `Outcome` per
side: "win", "draw" or "loss". "0-0" is a double loss: a "loss" for each side; "1-1" (Go,
OpenGotha RESULT_BOTHWIN) a "win" for each. Under GCT 2.5.2
(`armageddon`) "In the event of a draw Black shall be declared the winner."
`points(outcome, scoring, forfeit=...)` turns an outcome into half-points under a tournament's
`Scoring`: a forfeit scores `forfeit_win` for the winner and `forfeit_loss` otherwise.
"""

from __future__ import annotations

from typing import Literal

from events_schema import events as ev

Outcome = Literal["win", "draw", "loss"]
Colour = Literal["white", "black"]

#: 1 / ½ / 0 in half-points, forfeits as wins and losses: the playoffs' own scoring (GCT 2.3,
#: 4.6–4.11), whatever the event's scoring is.
STANDARD = ev.Scoring()


def outcomes(result: ev.Result | str, *, armageddon: bool = False) -> tuple[Outcome, Outcome]:
    """(White's, Black's) outcome of a result; anything but a win or a draw ("0-0") is a
    loss for both."""
    if result == "1/2-1/2":
        # GCT 2.5.2: "In the event of a draw Black shall be declared the winner."
        return ("loss", "win") if armageddon else ("draw", "draw")
    if result == "1-0":
        return "win", "loss"
    if result == "0-1":
        return "loss", "win"
    if result == "1-1":  # OpenGotha RESULT_BOTHWIN: both win
        return "win", "win"
    return "loss", "loss"  # "0-0": both lose


def outcome(result: ev.Result | str, colour: Colour, *, armageddon: bool = False) -> Outcome:
    """The outcome of `result` for the side playing `colour`."""
    white, black = outcomes(result, armageddon=armageddon)
    return white if colour == "white" else black


def points(outcome: Outcome, scoring: ev.Scoring, *, forfeit: bool = False) -> int:
    """Half-points of one side's outcome under `scoring`."""
    if forfeit:
        return scoring.forfeit_win if outcome == "win" else scoring.forfeit_loss
    if outcome == "win":
        return scoring.win
    return scoring.draw if outcome == "draw" else scoring.loss


def game_points(
    result: ev.Result | str, scoring: ev.Scoring, *, forfeit: bool = False
) -> tuple[int, int]:
    """(White, Black) half-points of a result under `scoring` (its `armageddon` rule
    included)."""
    white, black = outcomes(result, armageddon=scoring.armageddon)
    return points(white, scoring, forfeit=forfeit), points(black, scoring, forfeit=forfeit)


def scoring_of(created: ev.TournamentCreated | None) -> ev.Scoring:
    """The tournament's scoring, or the standard one before it is created."""
    return created.scoring if created is not None else STANDARD
